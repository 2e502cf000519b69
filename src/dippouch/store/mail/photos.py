"""Photographed orders in the database: the photographs sent for a game's open phase, what the OCR engine
read from each, and the link from a confirmed photograph to the version it became.

Reading and matching (mail/ocr.py) need no SQL: they get plain records from here. The seal is applied here,
where the phase's deadline is read, so a photograph is never handed out before it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import PhaseName, msg
from dippouch.core.variant import Variant
from dippouch.game import GameError
from dippouch.store.db import Database
from dippouch.store.mail.models import MailAttachmentRow, MailMessageRow
from dippouch.store.models import GameRow, PhaseRow, SubmissionRow
from dippouch.store.rows import current_phase, game_row, game_settings, game_variant
from dippouch.store.sealing import is_sealed

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "ConfirmTarget",
    "PhotoItem",
    "PhotoPhase",
    "confirm_target",
    "link_confirmed",
    "open_phase_photos",
    "photo_bytes",
    "record_reading",
]


@dataclass(frozen=True)
class PhotoItem:
    """One attachment of a message sent for the open phase, and what has become of it so far."""

    attachment: int
    message: int
    power: str | None
    filename: str
    content_type: str
    received: datetime
    ocr_text: str | None
    submission: int | None
    set_aside: str | None


@dataclass(frozen=True)
class PhotoPhase:
    """The open phase a game's photographs are read against."""

    game: str
    variant: Variant
    position: dict[str, Any]
    players: dict[str, str]
    """Power -> the name of its current player (for the headings a sheet may carry)."""
    items: list[PhotoItem]
    fog: bool = False
    """A fog-of-war game (:attr:`dippouch.game.GameSettings.fog`; one with an open phase has not ended): each sheet
    is read against what its power sees."""


@dataclass(frozen=True)
class ConfirmTarget:
    """Where a confirmed photograph goes: the power's submission in the phase open now."""

    game: str
    power: str
    received: datetime
    phase_id: int
    variant: Variant
    position: dict[str, Any]
    player: str | None
    ocr_text: str | None
    fog: bool = False
    """As :attr:`PhotoPhase.fog`."""


def _same_phase(ph: PhaseRow) -> sa.Select[int]:
    """The ids of ``ph`` and of the earlier openings of the same phase (a rollback onto a phase opens it again
    as a new row): a photograph sent before the rollback was sent for the phase that is open now."""
    return sa.select(PhaseRow.id).where(
        PhaseRow.game_id == ph.game_id, PhaseRow.seq == ph.seq, PhaseRow.name == ph.name
    )


def open_phase_photos(store: Database, game: str, *, now: datetime) -> PhotoPhase:
    """The attachments of mail sent for the game's open phase (photographs and accepted mail), oldest first.
    Before the deadline they are sealed: refused with the reason."""
    with store.session() as s:
        g = game_row(s, game)
        v = game_variant(g)
        ph = current_phase(s, g)
        if ph is None:
            raise GameError(msg("game %(game)s has no open phase", game=repr(game)))
        if is_sealed(ph.status, ph.deadline, now):
            when = ph.deadline.isoformat() if ph.deadline else "the deadline (the game is paused)"
            raise GameError(
                msg(
                    "the photographs of %(phase)s are sealed until %(time)s; transcriptions come after it",
                    phase=PhaseName(ph.name),
                    time=when,
                )
            )
        rows = s.execute(
            sa.select(MailAttachmentRow, MailMessageRow)
            .join(MailMessageRow, MailMessageRow.id == MailAttachmentRow.mail_id)
            .where(MailMessageRow.phase_id.in_(_same_phase(ph)), MailMessageRow.status.in_(["photo", "accepted"]))
            .order_by(MailMessageRow.received_at, MailAttachmentRow.id)
        ).all()
        items = [
            PhotoItem(
                a.id,
                m.id,
                m.power,
                a.filename,
                a.content_type,
                m.received_at,
                a.ocr_text,
                a.submission_id,
                a.set_aside_why,
            )
            for a, m in rows
        ]
        players = {r.power: r.name for r in g.players if r.replaced_at is None}
        return PhotoPhase(g.name, v, dict(ph.position), players, items, game_settings(g).fog)


