"""Tables of press (migration 0009): channels between powers, their messages, who has read how far, mutes and
blocks, conduct reports, and the per-recipient tokens a reply by mail is proved with.

Kept apart from the game tables so that commands which never touch press do not map them at start-up.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class PressSettingsRow(Base):
    """The press rules a game declared (``dippouch.press.rules.PressRules.to_data``); none: the variant's."""

    __tablename__ = "press_settings"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    rules: Mapped[dict[str, Any]]


class PressChannelRow(Base):
    """One conversation: its kind and its members (power names joined by newlines, sorted), unique per game."""

    __tablename__ = "press_channels"
    __table_args__ = (sa.UniqueConstraint("game_id", "members", name="uq_press_channels_game_members"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    kind: Mapped[str] = mapped_column(sa.String(20))
    """``private``, ``group``, ``public`` or ``announcement``."""
    members: Mapped[str] = mapped_column(sa.Text)
    """Sorted power names, one a line; ``*`` for the public channel and ``@`` for the announcements."""
    created_at: Mapped[datetime]


class PressMessageRow(Base):
    """One message. ``released_at`` is when readers may see it: at once, or with the phase's results (postal)."""

    __tablename__ = "press_messages"
    __table_args__ = (
        sa.Index("ix_press_messages_channel_id_id", "channel_id", "id"),
        sa.Index("ix_press_messages_sender_sent", "game_id", "sender", "sent_at"),
        sa.Index("ix_press_messages_released_at", "released_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    channel_id: Mapped[int] = mapped_column(sa.ForeignKey("press_channels.id"))
    sender: Mapped[str] = mapped_column(sa.String(100))
    body: Mapped[str] = mapped_column(sa.Text)
    sent_at: Mapped[datetime]
    phase_id: Mapped[int | None] = mapped_column(sa.ForeignKey("phases.id"))
    via: Mapped[str] = mapped_column(sa.String(10))
    """``web``, ``api`` or ``mail``."""
    released_at: Mapped[datetime | None]
    """``None`` while postal press waits for its phase's results."""


class PressReadRow(Base):
    """How far a power has read a channel (the last message id it saw): unread counts are what lies beyond."""

    __tablename__ = "press_reads"

    channel_id: Mapped[int] = mapped_column(sa.ForeignKey("press_channels.id"), primary_key=True)
    power: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    last_read: Mapped[int] = mapped_column(default=0)


class PressBlockRow(Base):
    """A power's mute (hide another's messages) or block (hide them, and take no private message from it)."""

    __tablename__ = "press_blocks"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    power: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    other: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(10))
    """``mute`` or ``block``."""
    at: Mapped[datetime]


class PressReportRow(Base):
    """A message a power reported to the coordinator, with its words."""

    __tablename__ = "press_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    message_id: Mapped[int] = mapped_column(sa.ForeignKey("press_messages.id"))
    power: Mapped[str] = mapped_column(sa.String(100))
    reason: Mapped[str] = mapped_column(sa.Text)
    at: Mapped[datetime]


class PressTokenRow(Base):
    """The secret a recipient's copy by mail carries: a reply with it lands in ``channel_id`` as ``power``."""

    __tablename__ = "press_tokens"
    __table_args__ = (sa.UniqueConstraint("channel_id", "power", name="uq_press_tokens_channel_power"),)

    token: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    channel_id: Mapped[int] = mapped_column(sa.ForeignKey("press_channels.id"))
    power: Mapped[str] = mapped_column(sa.String(100))
    address: Mapped[str] = mapped_column(sa.String(320))
    """The address it was sent to: a reply must come from it too."""
