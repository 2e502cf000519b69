"""Tables of the stored ratings (migration 0020): what the ratings took in from each finished game, the standings
that came of it, and the lock that keeps two updates from interleaving (:mod:`dippouch.store.ratings.ledger`).

Everything here is derived from the games and can be recomputed from them (``dippouch ratings check``): the
ledger keeps, per finished game, the facts it was taken in under (to see when they change) and each rated
person's score in it (so the standings can be replayed in order without scoring every game again).

Annotations are evaluated, not postponed, as in :mod:`dippouch.store.models`.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base

__all__ = ["RatedGameRow", "RatingLineRow", "RatingPoolRow", "RatingRow", "RatingStateRow"]


class RatedGameRow(Base):
    """A finished game as the ratings took it in: one row for every finished game, counted or not, so the games
    not yet taken in are those without a row, and a row whose facts no longer match its game is one to take in
    again. No foreign key to the game: a game that is gone must still be found here to be taken out."""

    __tablename__ = "rating_games"
    __table_args__ = (
        # The order ratings are computed in (end time, then name), over the games that rated somebody.
        sa.Index("ix_rating_games_rated_ended_at", "rated", "ended_at", "name"),
        # The counted games that rated nobody (the unscored among them are listed).
        sa.Index("ix_rating_games_counted_rated", "counted", "rated"),
    )

    game_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(sa.String(100))
    variant: Mapped[str] = mapped_column(sa.String(100))
    """The variant group whose leaderboard it counts toward (besides the overall one)."""
    branch: Mapped[int]
    """The game's line of play when taken in: a rollback opens a new branch."""
    last_event: Mapped[int | None]
    """The id of the game's last event when taken in (a deep check compares it: any later change of the game
    is logged there)."""
    scoring: Mapped[str] = mapped_column(sa.String(40), default="")
    """The scoring system the game chose, as stored in its settings; empty: the default."""
    visibility: Mapped[str] = mapped_column(sa.String(20))
    counted: Mapped[bool]
    """Whether it counts at all (not practice, not private, names not hidden)."""
    ended_at: Mapped[datetime | None]
    """When its last phase was closed; None for a finished game without any processed phase."""
    system: Mapped[str | None] = mapped_column(sa.String(40))
    """The system it was scored under (a counted game's)."""
    problem: Mapped[str | None] = mapped_column(sa.Text)
    """Why a counted game could not be scored, in English (the logs', the check's and an old row's)."""
    why: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON(none_as_null=True))
    """The same as a message value (:meth:`dippouch.core.messages.Msg.to_data`), said in the reader's language
    where it is shown; None for a row whose English no template of migration 0032 read."""
    rated: Mapped[bool]
    """Whether it changed somebody's rating (at least two rated people who scored something between them)."""
    weight: Mapped[float] = mapped_column(default=1.0)


class RatingLineRow(Base):
    """A person's result in a counted game: their score, share and whether they left in civil disorder, and the
    game's facts the hall of fame orders by, so each of its lists is one index range."""

    __tablename__ = "rating_lines"
    __table_args__ = (
        sa.Index("ix_rating_lines_fame_ended_at", "fame", "ended_at"),
        sa.Index("ix_rating_lines_fame_share", "fame", "share"),
        sa.Index("ix_rating_lines_variant_fame_ended_at", "variant", "fame", "ended_at"),
        sa.Index("ix_rating_lines_variant_fame_share", "variant", "fame", "share"),
    )

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("rating_games.game_id"), primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True, index=True)
    power: Mapped[str] = mapped_column(sa.String(100))
    score: Mapped[float]
    share: Mapped[float]
    """The score over the game's rated players' total (0 when they scored nothing between them)."""
    solo: Mapped[bool]
    civil_disorder: Mapped[bool | None]
    game: Mapped[str] = mapped_column(sa.String(100))
    variant: Mapped[str] = mapped_column(sa.String(100))
    ended_at: Mapped[datetime]
    fame: Mapped[str | None] = mapped_column(sa.String(10))
    """``solo`` or ``result`` for a line the hall of fame lists (a public game's, with a score above 0)."""


class RatingRow(Base):
    """A person's standing in a pool: the overall one (``pool`` empty) or a variant group's."""

    __tablename__ = "ratings"
    __table_args__ = (sa.Index("ix_ratings_pool_rating", "pool", "rating"),)

    pool: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True, index=True)
    rating: Mapped[float]
    games: Mapped[int]
    known: Mapped[int]
    """Rated games whose civil disorder is known."""
    steady: Mapped[int]
    """Of those, the games finished without civil disorder."""


class RatingPoolRow(Base):
    """A pool's size, kept with its standings so a leaderboard's heading reads one row."""

    __tablename__ = "rating_pools"

    pool: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    people: Mapped[int]
    games: Mapped[int]
    """The games that rated somebody in it."""


class RatingStateRow(Base):
    """One row: the version of the stored ratings, raised by every update. An update locks it, and one planned
    on an older version is given up and planned again, so two updates never interleave."""

    __tablename__ = "rating_state"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    version: Mapped[int]
    updated_at: Mapped[datetime | None]
