"""Mail server settings: per installation (environment or a TOML file); a game with a mailbox of its own is
fetched with its own file or options (``mail fetch --config``, ``--mailbox``), its position kept per mailbox.

Passwords come from an environment variable or a file, never from the command line (where ``ps`` and the
shell's history would show them): a setting names *where* the password is (``password_env``,
``password_file``), not what it is. The one exception is the SMTP server a coordinator sets up on the desk's
mail page (:func:`save_smtp`): someone running the embedded default has no environment to edit, so that
server, its password too, is kept in the installation's database (the database already holds what matters
more: every game and every order), is never shown back on a page, and is used only while neither the
environment nor the TOML file names an SMTP host (the operator's own settings win).

The environment's part (``DIPPOUCH_SMTP_HOST``, ``DIPPOUCH_IMAP_PORT``, ``DIPPOUCH_MAIL_FROM``... each listed
in docs/settings.md) is read once per process by :mod:`dippouch.settings`. ``DIPPOUCH_MAIL_CONFIG`` names a
TOML file with ``[smtp]`` and ``[imap]`` tables of the same keys in lower case (``host``, ``port``, ``user``,
``security``, ``ca_file``, ``password_env``, ``password_file``, ``mailbox``; ``from`` under ``[smtp]``), read
on each use, so an edit to it is seen without a restart.
"""

from __future__ import annotations

import logging
import tomllib
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dippouch import settings as installation
from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.numbers import number_or_none

if TYPE_CHECKING:
    from dippouch.store.db import Database

__all__ = [
    "ServerSettings",
    "environment_smtp",
    "load_settings",
    "read_password",
    "same_server",
    "save_smtp",
    "smtp_from_form",
    "stored_smtp",
    "use_store",
]

log = logging.getLogger("dippouch.mail.settings")

I18N_DOMAIN = "rules"
"""The catalogue of the mail servers' settings refusals, said in the reader's language on the desk and the command
line (dippouch.saying)."""

SECURITY = installation.SECURITY
_LOCAL = {"localhost", "127.0.0.1", "::1"}


@dataclass(frozen=True)
class ServerSettings:
    kind: str
    """``smtp`` or ``imap``."""
    host: str | None = None
    port: int | None = None
    user: str | None = None
    security: str = "tls"
    password_env: str | None = None
    password_file: str | None = None
    ca_file: str | None = None
    """A CA bundle for a server with its own certificate (the tests' self-signed one)."""
    mailbox: str = "INBOX"
    sender: str | None = None
    """SMTP: the From address of everything dippouch sends."""
    timeout: float = 30.0
    stored_password: str | None = field(default=None, repr=False)
    """The password saved with a server set up on the desk's mail page (``None``: read from a file or the
    environment, as named above)."""

    @property
    def default_port(self) -> int:
        if self.kind == "smtp":
            return {"tls": 465, "starttls": 587, "none": 25}[self.security]
        return {"tls": 993, "starttls": 143, "none": 143}[self.security]

    def where(self) -> str:
        return f"{self.kind}://{self.user + '@' if self.user else ''}{self.host}:{self.port or self.default_port}"

    def check(self) -> ServerSettings:
        """Complete and sane, or a clear error naming the setting to fix."""
        up = self.kind.upper()
        if not self.host:
            raise GameError(
                msg(
                    "no %(KIND)s server: set DIPPOUCH_%(KIND)s_HOST or [%(kind)s] host in the mail config",
                    KIND=up,
                    kind=self.kind,
                )
            )
        if self.security not in SECURITY:
            raise GameError(
                msg(
                    "%(kind)s security %(security)s is not one of %(choices)s",
                    kind=self.kind,
                    security=repr(self.security),
                    choices=", ".join(SECURITY),
                )
            )
        if self.security == "none" and self.host not in _LOCAL and (self.user or self.kind == "imap"):
            raise GameError(
                msg(
                    "%(kind)s security 'none' would send the password in clear to %(host)s; use tls or starttls "
                    "(plain connections are allowed to this machine only)",
                    kind=self.kind,
                    host=self.host,
                )
            )
        if self.port is not None and not 0 < self.port < 65536:
            raise GameError(msg("%(kind)s port %(port)s is not a port number", kind=self.kind, port=self.port))
        return self

    def password(self) -> str | None:
        return read_password(self)


