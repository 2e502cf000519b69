"""Tables of notifications (migration 0013): what each person wants to hear about and where, and the one
queue every notification goes through.

Kept apart from the game tables, like the web's and the mail's, so commands that never notify do not map
them. Secrets live here: a person's webhook addresses and Matrix tokens, browsers' push subscriptions and the
installation's VAPID private key. None of them is ever in a game file (:mod:`dippouch.store.transfer` does
not know these tables) and only the person's own pages show their targets, masked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class NotifyPrefRow(Base):
    """One choice: does ``person_id`` want ``event`` by ``channel``? No row: the default (:mod:`dippouch.notify.events`)."""

    __tablename__ = "notify_prefs"

    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True)
    event: Mapped[str] = mapped_column(sa.String(30), primary_key=True)
    channel: Mapped[str] = mapped_column(sa.String(20), primary_key=True)
    enabled: Mapped[bool]


class NotifySettingsRow(Base):
    """A person's settings that are not per event: how long before a deadline to be reminded."""

    __tablename__ = "notify_settings"

    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True)
    deadline_hours: Mapped[int]


class NotifyTargetRow(Base):
    """Where a person's notifications go besides their e-mail address: a browser's push subscription or a chat
    webhook. ``config`` is secret (the endpoint and keys, the webhook URL, a Matrix token)."""

    __tablename__ = "notify_targets"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    channel: Mapped[str] = mapped_column(sa.String(20))
    """``push`` or ``webhook``."""
    kind: Mapped[str] = mapped_column(sa.String(20))
    """``push``, ``discord``, ``slack`` or ``matrix``."""
    label: Mapped[str] = mapped_column(sa.String(200), default="")
    config: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class NotifyDeliveryRow(Base):
    """One notification to deliver to one person by one channel (to one target). ``key`` is unique, so queuing
    the same event twice (two workers scanning at once) is one row, and a row is sent once (claimed first)."""

    __tablename__ = "notify_queue"
    __table_args__ = (sa.Index("ix_notify_queue_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(sa.String(400), unique=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    event: Mapped[str] = mapped_column(sa.String(30))
    channel: Mapped[str] = mapped_column(sa.String(20))
    target_id: Mapped[int | None]
    """The push subscription or webhook (``None`` for e-mail, which goes to the person's address)."""
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"))
    title: Mapped[str] = mapped_column(sa.String(300))
    body: Mapped[str] = mapped_column(sa.Text)
    url: Mapped[str] = mapped_column(sa.String(2000), default="")
    status: Mapped[str] = mapped_column(sa.String(20))
    """``pending``, ``sent`` or ``failed`` (refused for good: the target is gone or refuses; kept with why)."""
    attempts: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime]
    next_attempt_at: Mapped[datetime]
    claimed_by: Mapped[str | None] = mapped_column(sa.String(100))
    claimed_until: Mapped[datetime | None]
    sent_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(sa.Text)


class NotifyMarkRow(Base):
    """An event the scan has queued (``phase_processed:PHASE``...): queued once, whichever worker scans."""

    __tablename__ = "notify_marks"

    key: Mapped[str] = mapped_column(sa.String(300), primary_key=True)
    at: Mapped[datetime]


class NotifyKeyRow(Base):
    """The installation's VAPID key pair (made once, on first need): the private key signs every push."""

    __tablename__ = "notify_keys"

    name: Mapped[str] = mapped_column(sa.String(50), primary_key=True)
    private_pem: Mapped[str] = mapped_column(sa.Text)
    public_key: Mapped[str] = mapped_column(sa.String(200))
    """The public key as browsers take it: uncompressed P-256 point, base64url without padding."""
    created_at: Mapped[datetime]
