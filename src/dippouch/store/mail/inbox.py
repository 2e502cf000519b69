"""Mail taken in: each message and its attachments as received, what intake decided of it (game, phase,
power, submission, status), the coordinator's views of it, and how far each IMAP mailbox has been read.

A message is taken in exactly once, across a process killed at any moment:

- It is claimed in one transaction (:func:`store_message`), as ``received``: the same message fetched by two
  processes is stored once.
- What became of it is recorded by a :class:`Finish` in the very transaction that does it: a submission made
  of it (:func:`dippouch.store.submissions.submit`'s ``then``, which also ties the submission to the message),
  press passed on (:func:`dippouch.store.press.messages.send`'s ``then``), or a refusal, a hold or a receipt with its
  replies (:func:`record_message`). A message still ``received`` has had nothing applied.
- So a message left ``received`` by a process that died is simply taken in again (:func:`unfinished`, and
  :func:`store_message` answers its claim to whoever fetches it again). A finish that finds the message no
  longer ``received`` (another process finished it meanwhile) raises :class:`MessageTaken`, and its whole
  transaction, submission included, is rolled back: two processes at one message apply it once."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.store.db import Database
from dippouch.store.mail.finish import Finish
from dippouch.store.mail.games import game_id
from dippouch.store.mail.models import FetchStateRow, MailAttachmentRow, MailMessageRow
from dippouch.store.mail.outbox import queue_in
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.rows import next_version_in

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "Claim",
    "Finish",
    "MessageInfo",
    "MessageRecord",
    "MessageTaken",
    "PhaseSeal",
    "Unfinished",
    "dismiss_held",
    "fetched_up_to",
    "finish_in",
    "held_by_confirmation",
    "message_and_phases",
    "message_record",
    "messages",
    "next_version",
    "record_fetched",
    "record_message",
    "record_messages",
    "store_message",
    "unfinished",
]


def dismiss_held(store: Database, mail_id: int) -> None:
    """The coordinator sets a held message aside for good (it stays in the record, dismissed)."""
    with store.session() as s, s.begin():
        m = s.get(MailMessageRow, mail_id)
        if m is None:
            raise GameError(msg("no message #%(id)s (see `dippouch mail list`)", id=mail_id))
        if m.status != "held":
            raise GameError(msg("message #%(id)s is %(status)s, not held", id=mail_id, status=m.status))
        m.status = "dismissed"
        _set_reason(m, msg("dismissed by the coordinator"))


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
    why: Msg | None = None
    """``reason`` as a message, said in the reader's language; ``None`` for a text kept as it was (from before
    reasons were values, or imported so), which a door shows as it is (read as a template, a "%" in it would
    break it)."""


def _set_reason(row: MailMessageRow, why: Msg | str) -> None:
    """Keep the reason both ways: its message for the doors, its English for the logs and older readers."""
    if isinstance(why, Msg):
        row.reason, row.reason_msg = str(why), why.to_data()
    else:
        row.reason, row.reason_msg = why, None


def _why(row: MailMessageRow) -> Msg | None:
    return Msg.from_data(row.reason_msg) if row.reason_msg else None


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
        _why(m),
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
            raise GameError(msg("no message #%(id)s (see `dippouch mail list`)", id=mail_id))
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


# -- intake: claiming a message, and what became of it -----------------------------------------------------


def next_version(store: Database, phase_id: int, power: str) -> int:
    with store.session() as s:
        return next_version_in(s, phase_id, power)


@dataclass(frozen=True)
class Claim:
    """A message claimed for intake: its row, and when it was received as first recorded."""

    id: int
    received_at: datetime
    resumed: bool = False
    """Claimed before by a process that did not finish it (it was killed): taken in again now."""


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
) -> Claim | Msg:
    """Claim a message for intake, or say why it is a duplicate (the same bytes taken before, or a copy of a
    message taken before: ``is_copy(raw)`` says so of a stored message with its Message-ID and sender).
    The claim is one transaction, so the same message fetched by two processes is stored once. The same bytes
    claimed before and never finished (still ``received``) are answered with that claim, ``resumed``: nothing
    of it was applied (see the module's notes), so it is taken in now."""
    digest = hashlib.sha256(raw).hexdigest()
    try:
        with store.session() as s, s.begin():
            before = s.execute(
                sa.select(MailMessageRow.id, MailMessageRow.status, MailMessageRow.received_at).where(
                    MailMessageRow.digest == digest
                )
            ).first()
            if before is not None:
                if before.status == "received":
                    return Claim(int(before.id), before.received_at, resumed=True)
                return msg("taken in before")
            if message_id:
                rows = s.scalars(
                    sa.select(MailMessageRow.raw).where(
                        MailMessageRow.message_id == message_id[:998], MailMessageRow.sender == sender[:320]
                    )
                )
                if any(is_copy(bytes(r)) for r in rows):
                    return msg("taken in before (another copy of it)")
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
            return Claim(int(row.id), received_at)
    except IntegrityError:
        return msg("taken in before (by another process)")


@dataclass(frozen=True)
class Unfinished:
    """A message claimed and never finished: the process taking it in died (see the module's notes)."""

    id: int
    raw: bytes
    received_at: datetime
    origin: str


def unfinished(store: Database) -> list[Unfinished]:
    """Every message still ``received``, oldest first: each is taken in again by the next fetch."""
    with store.session() as s:
        rows = s.execute(
            sa.select(MailMessageRow.id, MailMessageRow.raw, MailMessageRow.received_at, MailMessageRow.origin)
            .where(MailMessageRow.status == "received")
            .order_by(MailMessageRow.id)
        ).all()
    return [Unfinished(int(r.id), bytes(r.raw), r.received_at, r.origin) for r in rows]


class MessageTaken(Exception):
    """The message was finished by another process meanwhile (it took in the same message, or resumed it):
    the transaction that raises this is rolled back, so nothing of it is applied twice."""

    def __init__(self, mail_id: int, status: str) -> None:
        super().__init__(f"message #{mail_id} is {status} already")
        self.mail_id = mail_id
        self.status = status


def finish_in(db: Database, s: Session, finish: Finish) -> int:
    """Record ``finish`` in the caller's transaction (locking the message's row); the number of replies queued
    (one already queued under its key is not queued again)."""
    row = s.get(MailMessageRow, finish.mail_id, with_for_update=True)
    if row is None:
        raise GameError(msg("no message #%(id)s", id=finish.mail_id))
    if finish.was is not None and row.status != finish.was:
        raise MessageTaken(finish.mail_id, row.status)
    values = dict(finish.values)
    reading = dict(row.reading)
    reading.update(values.pop("reading", None) or {})
    row.reading = reading
    if "reason" in values:
        _set_reason(row, values.pop("reason"))
    for k, v in values.items():
        setattr(row, k, v)
    queued = sum(1 for reply in finish.replies if queue_in(s, **reply))
    s.flush()
    db.crash_point("mail-in:recording")  # the crash tests' death inside the transaction: all of it undone
    return queued


def record_messages(store: Database, finishes: Sequence[Finish]) -> int:
    """Record what became of several messages in one transaction (a held message and the player's reply that
    confirms it); the number of replies queued."""
    with store.session() as s, s.begin():
        return sum(finish_in(store, s, f) for f in finishes)


def record_message(
    store: Database,
    mail_id: int,
    *,
    replies: Sequence[Mapping[str, Any]] = (),
    was: str | None = None,
    **values: Any,
) -> int:
    """What became of a message: its status, reason, game, phase, power, submission; ``reading`` is merged.

    ``replies`` (each as :func:`dippouch.store.mail.outbox.queue_in` takes it) are queued in the same transaction: a
    message is never recorded as answered without its answer, nor answered twice if taken in again. ``was``:
    the status the message must still have (``received`` for intake's own record), else :class:`MessageTaken`.
    Answers the number of replies queued (one already queued under its key is not queued again)."""
    return record_messages(store, [Finish(mail_id, values, replies, was)])


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
            raise GameError(msg("no message #%(id)s (see `dippouch mail list`)", id=mail_id))
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
