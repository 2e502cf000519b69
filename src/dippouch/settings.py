"""The installation's settings: every ``DIPPOUCH_*`` variable is read here, once per process, and nowhere else.

A setting read wherever it is used is a dependency no one can see: which process needs which variable, what
a wrong value does, and what the default is were spread over ten modules and re-read on every use (the mail
settings on every message). Here each variable is parsed into a typed value the first time anything asks for
it, and kept: a bad value is a :class:`DippouchError` naming the variable, the value and a good example, not
a traceback somewhere deep in a worker. docs/settings.md is the table of them all (name, type, default, what
it does, which process reads it); tests/project/test_settings.py fails when a module reads the environment
itself or the table and the code name different variables. The command line's own options that typer reads
(``envvar=`` in :mod:`dippouch.cli`) are listed there too.

Plain frozen dataclasses, not pydantic-settings: a command of the command line starts in a tenth of a second
and never imports pydantic (tests/cli/test_cli_startup.py), and this module is imported by nearly all of them.

Each value is parsed on first use, not all at start: a coordinator's ``dippouch variants`` must not fail on
a mistyped ``DIPPOUCH_SMTP_PORT`` it never uses. :func:`reread` forgets everything (tests that set the
environment, a process told its settings changed).

Where the installation is
-------------------------

Every link dippouch sends or shows (sign-in links, players' links, the coordinator's link, calendar feeds,
notifications, mail) is made from one configured public address, never from a request's ``Host`` or
``X-Forwarded-*`` headers: those are written by whoever sends the request, and a sign-in link mailed to Bob
that points at the sender's host hands Bob's account to the sender. Requests naming any other host are
refused, which also keeps a page elsewhere from reaching a server on this machine by rebinding its own name
to 127.0.0.1.

``DIPPOUCH_PUBLIC_URL``
    The address people open, e.g. ``https://diplomacy.example.org``: the root of a host (the pages link from
    it; a path is refused). Unset: the address ``dippouch serve`` prints (``http://localhost:PORT``).
``DIPPOUCH_ALLOWED_HOSTS``
    Comma-separated host names the server answers to besides the public address's own (``*.example.org``
    allows the subdomains). Unset: the public address's host, and when that is a loopback name, all of them
    (``localhost``, ``127.0.0.1``, ``::1``), as a browser on the same machine may use any.
``DIPPOUCH_METRICS_FROM``
    Comma-separated networks whose clients may read ``/metrics`` (request counts by route and status are for
    the operator's Prometheus, not the world). Unset: this machine only (``127.0.0.0/8,::1``).
``DIPPOUCH_FORWARDED_ALLOW_IPS``
    The reverse proxy's addresses, whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed (read by
    uvicorn in ``dippouch serve``); unset, those headers are ignored.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, Msg, msg

I18N_DOMAIN = "rules"
"""The catalogue of the settings' refusals, said to the installation's coordinator in their language on the command
line and the desk (dippouch.saying)."""

__all__ = [
    "DEFAULT_PUBLIC_URL",
    "LOOPBACK_NAMES",
    "MailServer",
    "PoolSize",
    "Settings",
    "Site",
    "TestHooks",
    "current",
    "default_site",
    "metrics_networks",
    "networks",
    "reread",
    "set_default_address",
    "site",
    "use_default_site",
]

DEFAULT_PUBLIC_URL = "http://localhost:8000"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def _host_of(netloc_host: str) -> str:
    """A host as compared here: lower case, no trailing dot, IPv6 without brackets."""
    return netloc_host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Site:
    """The installation's public address and the hosts it answers to."""

    public_url: str
    """Scheme, host and optional port, without a trailing slash: links are this plus a path."""
    allowed_hosts: tuple[str, ...]
    configured: bool = True
    """False when the address is the embedded default rather than a setting (the pages then say how to set it)."""

    @classmethod
    def at(cls, public_url: str, allowed_hosts: str | None = None, *, configured: bool = True) -> Site:
        """The site at ``public_url``, or a :class:`DippouchError` saying what is wrong with the setting."""
        url = public_url.strip().rstrip("/")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise DippouchError(
                msg(
                    "DIPPOUCH_PUBLIC_URL %(url)s is not a web address; give the address people open, "
                    "e.g. https://diplomacy.example.org",
                    url=repr(public_url),
                )
            )
        if parts.query or parts.fragment or parts.username or parts.password:
            raise DippouchError(
                msg(
                    "DIPPOUCH_PUBLIC_URL %(url)s has a query, fragment or user name; give only %(only)s",
                    url=repr(public_url),
                    only=f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}",
                )
            )
        if parts.path not in ("", "/"):
            # Every page links to /games/..., /static/..., /signin from the host's root, and the server answers
            # there: under a path, the mailed links would work and every link on the pages would not.
            raise DippouchError(
                msg(
                    "DIPPOUCH_PUBLIC_URL %(url)s has a path (%(path)s): dippouch is served at the root of its host, "
                    "where its pages link; give %(root)s, or a host of its own (a subdomain such as "
                    "diplomacy.example.org) where another site holds that root",
                    url=repr(public_url),
                    path=parts.path,
                    root=f"{parts.scheme}://{parts.netloc}",
                )
            )
        try:
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            raise DippouchError(
                msg("DIPPOUCH_PUBLIC_URL %(url)s has a port that is not a number", url=repr(public_url))
            ) from None
        own = _host_of(parts.hostname)
        hosts = [own]
        if _is_loopback(own):
            hosts += [h for h in LOOPBACK_NAMES if h != own]
        for extra in (allowed_hosts or "").split(","):
            name = _host_of(extra)
            if not name:
                continue
            if name == "*":
                raise DippouchError(
                    msg(
                        "DIPPOUCH_ALLOWED_HOSTS may not be '*': name the hosts this site answers to, "
                        "e.g. %(host)s,www.%(host)s",
                        host=own,
                    )
                )
            if name not in hosts:
                hosts.append(name)
        return cls(url, tuple(hosts), configured)

    @property
    def origin(self) -> str:
        """Scheme, host and port: what a browser sends as ``Origin`` from our own pages."""
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def host(self) -> str:
        """The public address's host name (a passkey's relying-party id)."""
        return _host_of(urlsplit(self.public_url).hostname or "")

    @property
    def https(self) -> bool:
        return self.public_url.startswith("https://")

    def link(self, path: str) -> str:
        """The absolute address of ``path`` (``/k/...``) on this site."""
        return self.public_url + ("" if path.startswith("/") else "/") + path

    def allows(self, host_header: str) -> bool:
        """Whether a request's ``Host`` names this site (its port is not compared: the proxy or the listening
        socket decided that). A header that is not a host and an optional port of digits (RFC 9110 7.2:
        ``example.org:evil``, ``[::1]junk``) names no site: what follows the host is attacker input too, and a
        page that writes the header back would carry it."""
        value = host_header.strip()
        if value.startswith("["):  # [::1]:8000
            name, closed, rest = value[1:].partition("]")
            if not closed:
                return False
        elif value.count(":") == 1:
            name, colon, port = value.partition(":")
            rest = colon + port
        else:
            name, rest = value, ""
        if rest and not (rest[0] == ":" and all("0" <= c <= "9" for c in rest[1:])):
            return False
        name = _host_of(name)
        if not name:
            return False
        for allowed in self.allowed_hosts:
            if name == allowed or (allowed.startswith("*.") and name.endswith(allowed[1:])):
                return True
        return False


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str, what: str) -> tuple[Network, ...]:
    """Comma-separated addresses or networks, or a :class:`DippouchError` naming the one that is not."""
    out: list[Network] = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            out.append(ipaddress.ip_network(part.strip(), strict=False))
        except ValueError:
            raise DippouchError(
                msg(
                    "%(setting)s: %(part)s is not an address or network (e.g. 10.0.0.0/8)",
                    setting=what,
                    part=repr(part.strip()),
                )
            ) from None
    return tuple(out)


