"""The mail record's queries: what :mod:`dippouch.mail` and ``dippouch mail ...`` read and write (messages,
attachments, the outbox, players' tokens), behind public functions so that only the store speaks SQL.

The functions take the open database (:class:`~dippouch.store.db.Database`), as the store's other modules do,
and read rows through :mod:`~dippouch.store.rows`, so this module never names the repository that offers them.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PhaseRow, SubmissionRow
from dippouch.store.models_mail import (
    FetchStateRow,
    GameMailRow,
    MailAttachmentRow,
    MailMessageRow,
    MailNoticeRow,
    MailReviewRow,
    OutboxFileRow,
    OutboxRow,
)
from dippouch.store.readiness import powers_in_civil_disorder as disorder_now
from dippouch.store.rows import current_phase, game_row, game_variant
from dippouch.store.standing import standing_versions

__all__ = ["game_id", "held_by_confirmation", "known_token", "player_token", "set_up_defaults"]


def new_token() -> str:
    """A player's token: short enough to copy from a receipt into a subject, 50 bits of secret, no look-alike
    letters (``mail/proof.py`` finds it in mail)."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "dp-" + "".join(secrets.choice(alphabet) for _ in range(10))


def game_id(store: Database, game: str) -> int:
    """The game's id, or a refusal naming the games there are."""
    with store.session() as s:
        gid = s.scalars(sa.select(GameRow.id).where(GameRow.name == game)).first()
        if gid is None:
            names = list(s.scalars(sa.select(GameRow.name).order_by(GameRow.name)))
            raise GameError(f"no game {game!r}" + (f"; games: {', '.join(names)}" if names else ""))
        return int(gid)


def set_up_defaults(now: datetime) -> dict[str, Any]:
    """A game's mail settings before ``mail setup`` (a row made only to keep players' tokens): results and
    notices stay off; ``mail setup`` then starts them from its own moment."""
    return {"since": as_utc(now).isoformat(), "enabled": False, "set_up": False}


def player_token(store: Database, game_id: int, power: str, address: str, *, now: datetime) -> str:
    """The power's token for its registered address (made on first use, and anew when the address changes:
    a new player does not inherit the last one's secret). Kept with the game's mail settings."""
    addr = address.strip().lower()
    with store.session() as s, s.begin():
        row = s.scalars(sa.select(GameMailRow).where(GameMailRow.game_id == game_id).with_for_update()).first()
        cfg: dict[str, Any] = dict(row.config) if row is not None else set_up_defaults(now)
        tokens = dict(cfg.get("tokens") or {})
        mine = dict(tokens.get(power) or {})
        if mine.get("address") == addr and mine.get("token"):
            return str(mine["token"])
        mine = {"token": new_token(), "address": addr, "made": as_utc(now).isoformat()}
        tokens[power] = mine
        cfg["tokens"] = tokens
        if row is None:
            s.add(GameMailRow(game_id=game_id, config=cfg))
        else:
            row.config = cfg
        return str(mine["token"])


def known_token(store: Database, game_id: int, power: str, address: str) -> str | None:
    """The power's token if one was made for this address (``None``: none taught yet, so none to prove with)."""
    with store.session() as s:
        row = s.get(GameMailRow, game_id)
        mine = dict((dict(row.config).get("tokens") or {}).get(power) or {}) if row is not None else {}
    if mine.get("address") == address.strip().lower() and mine.get("token"):
        return str(mine["token"])
    return None


def dismiss_held(store: Database, mail_id: int) -> None:
    """The coordinator sets a held message aside for good (it stays in the record, dismissed)."""
    with store.session() as s, s.begin():
        m = s.get(MailMessageRow, mail_id)
        if m is None:
            raise GameError(f"no message #{mail_id} (see `dippouch mail list`)")
        if m.status != "held":
            raise GameError(f"message #{mail_id} is {m.status}, not held")
        m.status = "dismissed"
        m.reason = "dismissed by the coordinator"


def held_by_confirmation(store: Database, sender: str, code: str) -> int | None:
    """The held message (unproven, from ``sender``) whose confirmation code is ``code``, if any."""
    with store.session() as s:
        rows = s.execute(
            sa.select(MailMessageRow.id, MailMessageRow.reading).where(
                MailMessageRow.status == "held", sa.func.lower(MailMessageRow.sender) == sender.strip().lower()
            )
        ).all()
    for mail_id, reading in rows:
        if str(dict(reading or {}).get("confirm", "")).lower() == code.lower():
            return int(mail_id)
    return None