def read_password(s: ServerSettings) -> str | None:
    """The password saved on the desk's page, else from the file or environment variable the settings name
    (file first)."""
    if s.stored_password is not None:
        return s.stored_password
    up = s.kind.upper()
    given = _environment(s.kind)
    path = s.password_file or given.password_file
    if path:
        p = Path(path).expanduser()
        try:
            return p.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as e:
            raise GameError(
                msg(
                    "cannot read the %(kind)s password file %(path)s: %(why)s",
                    kind=s.kind,
                    path=path,
                    why=str(e.strerror),
                )
            ) from None
    env = s.password_env or f"DIPPOUCH_{up}_PASSWORD"
    value = installation.current().secret(s.password_env) if s.password_env else given.password
    if value is None and s.user:
        raise GameError(
            msg(
                "no %(kind)s password: set %(env)s (or DIPPOUCH_%(KIND)s_PASSWORD_FILE, or password_file in the mail "
                "config); passwords are never taken on the command line",
                kind=s.kind,
                env=env,
                KIND=up,
            )
        )
    return value


def _from_mapping(kind: str, data: Mapping[str, Any], base: ServerSettings) -> ServerSettings:
    known = {
        "host", "port", "user", "security", "password_env", "password_file", "ca_file", "mailbox", "from", "timeout"
    }  # fmt: skip
    for key in data:
        if key == "password":
            raise GameError(
                msg(
                    "[%(kind)s] password: a password is not kept in a settings file's text; put it in its own file "
                    '(password_file = "...", readable by you only) or an environment variable (password_env)',
                    kind=kind,
                )
            )
        if key not in known:
            raise GameError(
                msg(
                    "[%(kind)s] has no setting %(key)s; settings: %(known)s",
                    kind=kind,
                    key=repr(key),
                    known=", ".join(sorted(known)),
                )
            )
    out = base
    for key, value in data.items():
        if value is None:
            continue
        if key == "port":
            out = replace(out, port=int(value))
        elif key == "timeout":
            out = replace(out, timeout=float(value))
        elif key == "from":
            out = replace(out, sender=str(value))
        else:
            fields: dict[str, Any] = {key: str(value)}
            out = replace(out, **fields)
    return out


def load_settings(
    kind: str, overrides: Mapping[str, Any] | None = None, config: str | None = None, *, store: Database | None = None
) -> ServerSettings:
    """Settings for ``kind`` (``smtp``/``imap``): the config file, then the environment, then ``overrides``
    (command-line options or a game's own IMAP settings), each over the one before.

    SMTP with no host from the file or the environment: the server saved on the desk's mail page in ``store``'s
    database (default: the store :func:`use_store` named), with the file's or the environment's CA file and
    timeout (trust in a certificate is the machine's setting, not the page's)."""
    s = _configured(kind, overrides, config)
    if kind == "smtp" and not s.host:
        saved = stored_smtp(store)
        if saved is not None:
            s = replace(saved, ca_file=s.ca_file or saved.ca_file, timeout=s.timeout)
            if overrides:
                s = _from_mapping(kind, {k: v for k, v in overrides.items() if v is not None}, s)
    return s


def _configured(kind: str, overrides: Mapping[str, Any] | None, config: str | None) -> ServerSettings:
    """The file's, the environment's and ``overrides``' settings, without the desk's saved server."""
    s = ServerSettings(kind)
    path = config or installation.current().mail_config
    if path:
        try:
            data = tomllib.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        except OSError as e:
            raise GameError(
                msg("cannot read the mail config %(path)s: %(why)s", path=path, why=str(e.strerror))
            ) from None
        except tomllib.TOMLDecodeError as e:
            raise GameError(msg("mail config %(path)s: %(why)s", path=path, why=str(e))) from None
        section = data.get(kind, {})
        if not isinstance(section, Mapping):
            raise GameError(msg("mail config %(path)s: [%(kind)s] must be a table", path=path, kind=kind))
        s = _from_mapping(kind, section, s)
    env = _environment(kind)
    envmap: dict[str, Any] = {
        "host": env.host,
        "port": env.port,
        "user": env.user,
        "security": env.security,
        "ca_file": env.ca_file,
    }
    if kind == "imap":
        envmap["mailbox"] = env.mailbox
    else:
        envmap["from"] = env.sender
    try:
        s = _from_mapping(kind, {k: v for k, v in envmap.items() if v}, s)
        if overrides:
            s = _from_mapping(kind, {k: v for k, v in overrides.items() if v is not None}, s)
    except ValueError as e:
        raise GameError(msg("%(kind)s settings: %(why)s", kind=kind, why=str(e))) from None
    return s


