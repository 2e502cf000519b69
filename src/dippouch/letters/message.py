"""An inbound message taken apart: who sent it, when it arrived, its orders text and its attachments.

The body is cleaned the way a judge must clean it: quoted reply lines (``> ...``) and the "On ... wrote:"
line above them, a forwarded or original message below its marker, the signature after ``-- ``, and the
"Sent from my phone" line are dropped. A sheet in the rulebook's layout (real name, position, game, season,
version instructions, then orders) loses its heading and closing lines too (:func:`strip_sheet`), so what
remains is the orders, checked line by line by the store.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import parseaddr, parsedate_to_datetime
from html.parser import HTMLParser

from dippouch.core.messages import Msg, msg, nmsg
from dippouch.game import as_utc

__all__ = ["I18N_DOMAIN", "Attachment", "Inbound", "clean_body", "parse_message", "sniff_image", "strip_sheet"]

I18N_DOMAIN = "rules"
"""The catalogue of why a message looks automatic (quoted by the mail log, said in its reader's language)."""


_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1")


def sniff_image(data: bytes) -> str | None:
    """The image type the bytes themselves say (a phone or a mail program often sends a photograph as
    ``application/octet-stream``), or ``None`` if they are not an image we know."""
    head = data[:16]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "image/tiff"
    if head.startswith(b"BM"):
        return "image/bmp"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return "image/heic"
    return None


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    data: bytes

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    @property
    def is_text(self) -> bool:
        return self.content_type == "text/plain"


@dataclass
class Inbound:
    raw: bytes
    sender: str
    subject: str
    message_id: str | None
    date: datetime | None
    """The sender's Date header (the sender's clock: kept, not trusted for the deadline)."""
    server_time: datetime | None
    """When the first server on our side took it (the top Received header), if it says."""
    body: str
    attachments: list[Attachment] = field(default_factory=list)
    automatic: Msg | None = None
    """Why this looks like an automatic message (a bounce, an auto-reply, a list): never answered."""

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    def text_attachments(self) -> list[Attachment]:
        return [a for a in self.attachments if a.is_text]

    def images(self) -> list[Attachment]:
        return [a for a in self.attachments if a.is_image]


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "blockquote"):
            self._skip += 1
        if tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "blockquote") and self._skip:
            self._skip -= 1
        if tag in ("p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _html_to_text(html: str) -> str:
    p = _HTMLText()
    p.feed(html)
    return "".join(p.parts)


def _decode(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeDecodeError, AssertionError, ValueError):  # ValueError: a NUL in the charset
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload or "")
    return content if isinstance(content, str) else content.decode("utf-8", "replace")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Text with control characters taken out (newlines and tabs kept): a stranger's subject, address, file
    name or text is printed on the coordinator's terminal, where an escape sequence would act (clear the
    screen, set the title, write the clipboard)."""
    return _CONTROL.sub("", _unescaped(text))


def _unescaped(text: str) -> str:
    """Text without lone surrogates. Python's mail parser keeps a header's bytes that are not ASCII as lone
    surrogates (``\\udce5`` for the byte 0xE5) where its grammar fails; such text can be neither stored nor
    printed (a damaged From line stopped the intake with UnicodeEncodeError). The bytes are read as UTF-8, as
    a mailer meant them, and what is not UTF-8 becomes U+FFFD."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # clean text comes back as it was
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return text.encode("utf-8", "replace").decode("utf-8")


def _header(msg: EmailMessage, name: str) -> str:
    """A header's value as text, or "" if absent. Python's header parser raises on some damaged headers
    (IndexError, AttributeError, HeaderParseError in its address and message-id grammars); then the raw
    value is taken as it stands."""
    try:
        value = msg.get(name)
        return "" if value is None else _unescaped(str(value))
    except Exception:  # any failure of the standard library's parser on damaged mail
        raw = next((v for k, v in msg.raw_items() if k.lower() == name.lower()), "")
        return _unescaped(str(raw)).replace("\r", " ").replace("\n", " ")


def _headers(msg: EmailMessage, name: str) -> list[str]:
    try:
        return [_unescaped(str(v)) for v in msg.get_all(name) or []]
    except Exception:  # as in _header
        return [_unescaped(str(v)) for k, v in msg.raw_items() if k.lower() == name.lower()]