# -- the mail record in a game file ------------------------------------------------------------------------

MAIL_RECORD_LIMIT = 200 * 1024 * 1024
"""Bytes of messages and attachments one game file may carry in (a season's photographs fit many times)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any, where: str) -> bytes:
    if not isinstance(text, str):
        raise GameError(f"{where}: expected base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise GameError(f"{where}: not base64") from None


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def _time(value: Any, where: str, *, optional: bool = False) -> datetime | None:
    if value is None and optional:
        return None
    try:
        return as_utc(datetime.fromisoformat(str(value)))
    except (TypeError, ValueError):
        raise GameError(f"{where}: {str(value)[:40]!r} is not a time (ISO 8601)") from None


def export_mail_record(s: Session, game_id: int, phase_ids: list[int], event_ids: list[int]) -> dict[str, Any]:
    """A game's mail record for its game file: the ``mail setup`` settings (with the players' tokens), every
    message taken in for it (kept whole, with its attachments, OCR readings and review decisions), phases
    released from review, and the notices already queued (so a moved game does not mail its results twice).
    Phases and events are named by their place in the file, since ids change on import.

    Only the coordinator's export carries it (addresses, tokens, orders in photographs); the public view
    drops it, and the coordinator's sealed view seals the content of mail for open phases
    (:func:`seal_mail_record`)."""
    cfg_row = s.get(GameMailRow, game_id)
    phase_at = {pid: i for i, pid in enumerate(phase_ids)}
    event_at = {eid: i for i, eid in enumerate(event_ids)}
    messages = []
    for m in s.scalars(sa.select(MailMessageRow).where(MailMessageRow.game_id == game_id).order_by(MailMessageRow.id)):
        messages.append(
            {
                "digest": m.digest,
                "message_id": m.message_id,
                "origin": m.origin,
                "sender": m.sender,
                "subject": m.subject,
                "received_at": m.received_at.isoformat(),
                "fetched_at": m.fetched_at.isoformat(),
                "phase": phase_at.get(m.phase_id) if m.phase_id is not None else None,
                "power": m.power,
                "submission": m.submission_id,
                "status": m.status,
                "reason": m.reason,
                "reading": m.reading,
                "raw": _b64(m.raw),
                "attachments": [
                    {
                        "filename": a.filename,
                        "content_type": a.content_type,
                        "data": _b64(a.data),
                        "ocr_text": a.ocr_text,
                        "ocr_at": _iso(a.ocr_at),
                        "submission": a.submission_id,
                        "set_aside_at": _iso(a.set_aside_at),
                        "set_aside_why": a.set_aside_why,
                    }
                    for a in m.attachments
                ],
            }
        )
    reviews = [
        {"phase": phase_at[r.phase_id], "released_at": r.released_at.isoformat(), "note": r.note}
        for r in s.scalars(sa.select(MailReviewRow).where(MailReviewRow.phase_id.in_(phase_ids or [-1])))
    ]
    notices = []
    for n in s.scalars(sa.select(MailNoticeRow).where(MailNoticeRow.game_id == game_id).order_by(MailNoticeRow.key)):
        kind, _, rest = n.key.partition(":")
        head, _, tail = rest.partition(":")
        if kind in ("results", "reminder") and head.isdigit() and int(head) in phase_at:
            ref = {"kind": kind, "phase": phase_at[int(head)], "rest": tail}
        elif kind == "event" and head.isdigit() and int(head) in event_at:
            ref = {"kind": kind, "event": event_at[int(head)], "rest": tail}
        elif kind == "cd":
            ref = {"kind": kind, "rest": tail}
        else:
            continue
        notices.append({**ref, "at": n.at.isoformat()})
    return {
        "settings": dict(cfg_row.config) if cfg_row is not None else None,
        "messages": messages,
        "reviews": reviews,
        "notices": notices,
    }


def seal_mail_record(data: dict[str, Any], sealed_phases: set[int]) -> int:
    """Seal, in a coordinator's export, the content of mail that may hold orders still sealed: messages
    for the phases at ``sealed_phases`` (places in the file) and messages for no phase. Who sent what
    when and what became of it stay; returns how many were sealed."""
    record = data.get("mail")
    if not isinstance(record, dict) or not sealed_phases:
        return 0
    n = 0
    for m in record.get("messages", []):
        if m.get("phase") is None or m.get("phase") in sealed_phases:
            m["raw"] = None
            m["sealed"] = True
            for a in m.get("attachments", []):
                a["data"], a["ocr_text"] = None, None
            n += 1
    return n


def import_mail_record(
    s: Session,
    game_id: int,
    record: Any,
    phase_ids: list[int],
    event_ids: list[int],
    submission_ids: dict[int, int],
) -> None:
    """Store a game file's mail record (:func:`export_mail_record`) for the imported game, in the import's
    transaction: every refusal names the place in the file, and nothing is stored if one is refused.

    A message already in this database (a copy of the game imported beside its original) is stored under a
    digest of its own: a later fetch of the same message still goes to the original game."""
    if record is None:
        return
    if not isinstance(record, dict):
        raise GameError("mail: expected an object (settings, messages, reviews, notices)")

    def phase(value: Any, where: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(phase_ids):
            raise GameError(f"{where}: {value!r} is not the place of a phase in this file (0 to {len(phase_ids) - 1})")
        return phase_ids[value]

    def submission(value: Any, where: str) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value not in submission_ids:
            raise GameError(f"{where}: {value!r} is not the id of a submission in this file")
        return submission_ids[value]

    def text(value: Any, where: str, limit: int, *, optional: bool = True) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > limit:
            raise GameError(f"{where}: expected text of at most {limit:,} characters")
        return value

    settings = record.get("settings")
    if settings is not None:
        if not isinstance(settings, dict):
            raise GameError("mail.settings: expected an object (the game's `mail setup` settings)")
        _time(settings.get("since"), "mail.settings.since")
        s.add(GameMailRow(game_id=game_id, config=settings))
    total = 0
    for i, m in enumerate(record.get("messages") or []):
        where = f"mail.messages[{i}]"
        if not isinstance(m, dict):
            raise GameError(f"{where}: expected an object")
        if m.get("sealed") or m.get("raw") is None:
            raise GameError(
                f"{where}: its content was sealed in this export; export the game again with "
                "`dippouch export --unsealed` to move a running game"
            )
        raw = _unb64(m["raw"], f"{where}.raw")
        total += len(raw)
        digest = hashlib.sha256(raw).hexdigest()
        if s.scalars(sa.select(MailMessageRow.id).where(MailMessageRow.digest == digest)).first() is not None:
            digest = hashlib.sha256(f"copy for game {game_id}:".encode() + raw).hexdigest()
        reading = m.get("reading") or {}
        if not isinstance(reading, dict):
            raise GameError(f"{where}.reading: expected an object")
        row = MailMessageRow(
            digest=digest,
            message_id=text(m.get("message_id"), f"{where}.message_id", 998),
            origin=text(m.get("origin", "file"), f"{where}.origin", 500, optional=False),
            sender=text(m.get("sender"), f"{where}.sender", 320, optional=False),
            subject=text(m.get("subject", ""), f"{where}.subject", 100_000, optional=False),
            received_at=_time(m.get("received_at"), f"{where}.received_at"),
            fetched_at=_time(m.get("fetched_at"), f"{where}.fetched_at"),
            game_id=game_id,
            phase_id=phase(m.get("phase"), f"{where}.phase"),
            power=text(m.get("power"), f"{where}.power", 100),
            submission_id=submission(m.get("submission"), f"{where}.submission"),
            status=text(m.get("status"), f"{where}.status", 20, optional=False),
            reason=text(m.get("reason", ""), f"{where}.reason", 100_000, optional=False),
            reading=reading,
            raw=raw,
        )
        s.add(row)
        s.flush()
        for j, a in enumerate(m.get("attachments") or []):
            aw = f"{where}.attachments[{j}]"
            if not isinstance(a, dict):
                raise GameError(f"{aw}: expected an object")
            data = _unb64(a.get("data"), f"{aw}.data")
            total += len(data)
            s.add(
                MailAttachmentRow(
                    mail_id=row.id,
                    filename=text(a.get("filename", ""), f"{aw}.filename", 500, optional=False),
                    content_type=text(a.get("content_type"), f"{aw}.content_type", 200, optional=False),
                    data=data,
                    ocr_text=text(a.get("ocr_text"), f"{aw}.ocr_text", 1_000_000),
                    ocr_at=_time(a.get("ocr_at"), f"{aw}.ocr_at", optional=True),
                    submission_id=submission(a.get("submission"), f"{aw}.submission"),
                    set_aside_at=_time(a.get("set_aside_at"), f"{aw}.set_aside_at", optional=True),
                    set_aside_why=text(a.get("set_aside_why"), f"{aw}.set_aside_why", 100_000),
                )
            )
        if total > MAIL_RECORD_LIMIT:
            raise GameError(f"mail: the messages hold more than {MAIL_RECORD_LIMIT // 2**20} MiB; not imported")
    for i, r in enumerate(record.get("reviews") or []):
        where = f"mail.reviews[{i}]"
        pid = phase(r.get("phase") if isinstance(r, dict) else None, f"{where}.phase")
        if pid is None:
            raise GameError(f"{where}: names no phase")
        s.add(
            MailReviewRow(
                phase_id=pid,
                released_at=_time(r.get("released_at"), f"{where}.released_at"),
                note=text(r.get("note", ""), f"{where}.note", 100_000, optional=False),
            )
        )
    for i, n in enumerate(record.get("notices") or []):
        where = f"mail.notices[{i}]"
        if not isinstance(n, dict):
            raise GameError(f"{where}: expected an object")
        kind, rest = n.get("kind"), str(n.get("rest") or "")
        if kind in ("results", "reminder"):
            key = f"{kind}:{phase(n.get('phase'), f'{where}.phase')}"
        elif kind == "event":
            at = n.get("event")
            if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at < len(event_ids):
                raise GameError(f"{where}.event: {at!r} is not the place of an event in this file")
            key = f"event:{event_ids[at]}"
        elif kind == "cd":
            key = f"cd:{game_id}"
        else:
            raise GameError(f"{where}.kind: {kind!r}; expected results, reminder, event or cd")
        key = f"{key}:{rest}" if rest else key
        if len(key) > 300:
            raise GameError(f"{where}: too long")
        s.add(MailNoticeRow(key=key, game_id=game_id, at=_time(n.get("at"), f"{where}.at")))


# -- the outbound queue ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutFile:
    filename: str
    content_type: str
    data: bytes


@dataclass
class OutboxEntry:
    """One queued message as the sender and the coordinator's views read it (no database row escapes)."""

    id: int
    kind: str
    to_addr: str
    subject: str
    body: str
    header_id: str
    in_reply_to: str | None
    status: str
    attempts: int
    next_attempt_at: datetime
    sent_at: datetime | None
    last_error: str | None
    files: list[OutFile] = field(default_factory=list)


