"""The one-on-one queue's table (:mod:`dippouch.store.duels`): people waiting for an opponent, and what became of
each wait (paired into a game, or left).

A row is kept after its wait ends (the game it was paired into, or the time it was left), so a person's page can
say "you were paired into ..." after the fact and the queue's history stays readable. At most one row per person
is waiting at a time: a partial unique index says so to the database itself, whatever the code does.

Annotations are evaluated, not postponed, as in :mod:`dippouch.store.models`.
"""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base

__all__ = ["DuelWaitRow"]

_WAITING = sa.text("left_at IS NULL AND game IS NULL")


class DuelWaitRow(Base):
    """A person's request for a one-on-one game: waiting while neither ``game`` nor ``left_at`` is set."""

    __tablename__ = "duel_queue"
    __table_args__ = (
        sa.Index("uq_duel_queue_waiting", "person_id", unique=True, postgresql_where=_WAITING, sqlite_where=_WAITING),
        # The queue in order: the oldest waiting first.
        sa.Index("ix_duel_queue_asked_at", "asked_at", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"))
    pairing: Mapped[str] = mapped_column(sa.String(10))
    """``fva`` (France against Austria) or ``any`` (the game chooses)."""
    asked_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True))
    left_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True), default=None)
    game: Mapped[str | None] = mapped_column(sa.String(100), default=None)
    """The game the wait ended in (no foreign key: a game deleted later leaves the history readable)."""
    power: Mapped[str | None] = mapped_column(sa.String(100), default=None)
    paired_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True), default=None)
