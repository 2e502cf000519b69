"""Real mail servers for the tests: aiosmtpd (SMTP, plain or STARTTLS with a login) and Debian's Dovecot
(IMAP, plain and TLS) configured in a temporary directory. No mail protocol is mocked.

Dovecot as root: its login processes run as ``default_login_user`` (``dovenull``) and its internal
services as ``default_internal_user`` (``dovecot``), the unprivileged users Debian's package creates; the
mailbox belongs to a system user of our own (``dippouchmail``, made here like scripts/postgres makes
``postgres``), because Dovecot will not let mail processes run as root. The directory is world-traversable
(mode 755) so those users can reach their sockets: pytest's own temporary directories are 0700 and would
lock them out. Not as root: every Dovecot user setting is the current user, which Dovecot accepts.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import imaplib
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from conftest import in_ci


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_cert(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost/127.0.0.1 (openssl, present wherever Python's ssl is)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True, capture_output=True,
    )  # fmt: skip
    os.chmod(key, 0o644)  # dovecot's config reader (root) and the test client read it
    return cert, key


def need(tool: str, why: str, installer: str = "scripts/setup") -> str:
    """The path of ``tool``, a program the tests start; a failure in CI without it, a skip elsewhere."""
    found = shutil.which(tool) or (f"/usr/sbin/{tool}" if Path(f"/usr/sbin/{tool}").exists() else None)
    if found is None:
        if in_ci():
            pytest.fail(f"{tool} is not installed: CI must run the {why} tests ({installer} installs it)")
        pytest.skip(f"{tool} is not installed ({why}); {installer} installs it as root")
    return found


# --------------------------------------------------------------------------------------------------
# SMTP


@dataclass
class SmtpServer:
    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    refuse: int = 0
    """Answer 451 (try later) to this many RCPT commands before accepting."""
    refused: int = 0
    controller: Any = None
    deliver: Callable[[str, bytes], None] | None = None
    """Hand each accepted message on to a mailbox, once per recipient, as a mail server's local delivery
    does (:meth:`ImapServer.deliver`); otherwise messages are only kept in ``messages``."""
    login: tuple[str, str] | None = None
    """The user and password STARTTLS sessions must log in with (a server started with ``tls_dir``)."""
    ca_file: Path | None = None
    """The certificate a client must trust for STARTTLS (self-signed, made by :func:`start_smtp`)."""

    def ids(self) -> list[str]:
        return [str(m["Message-ID"]) for m in self.messages]

    def to(self, addr: str) -> list[EmailMessage]:
        return [m for m in self.messages if str(m["To"]).lower() == addr.lower()]


class _Handler:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if self.server.refused < self.server.refuse:
            self.server.refused += 1
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)  # the default policy makes EmailMessage objects
        self.server.messages.append(parsed)
        deliver = self.server.deliver
        if deliver is not None:
            loop = asyncio.get_running_loop()
            for rcpt in envelope.rcpt_tos:  # IMAP is blocking: off the server's loop
                await loop.run_in_executor(None, deliver, rcpt, envelope.content)
        return "250 Message accepted for delivery"


def start_smtp(*, tls_dir: Path | None = None, user: str | None = None, password: str | None = None) -> SmtpServer:
    """An aiosmtpd server on a free localhost port; with ``tls_dir``, STARTTLS (required) and a login."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    server = SmtpServer("127.0.0.1", free_port())
    kwargs: dict[str, Any] = {}
    if tls_dir is not None:
        cert, key = make_cert(tls_dir)
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(str(cert), str(key))

        def auth(_server: Any, _session: Any, _envelope: Any, mechanism: str, data: Any) -> AuthResult:
            ok = isinstance(data, LoginPassword) and data.login.decode() == user and data.password.decode() == password
            return AuthResult(success=ok)

        kwargs = {"tls_context": ctx, "require_starttls": True, "authenticator": auth, "auth_required": True}
        server.login = (user or "", password or "")
        server.ca_file = cert
    server.controller = Controller(_Handler(server), hostname=server.host, port=server.port, **kwargs)
    server.controller.start()
    return server


# --------------------------------------------------------------------------------------------------
# IMAP (Dovecot)


@dataclass
class ImapServer:
    directory: Path
    port: int
    tls_port: int
    user: str
    password: str
    cert: Path
    pid: int = 0
    others: dict[str, str] = field(default_factory=dict)
    """More mailboxes on the same server (address: password): players' own, for tests that read what a
    player receives as their mail program would."""

    def _login(self, user: str | None) -> imaplib.IMAP4_SSL:
        ctx = ssl.create_default_context(cafile=str(self.cert))
        conn = imaplib.IMAP4_SSL("127.0.0.1", self.tls_port, ssl_context=ctx)
        user = user or self.user
        conn.login(user, self.password if user == self.user else self.others[user])
        return conn

    def append(self, raw: bytes, when: float | None = None, *, user: str | None = None) -> None:
        """Deliver a message into the mailbox (``user``'s, by default the orders mailbox) as the mail server
        would (INTERNALDATE = ``when``)."""
        conn = self._login(user)
        stamp = imaplib.Time2Internaldate(when if when is not None else time.time())
        typ, data = conn.append("INBOX", None, stamp, raw)
        assert typ == "OK", data
        conn.logout()

    def deliver(self, rcpt: str, raw: bytes) -> None:
        """Local delivery for :class:`SmtpServer`: a recipient with a mailbox here gets the message, a
        ``+`` address its base mailbox's (Dovecot's ``recipient_delimiter``); other recipients are not ours."""
        local, _, domain = rcpt.lower().partition("@")
        base = f"{local.split('+', 1)[0]}@{domain}"
        if base == self.user or base in self.others:
            self.append(raw, user=base)

    def inbox(self, user: str) -> list[EmailMessage]:
        """Every message in ``user``'s INBOX, oldest first, as their mail program would read them."""
        conn = self._login(user)
        try:
            conn.select("INBOX", readonly=True)
            typ, data = conn.uid("SEARCH", None, "ALL")  # type: ignore[arg-type]
            assert typ == "OK", data
            found = []
            for uid in data[0].split():
                typ, parts = conn.uid("FETCH", uid, "(RFC822)")
                assert typ == "OK", parts
                raw = next(p[1] for p in parts if isinstance(p, tuple))
                msg = message_from_bytes(raw, policy=email.policy.default)
                assert isinstance(msg, EmailMessage)
                found.append(msg)
            return found
        finally:
            conn.logout()

    def stop(self) -> None:
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, 15)
        shutil.rmtree(self.directory, ignore_errors=True)