def queue_in(
    s: Session,
    *,
    key: str,
    to: str,
    subject: str,
    body: str,
    kind: str,
    now: datetime,
    sender_domain: str = "dippouch.invalid",
    game_id: int | None = None,
    phase_id: int | None = None,
    in_reply_to: str | None = None,
    files: Sequence[Any] = (),
) -> bool:
    """Queue one message in the caller's transaction; False if a message with this key is already queued.
    ``files``: anything with ``filename``, ``content_type`` and ``data``."""
    if s.scalars(sa.select(OutboxRow.id).where(OutboxRow.key == key)).first() is not None:
        return False
    now = as_utc(now)
    row = OutboxRow(
        key=key,
        game_id=game_id,
        phase_id=phase_id,
        kind=kind,
        to_addr=to,
        subject=subject,
        body=body,
        header_id=f"<dippouch.{uuid.uuid4().hex}@{sender_domain}>",
        in_reply_to=in_reply_to,
        status="pending",
        attempts=0,
        created_at=now,
        next_attempt_at=now,
    )
    try:
        with s.begin_nested():
            s.add(row)
            s.flush()
            for f in files:
                s.add(OutboxFileRow(outbox_id=row.id, filename=f.filename, content_type=f.content_type, data=f.data))
            s.flush()
    except IntegrityError:
        return False  # another process queued it first
    return True


