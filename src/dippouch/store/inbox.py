"""Mail taken in: each message and its attachments as received, what intake decided of it (game, phase,
power, submission, status), the coordinator's views of it, and how far each IMAP mailbox has been read.

A message is claimed in one transaction (:func:`store_message`), so the same message fetched by two
processes is taken once; the decision is recorded after (:func:`record_message`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.game import GameError
from dippouch.store.db import Database
from dippouch.store.mail_games import game_id
from dippouch.store.models import GameRow, PhaseRow, SubmissionRow
from dippouch.store.models_mail import FetchStateRow, MailAttachmentRow, MailMessageRow
from dippouch.store.outbox import queue_in
from dippouch.store.rows import next_version_in

__all__ = [
    "MessageInfo",
    "MessageRecord",
    "PhaseSeal",
    "dismiss_held",
    "fetched_up_to",
    "held_by_confirmation",
    "message_and_phases",
    "message_record",
    "messages",
    "next_version",
    "record_fetched",
    "record_message",
    "store_message",
    "submission_id",
]


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


# -- intake: claiming a message, and what became of it -----------------------------------------------------


def next_version(store: Database, phase_id: int, power: str) -> int:
    with store.session() as s:
        return next_version_in(s, phase_id, power)


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


def record_message(store: Database, mail_id: int, *, replies: Sequence[Mapping[str, Any]] = (), **values: Any) -> int:
    """What became of a message: its status, reason, game, phase, power, submission; ``reading`` is merged.

    ``replies`` (each as :func:`dippouch.store.outbox.queue_in` takes it) are queued in the same transaction: a
    message is never recorded as answered without its answer, nor answered twice if taken in again. Answers the
    number of replies queued (one already queued under its key is not queued again)."""
    with store.session() as s, s.begin():
        row = s.get(MailMessageRow, mail_id)
        if row is None:
            raise GameError(f"no message #{mail_id}")
        reading = dict(row.reading)
        reading.update(values.pop("reading", {}))
        row.reading = reading
        for k, v in values.items():
            setattr(row, k, v)
        return sum(1 for reply in replies if queue_in(s, **reply))


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