def _content_type(part: EmailMessage) -> str:
    try:
        return part.get_content_type()
    except Exception:  # as in _header
        return "application/octet-stream"


def _automatic(mail: EmailMessage, sender: str) -> Msg | None:
    auto = _header(mail, "Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return msg("Auto-Submitted: %(value)s", value=auto)
    prec = _header(mail, "Precedence").strip().lower()
    if prec in ("bulk", "list", "junk", "auto_reply"):
        return msg("Precedence: %(value)s", value=prec)
    if _header(mail, "List-Id") or _header(mail, "List-Unsubscribe"):
        return msg("a mailing list message")
    if _header(mail, "X-Autoreply") or _header(mail, "X-Autorespond"):
        return msg("an auto-reply")
    local = sender.partition("@")[0].lower()
    if not sender:
        return msg("an automatic sender (empty)")
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply", "do-not-reply"):
        return msg("an automatic sender (%(sender)s)", sender=sender)
    if _header(mail, "Return-Path").strip() == "<>":
        return msg("a bounce (empty Return-Path)")
    ctype = _content_type(mail)
    if ctype == "multipart/report":
        return msg("a delivery report")
    return None


def parse_message(raw: bytes) -> Inbound:
    """Take a raw RFC 5322 message apart. Damaged messages give what can be read, never an exception."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    _, sender = parseaddr(_header(msg, "From"))
    sender = sender.strip()
    if "@" in sender:
        local, _, domain = sender.rpartition("@")
        sender = f"{local}@{domain.lower()}"
    subject = " ".join(_header(msg, "Subject").split())
    date = None
    try:
        if _header(msg, "Date"):
            date = as_utc(parsedate_to_datetime(_header(msg, "Date")))
    except (TypeError, ValueError, IndexError):
        date = None
    server_time = None
    received = _headers(msg, "Received")
    if received:
        stamp = str(received[0]).rpartition(";")[2].strip()
        try:
            server_time = as_utc(parsedate_to_datetime(stamp)) if stamp else None
        except (TypeError, ValueError, IndexError):
            server_time = None
    body_plain: list[str] = []
    body_html: list[str] = []
    attachments: list[Attachment] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        assert isinstance(part, EmailMessage)
        ctype = _content_type(part)
        try:
            disposition = part.get_content_disposition()
            filename = part.get_filename()
        except Exception:  # a damaged Content-Disposition: no file name, not an attachment
            disposition, filename = None, None
        if (
            disposition == "attachment"
            or (filename and ctype not in ("text/plain", "text/html"))
            or (ctype.startswith("image/"))
        ):
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                attachments.append(Attachment(filename or f"attachment-{len(attachments) + 1}", ctype, data))
            continue
        if ctype == "text/plain":
            body_plain.append(_decode(part))
        elif ctype == "text/html":
            body_html.append(_html_to_text(_decode(part)))
        elif ctype == "message/rfc822":
            continue
    body = "\n".join(body_plain) if body_plain else "\n".join(body_html)
    mid = _header(msg, "Message-ID").strip() or None
    # The bytes decide what an attachment is: a JPEG sent as application/octet-stream is a photograph.
    attachments = [
        Attachment(printable(a.filename), sniff_image(a.data) or a.content_type, a.data) for a in attachments
    ]
    return Inbound(
        raw,
        printable(sender),
        printable(subject),
        mid,
        date,
        server_time,
        printable(body.replace("\r\n", "\n").replace("\r", "\n")),
        attachments,
        _automatic(msg, sender),
    )


_ATTRIBUTION = re.compile(
    r"^\s*(?:on\b.*\bwrote:?|le\b.*\ba écrit\s*:|am\b.*\bschrieb\b.*:|.*\bwrote:)\s*$", re.IGNORECASE
)
_CUT = re.compile(
    r"^\s*(?:-{2,}\s*(?:original message|forwarded message|weitergeleitete nachricht)\s*-{2,}|_{10,}|"
    r"begin forwarded message:|from:\s.*@.*)\s*$",
    re.IGNORECASE,
)
_PHONE = re.compile(r"^\s*(?:sent from my|get outlook for|sent with|envoyé de mon)\b", re.IGNORECASE)


def clean_body(text: str) -> tuple[str, list[Msg]]:
    """The body without quoted replies, forwarded parts, the signature and phone footers. Returns the text
    (lines that were dropped inside it are blanked, so line numbers stay the ones the player sees) and a
    list saying what was dropped."""
    out: list[str] = []
    dropped: list[Msg] = []
    quoted = 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.rstrip() in ("--", "-- ") or line == "-- ":
            dropped.append(msg("the signature (after '-- ')"))
            break
        if _CUT.match(line):
            dropped.append(msg("a quoted or forwarded message"))
            break
        if line.lstrip().startswith(">"):
            quoted += 1
            out.append("")
            continue
        if _ATTRIBUTION.match(line):
            out.append("")
            continue
        if _PHONE.match(line):
            dropped.append(msg("the line %(line)s", line=repr(line.strip())))
            out.append("")
            continue
        out.append(line)
    if quoted:
        dropped.insert(0, nmsg("%(num)d quoted line ('>')", "%(num)d quoted lines ('>')", quoted))
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out), dropped


_GREETING = re.compile(
    r"^\s*(?:dear|hi|hello|hey|greetings|to)\b[^:]*[,:!]?\s*$|^\s*(?:thanks|thank you|cheers|regards|best|"
    r"best wishes|kind regards|yours|yours sincerely|yours faithfully|sincerely|all the best|with thanks|"
    r"good luck|orders|my orders|orders follow|orders below|here are my orders)\b[^:]*[,:!.]?\s*$",
    re.IGNORECASE,
)


def strip_sheet(text: str, names: Iterable[str], is_phase_line: object = None) -> tuple[str, list[str]]:
    """Blank the heading and closing lines of a sheet in the rulebook's layout: lines that are only a known
    name (the player, the power and its aliases, the game), a season line ("Autumn 1644 Movement Orders"),
    a greeting or a valediction, at the top or the bottom of the text. Lines between orders are left for the
    order check (it says what is wrong with them). Returns the text and the lines that were blanked."""
    from dippouch.letters.subject import FILLER, KIND_WORDS, SEASON_WORDS

    known = {" ".join(re.findall(r"[a-z0-9]+", n.lower())) for n in names if n}
    known |= {k[4:] for k in known if k.startswith("the ")}
    season_words = {w for ws in SEASON_WORDS.values() for w in ws}
    kind_words = {w for ws in KIND_WORDS.values() for w in ws}

    def heading(line: str) -> bool:
        words = re.findall(r"[a-z0-9']+", line.lower().replace("'", ""))
        if not words:
            return True
        key = " ".join(words)
        if key in known or (key.startswith("the ") and key[4:] in known):
            return True
        if _GREETING.match(line):
            return True
        calendarish = [w for w in words if not (w in season_words or w in kind_words or w in FILLER or w.isdigit())]
        has_time = any(w.isdigit() and len(w) >= 3 for w in words) or any(w in season_words for w in words)
        if not calendarish and has_time:
            return True
        # "Montrose, Powick Bridge" on one line: every part a known name.
        parts = [" ".join(re.findall(r"[a-z0-9]+", p.lower())) for p in re.split(r"[,;|/-]", line)]
        parts = [p for p in parts if p]
        return bool(parts) and all(p in known for p in parts)

    lines = text.split("\n")
    removed: list[str] = []
    i = 0
    while i < len(lines) and heading(lines[i]):
        if lines[i].strip():
            removed.append(lines[i].strip())
        lines[i] = ""
        i += 1
    j = len(lines) - 1
    while j >= i and heading(lines[j]):
        if lines[j].strip():
            removed.append(lines[j].strip())
        lines[j] = ""
        j -= 1
    return "\n".join(lines).rstrip(), removed


def received_time(msg: Inbound, given: datetime | None, now: datetime) -> tuple[datetime, str]:
    """When the message arrived, and how we know: the IMAP server's INTERNALDATE (``given``), else our
    server's Received header, else the moment it was read (never the sender's own Date header, which
    the sender's clock writes)."""
    if given is not None:
        return as_utc(given), "the mailbox's arrival time"
    if msg.server_time is not None:
        return msg.server_time, "the receiving server's Received header"
    return as_utc(now), "the time it was read"
