"""Mail server settings: per installation (environment or a TOML file); a game with a mailbox of its own is
fetched with its own file or options (``mail fetch --config``, ``--mailbox``), its position kept per mailbox.

Passwords come only from an environment variable or a file, never from the command line (where ``ps``
and the shell's history would show them) and never from the database: a setting names *where* the
password is (``password_env``, ``password_file``), not what it is.

The environment's part (``DIPPOUCH_SMTP_HOST``, ``DIPPOUCH_IMAP_PORT``, ``DIPPOUCH_MAIL_FROM``... each listed
in docs/settings.md) is read once per process by :mod:`dippouch.settings`. ``DIPPOUCH_MAIL_CONFIG`` names a
TOML file with ``[smtp]`` and ``[imap]`` tables of the same keys in lower case (``host``, ``port``, ``user``,
``security``, ``ca_file``, ``password_env``, ``password_file``, ``mailbox``; ``from`` under ``[smtp]``), read
on each use, so an edit to it is seen without a restart.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dippouch import settings as installation
from dippouch.core.errors import DippouchError
from dippouch.game import GameError

__all__ = ["ServerSettings", "load_settings", "read_password"]

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
                f"no {self.kind.upper()} server: set DIPPOUCH_{up}_HOST or [{self.kind}] host in the mail config"
            )
        if self.security not in SECURITY:
            raise GameError(f"{self.kind} security {self.security!r} is not one of {', '.join(SECURITY)}")
        if self.security == "none" and self.host not in _LOCAL and (self.user or self.kind == "imap"):
            raise GameError(
                f"{self.kind} security 'none' would send the password in clear to {self.host}; use tls or starttls "
                "(plain connections are allowed to this machine only)"
            )
        if self.port is not None and not 0 < self.port < 65536:
            raise GameError(f"{self.kind} port {self.port} is not a port number")
        return self

    def password(self) -> str | None:
        return read_password(self)


def read_password(s: ServerSettings) -> str | None:
    """The password from the file or environment variable the settings name (file first)."""
    up = s.kind.upper()
    given = _environment(s.kind)
    path = s.password_file or given.password_file
    if path:
        p = Path(path).expanduser()
        try:
            return p.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as e:
            raise GameError(f"cannot read the {s.kind} password file {path}: {e.strerror}") from None
    env = s.password_env or f"DIPPOUCH_{up}_PASSWORD"
    value = installation.current().secret(s.password_env) if s.password_env else given.password
    if value is None and s.user:
        raise GameError(
            f"no {s.kind} password: set {env} (or DIPPOUCH_{up}_PASSWORD_FILE, or password_file in the mail config); "
            "passwords are never taken on the command line"
        )
    return value


def _from_mapping(kind: str, data: Mapping[str, Any], base: ServerSettings) -> ServerSettings:
    known = {
        "host", "port", "user", "security", "password_env", "password_file", "ca_file", "mailbox", "from", "timeout"
    }  # fmt: skip
    for key in data:
        if key == "password":
            raise GameError(
                f"[{kind}] password: a password is not kept in a settings file's text; put it in its own file "
                '(password_file = "...", readable by you only) or an environment variable (password_env)'
            )
        if key not in known:
            raise GameError(f"[{kind}] has no setting {key!r}; settings: {', '.join(sorted(known))}")
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


def load_settings(kind: str, overrides: Mapping[str, Any] | None = None, config: str | None = None) -> ServerSettings:
    """Settings for ``kind`` (``smtp``/``imap``): the config file, then the environment, then ``overrides``
    (command-line options or a game's own IMAP settings), each over the one before."""
    s = ServerSettings(kind)
    path = config or installation.current().mail_config
    if path:
        try:
            data = tomllib.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        except OSError as e:
            raise GameError(f"cannot read the mail config {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise GameError(f"mail config {path}: {e}") from None
        section = data.get(kind, {})
        if not isinstance(section, Mapping):
            raise GameError(f"mail config {path}: [{kind}] must be a table")
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
        raise GameError(f"{kind} settings: {e}") from None
    return s


def _environment(kind: str) -> installation.MailServer:
    """The environment's settings for ``kind``, a wrong one as a :class:`GameError` (what mail's callers catch)."""
    try:
        return installation.current().smtp if kind == "smtp" else installation.current().imap
    except DippouchError as e:
        raise GameError(str(e)) from None
