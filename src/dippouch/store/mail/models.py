"""Tables of mail (:mod:`dippouch.mail`): intake, the outbound queue, notices already queued.

Kept apart from the game tables so that commands which never touch mail do not map them at start-up;
:mod:`dippouch.store.models` still hands them out by name.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from dippouch.store.models import Base


class GameMailRow(Base):
    """A game's mail settings: names it goes by in subjects, power aliases, reminders, maps, observers."""

    __tablename__ = "game_mail"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    config: Mapped[dict[str, Any]]


class MailMessageRow(Base):
    """One inbound message, kept whole (``raw``) and sealed like the orders it carries."""

    __tablename__ = "mail_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    digest: Mapped[str] = mapped_column(sa.String(64), unique=True)
    """SHA-256 of the raw message: the same message fetched twice (two sources, a re-run) is taken once."""
    message_id: Mapped[str | None] = mapped_column(sa.String(998))
    origin: Mapped[str] = mapped_column(sa.String(500))
    sender: Mapped[str] = mapped_column(sa.String(320))
    subject: Mapped[str] = mapped_column(sa.Text)
    received_at: Mapped[datetime]
    fetched_at: Mapped[datetime]
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"), index=True)
    phase_id: Mapped[int | None] = mapped_column(sa.ForeignKey("phases.id"), index=True)
    power: Mapped[str | None] = mapped_column(sa.String(100))
    submission_id: Mapped[int | None] = mapped_column(sa.ForeignKey("submissions.id"))
    status: Mapped[str] = mapped_column(sa.String(20))
    """``accepted``, ``photo`` (waits for a transcription), ``held``, ``late``, ``refused``, ``ignored``,
    ``applied`` (a held message the coordinator applied) or ``dismissed``."""
    reason: Mapped[str] = mapped_column(sa.Text)
    """What became of it, in English: what the logs and an older program's reader read."""
    reason_msg: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, nullable=True)
    """The same as a message value (:meth:`dippouch.core.messages.Msg.to_data`), said in each reader's
    language; ``None`` for a reason no template read (kept from before, or imported as text): shown as it is."""
    reading: Mapped[dict[str, Any]]
    """What the subject was read as (game, power, phase, version) and the notes about it."""
    raw: Mapped[bytes] = mapped_column(sa.LargeBinary)

    attachments: Mapped[list["MailAttachmentRow"]] = relationship(order_by="MailAttachmentRow.id")


class MailAttachmentRow(Base):
    __tablename__ = "mail_attachments"

    id: Mapped[int] = mapped_column(primary_key=True)
    mail_id: Mapped[int] = mapped_column(sa.ForeignKey("mail_messages.id"), index=True)
    filename: Mapped[str] = mapped_column(sa.String(500))
    content_type: Mapped[str] = mapped_column(sa.String(200))
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)
    ocr_text: Mapped[str | None] = mapped_column(sa.Text, default=None)
    """A proposed transcription (tesseract), never applied without the coordinator's confirmation."""
    ocr_at: Mapped[datetime | None] = mapped_column(default=None)
    submission_id: Mapped[int | None] = mapped_column(sa.ForeignKey("submissions.id"), default=None)
    """The submission the coordinator made of it (confirmed transcription)."""
    set_aside_at: Mapped[datetime | None] = mapped_column(default=None)
    """When the coordinator looked at it and decided it holds no orders (``mail set-aside``): it no longer
    holds its phase for review."""
    set_aside_why: Mapped[str | None] = mapped_column(sa.Text, default=None)


class MailReviewRow(Base):
    """The coordinator's release of a phase held for review (photographs or held mail waiting at its
    deadline): from then on the phase is processed with what stands, whatever is still unreviewed."""

    __tablename__ = "mail_reviews"

    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id"), primary_key=True)
    released_at: Mapped[datetime]
    note: Mapped[str] = mapped_column(sa.Text, default="")


class OutboxRow(Base):
    """One message to send. ``key`` is unique, so queuing the same notice twice (two processes) is one row."""

    __tablename__ = "mail_outbox"
    __table_args__ = (sa.Index("ix_mail_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(sa.String(300), unique=True)
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"))
    phase_id: Mapped[int | None]
    kind: Mapped[str] = mapped_column(sa.String(30))
    to_addr: Mapped[str] = mapped_column(sa.String(320))
    subject: Mapped[str] = mapped_column(sa.Text)
    body: Mapped[str] = mapped_column(sa.Text)
    header_id: Mapped[str] = mapped_column(sa.String(300))
    """The Message-ID, fixed when queued: a resend after a crash carries the same one."""
    in_reply_to: Mapped[str | None] = mapped_column(sa.String(998))
    status: Mapped[str] = mapped_column(sa.String(20))
    """``pending``, ``sent``, ``failed`` (refused for good by the server; ``mail retry`` queues it again) or
    ``withdrawn`` (a sign-in link used before its mail went: never sent)."""
    attempts: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime]
    next_attempt_at: Mapped[datetime]
    claimed_by: Mapped[str | None] = mapped_column(sa.String(100))
    claimed_until: Mapped[datetime | None]
    sent_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(sa.Text)

    files: Mapped[list["OutboxFileRow"]] = relationship(order_by="OutboxFileRow.id")


class OutboxFileRow(Base):
    __tablename__ = "mail_outbox_files"

    id: Mapped[int] = mapped_column(primary_key=True)
    outbox_id: Mapped[int] = mapped_column(sa.ForeignKey("mail_outbox.id"), index=True)
    filename: Mapped[str] = mapped_column(sa.String(500))
    content_type: Mapped[str] = mapped_column(sa.String(200))
    data: Mapped[bytes] = mapped_column(sa.LargeBinary)


class MailNoticeRow(Base):
    """A notice (a phase's results, a reminder, a pause...) that has been queued: made once, whatever runs it."""

    __tablename__ = "mail_notices"

    key: Mapped[str] = mapped_column(sa.String(300), primary_key=True)
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"))
    at: Mapped[datetime]


class FetchStateRow(Base):
    """How far an IMAP mailbox has been read (its UIDVALIDITY and the last UID taken)."""

    __tablename__ = "mail_fetch_state"

    origin: Mapped[str] = mapped_column(sa.String(500), primary_key=True)
    uidvalidity: Mapped[int] = mapped_column(sa.BigInteger)
    last_uid: Mapped[int] = mapped_column(sa.BigInteger)
