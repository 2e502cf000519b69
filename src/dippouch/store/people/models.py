"""Tables of people (the person's own row stays with the game tables, beside the seats that point to it):

- their accounts (migration 0010): sign-in links mailed, passkeys, their challenges, and the secret address of a
  person's calendar feed. Secrets (a link's token, a calendar token) are stored only as their SHA-256, as access
  keys are: a database that leaks lets nobody in.
- the player list and absences (migration 0011): a person's postal addresses, their holidays, each game's policy
  for both, and what a game did at a deadline for a player who was away. A person's addresses and holidays belong
  to the person (deleted with their data); what a game did at a deadline belongs to the game's history (kept,
  without the reason for the absence).

Kept apart from the game tables, like the web's and the mail's: a command that only submits orders maps none.
"""

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class SigninLinkRow(Base):
    """A sign-in (or sign-up) link mailed to an address: single-use, short-lived."""

    __tablename__ = "signin_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    email: Mapped[str] = mapped_column(sa.String(320), index=True)
    """Lower-cased: the address the link was sent to (a new person gets it when the link is used)."""
    name: Mapped[str | None] = mapped_column(sa.String(200))
    """The name a new person gave when asking (None: asked when the link is used)."""
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    shown_at: Mapped[datetime | None] = mapped_column(default=None)
    """When the installation's coordinator read the link's mail on the Outbox (migration 0022), shown to the
    person on their account page: a reading lets the reader act as them."""


class PasskeyRow(Base):
    """A WebAuthn credential (a passkey) a person registered: its id and public key, never a secret."""

    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    credential_id: Mapped[str] = mapped_column(sa.String(1400), unique=True)
    """Base64url of the authenticator's credential id."""
    public_key: Mapped[bytes] = mapped_column(sa.LargeBinary)
    sign_count: Mapped[int] = mapped_column(sa.BigInteger, default=0)
    label: Mapped[str] = mapped_column(sa.String(200), default="")
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]


class PasskeyChallengeRow(Base):
    """A WebAuthn challenge handed to a browser: kept server-side, used once, short-lived."""

    __tablename__ = "passkey_challenges"

    id: Mapped[int] = mapped_column(primary_key=True)
    challenge: Mapped[str] = mapped_column(sa.String(200), unique=True)
    """Base64url of the random challenge (not a secret: it is signed, not shown back)."""
    purpose: Mapped[str] = mapped_column(sa.String(20))
    """``register`` (a signed-in person adds a passkey) or ``signin``."""
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class CalendarFeedRow(Base):
    """The secret address of a person's calendar feed of all their deadlines (one live at a time)."""

    __tablename__ = "person_calendars"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


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
