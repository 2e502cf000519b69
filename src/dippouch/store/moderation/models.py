"""Tables of fair play between people (migration 0024): blocks between people, the devices and networks people
sign in from (only hashes), bans, reports to the installation's moderators, and the log of what the
moderators did.

Kept apart from the game tables, like the accounts', so commands that never sign anyone in do not map them.
A device id and a network are stored only as keyed hashes (:mod:`dippouch.store.moderation.stored`): the table says
which accounts share one, never what it was.
"""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class PersonBlockRow(Base):
    """``person_id`` blocks ``other_id``: in every game, no press between them, and no joining each other's
    new games. Never shown to ``other_id``."""

    __tablename__ = "person_blocks"
    __table_args__ = (sa.UniqueConstraint("person_id", "other_id", name="uq_person_blocks_person_other"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    other_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    at: Mapped[datetime]


class PersonDeviceRow(Base):
    """A browser a person signed in on: the keyed hash of its device cookie, first and last seen."""

    __tablename__ = "person_devices"
    __table_args__ = (sa.UniqueConstraint("device_hash", "person_id", name="uq_person_devices_device_person"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    device_hash: Mapped[str] = mapped_column(sa.String(64))
    first_seen: Mapped[datetime]
    last_seen: Mapped[datetime]


class PersonNetworkRow(Base):
    """A network (an IPv4 /24 or IPv6 /64) a person signed in from, as a short keyed hash, kept for
    :data:`dippouch.store.moderation.stored.NETWORK_DAYS` days."""

    __tablename__ = "person_networks"
    __table_args__ = (sa.UniqueConstraint("network_hash", "person_id", name="uq_person_networks_network_person"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    network_hash: Mapped[str] = mapped_column(sa.String(16))
    last_seen: Mapped[datetime] = mapped_column(index=True)


class PersonBanRow(Base):
    """A person the installation's coordinator banned: from signing in (``signin``), or from sending press
    in any game (``press``)."""

    __tablename__ = "person_bans"

    person_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(sa.String(10), primary_key=True)
    reason: Mapped[str] = mapped_column(sa.Text, default="")
    at: Mapped[datetime]


class ModerationReportRow(Base):
    """A report by a signed-in person about a message, a person or a game, for the installation's moderators."""

    __tablename__ = "moderation_reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    reporter_id: Mapped[int] = mapped_column(sa.ForeignKey("people.id"), index=True)
    kind: Mapped[str] = mapped_column(sa.String(20))
    """``message``, ``person`` or ``game``."""
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"), default=None)
    message_id: Mapped[int | None] = mapped_column(default=None)
    """The press message (its id in ``press_messages``), for a report of a message."""
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), default=None)
    """The person reported (for a message: its sender's person, when known)."""
    reason: Mapped[str] = mapped_column(sa.Text)
    at: Mapped[datetime]
    status: Mapped[str] = mapped_column(sa.String(20), default="open", index=True)
    """``open``, or the action that closed it: ``dismiss``, ``warn``, ``mute``, ``ban``."""
    decided_at: Mapped[datetime | None] = mapped_column(default=None)


class ModerationLogRow(Base):
    """What the installation's moderators did (a merge, a ban, a report acted on), kept for good."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(index=True)
    action: Mapped[str] = mapped_column(sa.String(20))
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), default=None)
    other_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), default=None)
    report_id: Mapped[int | None] = mapped_column(default=None)
    by: Mapped[str] = mapped_column(sa.String(200), default="")
    detail: Mapped[str] = mapped_column(sa.Text, default="")