def queue_mail(store: Database, **message: Any) -> bool:
    """:func:`queue_in` in a transaction of its own."""
    with store.session() as s, s.begin():
        return queue_in(s, **message)


@dataclass(frozen=True)
class Notice:
    """A notice (results, a reminder, an event) and the messages it queues, made once whatever runs it."""

    key: str
    game_id: int | None
    messages: list[dict[str, Any]]


def _claim_notice(s: Session, key: str, game_id: int | None, now: datetime) -> bool:
    if s.get(MailNoticeRow, key) is not None:
        return False
    try:
        with s.begin_nested():
            s.add(MailNoticeRow(key=key, game_id=game_id, at=now))
            s.flush()
    except IntegrityError:
        return False
    return True


def notice_claimed(store: Database, key: str) -> bool:
    with store.session() as s:
        return s.get(MailNoticeRow, key) is not None


def queue_notices_once(store: Database, notices: Sequence[Notice], now: datetime) -> tuple[list[str], int]:
    """Record each notice under its key and queue its messages, in one transaction: a notice already
    recorded (by this or another process) queues nothing. Returns the keys recorded now and the count of
    messages queued."""
    done: list[str] = []
    count = 0
    with store.session() as s, s.begin():
        for n in notices:
            if not _claim_notice(s, n.key, n.game_id, now):
                continue
            for m in n.messages:
                count += queue_in(s, now=now, **m)
            done.append(n.key)
    return done, count


