"""Where messages come from: an IMAP mailbox (TLS or STARTTLS), or files a coordinator downloaded (.eml
files, an mbox, a Maildir).

IMAP is read by UID: the mailbox's UIDVALIDITY and the last UID taken are kept in the database, so each
message is read once even if the coordinator's own mail program marks it read (or unread) meanwhile, and
messages are fetched with ``BODY.PEEK`` so their flags are left alone. The server's INTERNALDATE (when the
message arrived in the mailbox) is the time it was received.
"""

from __future__ import annotations

import contextlib
import imaplib
import mailbox
import re
from collections.abc import Iterator
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

from dippouch.core.messages import msg
from dippouch.game import GameError, as_utc
from dippouch.mail.settings import ServerSettings
from dippouch.mail.smtp import tls_context
from dippouch.play import mail_intake
from dippouch.store import GameStore
from dippouch.store.mail.inbox import fetched_up_to

__all__ = ["file_messages", "imap_messages"]

I18N_DOMAIN = "rules"
"""The catalogue of the mail sources' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

_INTERNALDATE = re.compile(rb'INTERNALDATE "([^"]+)"')


def file_messages(path: str) -> Iterator[tuple[bytes, datetime | None, str]]:
    """(raw message, arrival time if known, origin) from a .eml file, a folder of them, an mbox or a Maildir."""
    p = Path(path).expanduser()
    if not p.exists():
        raise GameError(msg("no file or folder %(path)s", path=path))
    if p.is_dir() and (p / "cur").is_dir() and (p / "new").is_dir():
        md = mailbox.Maildir(str(p), create=False)
        for key in sorted(md.keys()):
            raw = md.get_bytes(key)
            f = md.get_file(key)
            try:
                mtime = None
                name = getattr(f, "name", None) or getattr(getattr(f, "_file", None), "name", None)
                if name:
                    mtime = datetime.fromtimestamp(Path(name).stat().st_mtime).astimezone()
            finally:
                f.close()
            yield raw, as_utc(mtime) if mtime else None, f"maildir:{p}/{key}"
        return
    if p.is_dir():
        for path_ in sorted(p.iterdir()):
            if path_.suffix.lower() == ".eml" and path_.is_file():
                yield path_.read_bytes(), None, f"file:{path_}"
        return
    head = p.read_bytes()[:5]
    if head == b"From ":
        mb = mailbox.mbox(str(p), create=False)
        for key in mb.keys():  # noqa: SIM118 (iterating a mailbox gives messages, not keys)
            yield mb.get_bytes(key), None, f"mbox:{p}#{key}"
        return
    yield p.read_bytes(), None, f"file:{p}"


def _connect(s: ServerSettings) -> imaplib.IMAP4:
    s.check()
    port = s.port or s.default_port
    try:
        if s.security == "tls":
            conn: imaplib.IMAP4 = imaplib.IMAP4_SSL(s.host or "", port, ssl_context=tls_context(s), timeout=s.timeout)
        else:
            conn = imaplib.IMAP4(s.host or "", port, timeout=s.timeout)
            if s.security == "starttls":
                conn.starttls(ssl_context=tls_context(s))
    except (OSError, imaplib.IMAP4.error) as e:
        raise GameError(msg("cannot reach the IMAP server %(where)s: %(why)s", where=s.where(), why=str(e))) from None
    try:
        conn.login(s.user or "", s.password() or "")
    except imaplib.IMAP4.error as e:
        conn.logout()
        raise GameError(
            msg("the IMAP server %(where)s refused the login: %(why)s", where=s.where(), why=str(e))
        ) from None
    return conn


def imap_messages(store: GameStore, s: ServerSettings) -> Iterator[tuple[bytes, datetime | None, str]]:
    """New messages in the mailbox since the last fetch, oldest first. The position is saved after each
    message is yielded (and taken in by the caller), so an interrupted fetch resumes where it stopped."""
    conn = _connect(s)
    origin = f"{s.where()}/{s.mailbox}"
    try:
        typ, data = conn.select(_quote(s.mailbox), readonly=True)
        if typ != "OK":
            raise GameError(
                msg(
                    "IMAP mailbox %(mailbox)s cannot be opened on %(where)s: %(why)s",
                    mailbox=repr(s.mailbox),
                    where=s.where(),
                    why=str(data),
                )
            )
        typ, data = conn.response("UIDVALIDITY")
        validity = int(data[0]) if data and data[0] else 0
        last = fetched_up_to(store, origin, validity)
        typ, data = conn.uid("SEARCH", f"UID {last + 1}:*")
        uids = sorted(int(u) for u in (data[0] or b"").split() if int(u) > last)
        for uid in uids:
            typ, parts = conn.uid("FETCH", str(uid), "(INTERNALDATE BODY.PEEK[])")
            raw, when = None, None
            for part in parts:
                if isinstance(part, tuple):
                    m = _INTERNALDATE.search(part[0])
                    if m:
                        try:
                            when = as_utc(parsedate_to_datetime(_imap_date(m.group(1).decode())))
                        except (TypeError, ValueError):
                            when = None
                    raw = part[1]
            if raw is None:
                continue
            yield raw, when, f"{origin};uid={uid}"
            mail_intake.fetched(store, origin, validity, uid)
        if not uids:
            mail_intake.fetched(store, origin, validity, 0)
    finally:
        with contextlib.suppress(OSError, imaplib.IMAP4.error):
            conn.logout()


def _quote(mailbox_name: str) -> str:
    return '"' + mailbox_name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _imap_date(text: str) -> str:
    """IMAP's ``22-Nov-2026 11:42:36 +0000`` as an RFC 2822 date."""
    day, mon, rest = text.strip().split("-", 2)
    return f"{day} {mon} {rest}"
