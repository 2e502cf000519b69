"""Tables of people's accounts (migration 0010): sign-in links mailed, passkeys, their challenges, and the
secret address of a person's calendar feed.

Kept apart from the game tables, like the web's and the mail's, so commands that never sign anyone in do not
map them. Secrets (a link's token, a calendar token) are stored only as their SHA-256, as access keys are: a
database that leaks lets nobody in.
"""

from datetime import datetime

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
