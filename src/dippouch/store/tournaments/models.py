"""The tournaments' table (migration 0019), mapped only by the commands that read or write tournaments
(and by :mod:`dippouch.store.tables` for migrations); the game tables it points to are the core's.

Annotations here are evaluated, not postponed, as in :mod:`dippouch.store.models`.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base

__all__ = ["TournamentRow"]


class TournamentRow(Base):
    """A tournament (migration 0019): a set of games scored under one system, with standings recomputed from
    the games themselves (:mod:`dippouch.store.tournaments.stored`). Here, one table: its games are a short list
    kept with it (a club's tournament holds tens of games, read and written whole), by name as the game
    pages address them."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(100), unique=True)
    system: Mapped[str] = mapped_column(sa.String(40))
    """The scoring system's name (:mod:`dippouch.ranking.scoring`), as the use case checked it."""
    variant: Mapped[str | None] = mapped_column(sa.String(100), default=None)
    """The one variant its games must play; ``None``: any."""
    creator_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    """The signed-in person who created it and runs it; ``None``: created with the installation's key or CLI."""
    created_at: Mapped[datetime]
    games: Mapped[list[Any]] = mapped_column(sa.JSON)
    """Its games in the order added: ``{"game": name, "round": number or null, "added_at": ISO time}``."""