def _environment(kind: str) -> installation.MailServer:
    """The environment's settings for ``kind``, a wrong one as a :class:`GameError` (what mail's callers catch)."""
    try:
        return installation.current().smtp if kind == "smtp" else installation.current().imap
    except DippouchError as e:
        raise GameError(e.msg) from None


# -- the SMTP server set up on the desk's mail page ----------------------------------------------------------

_store: weakref.ReferenceType[Database] | None = None


def use_store(store: Database | None) -> None:
    """Name the database whose saved SMTP server :func:`load_settings` falls back on when it is given none
    (the web app does, at its creation: its pages, its in-process worker and the sign-in pages' "mail is not
    set up" all ask without a store in hand). Held weakly: a closed store is forgotten with it."""
    global _store
    _store = weakref.ref(store) if store is not None else None


def stored_smtp(store: Database | None = None) -> ServerSettings | None:
    """The SMTP server saved on the desk's mail page (``None``: none saved, or no database known)."""
    from dippouch.store.installation import installation_values

    if store is not None:
        got = installation_values(store, "smtp")
    else:
        named = _store() if _store is not None else None
        if named is None:
            return None
        try:
            got = installation_values(named, "smtp")
        except Exception as e:
            # Only the named default is forgiven: a database dropped since (a finished test's, a closed app's)
            # must not make "is mail set up?" fail everywhere else; a store passed in is read strictly.
            log.warning("the saved SMTP server could not be read (%s): taken as none", type(e).__name__)
            return None
    if not got.get("host"):
        return None
    return ServerSettings(
        "smtp",
        host=got["host"],
        port=int(got["port"]) if got.get("port") else None,
        user=got.get("user") or None,
        security=got.get("security") or "starttls",
        sender=got.get("from") or None,
        stored_password=got.get("password"),
    )


def environment_smtp() -> dict[str, str]:
    """The SMTP settings the environment or the TOML file gives, by the variable's (or key's) name, when they
    name a host, and so are used instead of the desk's page (empty: the page's are used). Passwords are named,
    never shown."""
    given = _configured("smtp", None, None)
    if not given.host:
        return {}
    env = _environment("smtp")
    out = {"DIPPOUCH_SMTP_HOST" if env.host else "[smtp] host": given.host}
    if given.port:
        out["DIPPOUCH_SMTP_PORT" if env.port else "[smtp] port"] = str(given.port)
    out["DIPPOUCH_SMTP_SECURITY" if env.security else "security"] = given.security
    if given.user:
        out["DIPPOUCH_SMTP_USER" if env.user else "[smtp] user"] = given.user
    if given.sender:
        out["DIPPOUCH_MAIL_FROM" if env.sender else "[smtp] from"] = given.sender
    return out


FORM_FIELDS = ("host", "port", "security", "user", "password", "from")


def same_server(saved: ServerSettings, host: str, port: int | None, security: str, user: str | None) -> bool:
    """Whether a server typed on the desk's page is the one ``saved`` names: the same host (its name's case and a
    trailing dot aside), port (a blank one being the security's usual port), security and user. Only to that
    server does a blank password send the saved one (issue 52, finding 9: a newly typed host was sent it)."""
    typed = replace(saved, host=host, port=port, security=security, user=user)
    return (
        (saved.host or "").lower().rstrip(".") == host.lower().rstrip(".")
        and (saved.port or saved.default_port) == (typed.port or typed.default_port)
        and saved.security == security
        and (saved.user or None) == (user or None)
    )