_YES = ("1", "true", "yes", "on")
_NO = ("", "0", "false", "no", "off")
SECURITY = ("tls", "starttls", "none")
PROOF_MODES = ("required", "from-address")
POOLERS = ("session", "transaction")


def _bad(name: str, raw: str, what: Msg, example: str) -> DippouchError:
    return DippouchError(
        msg(
            "%(name)s=%(raw)s is not %(what)s; e.g. %(name)s=%(example)s",
            name=name,
            raw=repr(raw),
            what=what,
            example=example,
        )
    )


@dataclass(frozen=True)
class PoolSize:
    """``DIPPOUCH_DB_POOL``: PostgreSQL connections a process keeps, and how many more it may open under load
    (``None``: the store's default)."""

    keep: int
    extra: int | None


@dataclass(frozen=True)
class MailServer:
    """The environment's part of an SMTP or IMAP server's settings; each field ``None`` where its variable is
    unset (the mail config file, then the built-in default, decide: :func:`dippouch.mail.settings.load_settings`)."""

    host: str | None = None
    port: int | None = None
    user: str | None = None
    security: str | None = None
    ca_file: str | None = None
    password: str | None = field(default=None, repr=False)
    """Kept as given, even empty: an empty password is a password (a server that asks for none)."""
    password_file: str | None = None
    mailbox: str | None = None
    """IMAP only: the folder orders are read from."""
    sender: str | None = None
    """SMTP only: the From address of everything dippouch sends (``DIPPOUCH_MAIL_FROM``)."""