def _dovecot_users() -> tuple[str, str, int, int]:
    """(internal user, login user, mail uid, mail gid) for running Dovecot here."""
    if os.getuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return me.pw_name, me.pw_name, me.pw_uid, me.pw_gid
    try:
        pwd.getpwnam("dippouchmail")
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "dippouchmail"],
            check=True, capture_output=True,
        )  # fmt: skip
    mail = pwd.getpwnam("dippouchmail")
    return "dovecot", "dovenull", mail.pw_uid, mail.pw_gid


def start_dovecot(others: Mapping[str, str] | None = None) -> ImapServer:
    """Dovecot with the orders mailbox, and ``others`` (address: password) beside it."""
    need("dovecot", "IMAP intake")
    d = Path(tempfile.mkdtemp(prefix="dippouch-imap-"))
    os.chmod(d, 0o755)
    cert, key = make_cert(d)
    internal, login, uid, gid = _dovecot_users()
    home = d / "home"
    home.mkdir()
    os.chown(home, uid, gid)
    user, password = "orders@w3k.example", "s3cret-imap"
    accounts = {user: password, **(others or {})}
    (d / "users").write_text("".join(f"{u}:{{PLAIN}}{p}::::\n" for u, p in accounts.items()), encoding="utf-8")
    os.chmod(d / "users", 0o644)
    port, tls_port = free_port(), free_port()
    conf = d / "dovecot.conf"
    conf.write_text(
        f"""
base_dir = {d}/run
state_dir = {d}/state
instance_name = dippouch-{port}
log_path = {d}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {internal}
default_login_user = {login}
first_valid_uid = {uid}
last_valid_uid = {uid}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={home}/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = {tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
""",
        encoding="utf-8",
    )
    binary = shutil.which("dovecot") or "/usr/sbin/dovecot"
    # Dovecot forks into the background: its output goes to a file, not to pipes the daemon would keep open.
    with open(d / "start.log", "wb") as startlog:
        done = subprocess.run([binary, "-c", str(conf)], stdout=startlog, stderr=startlog, check=False, timeout=30)
    if done.returncode != 0:
        log = (d / "dovecot.log").read_text() if (d / "dovecot.log").exists() else ""
        raise RuntimeError(f"dovecot did not start: {(d / 'start.log').read_text()}\n{log}")
    server = ImapServer(d, port, tls_port, user, password, cert, others=dict(others or {}))
    pidfile = d / "run" / "master.pid"
    for _ in range(100):
        # The pid file is made before its number is written: an empty one is read again (it failed a full run
        # with "invalid literal for int()").
        pid = pidfile.read_text().strip() if pidfile.exists() else ""
        if pid:
            try:
                with socket.create_connection(("127.0.0.1", tls_port), timeout=0.2):
                    server.pid = int(pid)
                    return server
            except OSError:
                pass
        time.sleep(0.05)
    raise RuntimeError("dovecot did not listen")


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = start_smtp()
    yield server
    server.controller.stop()


@pytest.fixture(scope="module")
def imap() -> Iterator[ImapServer]:
    server = start_dovecot()
    yield server
    server.stop()


def worker_mail_env(imap: ImapServer, smtp: SmtpServer, folder: Path, mail_from: str) -> dict[str, str]:
    """The environment a ``dippouch worker`` (or any mail command) reads its mail settings from, for these
    servers: the IMAP password in a file only its owner reads, as the deployment docs have it; SMTP plain, or
    STARTTLS with its login and certificate where the server was started with them."""
    pw = folder / "imap-password"
    pw.write_text(imap.password + "\n")
    pw.chmod(0o600)
    env = {
        "DIPPOUCH_IMAP_HOST": "127.0.0.1",
        "DIPPOUCH_IMAP_PORT": str(imap.tls_port),
        "DIPPOUCH_IMAP_USER": imap.user,
        "DIPPOUCH_IMAP_PASSWORD_FILE": str(pw),
        "DIPPOUCH_IMAP_CA_FILE": str(imap.cert),
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": mail_from,
    }
    if smtp.login is not None:
        assert smtp.ca_file is not None
        env |= {
            "DIPPOUCH_SMTP_SECURITY": "starttls",
            "DIPPOUCH_SMTP_USER": smtp.login[0],
            "DIPPOUCH_SMTP_PASSWORD": smtp.login[1],
            "DIPPOUCH_SMTP_CA_FILE": str(smtp.ca_file),
        }
    return env


def run_async(coro: Any) -> Any:
    return asyncio.run(coro)