def smtp_from_form(form: Mapping[str, str], *, saved: ServerSettings | None) -> ServerSettings:
    """The server a coordinator typed on the desk's page, checked; a blank password keeps the ``saved`` server's
    (the page never shows it back), but only for that same server (:func:`same_server`): to another host, port,
    security or user, a blank password is no password, and one is asked for. A :class:`GameError` names the
    field to fix and how."""
    from dippouch.store.installation import VALUE_LENGTH

    host = form.get("host", "").strip()
    if not host:
        raise GameError(msg("host: the SMTP server's name is missing; e.g. smtp.example.org"))
    if "://" in host or "/" in host or " " in host or ":" in host.strip("[]"):
        raise GameError(
            msg(
                "host %(host)s: give the server's name only, without a scheme or port; e.g. smtp.example.org",
                host=repr(host),
            )
        )
    security = form.get("security", "").strip().lower()
    if security not in SECURITY:
        raise GameError(
            msg(
                "security %(security)s: choose one of %(choices)s (STARTTLS on port 587 is usual)",
                security=repr(security),
                choices=", ".join(SECURITY),
            )
        )
    raw_port = form.get("port", "").strip()
    port: int | None = None
    if raw_port:
        port = number_or_none(raw_port)
        if port is None or not 0 < port < 65536:
            raise GameError(
                msg(
                    "port %(port)s is not a port number (1-65535); usually 587 for STARTTLS, 465 for TLS, 25 for none",
                    port=repr(raw_port),
                )
            )
    sender = form.get("from", "").strip()
    local, at, domain = sender.rpartition("@")
    # A domain has a dot, but for mail that stays on this machine (games@localhost: the local mail server's).
    named = "." in domain or domain.lower() == "localhost"
    if not (at and local and named and not any(c.isspace() or c in "<>,;\"'" for c in sender)):
        raise GameError(
            msg(
                "sender address %(sender)s: give the address the site's mail comes from; e.g. games@%(domain)s",
                sender=repr(sender),
                domain=_domain(host),
            )
        )
    user = form.get("user", "").strip() or None
    password = form.get("password", "")
    kept = saved.stored_password if saved is not None and same_server(saved, host, port, security, user) else None
    stored_password = password if password else (kept if user else None)
    if user and stored_password is None:
        if saved is not None and saved.stored_password is not None:
            raise GameError(
                msg(
                    "password: the saved password is kept only for the server it was saved with (%(where)s); "
                    "type the password for %(user)s at %(host)s again",
                    where=saved.where(),
                    user=user,
                    host=host,
                )
            )
        raise GameError(msg("password: the server's password for %(user)s is missing", user=user))
    for name, value in (("host", host), ("user", user), ("sender address", sender), ("password", password)):
        if value and len(value) > VALUE_LENGTH:
            raise GameError(
                msg(
                    "%(field)s: at most %(most)d characters (got %(got)d)",
                    field=name,
                    most=VALUE_LENGTH,
                    got=len(value),
                )
            )
    machine = _configured("smtp", None, None)  # its CA file and timeout: the machine's, not the page's
    s = ServerSettings(
        "smtp",
        host=host,
        port=port,
        user=user,
        security=security,
        sender=sender,
        stored_password=stored_password,
        ca_file=machine.ca_file,
        timeout=machine.timeout,
    )
    return s.check()


def _domain(host: str) -> str:
    """The domain an example sender address names: the server's own, but never a piece of an address
    (127.0.0.1 made "games@0.1")."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        parts = host.split(".")
        return ".".join(parts[-2:]) if len(parts) >= 2 else "localhost" if host in _LOCAL else "example.org"
    return "localhost" if ip.is_loopback else "example.org"


def save_smtp(store: Database, s: ServerSettings) -> None:
    """Keep ``s`` (from :func:`smtp_from_form`) as the installation's SMTP server, every field at once."""
    from dippouch.play import mail_out

    mail_out.save_server(
        store,
        "smtp",
        {
            "host": s.host,
            "port": str(s.port) if s.port else None,
            "security": s.security,
            "user": s.user,
            "password": s.stored_password if s.user else None,
            "from": s.sender,
        },
    )