@dataclass(frozen=True)
class TestHooks:
    """The crash and pause points of the crash and race tests (:mod:`dippouch.store.faults`); nothing else
    sets them."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    crash_at: str | None = None
    crash_chance: float = 1.0
    crash_sigkill: bool = False
    pause_at: str | None = None
    pause_dir: Path | None = None


# Every variable is named in full, never assembled (``f"DIPPOUCH_{kind}_HOST"``), so that a search for one
# finds where it is read and tests/project/test_settings.py can compare the code with docs/settings.md.
_SERVER_NAMES = {
    "smtp": {
        "host": "DIPPOUCH_SMTP_HOST",
        "port": "DIPPOUCH_SMTP_PORT",
        "user": "DIPPOUCH_SMTP_USER",
        "security": "DIPPOUCH_SMTP_SECURITY",
        "ca_file": "DIPPOUCH_SMTP_CA_FILE",
        "password": "DIPPOUCH_SMTP_PASSWORD",
        "password_file": "DIPPOUCH_SMTP_PASSWORD_FILE",
        "sender": "DIPPOUCH_MAIL_FROM",
    },
    "imap": {
        "host": "DIPPOUCH_IMAP_HOST",
        "port": "DIPPOUCH_IMAP_PORT",
        "user": "DIPPOUCH_IMAP_USER",
        "security": "DIPPOUCH_IMAP_SECURITY",
        "ca_file": "DIPPOUCH_IMAP_CA_FILE",
        "password": "DIPPOUCH_IMAP_PASSWORD",
        "password_file": "DIPPOUCH_IMAP_PASSWORD_FILE",
        "mailbox": "DIPPOUCH_IMAP_MAILBOX",
    },
}


@dataclass(frozen=True)
class Settings:
    """The installation's settings: each attribute read from the environment, parsed and checked the first
    time it is asked for, then kept. ``Settings(environ)`` reads a mapping of one's own (the tests')."""

    environ: Mapping[str, str] = field(repr=False)
    """Where the values are read from (``repr=False``: it holds the passwords)."""

    @classmethod
    def read(cls) -> Settings:
        """The process's own: each setting is read when first used, not all when this is made, so that a
        process (or a test) that sets a variable before it uses it is not held to an earlier look at another."""
        return cls(os.environ)

    def _given(self, name: str) -> str | None:
        """The variable's value without surrounding blanks; ``None`` when unset or blank."""
        return self.environ.get(name, "").strip() or None

    def _flag(self, name: str) -> bool:
        raw = self.environ.get(name, "")
        value = raw.strip().lower()
        if value in _YES:
            return True
        if value in _NO:
            return False
        raise _bad(name, raw, msg("on or off (1, true, yes, on; or 0, false, no, off)"), "1")

    def secret(self, name: str) -> str | None:
        """The variable a mail config's ``password_env`` names (any name the operator chose)."""
        return self.environ.get(name)

    # --- where the installation is (read by :func:`site` and :func:`metrics_networks`)

    @cached_property
    def public_url(self) -> str | None:
        """``DIPPOUCH_PUBLIC_URL``, checked by :meth:`Site.at` (``None``: the address ``dippouch serve`` prints)."""
        return self._given("DIPPOUCH_PUBLIC_URL")

    @cached_property
    def allowed_hosts(self) -> str | None:
        """``DIPPOUCH_ALLOWED_HOSTS``, checked by :meth:`Site.at`."""
        return self.environ.get("DIPPOUCH_ALLOWED_HOSTS")

    @cached_property
    def metrics_from(self) -> tuple[Network, ...]:
        """``DIPPOUCH_METRICS_FROM``: who may read ``/metrics`` (this machine by default)."""
        text = self.environ.get("DIPPOUCH_METRICS_FROM") or "127.0.0.0/8,::1"
        return networks(text, "DIPPOUCH_METRICS_FROM")

    @cached_property
    def workers(self) -> bool:
        """``DIPPOUCH_WORKERS``: deadlines are processed by ``dippouch worker`` processes, not by the server's
        own scheduler."""
        return self._flag("DIPPOUCH_WORKERS")

    # --- the database

    @cached_property
    def database_url(self) -> str | None:
        """``DIPPOUCH_DATABASE_URL`` (``None``: ``dippouch.db`` in the current folder, :mod:`dippouch.store.db`)."""
        return self._given("DIPPOUCH_DATABASE_URL")

    @cached_property
    def db_pool(self) -> PoolSize | None:
        """``DIPPOUCH_DB_POOL``: ``20`` (kept) or ``20,10`` (kept, and extra under load); ``None`` when unset."""
        text = self._given("DIPPOUCH_DB_POOL")
        if text is None:
            return None
        try:
            numbers = [int(p.strip()) for p in text.split(",")]
        except ValueError:
            numbers = []
        if len(numbers) not in (1, 2) or not 1 <= numbers[0] <= 500 or not 0 <= numbers[-1] <= 500:
            raise DippouchError(
                msg(
                    "DIPPOUCH_DB_POOL=%(pool)s is not a pool size: write the connections to keep (1-500), e.g. 20, or "
                    "kept and extra under load, e.g. 20,10",
                    pool=repr(text),
                )
            )
        return PoolSize(numbers[0], numbers[1] if len(numbers) == 2 else None)

    @cached_property
    def db_pooler(self) -> str:
        """``DIPPOUCH_DB_POOLER``: ``transaction`` where a pooler in transaction mode (PgBouncer's usual mode)
        stands between the processes and PostgreSQL, ``session`` (the default) where each connection is a server
        session of its own, direct or through a pooler in session mode."""
        raw = self._given("DIPPOUCH_DB_POOLER")
        value = (raw or "session").lower()
        if value not in POOLERS:
            raise _bad(
                "DIPPOUCH_DB_POOLER",
                raw or "",
                msg(
                    "a pooling mode: transaction (a pooler such as PgBouncer in transaction mode between dippouch and "
                    "PostgreSQL) or session (the default)"
                ),
                "transaction",
            )
        return value

    # --- variants

    @cached_property
    def variant_path(self) -> tuple[Path, ...]:
        """``DIPPOUCH_VARIANT_PATH``: folders of variant files, searched first, in order."""
        return tuple(Path(p).expanduser() for p in self.environ.get("DIPPOUCH_VARIANT_PATH", "").split(os.pathsep) if p)

    @cached_property
    def settings_file(self) -> Path:
        """``DIPPOUCH_SETTINGS``, else ``$XDG_CONFIG_HOME/dippouch/settings.toml``, else under ``~/.config``."""
        given = self.environ.get("DIPPOUCH_SETTINGS")
        if given:
            return Path(given).expanduser()
        home = self.environ.get("HOME")
        base = self.environ.get("XDG_CONFIG_HOME") or str(Path(home) / ".config" if home else Path.home() / ".config")
        return Path(base) / "dippouch" / "settings.toml"

    @cached_property
    def cache_dir(self) -> Path | None:
        """``DIPPOUCH_CACHE_DIR`` (set but empty, ``off``, ``0``, ``no`` or ``false``: no cache), else
        ``$XDG_CACHE_HOME/dippouch``, else ``~/.cache/dippouch``; ``None`` when off or there is no home folder."""
        given = self.environ.get("DIPPOUCH_CACHE_DIR")
        if given is not None:
            return None if given.strip().lower() in ("", "off", "0", "no", "false") else Path(given).expanduser()
        base = self.environ.get("XDG_CACHE_HOME")
        if not base:
            try:
                base = str(Path.home() / ".cache")
            except RuntimeError:  # no home folder (a service account): no cache, not a failure
                return None
        return Path(base) / "dippouch"

    # --- mail

    @cached_property
    def mail_config(self) -> str | None:
        """``DIPPOUCH_MAIL_CONFIG``: the mail settings file (TOML), read on each use by
        :func:`dippouch.mail.settings.load_settings`."""
        return self.environ.get("DIPPOUCH_MAIL_CONFIG") or None

    @cached_property
    def smtp(self) -> MailServer:
        return self._server("smtp")

    @cached_property
    def imap(self) -> MailServer:
        return self._server("imap")

    def _server(self, kind: str) -> MailServer:
        names = _SERVER_NAMES[kind]

        def given(key: str) -> str | None:
            # Blank is unset; a value is kept as written (a path may end in a blank).
            return self.environ.get(names[key]) or None if key in names else None

        security = given("security")
        if security is not None and security not in SECURITY:
            raise _bad(names["security"], security, msg("one of %(choices)s", choices=", ".join(SECURITY)), "starttls")
        return MailServer(
            host=given("host"),
            port=self._port(names["port"]),
            user=given("user"),
            security=security,
            ca_file=given("ca_file"),
            password=self.environ.get(names["password"]),
            password_file=given("password_file"),
            mailbox=given("mailbox"),
            sender=given("sender"),
        )

    def _port(self, name: str) -> int | None:
        raw = self.environ.get(name)
        if not raw:
            return None
        try:
            port = int(raw)
        except ValueError:
            port = 0
        if not 0 < port < 65536:
            raise _bad(name, raw, msg("a port number (1-65535)"), "587" if "SMTP" in name else "993")
        return port

    @cached_property
    def mail_proof(self) -> str | None:
        """``DIPPOUCH_MAIL_PROOF``: ``required`` or ``from-address`` (``None``: a game's own choice, else
        ``required``)."""
        raw = self.environ.get("DIPPOUCH_MAIL_PROOF", "")
        mode = raw.strip().lower()
        if mode and mode not in PROOF_MODES:
            raise _bad(
                "DIPPOUCH_MAIL_PROOF", raw, msg("one of %(choices)s", choices=", ".join(PROOF_MODES)), "required"
            )
        return mode or None

    @cached_property
    def ocr_engine(self) -> str | None:
        """``DIPPOUCH_OCR_ENGINE``: the engine photographs are read with (``None``: the best one installed).
        Its name is checked by :mod:`dippouch.mail.ocr_engines`, which knows the engines."""
        return (self.environ.get("DIPPOUCH_OCR_ENGINE") or "").strip().lower() or None

    # --- notifications

    @cached_property
    def notify_allow_private(self) -> bool:
        """``DIPPOUCH_NOTIFY_ALLOW_PRIVATE``: webhooks and push endpoints may be plain http or on a private
        network (a chat server on the installation's own network; the tests' receivers)."""
        return self._flag("DIPPOUCH_NOTIFY_ALLOW_PRIVATE")

    @cached_property
    def vapid_subject(self) -> str | None:
        """``DIPPOUCH_VAPID_SUBJECT``: whom push services may write to about our pushes (RFC 8292)."""
        got = self._given("DIPPOUCH_VAPID_SUBJECT")
        if got is not None and not (got.startswith("mailto:") or got.startswith("https://")):
            raise _bad("DIPPOUCH_VAPID_SUBJECT", got, msg("a mailto: or https: address"), "mailto:admin@example.org")
        return got

    # --- bots

    @cached_property
    def bot_pace(self) -> float:
        """``DIPPOUCH_BOT_PACE``: the least time, in seconds, between two phases of a game bots alone play (no
        power still in it is a person's): ``60``, ``90s``, ``2m``, ``1h``; from 1 second to 7 days, a minute by
        default. Such a game never waits longer than its own deadlines say (docs/bots.md)."""
        raw = self.environ.get("DIPPOUCH_BOT_PACE", "")
        text = raw.strip().lower()
        if not text:
            return 60.0
        units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
        scale = units.get(text[-1], 1.0)
        try:
            seconds = float(text[:-1] if text[-1] in units else text) * scale
        except ValueError:
            seconds = -1.0
        if not 1 <= seconds <= 7 * 86400:
            raise _bad("DIPPOUCH_BOT_PACE", raw, msg("a time from 1 second to 7 days (60, 90s, 2m, 1h)"), "1m")
        return seconds

    @cached_property
    def search_budget(self) -> float:
        """``DIPPOUCH_SEARCH_BUDGET``: seconds of wall time the ``search`` bot level may think about one power's
        movement phase (0.5 by default; 0.05 to 30). Bots seated in games play in the worker or the web process,
        so a slow machine lowers it and a fast one may raise it."""
        raw = self.environ.get("DIPPOUCH_SEARCH_BUDGET", "")
        if not raw.strip():
            return 0.5
        try:
            budget = float(raw)
        except ValueError:
            budget = -1.0
        if not 0.05 <= budget <= 30:
            raise _bad(
                "DIPPOUCH_SEARCH_BUDGET",
                raw,
                msg("seconds from %(lowest)s to %(highest)s", lowest="0.05", highest="30"),
                "0.5",
            )
        return budget

    # --- the web's work budget (dippouch.web.http.budget)

    def _seconds(self, name: str, default: float, lowest: float, highest: float, example: str) -> float:
        return self._number(name, default, lowest, highest, example, N_("seconds from %(lowest)s to %(highest)s"))

    def _number(self, name: str, default: float, lowest: float, highest: float, example: str, unit: str) -> float:
        """``unit``: the template saying the range (``%(lowest)s``, ``%(highest)s``), marked for the catalogue."""
        raw = self.environ.get(name, "")
        if not raw.strip():
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not lowest <= value <= highest:
            raise _bad(name, raw, Msg(unit, {"lowest": f"{lowest:g}", "highest": f"{highest:g}"}), example)
        return value

    @cached_property
    def work_seconds(self) -> float:
        """``DIPPOUCH_WORK_SECONDS``: CPU seconds of expensive work (line checks, sandboxes, drawings, "process
        now") one person, or one address where nobody is signed in, may spend a minute (10 by default)."""
        return self._seconds("DIPPOUCH_WORK_SECONDS", 10.0, 0.1, 3600.0, "10")

    @cached_property
    def work_site_seconds(self) -> float:
        """``DIPPOUCH_WORK_SITE_SECONDS``: CPU seconds a minute everyone together may spend in each lane of
        expensive work (checks, drawings, processing; 40 by default: two thirds of a core)."""
        return self._seconds("DIPPOUCH_WORK_SITE_SECONDS", 40.0, 1.0, 36000.0, "40")

    @cached_property
    def work_job_seconds(self) -> float:
        """``DIPPOUCH_WORK_JOB_SECONDS``: the largest estimate of one expensive request, e.g. a replay's drawing
        (120 by default); a larger one is refused with what to ask for instead."""
        return self._seconds("DIPPOUCH_WORK_JOB_SECONDS", 120.0, 1.0, 3600.0, "120")

    @cached_property
    def notify_scan_seconds(self) -> float:
        """``DIPPOUCH_NOTIFY_SCAN_SECONDS``: seconds between the notifier's scans for what the event log does not
        record (a game's end, press received, a seat offered; 60 by default): each reads every seated person's
        choices, so a large site scans seldom, and a small one may tell these within seconds."""
        return self._seconds("DIPPOUCH_NOTIFY_SCAN_SECONDS", 60.0, 0.5, 3600.0, "60")

    @cached_property
    def work_processes(self) -> int:
        """``DIPPOUCH_WORK_PROCESSES``: worker processes each lane of expensive work may run at once beside the
        server (dippouch.web.http.pool; never more than the lane runs at once); by default the machine's cores but one,
        at least 1; 0 runs the work in the server's own threads."""
        raw = self.environ.get("DIPPOUCH_WORK_PROCESSES", "")
        if not raw.strip():
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
            return max(1, cores - 1)
        try:
            value = int(raw)
        except ValueError:
            value = -1
        if not 0 <= value <= 64:
            raise _bad("DIPPOUCH_WORK_PROCESSES", raw, msg("a number of processes from 0 to 64"), "2")
        return value

    @cached_property
    def cli_language(self) -> str | None:
        """The command line's language from the locale: ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``, as POSIX
        ranks them, the language part only (``de_DE.UTF-8`` is ``de``); ``None`` when none is set. Whether it is one
        of dippouch's languages is the command line's to decide (dippouch.cli.errors.cli_language)."""
        for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
            if value := self._given(name):
                return value.split(".")[0].split("@")[0].split("_")[0].lower()
        return None

    @cached_property
    def request_rate(self) -> float:
        """``DIPPOUCH_REQUEST_RATE``: requests a second one client may send on average (10 by default), a
        client being its session or key, else its address; beyond it (and its burst) requests wait, then are
        refused (dippouch.web.http.middleware.Pace). Pages, their maps and a player's orders take a few a minute."""
        return self._number(
            "DIPPOUCH_REQUEST_RATE", 10.0, 0.1, 100_000.0, "10", N_("requests a second from %(lowest)s to %(highest)s")
        )

    @cached_property
    def request_burst(self) -> float:
        """``DIPPOUCH_REQUEST_BURST``: requests one client may send at once before its rate applies (60 by
        default: a page with its pictures and scripts, several tabs opened together)."""
        return self._number(
            "DIPPOUCH_REQUEST_BURST", 60.0, 1.0, 1_000_000.0, "60", N_("requests from %(lowest)s to %(highest)s")
        )

    @cached_property
    def request_at_once(self) -> int:
        """``DIPPOUCH_REQUEST_AT_ONCE``: requests of one session or key the server works on at once (2 by
        default); the next waits for one of them to finish, costing no computing (dippouch.web.http.middleware.Pace).
        A person's script in many threads then takes no more of the server's interpreter than a browser does."""
        raw = self.environ.get("DIPPOUCH_REQUEST_AT_ONCE", "")
        if not raw.strip():
            return 2
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if not 1 <= value <= 1000:
            raise _bad("DIPPOUCH_REQUEST_AT_ONCE", raw, msg("a number of requests from 1 to 1000"), "2")
        return value

    # --- measuring

    @cached_property
    def write_trace(self) -> Path | None:
        """``DIPPOUCH_WRITE_TRACE``: a file to which every write transaction on SQLite appends how long it held the
        database's one write lock and who took it (dippouch.store.db; a benchmark's question, off by default)."""
        given = self._given("DIPPOUCH_WRITE_TRACE")
        return Path(given).expanduser() if given else None

    @cached_property
    def stall_trace(self) -> Path | None:
        """``DIPPOUCH_STALL_TRACE``: a file to which ``serve`` appends what its threads were doing while a request
        was slow (dippouch.web.http.stalls; a benchmark's question, off by default)."""
        given = self._given("DIPPOUCH_STALL_TRACE")
        return Path(given).expanduser() if given else None

    # --- the crash and race tests' stopping points

    @cached_property
    def test_hooks(self) -> TestHooks:
        raw_chance = self.environ.get("DIPPOUCH_CRASH_CHANCE", "1")
        try:
            chance = float(raw_chance)
        except ValueError:
            chance = -1.0
        if not 0 <= chance <= 1:
            raise _bad("DIPPOUCH_CRASH_CHANCE", raw_chance, msg("a chance from 0 to 1"), "0.02")
        pause_at = self.environ.get("DIPPOUCH_PAUSE_AT") or None
        folder = self.environ.get("DIPPOUCH_PAUSE_DIR") or None
        if pause_at is not None and folder is None:
            raise DippouchError(
                msg(
                    "DIPPOUCH_PAUSE_AT=%(pause)s needs DIPPOUCH_PAUSE_DIR, the folder the flags are left in; "
                    "e.g. DIPPOUCH_PAUSE_DIR=/tmp/flags",
                    pause=repr(pause_at),
                )
            )
        return TestHooks(
            crash_at=self.environ.get("DIPPOUCH_CRASH_AT") or None,
            crash_chance=chance,
            crash_sigkill=self._flag("DIPPOUCH_CRASH_SIGKILL"),
            pause_at=pause_at,
            pause_dir=Path(folder) if folder else None,
        )