def _entry(row: OutboxRow, *, files: bool) -> OutboxEntry:
    return OutboxEntry(
        row.id,
        row.kind,
        row.to_addr,
        row.subject,
        row.body,
        row.header_id,
        row.in_reply_to,
        row.status,
        row.attempts,
        row.next_attempt_at,
        row.sent_at,
        row.last_error,
        [OutFile(f.filename, f.content_type, bytes(f.data)) for f in row.files] if files else [],
    )


def claim_outbox(store: Database, now: datetime, worker: str, lease: timedelta) -> int | None:
    """Claim the next message due (one process sends it; PostgreSQL skips rows another holds)."""
    with store.session() as s, s.begin():
        q = (
            sa.select(OutboxRow)
            .where(
                OutboxRow.status == "pending",
                OutboxRow.next_attempt_at <= now,
                sa.or_(OutboxRow.claimed_until.is_(None), OutboxRow.claimed_until < now),
            )
            .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
            .limit(1)
        )
        if s.bind is not None and s.get_bind().dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        row = s.scalars(q).first()
        if row is None:
            return None
        row.claimed_by = worker
        row.claimed_until = now + lease
        row.attempts += 1
        return row.id


def outbox_entry(store: Database, row_id: int) -> OutboxEntry:
    with store.session() as s:
        row = s.get(OutboxRow, row_id)
        if row is None:
            raise GameError(f"no queued message #{row_id} (see `dippouch mail outbox`)")
        return _entry(row, files=True)


def finish_outbox(store: Database, row_id: int, worker: str, **values: object) -> None:
    """Record what became of a claimed message (only by the process that claimed it)."""
    with store.session() as s, s.begin():
        s.execute(
            sa.update(OutboxRow)
            .where(OutboxRow.id == row_id, OutboxRow.claimed_by == worker)
            .values(claimed_by=None, claimed_until=None, **values)
        )


def outbox_entries(store: Database, *, include_sent: bool) -> list[OutboxEntry]:
    """The queue for ``mail outbox`` (without the files)."""
    with store.session() as s:
        q = sa.select(OutboxRow).order_by(OutboxRow.id)
        if not include_sent:
            q = q.where(OutboxRow.status != "sent")
        return [_entry(r, files=False) for r in s.scalars(q)]


def pending_count(store: Database) -> int:
    with store.session() as s:
        return int(s.scalar(sa.select(sa.func.count()).where(OutboxRow.status == "pending")) or 0)


def retry_outbox(store: Database, row_id: int, now: datetime) -> None:
    """Queue a refused (or waiting) message to go at the next send; a sent one is never sent twice."""
    with store.session() as s, s.begin():
        r = s.get(OutboxRow, row_id)
        if r is None:
            raise GameError(f"no queued message #{row_id} (see `dippouch mail outbox`)")
        if r.status == "sent":
            raise GameError(f"message #{row_id} was sent at {r.sent_at:%Y-%m-%d %H:%M} UTC; it is not sent twice")
        r.status, r.next_attempt_at, r.claimed_until, r.claimed_by = "pending", as_utc(now), None, None


# -- how far a mailbox was read ----------------------------------------------------------------------------


def fetched_up_to(store: Database, origin: str, validity: int) -> int:
    """The last UID taken from the mailbox ``origin`` (0 if none, or if its UIDVALIDITY changed)."""
    with store.session() as s:
        state = s.get(FetchStateRow, origin)
        return state.last_uid if state is not None and state.uidvalidity == validity else 0


def record_fetched(store: Database, origin: str, validity: int, uid: int) -> None:
    """The mailbox was read up to ``uid`` (0: opened, nothing in it yet)."""
    with store.session() as s, s.begin():
        state = s.get(FetchStateRow, origin)
        if state is None:
            s.add(FetchStateRow(origin=origin, uidvalidity=validity, last_uid=uid))
        elif uid:
            state.last_uid = max(uid, state.last_uid if state.uidvalidity == validity else 0)
            state.uidvalidity = validity


# -- the coordinator's views of messages -------------------------------------------------------------------


