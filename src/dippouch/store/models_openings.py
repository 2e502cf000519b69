"""Tables of open games (migration 0012): a game opened for sign-up, the people who signed up with their
wishes, and seats offered to the replacement pool.

Kept apart from the game tables, as the web's and the mail's are; :mod:`dippouch.store.tables` maps them
for migrations and the schema test.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class OpeningRow(Base):
    """A game opened for players: what it asks of them, and how its powers are given out."""

    __tablename__ = "openings"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    press: Mapped[str] = mapped_column(sa.Text, default="")
    """The press rules, as the coordinator wrote them (free text)."""
    min_reliability: Mapped[int] = mapped_column(default=0)
    """Percent a person's reliability must reach to sign up or claim a seat (0 asks nothing)."""
    mode: Mapped[str] = mapped_column(sa.String(20))
    """``coordinator`` (the coordinator assigns) or ``preferences`` (the game assigns when full)."""
    opened_at: Mapped[datetime]
    closed_at: Mapped[datetime | None] = mapped_column(default=None)
    """When sign-up ended (every seat filled, or the coordinator closed it); the pool stays open."""
    held_clock: Mapped[bool] = mapped_column(default=False)
    """Whether opening paused the game's clock (it restarts when the seats are filled)."""
    draw: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
    """The automatic assignment as made: its seed, and each person's power and rank, for anyone to check."""
    creator_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    """The signed-in player who started the game from a template (migration 0016): they hold its coordinator's
    powers as a key would give them; ``None`` for a game a coordinator opened."""
    invite_hash: Mapped[str | None] = mapped_column(sa.String(64), default=None)
    """SHA-256 of a private game's invitation link (migration 0016): who holds the link may see the opening
    and sign up, though the game is listed nowhere. ``None``: no link (a public game needs none)."""


class SignupRow(Base):
    """A person's sign-up to an opening, with their ranked power wishes."""

    __tablename__ = "opening_signups"
    __table_args__ = (sa.UniqueConstraint("game_id", "person_id", name="uq_opening_signups_game_person"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("openings.game_id"), index=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    preferences: Mapped[list[Any]] = mapped_column(sa.JSON)
    """Power names, best first; ``any`` for "every power not named"."""
    signed_at: Mapped[datetime]
    withdrawn_at: Mapped[datetime | None] = mapped_column(default=None)
    seated_as: Mapped[str | None] = mapped_column(sa.String(100), default=None)
    """The power they were given, once seated."""


class VacancyRow(Base):
    """A seat offered to the replacement pool, one row per seat (the player's row it frees), and who took it.

    A power in civil disorder is offered without a row; the row is made when the coordinator frees a seat or
    someone claims one, and its uniqueness per seat is what lets only the first claim win."""

    __tablename__ = "seat_vacancies"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    power: Mapped[str] = mapped_column(sa.String(100))
    player_id: Mapped[int | None] = mapped_column(sa.ForeignKey("players.id"), unique=True)
    """The seat given up (``None``: the power had no player)."""
    reason: Mapped[str] = mapped_column(sa.String(20))
    """``disorder`` (its power fell into civil disorder) or ``freed`` (the coordinator freed it)."""
    from_person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    offered_at: Mapped[datetime]
    claimed_by: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    claimed_at: Mapped[datetime | None] = mapped_column(default=None)
