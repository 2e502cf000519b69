"""Tables of web access (migration 0003): who may see and do what through ``dippouch serve``.

Kept apart from the game tables so that commands which never touch the web (a coordinator's ``submit``)
do not map them at start-up; :mod:`dippouch.store.models` still hands them out by name.

Secrets (player links, coordinator keys, session cookies) are never stored: only the SHA-256 of a 256-bit
random token. A database that leaks gives nobody a way in, and revoking is a timestamp.
"""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class GameWebRow(Base):
    """Per-game web settings, kept beside the game so the game tables stay the store's own."""

    __tablename__ = "game_web"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    visibility: Mapped[str] = mapped_column(sa.String(20), default="public")
    """``public`` (listed), ``unlisted`` (reachable by its address) or ``private`` (key holders only)."""


class AccessKeyRow(Base):
    """A secret that grants a role: a power in a game (a player's link) or coordination (one game or all)."""

    __tablename__ = "access_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    key_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    role: Mapped[str] = mapped_column(sa.String(20))
    """``player`` or ``coordinator``."""
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"), index=True)
    """``None`` for a coordinator of the whole installation (may create games)."""
    power: Mapped[str | None] = mapped_column(sa.String(100))
    label: Mapped[str] = mapped_column(sa.String(200), default="")
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class WebSessionRow(Base):
    """A signed-in browser: the cookie's hash, and the keys it was shown (``session_keys``)."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    """The person signed in on this browser, if any: their seats are granted besides the session's keys."""


class SessionKeyRow(Base):
    __tablename__ = "session_keys"

    session_id: Mapped[int] = mapped_column(sa.ForeignKey("web_sessions.id"), primary_key=True)
    key_id: Mapped[int] = mapped_column(sa.ForeignKey("access_keys.id"), primary_key=True)


class InstallationSecretRow(Base):
    """A random secret of this installation, made on first use and kept (migration 0008): a key for HMACs
    that must stay the same across restarts and processes (the practice games' tag of a client's address).
    Unlike the keys above it is stored itself, as it is never shown to anyone."""

    __tablename__ = "installation_secrets"

    name: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    value: Mapped[str] = mapped_column(sa.String(200))
    created_at: Mapped[datetime]