_current: Settings | None = None
_site: Site | None = None
_default = DEFAULT_PUBLIC_URL


def current() -> Settings:
    """This process's settings, the environment read the first time anything asks."""
    global _current
    if _current is None:
        _current = Settings.read()
    return _current


def reread() -> None:
    """Forget every setting: the next use reads the environment again (a test that sets it, a process told its
    settings changed)."""
    global _current, _site
    _current, _site = None, None


def set_default_address(public_url: str) -> None:
    """Make ``public_url`` the address used when ``DIPPOUCH_PUBLIC_URL`` is unset; read nothing yet."""
    global _site, _default
    _default = public_url
    _site = None


def use_default_site(public_url: str) -> Site:
    """:func:`set_default_address` (``dippouch serve`` calls this with the address it prints, before anything
    reads the site), and the site now in force."""
    set_default_address(public_url)
    return site()


def default_site() -> Site:
    """The site when nothing is configured and nothing was served: the embedded default's address."""
    return Site.at(_default, None, configured=False)


def site() -> Site:
    """The installation's site (see the module's docstring), read once per process."""
    global _site
    if _site is None:
        given = current()
        configured = given.public_url
        extra = given.allowed_hosts
        _site = Site.at(configured, extra) if configured else Site.at(_default, extra, configured=False)
    return _site


def metrics_networks() -> tuple[Network, ...]:
    """Who may read ``/metrics`` (``DIPPOUCH_METRICS_FROM``; this machine by default)."""
    return current().metrics_from