def unread_photographs(store: Database, *, skip: Collection[int] = ()) -> bool:
    """Whether any photograph of orders waits to be read (an image sent by a power, not read, not set aside;
    ``skip``: attachments left out): one indexed look, so the worker's reader scans the games' open phases
    (:func:`open_phase_photos`, a query a game) only when there is something to read."""
    q = (
        sa.select(MailAttachmentRow.id)
        .join(MailMessageRow, MailMessageRow.id == MailAttachmentRow.mail_id)
        .where(
            MailAttachmentRow.content_type.like("image/%"),
            MailAttachmentRow.ocr_text.is_(None),
            MailAttachmentRow.set_aside_why.is_(None),
            MailMessageRow.status.in_(["photo", "accepted"]),
            MailMessageRow.power.is_not(None),
        )
        .limit(1)
    )
    if skip:
        q = q.where(MailAttachmentRow.id.not_in(sorted(skip)))
    with store.read_session() as s:
        return s.scalar(q) is not None


def photo_bytes(store: Database, attachment: int) -> bytes:
    with store.session() as s:
        row = s.get(MailAttachmentRow, attachment)
        if row is None:
            raise GameError(msg("no attachment #%(id)s", id=attachment))
        return bytes(row.data)


def record_reading(store: Database, attachment: int, text: str, *, now: datetime) -> None:
    """Keep what the OCR engine read, so a photograph is read once however often it is shown."""
    with store.session() as s, s.begin():
        row = s.get(MailAttachmentRow, attachment)
        if row is None:
            raise GameError(msg("no attachment #%(id)s", id=attachment))
        row.ocr_text, row.ocr_at = text, now


def confirm_target(store: Database, attachment: int, *, now: datetime) -> ConfirmTarget:
    """Where the coordinator's confirmation of ``attachment`` goes, or why it cannot go anywhere."""
    with store.session() as s:
        row = s.get(MailAttachmentRow, attachment)
        if row is None:
            raise GameError(msg("no attachment #%(id)s (see `dippouch mail ocr GAME`)", id=attachment))
        mail = s.get(MailMessageRow, row.mail_id)
        assert mail is not None
        if row.submission_id is not None:
            raise GameError(msg("attachment #%(id)s was confirmed already", id=attachment))
        ph = s.get(PhaseRow, mail.phase_id) if mail.phase_id is not None else None
        g = s.get(GameRow, mail.game_id) if mail.game_id is not None else None
        if ph is None or g is None or mail.power is None:
            raise GameError(msg("attachment #%(id)s belongs to no power's submission", id=attachment))
        if ph.status == "abandoned":
            # Sent for a phase the coordinator has since reopened (rolled back onto): the same phase, open again.
            current = current_phase(s, g)
            if current is not None and (current.seq, current.name) == (ph.seq, ph.name):
                ph = current
        if ph.status != "open":
            raise GameError(
                msg("%(phase)s has been processed; a transcription can no longer be applied", phase=PhaseName(ph.name))
            )
        if is_sealed(ph.status, ph.deadline, now):
            raise GameError(
                msg(
                    "%(phase)s is sealed until its deadline; transcriptions are confirmed after it",
                    phase=PhaseName(ph.name),
                )
            )
        player = next((p.name for p in g.players if p.power == mail.power and p.replaced_at is None), None)
        return ConfirmTarget(
            g.name,
            mail.power,
            mail.received_at,
            ph.id,
            game_variant(g),
            dict(ph.position),
            player,
            row.ocr_text,
            game_settings(g).fog,
        )


def link_confirmed(store: Database, attachment: int, phase_id: int, power: str, version: int) -> None:
    """Mark ``attachment`` as confirmed: it became ``power``'s ``version`` in the phase."""
    with store.session() as s, s.begin():
        sub_id = s.scalars(
            sa.select(SubmissionRow.id).where(
                SubmissionRow.phase_id == phase_id, SubmissionRow.power == power, SubmissionRow.version == version
            )
        ).first()
        row = s.get(MailAttachmentRow, attachment)
        assert row is not None
        row.submission_id = sub_id