@dataclass(frozen=True)
class MessageInfo:
    """A message taken in, as ``mail list`` and ``mail show`` describe it (content only in ``raw``)."""

    id: int
    received_at: datetime
    sender: str
    subject: str
    game: str | None
    game_id: int | None
    power: str | None
    status: str
    reason: str
    attachments: list[tuple[int, str, str, int]]
    """(id, file name, content type, bytes)."""
    raw: bytes = b""


def _info(m: MailMessageRow, game: str | None, *, raw: bool) -> MessageInfo:
    return MessageInfo(
        m.id,
        m.received_at,
        m.sender,
        m.subject,
        game,
        m.game_id,
        m.power,
        m.status,
        m.reason,
        [(a.id, a.filename, a.content_type, len(a.data)) for a in m.attachments],
        bytes(m.raw) if raw else b"",
    )


def messages(store: Database, *, game: str | None = None, status: str | None = None) -> list[MessageInfo]:
    """Messages taken in, oldest first: a game's (refused by name if there is none), of a status."""
    gid = game_id(store, game) if game is not None else None
    with store.session() as s:
        q = sa.select(MailMessageRow, GameRow.name).outerjoin(GameRow, GameRow.id == MailMessageRow.game_id)
        if gid is not None:
            q = q.where(MailMessageRow.game_id == gid)
        if status is not None:
            q = q.where(MailMessageRow.status == status)
        return [_info(m, name, raw=False) for m, name in s.execute(q.order_by(MailMessageRow.id)).all()]


@dataclass(frozen=True)
class PhaseSeal:
    name: str
    status: str
    deadline: datetime | None


def message_and_phases(store: Database, mail_id: int) -> tuple[MessageInfo, list[PhaseSeal]]:
    """A message (with its raw content) and the phases whose seal covers it: its own phase (and, if that was
    set aside unprocessed by a rollback onto itself, the open phase its orders live on in), else the open
    phases of its game, or of every game for a message that fits none."""
    with store.session() as s:
        m = s.get(MailMessageRow, mail_id)
        if m is None:
            raise GameError(f"no message #{mail_id} (see `dippouch mail list`)")
        g = s.get(GameRow, m.game_id) if m.game_id is not None else None
        if m.phase_id is not None:
            first = s.get(PhaseRow, m.phase_id)
            phases = [first] if first is not None else []
            if first is not None and first.status == "abandoned" and first.processed_at is None:
                q_open = sa.select(PhaseRow).where(PhaseRow.game_id == first.game_id, PhaseRow.status == "open")
                phases += list(s.scalars(q_open))
        else:
            q = sa.select(PhaseRow).where(PhaseRow.status == "open")
            if m.game_id is not None:
                q = q.where(PhaseRow.game_id == m.game_id)
            phases = list(s.scalars(q))
        return _info(m, g.name if g is not None else None, raw=True), [
            PhaseSeal(p.name, p.status, p.deadline) for p in phases
        ]


# -- intake ------------------------------------------------------------------------------------------------


def mail_config(store: Database, game_id: int) -> dict[str, Any]:
    """A game's mail settings (``mail setup``; empty before)."""
    with store.session() as s:
        row = s.get(GameMailRow, game_id)
        return dict(row.config) if row is not None else {}


@dataclass(frozen=True)
class PlayerView:
    power: str
    name: str
    email: str | None
    replaced_at: datetime | None
    assigned_at: datetime


@dataclass(frozen=True)
class PhaseView:
    id: int
    name: str
    position: dict[str, Any]
    deadline: datetime | None


@dataclass(frozen=True)
class GameView:
    """A game as mail intake reads it: its players, settings, mail settings and open phase."""

    id: int
    name: str
    status: str
    variant: Any
    settings: dict[str, Any]
    players: list[PlayerView]
    phase: PhaseView | None
    config: dict[str, Any]


def games_for_mail(store: Database, *, set_up_only: bool = False) -> list[GameView]:
    """Every game mail can reach (``set_up_only``: those with mail settings), oldest first, with its
    current phase."""
    out = []
    q = sa.select(GameRow).order_by(GameRow.id)
    if set_up_only:
        q = q.join(GameMailRow, GameMailRow.game_id == GameRow.id)
    with store.session() as s:
        for g in s.scalars(q):
            cfg_row = s.get(GameMailRow, g.id)
            if set_up_only and (cfg_row is None or not dict(cfg_row.config).get("enabled", True)):
                continue
            ph = current_phase(s, g)
            out.append(
                GameView(
                    g.id,
                    g.name,
                    g.status,
                    game_variant(g),
                    dict(g.settings),
                    [PlayerView(r.power, r.name, r.email, r.replaced_at, r.assigned_at) for r in g.players],
                    PhaseView(ph.id, ph.name, ph.position, ph.deadline) if ph is not None else None,
                    dict(cfg_row.config) if cfg_row is not None else {},
                )
            )
    return out


