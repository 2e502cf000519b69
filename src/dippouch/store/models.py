"""Tables of a game database. One game has players, phases (with their submissions) and an event log.

Times are stored as UTC (:class:`dippouch.store.base.UTCDateTime`); code above the store only ever sees
aware UTC times. The declarative base is :mod:`dippouch.store.base`'s.

Phases are never deleted: a rollback marks the phases it undoes ``abandoned`` and opens a new *branch*,
so ``(game, branch, seq)`` is unique and the whole history, abandoned lines included, stays readable.

Annotations here are evaluated, not postponed (no ``from __future__ import annotations``): postponed, each of
the ~90 columns' types would be read back from a string by SQLAlchemy on every start, about 30 ms of each
command a coordinator types. Only the relationships' forward references are strings.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from dippouch.store.base import Base

# Base is handed on: the web's and the mail's tables import it from here, which also maps the game tables
# their foreign keys point to.
__all__ = ["Base", "EventRow", "GameRow", "PersonRow", "PhaseRow", "PlayerRow", "SubmissionRow", "VoteRow"]


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(100), unique=True)
    variant: Mapped[str] = mapped_column(sa.String(100))
    options: Mapped[dict[str, Any]]
    settings: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(sa.String(20))
    """``active``, ``paused`` or ``finished``."""
    ending: Mapped[dict[str, Any] | None]
    branch: Mapped[int] = mapped_column(default=0)
    paused_remaining: Mapped[float | None]
    """Seconds that were left before the deadline when the game was paused."""
    created_at: Mapped[datetime]
    variant_data: Mapped[dict[str, Any] | None]
    """The variant as resolved for this game (after inheritance and options), stored when it was created so
    later commands play the same variant whatever happens to its file; ``None`` for a game from before
    migration 0004 whose file could not be read then (it is loaded by name)."""
    variant_hash: Mapped[str | None] = mapped_column(sa.String(64))
    """SHA-256 of ``variant_data`` in canonical JSON (:func:`dippouch.core.variant.content_hash`)."""

    players: Mapped[list["PlayerRow"]] = relationship(back_populates="game", order_by="PlayerRow.id")
    phases: Mapped[list["PhaseRow"]] = relationship(back_populates="game", order_by="PhaseRow.id")


class PersonRow(Base):
    """A person who signs in once and plays seats in several games (migration 0008).

    Until people existed dippouch knew powers and keys only; a seat (:class:`PlayerRow`) may now name the
    person who plays it, and a signed-in browser may belong to a person
    (:class:`~dippouch.store.models_web.WebSessionRow`), whose seats then open their power pages without a
    key per game. Keys stay: scripts and players without e-mail use them. Here beside the seats rather than
    in a module of its own, so every command that maps a seat also maps what its foreign key points to.
    """

    __tablename__ = "people"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(200))
    email: Mapped[str | None] = mapped_column(sa.String(320), unique=True)
    """Lower-cased; ``None`` for a person known only by name (no sign-in by mail)."""
    created_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]
    """Set when the person deleted their data: the row stays, emptied, so seats keep their history."""
    language: Mapped[str | None] = mapped_column(sa.String(16), default=None)
    """The language chosen for pages, mail and notices (a code of :data:`dippouch.i18n.LANGUAGES`)."""
    time_zone: Mapped[str | None] = mapped_column(sa.String(64), default=None)
    """An IANA zone name for the dates and times shown to this person."""


class PlayerRow(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    power: Mapped[str] = mapped_column(sa.String(100))
    name: Mapped[str] = mapped_column(sa.String(200))
    assigned_at: Mapped[datetime]
    replaced_at: Mapped[datetime | None]
    email: Mapped[str | None] = mapped_column(sa.String(320), default=None)
    """Where the player's mail goes, and the only sender whose orders mail intake applies for the power."""
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    """The person playing this seat (:mod:`dippouch.store.models_people`), when the seat was taken by one."""

    game: Mapped["GameRow"] = relationship(back_populates="players")


class PhaseRow(Base):
    __tablename__ = "phases"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "branch", "seq", name="uq_phases_game_branch_seq"),
        # The deadline workers' scan: open phases whose deadline has passed (migration 0006).
        sa.Index("ix_phases_status_deadline", "status", "deadline"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    branch: Mapped[int]
    seq: Mapped[int]
    """Position in the game's line of play, from 0; a rollback reuses the numbers on a new branch."""
    name: Mapped[str] = mapped_column(sa.String(100))
    kind: Mapped[str] = mapped_column(sa.String(20))
    status: Mapped[str] = mapped_column(sa.String(20))
    """``open``, ``processed`` or ``abandoned``."""
    position: Mapped[dict[str, Any]]
    opened_at: Mapped[datetime]
    deadline: Mapped[datetime | None]
    """``None`` while the game is paused."""
    processed_at: Mapped[datetime | None]
    orders: Mapped[dict[str, Any] | None]
    """Power -> canonical orders that were adjudicated (the counting submission's accepted lines)."""
    results: Mapped[list[Any] | None]
    next_position: Mapped[dict[str, Any] | None]
    missed: Mapped[list[Any] | None]
    """Powers that had to act and sent nothing that counted."""

    game: Mapped["GameRow"] = relationship(back_populates="phases")
    submissions: Mapped[list["SubmissionRow"]] = relationship(back_populates="phase", order_by="SubmissionRow.id")


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (sa.UniqueConstraint("phase_id", "power", "version", name="uq_submissions_phase_power_version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id"), index=True)
    power: Mapped[str] = mapped_column(sa.String(100))
    version: Mapped[int]
    submitted_at: Mapped[datetime]
    text: Mapped[str] = mapped_column(sa.Text)
    lines: Mapped[list[Any]]
    ready: Mapped[bool] = mapped_column(default=False)
    source: Mapped[str] = mapped_column(sa.String(20), default="cli", server_default="cli")
    """``cli``, ``mail``, ``post``, ``photo`` (a confirmed transcription) or ``web``."""
    recorded_at: Mapped[datetime | None] = mapped_column(default=None)
    """When it was typed in, if that differs from ``submitted_at`` (the time it was received: post)."""
    label: Mapped[str | None] = mapped_column(sa.String(40), default=None)
    """The player's own name for this version ("v2" in a subject, "Version 2" on a sheet)."""
    reinstates: Mapped[int | None] = mapped_column(default=None)
    """A version instruction: this submission says that (our) version ``reinstates`` stands."""
    stands: Mapped[bool] = mapped_column(default=True, server_default=sa.true())
    """Whether this version replaced the earlier ones: false for one with no order line, or whose lines all
    failed, sent without saying that it replaces them (it is kept, and the earlier version still counts)."""
    carried_from: Mapped[int | None] = mapped_column(default=None)
    """The submission (id) a rollback carried forward into this reopened phase, if it is such a copy."""

    phase: Mapped["PhaseRow"] = relationship(back_populates="submissions")


class VoteRow(Base):
    __tablename__ = "votes"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    power: Mapped[str] = mapped_column(sa.String(100))
    draw: Mapped[bool]
    at: Mapped[datetime]


class EventRow(Base):
    __tablename__ = "events"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    at: Mapped[datetime]
    kind: Mapped[str] = mapped_column(sa.String(30))
    detail: Mapped[dict[str, Any]]


# --------------------------------------------------------------------------------------------------
# The web's tables are in dippouch.store.models_web, and each domain's in its own sub-package (the mail's,
# press's, the tournaments'...): mapped only by the commands that use them. dippouch.store.tables.load_all
# maps them all (for migrations).
