"""Tables of the player list and absences (migration 0011): a person's postal addresses, their holidays,
each game's policy for both, and what a game did at a deadline for a player who was away.

Kept apart from the game tables: only the roster's pages, the deadline worker's absence pass and a person's
data export map them. A person's addresses and holidays belong to the person (deleted with their data); what a
game did at a deadline belongs to the game's history (kept, without the reason for the absence).
"""

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base

__all__ = ["AbsenceRow", "AbsenceUseRow", "GameRosterRow", "PostalAddressRow", "ProxyAllyRow"]


class PostalAddressRow(Base):
    """One postal address of a person: the primary one (no days) or an alternate preferred on its days."""

    __tablename__ = "postal_addresses"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    text: Mapped[str] = mapped_column(sa.Text)
    first_day: Mapped[date | None] = mapped_column(sa.Date)
    last_day: Mapped[date | None] = mapped_column(sa.Date)
    created_at: Mapped[datetime]


class AbsenceRow(Base):
    """A holiday a person recorded once, for every game they play (days inclusive, UTC)."""

    __tablename__ = "absences"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    first_day: Mapped[date] = mapped_column(sa.Date)
    last_day: Mapped[date] = mapped_column(sa.Date, index=True)
    reason: Mapped[str] = mapped_column(sa.String(200), default="")
    """Shown to the person only; games show the days."""
    created_at: Mapped[datetime]


class GameRosterRow(Base):
    """A game's settings for its player list and its absent players (absent row: the defaults)."""

    __tablename__ = "game_roster"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    roster_visibility: Mapped[str | None] = mapped_column(sa.String(20), default=None)
    """``coordinator``, ``co-players`` or ``nobody``; None: the variant's default (its ``[roster]`` data)."""
    absence_policy: Mapped[str] = mapped_column(sa.String(20), default="none")
    budget_days: Mapped[int] = mapped_column(default=14)
    """Days of extension each player may take in this game (policy ``extend``)."""
    stand_in_person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), default=None)
    """Who orders an absent player's seat (policy ``stand_in``)."""


class ProxyAllyRow(Base):
    """The ally a player names, in a game whose rules allow proxy orders (W3K), to order their units while they
    are away: at a deadline they miss, their units are handed over to that power (the rulebook's proxy orders)."""

    __tablename__ = "proxy_allies"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    power: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    ally: Mapped[str] = mapped_column(sa.String(100))
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    """Who named the ally (the seat's person then): their choice, deleted with their data."""
    set_at: Mapped[datetime]


class AbsenceUseRow(Base):
    """What a game did at one phase's deadline for one absent player: applied once (unique per phase and power)."""

    __tablename__ = "absence_uses"
    __table_args__ = (sa.UniqueConstraint("phase_id", "power", name="uq_absence_uses_phase_power"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id"))
    power: Mapped[str] = mapped_column(sa.String(100))
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True)
    policy: Mapped[str] = mapped_column(sa.String(20))
    days: Mapped[float] = mapped_column(default=0.0)
    """Days of the budget this took (``extend``)."""
    detail: Mapped[dict[str, Any]]
    applied_at: Mapped[datetime]