def next_version(store: Database, phase_id: int, power: str) -> int:
    with store.session() as s:
        n = s.scalars(
            sa.select(sa.func.max(SubmissionRow.version)).where(
                SubmissionRow.phase_id == phase_id, SubmissionRow.power == power
            )
        ).first()
        return (n or 0) + 1


def submission_id(
    store: Database, power: str, version: int, *, phase_id: int | None = None, game_id: int | None = None
) -> int | None:
    """The id of a power's version in a phase (``phase_id``), or in a game's open phase (``game_id``)."""
    with store.session() as s:
        q = sa.select(SubmissionRow.id).where(SubmissionRow.power == power, SubmissionRow.version == version)
        if phase_id is not None:
            q = q.where(SubmissionRow.phase_id == phase_id)
        else:
            q = q.join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id).where(
                PhaseRow.game_id == game_id, PhaseRow.status == "open"
            )
        return s.scalars(q).first()


def store_message(
    store: Database,
    *,
    raw: bytes,
    message_id: str | None,
    sender: str,
    subject: str,
    origin: str,
    received_at: datetime,
    fetched_at: datetime,
    reading: dict[str, Any],
    attachments: Sequence[Any],
    is_copy: Any,
) -> int | str:
    """Claim a message for intake: its id, or why it is a duplicate (the same bytes taken before, or a copy
    of a message taken before: ``is_copy(raw)`` says so of a stored message with its Message-ID and sender).
    The claim is one transaction, so the same message fetched by two processes is taken once."""
    digest = hashlib.sha256(raw).hexdigest()
    try:
        with store.session() as s, s.begin():
            if s.scalars(sa.select(MailMessageRow.id).where(MailMessageRow.digest == digest)).first() is not None:
                return "taken in before"
            if message_id:
                rows = s.scalars(
                    sa.select(MailMessageRow.raw).where(
                        MailMessageRow.message_id == message_id[:998], MailMessageRow.sender == sender[:320]
                    )
                )
                if any(is_copy(bytes(r)) for r in rows):
                    return "taken in before (another copy of it)"
            row = MailMessageRow(
                digest=digest,
                message_id=(message_id or "")[:998] or None,
                origin=origin[:500],
                sender=sender[:320],
                subject=subject,
                received_at=received_at,
                fetched_at=fetched_at,
                status="received",
                reason="",
                reading=reading,
                raw=raw,
            )
            s.add(row)
            s.flush()
            for a in attachments:
                s.add(
                    MailAttachmentRow(
                        mail_id=row.id, filename=a.filename[:500], content_type=a.content_type, data=a.data
                    )
                )
            return int(row.id)
    except IntegrityError:
        return "taken in before (by another process)"


def record_message(store: Database, mail_id: int, **values: Any) -> None:
    """What became of a message: its status, reason, game, phase, power, submission; ``reading`` is merged."""
    with store.session() as s, s.begin():
        row = s.get(MailMessageRow, mail_id)
        if row is None:
            raise GameError(f"no message #{mail_id}")
        reading = dict(row.reading)
        reading.update(values.pop("reading", {}))
        row.reading = reading
        for k, v in values.items():
            setattr(row, k, v)


@dataclass(frozen=True)
class MessageRecord:
    id: int
    status: str
    raw: bytes
    game_id: int | None
    game: str | None
    power: str | None
    received_at: datetime
    phase_id: int | None
    phase: str | None


def message_record(store: Database, mail_id: int) -> MessageRecord:
    with store.session() as s:
        row = s.get(MailMessageRow, mail_id)
        if row is None:
            raise GameError(f"no message #{mail_id} (see `dippouch mail list`)")
        g = s.get(GameRow, row.game_id) if row.game_id is not None else None
        ph = s.get(PhaseRow, row.phase_id) if row.phase_id is not None else None
        return MessageRecord(
            row.id,
            row.status,
            bytes(row.raw),
            row.game_id,
            g.name if g is not None else None,
            row.power,
            row.received_at,
            row.phase_id,
            ph.name if ph is not None else None,
        )


# -- what notices are made of ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpenPhase:
    id: int
    name: str
    deadline: datetime | None
    position: dict[str, Any]
    with_orders: frozenset[str]
    """Powers whose standing version on time has at least one accepted order (never what the orders are)."""
    photographed: frozenset[str]
    """Powers whose photographs came on time (they wait for the coordinator's review)."""


def mail_games(store: Database) -> list[GameView]:
    """The games whose mail is set up and on (``mail setup``), with their current phase."""
    return [g for g in games_for_mail(store, set_up_only=True) if g.config.get("since")]


def game_status(store: Database, game_id: int) -> str:
    with store.session() as s:
        g = s.get(GameRow, game_id)
        return g.status if g is not None else ""


def open_phase(store: Database, game_id: int) -> OpenPhase | None:
    """The game's open phase, with which powers have orders standing and which sent photographs."""
    from dippouch.game import LineCheck
    from dippouch.store.review import photo_powers

    with store.session() as s:
        ph = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == game_id, PhaseRow.status == "open")).first()
        if ph is None:
            return None
        standing = standing_versions(ph, on_time_only=True)
        with_orders = frozenset(
            p for p, sub in standing.items() if any(LineCheck.from_data(d).accepted for d in sub.lines)
        )
        return OpenPhase(ph.id, ph.name, ph.deadline, ph.position, with_orders, frozenset(photo_powers(s, ph)))


def processed_since(store: Database, game_id: int, since: datetime) -> list[tuple[int, str, str]]:
    """(id, name, kind) of the game's phases processed since ``since`` whose results are not mailed yet."""
    with store.session() as s:
        rows = s.scalars(
            sa.select(PhaseRow)
            .where(PhaseRow.game_id == game_id, PhaseRow.status == "processed", PhaseRow.processed_at >= since)
            .order_by(PhaseRow.id)
        )
        return [
            (ph.id, ph.name, ph.kind)
            for ph in rows
            if ph.next_position is not None and s.get(MailNoticeRow, f"results:{ph.id}") is None
        ]


def events_since(
    store: Database, game_id: int, since: datetime, kinds: Sequence[str]
) -> list[tuple[int, str, dict[str, Any]]]:
    """(id, kind, detail) of the game's events of these kinds since ``since``, oldest first."""
    with store.session() as s:
        rows = s.scalars(
            sa.select(EventRow)
            .where(EventRow.game_id == game_id, EventRow.at >= since, EventRow.kind.in_(list(kinds)))
            .order_by(EventRow.id)
        )
        return [(e.id, e.kind, dict(e.detail)) for e in rows]


def civil_disorder(store: Database, game_id: int) -> list[str]:
    """The powers in civil disorder now (by the rules the store processes with)."""
    with store.session() as s:
        g = s.get(GameRow, game_id)
        if g is None:
            return []
        return sorted(disorder_now(s, g, game_variant(g)))


def update_mail_config(
    store: Database, game: str, now: datetime, changes: dict[str, Any], check: Any
) -> dict[str, Any]:
    """Create or change a game's mail settings under the game's lock; the first call marks the moment mail
    starts (a row kept only for tokens starts then too). ``check(cfg)`` refuses settings that make no sense."""
    now = as_utc(now)
    with store.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        row = s.get(GameMailRow, g.id)
        cfg: dict[str, Any] = dict(row.config) if row is not None else {"since": now.isoformat(), "enabled": True}
        if cfg.pop("set_up", True) is False:
            cfg["since"], cfg["enabled"] = now.isoformat(), True
        for k, val in changes.items():
            if val is not None:
                cfg[k] = val
        check(cfg)
        if row is None:
            s.add(GameMailRow(game_id=g.id, config=cfg))
        else:
            row.config = cfg
        return cfg


def forget_mail_to(s: Session, address: str, kind: str) -> None:
    """ "Delete my data" for the outbox: mail of ``kind`` to ``address`` not sent yet is removed (a retry would
    otherwise send it after the deletion); mail already sent keeps only that a message went (its address and
    words gone)."""
    mine = sa.and_(OutboxRow.kind == kind, OutboxRow.to_addr == address)
    unsent = list(s.scalars(sa.select(OutboxRow.id).where(mine, OutboxRow.status != "sent")))
    if unsent:
        s.execute(sa.delete(OutboxFileRow).where(OutboxFileRow.outbox_id.in_(unsent)))
        s.execute(sa.delete(OutboxRow).where(OutboxRow.id.in_(unsent)))
    s.execute(
        sa.update(OutboxRow)
        .where(mine, OutboxRow.status == "sent")
        .values(to_addr="deleted@dippouch.invalid", subject="(deleted with the account)", body="")
    )
