"""Press in the database: channels, messages, read marks, mutes and blocks, reports, copies by mail.

Every message, whichever way it came (web page, JSON API, reply by mail), goes through :func:`send`, which
asks :func:`dippouch.press.rules.refusal` (the one decision) with what it counted in the same transaction, and
stores the message and its copies by mail (the outbox, :mod:`dippouch.store.mail.outbox`) together: a message is
never stored without its copies being queued, nor a copy queued twice (its key names message and recipient).

Who may read what is :func:`dippouch.press.rules.may_read`'s; a channel a reader may not read answers as if it
did not exist (its id tells nothing).

For notifications (e-mail, push, webhooks): :func:`messages_since` lists what a power has received after a
message id; a notifier keeps the last id it handled per power and asks again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, defer

from dippouch.core.errors import NotFound
from dippouch.core.messages import msg, pmsg
from dippouch.game import GameError, as_utc
from dippouch.press.mailtext import copy_body, copy_subject, press_token_text
from dippouch.press.rules import (
    ANNOUNCEMENT,
    COORDINATOR,
    Attempt,
    PressRules,
    Refusal,
    channel_kind,
    describe,
    may_read,
    refusal,
    rules_for,
    shown_members,
    shown_sender,
)
from dippouch.saying import say
from dippouch.store.db import Database
from dippouch.store.mail.models import GameMailRow, OutboxRow
from dippouch.store.mail.outbox import queue_in
from dippouch.store.models import GameRow, PhaseRow, PlayerRow
from dippouch.store.moderation.stored import blocked_powers, blocked_powers_sql, press_banned_sql
from dippouch.store.notify.stored import press_by_mail
from dippouch.store.press.models import (
    PressBlockRow,
    PressChannelRow,
    PressMessageRow,
    PressReadRow,
    PressReportRow,
    PressSettingsRow,
    PressTokenRow,
)
from dippouch.store.rows import game_row, game_settings, game_variant, log_event

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

if TYPE_CHECKING:
    from dippouch.store.mail.inbox import Finish

__all__ = [
    "PAGE",
    "REPORTS_PER_DAY",
    "ChannelPage",
    "Message",
    "NoChannel",
    "Overview",
    "PressRefused",
    "Sent",
    "Thread",
    "TokenOwner",
    "announce",
    "blocks",
    "channel_page",
    "copied",
    "export_press",
    "mail_copies_for",
    "mark_read",
    "messages_since",
    "overview",
    "power_names",
    "press_rules",
    "release_held",
    "report",
    "reports",
    "rules_in",
    "send",
    "set_block",
    "set_press_rules",
    "threads",
    "token_owner",
]

PAGE = 50
"""Messages a channel page shows at once (older ones by ``before``)."""
REPORTS_PER_DAY = 10
"""Reports one power may make in a game in any 24 hours: enough to report each abusive message of a bad
day, too few to bury the coordinator's list (each report is a row they read and 2,000 characters)."""
PUBLIC, ANNOUNCEMENTS = "*", "@"
"""The member keys of a game's public channel and of its announcements."""


class PressRefused(GameError):
    """A message the press rules refuse: ``refusal.rule`` names the rule, the message says it."""

    def __init__(self, why: Refusal) -> None:
        super().__init__(msg("not sent (%(rule)s): %(reason)s", rule=why.rule, reason=why.message))
        self.refusal = why


class NoChannel(GameError):
    """A channel that does not exist or that the reader may not read: the same words either way."""


@dataclass(frozen=True)
class Message:
    id: int
    channel_id: int
    sender: str
    """As this reader sees it (grey press: ``Anonymous``)."""
    text: str
    sent_at: datetime
    held: bool
    """Postal press not yet released (only its sender sees it)."""
    mine: bool
    kind: str = ""
    """The channel's kind, and its members (for a page that has not shown the channel yet)."""
    members: tuple[str, ...] = ()
    phase: str = ""
    """The phase it was written in ("" once the game was over): pages mark where a phase's talk begins."""


@dataclass(frozen=True)
class Thread:
    id: int
    kind: str
    members: list[str]
    """The powers in it (every power for public channels and announcements)."""
    unread: int
    last_id: int
    last_at: datetime | None


@dataclass(frozen=True)
class ChannelPage:
    thread: Thread
    messages: list[Message]
    """Oldest first; ``more`` says whether older ones are left."""
    more: bool
    read_up_to: int = 0
    """The last message the reader had read (a page marks the channel read only when there is more)."""


@dataclass(frozen=True)
class Sent:
    id: int
    channel_id: int
    kind: str
    held: bool
    mailed: int
    """Copies queued for recipients with an e-mail address."""


@dataclass(frozen=True)
class TokenOwner:
    game: str
    power: str
    address: str
    channel_id: int


# --------------------------------------------------------------------------------------------------
# Rules


def _rules(s: Session, g: GameRow) -> PressRules:
    row = s.get(PressSettingsRow, g.id)
    return _rules_of(g, row.rules if row is not None else None)


def _rules_of(g: GameRow, declared: Mapping[str, Any] | None) -> PressRules:
    """The press rules from what the game declared, ``anonymous`` read from the game's own setting (one truth
    for every page, not the press's alone); a value a stored table or the variant's ``[press]`` still holds is
    not read."""
    stored = {k: v for k, v in (declared or {}).items() if k != "anonymous"}
    rules = rules_for(stored or None, game_variant(g).data)
    return dataclasses.replace(rules, anonymous=game_settings(g).anonymous)


def rules_in(s: Session, g: GameRow) -> PressRules:
    """The game's press rules, read in the caller's session (the lobby shows them, in its reader's words
    by :func:`~dippouch.press.rules.describe`: what it says is what every door checks)."""
    return _rules(s, g)


def press_rules(db: Database, name: str) -> PressRules:
    """The press rules of a game: those it declared, else its variant's, else white press."""
    with db.session() as s:
        return _rules(s, game_row(s, name))


def set_press_rules(db: Database, name: str, data: Mapping[str, Any], *, now: datetime) -> PressRules:
    """Declare a game's press rules (keys left out keep the rules now); the change is in the game's log."""
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        rules = PressRules.from_data(dict(data), _rules(s, g))
        settings = game_settings(g)
        if rules.anonymous != settings.anonymous:  # the game's setting, which every page reads
            g.settings = dataclasses.replace(settings, anonymous=rules.anonymous).to_data()
        kept = {k: v for k, v in rules.to_data().items() if k != "anonymous"}
        row = s.get(PressSettingsRow, g.id)
        if row is None:
            s.add(PressSettingsRow(game_id=g.id, rules=kept))
        else:
            row.rules = kept
        log_event(s, g, as_utc(now), "press-rules", rules=rules.to_data())
        return rules


# --------------------------------------------------------------------------------------------------
# Sending


STARTER = ">"
"""Marks the first line of a grey press channel's member key: the power that started it (see
:func:`dippouch.press.rules.shown_members`). Its key differs from the same powers' channel started by another of
them, so England's grey letter to France and France's to England are two channels."""


def _members_key(kind: str, members: Iterable[str], starter: str | None = None) -> str:
    if kind == "public":
        return PUBLIC
    if kind == ANNOUNCEMENT:
        return ANNOUNCEMENTS
    key = "\n".join(sorted(set(members)))
    return f"{STARTER}{starter}\n{key}" if starter else key


def _members(row: PressChannelRow, powers: Sequence[str]) -> list[str]:
    if row.members in (PUBLIC, ANNOUNCEMENTS):
        return list(powers)
    return [m for m in row.members.split("\n") if not m.startswith(STARTER)]


def _starter(row: PressChannelRow) -> str | None:
    first = row.members.split("\n", 1)[0]
    return first[len(STARTER) :] if first.startswith(STARTER) else None


def _shown_members(
    rules: PressRules, row: PressChannelRow, powers: Sequence[str], reader: str | None, finished: bool
) -> list[str]:
    return shown_members(rules, _members(row, powers), reader=reader, starter=_starter(row), finished=finished)


_CHANNELS = cast(sa.Table, PressChannelRow.__table__)


def _make_channel(insert: Any) -> Any:
    values = {c: sa.bindparam(c, type_=_CHANNELS.c[c].type) for c in ("game_id", "kind", "members", "created_at")}
    return (
        insert(_CHANNELS)
        .values(values)
        .on_conflict_do_nothing(index_elements=[_CHANNELS.c.game_id, _CHANNELS.c.members])
        .returning(_CHANNELS.c.id)
    )


_MAKE_CHANNEL = {"postgresql": _make_channel(pg_insert), "sqlite": _make_channel(sqlite_insert)}
_CHANNEL_ID = sa.select(_CHANNELS.c.id).where(
    _CHANNELS.c.game_id == sa.bindparam("game_id"), _CHANNELS.c.members == sa.bindparam("members")
)


def _new_channel(s: Session, game_id: int, kind: str, key: str, now: datetime) -> int:
    """The id of channel ``key``, which the send's own read (:data:`_ABOUT`) did not find: made by one statement
    that gives way to a channel another sender made at the same moment, read back only then. (A look-up, a
    savepoint, the insert and the savepoint's release were four round trips, the slowest sends of a game's
    first hour: a new channel is a new pair talking.)"""
    conn = s.connection()
    values = {"game_id": game_id, "kind": kind, "members": key, "created_at": now}
    made = conn.execute(_MAKE_CHANNEL[conn.dialect.name], values).scalar()
    if made is None:
        made = conn.execute(_CHANNEL_ID, values).scalar_one()
    return int(made)


# A send's two reads and its write, built once (building a statement costs more than running it).
_SITUATION = (
    sa.select(GameRow, PressSettingsRow.rules, PhaseRow.id, PhaseRow.kind)
    .options(defer(GameRow.variant_data))
    .outerjoin(PressSettingsRow, PressSettingsRow.game_id == GameRow.id)
    .outerjoin(PhaseRow, sa.and_(PhaseRow.game_id == GameRow.id, PhaseRow.status == "open"))
    .where(GameRow.name == sa.bindparam("name"))
    .with_for_update(read=True, of=GameRow)
)
"""The game (locked for sharing), its declared press rules and its open phase."""
_SENDER_LOCK = sa.func.pg_advisory_xact_lock(sa.bindparam("lock", type_=sa.BigInteger))
_SITUATIONS = {
    "postgresql": _SITUATION.add_columns(_SENDER_LOCK),
    "sqlite": _SITUATION,
}
"""By dialect. On PostgreSQL the first read also takes a lock on the (game, sender) pair, held to the end of the
transaction: two sends of one power at the same moment are counted one after the other (:data:`_ABOUT` is the
next statement, so it sees what the other committed), and the rate rule cannot be overrun by sending in
parallel. SQLite writes one transaction at a time already."""

_TEXT, _INT, _TIME = sa.String(), sa.Integer(), PressMessageRow.sent_at.type


def _typed_null(t: Any) -> Any:
    return sa.cast(sa.null(), t)


_BLOCKED = blocked_powers_sql(sa.bindparam("game"), sa.bindparam("sender")).subquery("blocked")
_BANNED = press_banned_sql(sa.bindparam("game"), sa.bindparam("sender")).subquery("banned")

_ABOUT: sa.CompoundSelect[Any] = sa.union_all(
    sa.select(
        sa.literal("block", _TEXT), PressBlockRow.power, PressBlockRow.kind, _typed_null(_INT), _typed_null(_TIME)
    ).where(PressBlockRow.game_id == sa.bindparam("game"), PressBlockRow.other == sa.bindparam("sender")),
    sa.select(
        sa.literal("address", _TEXT), PlayerRow.power, PlayerRow.email, _typed_null(_INT), _typed_null(_TIME)
    ).where(PlayerRow.game_id == sa.bindparam("game"), PlayerRow.replaced_at.is_(None), PlayerRow.email.is_not(None)),
    sa.select(
        sa.literal("channel", _TEXT),
        _typed_null(_TEXT),
        PressChannelRow.members,
        PressChannelRow.id,
        _typed_null(_TIME),
    ).where(PressChannelRow.game_id == sa.bindparam("game"), PressChannelRow.members == sa.bindparam("key")),
    # The people the sender's player is in a block with (either way round): press passes neither way, and
    # the sender is never told (:mod:`dippouch.store.moderation.stored`); and whether the moderators stopped their press.
    sa.select(
        sa.literal("person", _TEXT),
        _BLOCKED.c.power,
        sa.literal("mute", _TEXT),
        _typed_null(_INT),
        _typed_null(_TIME),
    ),
    sa.select(sa.literal("banned", _TEXT), _BANNED.c.power, _typed_null(_TEXT), _typed_null(_INT), _typed_null(_TIME)),
    sa.select(
        sa.literal("sent", _TEXT),
        _typed_null(_TEXT),
        _typed_null(_TEXT),
        sa.func.count(),
        sa.func.min(PressMessageRow.sent_at),
    ).where(
        PressMessageRow.game_id == sa.bindparam("game"),
        PressMessageRow.sender == sa.bindparam("sender"),
        PressMessageRow.sent_at > sa.bindparam("since"),
    ),
)
"""Everything else a send must know, in one round trip: who mutes or blocks the sender (blocks refuse private
messages, both keep copies from going out), who has an address for copies, the channel the message goes into
(if it exists yet), and the sender's messages in the last minute with the first of them (the rate rule)."""


_MESSAGES = cast(sa.Table, PressMessageRow.__table__)
_READS = cast(sa.Table, PressReadRow.__table__)
_MESSAGE_COLUMNS = ("game_id", "channel_id", "sender", "body", "sent_at", "phase_id", "via", "released_at")
_INSERT_MESSAGE = _MESSAGES.insert().returning(_MESSAGES.c.id)


def _forward_only(new: Any) -> Any:
    """A read mark's insert that, where the mark exists, moves it forward and never back (both dialects write
    it the same way; :func:`_read_mark` and the send's :data:`_INSERT_AND_READ_PG` use it)."""
    return new.on_conflict_do_update(
        index_elements=[_READS.c.channel_id, _READS.c.power],
        set_={"last_read": new.excluded.last_read},
        where=_READS.c.last_read < new.excluded.last_read,
    )


def _insert_and_read_pg() -> Any:
    message = (
        _MESSAGES.insert()
        .values({c: sa.bindparam(c, type_=_MESSAGES.c[c].type) for c in _MESSAGE_COLUMNS})
        .returning(_MESSAGES.c.id, _MESSAGES.c.channel_id)
        .cte("message")
    )
    new = pg_insert(_READS).from_select(
        ["channel_id", "power", "last_read"],
        sa.select(message.c.channel_id, sa.bindparam("reader", type_=_TEXT), message.c.id).where(
            sa.bindparam("mark", type_=sa.Boolean())
        ),
    )
    return sa.select(message.c.id).add_cte(_forward_only(new).cte("mark"))


_INSERT_AND_READ_PG = _insert_and_read_pg()
"""PostgreSQL: the message and its sender's read mark in one statement (a data-changing ``WITH``); SQLite has no
such statement and takes two (each is a call into the library there, not a round trip)."""


@dataclass(frozen=True)
class _Situation:
    """What a send must know about its game, counted in its transaction (see :func:`_situation`)."""

    game: GameRow
    rules: PressRules
    phase_id: int | None
    phase_kind: str | None


@dataclass(frozen=True)
class _About:
    """The rest of what a send must know (see :data:`_ABOUT`)."""

    sent_last_minute: int
    free_in: int
    """Seconds until the first message of the sender's last minute leaves it."""
    against: dict[str, str]
    """Power -> ``mute`` or ``block``, for the powers that mute or block the sender."""
    addresses: dict[str, str]
    """Power -> the e-mail address of its player, for the seated players who have one."""
    channel_id: int | None
    """The channel the message goes into, if it exists already."""
    banned: bool = False
    """The sender's person is banned from press by the installation's moderators."""


def _sender_lock(name: str, sender: str) -> int:
    """A signed 64-bit number naming the pair (PostgreSQL's advisory locks are numbered)."""
    digest = hashlib.blake2b(f"press-send\n{name}\n{sender}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _situation(s: Session, name: str, sender: str) -> _Situation:
    """The game (locked for sharing, so a message is held for the right phase, never for one being processed),
    its press rules and its open phase; on PostgreSQL the (game, sender) lock too (:data:`_SITUATIONS`).

    A send is the busiest write of a game (fifty players talking at once), and on PostgreSQL every statement is
    a round trip on which the request's thread gives up the interpreter and must win it back from the other
    requests: a send makes two reads (this and :data:`_ABOUT`), one write and its commit."""
    dialect = s.get_bind().dialect.name
    statement = _SITUATIONS.get(dialect, _SITUATION)
    row = s.execute(statement, {"name": name, "lock": _sender_lock(name, sender)}).first()
    if row is None:
        game_row(s, name)  # raises, naming the games there are
        raise AssertionError("unreachable")
    g, declared, phase_id, phase_kind = row[:4]
    finished = g.status == "finished"
    return _Situation(
        game=g,
        rules=_rules_of(g, declared),
        phase_id=None if finished else phase_id,
        phase_kind=None if finished else phase_kind,
    )


def _about(s: Session, g: GameRow, sender: str, key: str, now: datetime) -> _About:
    against: dict[str, str] = {}
    addresses: dict[str, str] = {}
    channel_id: int | None = None
    sent, first = 0, None
    banned = False
    rows = s.connection().execute(
        _ABOUT, {"game": g.id, "sender": sender, "key": key, "since": now - timedelta(minutes=1)}
    )
    for tag, power, text, number, at in rows:
        if tag == "block":
            against[power] = text
        elif tag == "person":
            against.setdefault(power, text)  # a block between people: hidden like a mute, never refused
        elif tag == "banned":
            banned = True
        elif tag == "address":
            if text:
                addresses[power] = text
        elif tag == "channel":
            channel_id = int(number)
        else:
            sent, first = int(number or 0), at
    coordinator = sender == COORDINATOR
    return _About(
        sent_last_minute=0 if coordinator else sent,
        free_in=60 if first is None else math.ceil((as_utc(first) + timedelta(minutes=1) - now).total_seconds()),
        against={} if coordinator else against,
        addresses=addresses,
        channel_id=channel_id,
        banned=banned and not coordinator,
    )


def _insert(s: Session, values: dict[str, Any], reader: str | None) -> int:
    """Store a message and move its sender's read mark past it (``reader``; None for the coordinator's)."""
    conn = s.connection()
    if conn.dialect.name == "postgresql":
        return int(
            conn.execute(
                _INSERT_AND_READ_PG, {**values, "reader": reader or "", "mark": reader is not None}
            ).scalar_one()
        )
    new_id = int(conn.execute(_INSERT_MESSAGE, values).scalar_one())
    if reader is not None:
        _read_up_to(s, values["channel_id"], reader, new_id)
    return new_id


def send(
    db: Database,
    name: str,
    sender: str,
    recipients: Sequence[str],
    text: str,
    *,
    now: datetime,
    via: str = "web",
    in_channel: int | None = None,
    then: Callable[[Sent], Sequence[Finish]] | None = None,
) -> Sent:
    """Send a message from ``sender`` (a power, or :data:`COORDINATOR`) to ``recipients`` (powers), or into
    channel ``in_channel`` (a reply: to that channel's members); refused with :class:`PressRefused`, nothing
    stored, when the press rules say no. ``then`` (a reply by mail): the record of the mail it came in, made in
    this same transaction (:func:`dippouch.store.mail.inbox.finish_in`), so a reply is passed on once however often
    its intake is interrupted and taken up again."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        it = _situation(s, name, sender)
        g = it.game
        v = game_variant(g)
        powers = tuple(v.power_names)
        answered: PressChannelRow | None = None
        if in_channel is not None:
            answered = s.get(PressChannelRow, in_channel)
            if (
                answered is None
                or answered.game_id != g.id
                or answered.kind == ANNOUNCEMENT
                or sender not in _members(answered, powers)
            ):
                raise PressRefused(
                    Refusal(
                        pmsg("press rule", "channel"),
                        msg(
                            "no channel %(channel)s of %(power)s in %(game)s",
                            channel=in_channel,
                            power=sender,
                            game=g.name,
                        ),
                    )
                )
            recipients = [p for p in _members(answered, powers) if p != sender]
        recipients = tuple(dict.fromkeys(_power(v, r) for r in recipients))
        kind = channel_kind(sender, recipients, powers)
        grey = it.rules.kind == "grey" and kind in ("private", "group") and sender != COORDINATOR
        key = (
            answered.members
            if answered is not None
            else _members_key(kind, (*recipients, sender), sender if grey else None)
        )
        about = _about(s, g, sender, key, now)
        if about.banned:
            raise PressRefused(
                Refusal(
                    pmsg("press rule", "moderators"),
                    msg("the installation's moderators have stopped your press; write to them if you think it wrong"),
                )
            )
        attempt = Attempt(
            sender=sender,
            recipients=powers if sender == COORDINATOR else recipients,
            powers=powers,
            phase_kind=it.phase_kind,
            text=text,
            sent_last_minute=about.sent_last_minute,
            free_in=about.free_in,
            blocked_by=frozenset(p for p, k in about.against.items() if k == "block"),
        )
        why = refusal(it.rules, attempt)
        if why is not None:
            raise PressRefused(why)
        ch: PressChannelRow | None = answered  # a reply: into the channel it answers (a grey key names its starter)
        channel_id = answered.id if answered is not None else about.channel_id
        if channel_id is None:
            channel_id = _new_channel(s, g.id, kind, key, now)
        held = it.rules.kind == "postal" and kind != ANNOUNCEMENT and it.phase_id is not None
        row = PressMessageRow(
            game_id=g.id,
            channel_id=channel_id,
            sender=sender,
            body=text.strip(),
            sent_at=now,
            phase_id=it.phase_id,
            via=via,
            released_at=None if held else now,
        )
        # Inserted by a plain statement on the connection, not the session's unit of work (a third of a send's
        # CPU was the session's bookkeeping); the row object stays outside the session and carries the new id.
        row.id = _insert(s, {c: getattr(row, c) for c in _MESSAGE_COLUMNS}, None if sender == COORDINATOR else sender)
        mailed = 0
        if not held and about.addresses:  # someone has an address: whether they take copies is _mail_copies's
            ch = ch or s.get(PressChannelRow, channel_id)
            assert ch is not None
            mailed = _mail_copies(s, g, it.rules, ch, row, powers, now, set(about.against))
        sent = Sent(id=row.id, channel_id=channel_id, kind=kind, held=held, mailed=mailed)
        if then is not None:
            from dippouch.store.mail.inbox import finish_in

            for finish in then(sent):
                finish_in(db, s, finish)
        return sent


def power_names(db: Database, name: str) -> list[str]:
    """The game's powers, in its variant's order (whom "all" names)."""
    with db.session() as s:
        return list(game_variant(game_row(s, name)).power_names)


def announce(db: Database, name: str, text: str, *, now: datetime, via: str = "web") -> Sent:
    """The coordinator's announcement to every power (shown whatever the press rules)."""
    return send(db, name, COORDINATOR, [], text, now=now, via=via)


def _power(v: Any, text: str) -> str:
    try:
        return str(v.power(text).name)
    except KeyError:
        return text  # the rules name it as unknown, with the closest power


def _mail_copies(
    s: Session,
    g: GameRow,
    rules: PressRules,
    ch: PressChannelRow,
    msg: PressMessageRow,
    powers: Sequence[str],
    now: datetime,
    muted: set[str] | None = None,
) -> int:
    """Queue a copy for every recipient who takes press by e-mail (:func:`_copy_addresses`), in the sender's
    transaction; ``muted``: the powers that mute or block the sender, if the caller knows them already."""
    addresses = _copy_addresses(s, g)
    if not addresses:
        return 0
    if muted is None:
        muted = _muted_by(s, g, msg.sender)
    members = _members(ch, powers)
    lang = game_settings(g).language  # a copy is written in the game's mail language, as its other mail is
    n = 0
    for power in members:
        if power == msg.sender or power not in addresses or power in muted:
            continue
        address = str(addresses[power])
        token = _token(s, g, ch, power, address)
        shown = shown_sender(rules, msg.sender, reader=power, finished=False)
        made = queue_in(
            s,
            key=f"press:{msg.id}:{power}",
            to=address,
            subject=say(copy_subject(g.name, shown, ch.kind, token), lang),
            body=say(copy_body(shown, _shown_members(rules, ch, powers, power, False), msg.body, ch.kind), lang),
            kind="press",
            now=now,
            game_id=g.id,
        )
        n += int(made)
    return n


def _mail_takes_replies(s: Session, g: GameRow) -> bool:
    """Whether the game's mail is set up (``dippouch mail setup``, not disabled): only then is a reply to a
    copy read, so only then is a copy with a reply code sent."""
    row = s.get(GameMailRow, g.id)
    return row is not None and bool(dict(row.config).get("enabled", True))


def _copy_addresses(s: Session, g: GameRow) -> dict[str, str]:
    """Power -> the address its copies go to: the seat's address, in a game whose mail takes replies, for a
    seat whose person chose press by e-mail (the notification choice "a message for you" by e-mail, off
    unless chosen: :data:`dippouch.store.notify.stored.PRESS_BY_MAIL`) or that has no person (a player the
    coordinator seated with an address only: mail is their way in). Nobody else gets a copy, so nobody gets
    two e-mails for one message: the notification e-mail goes where no copy went."""
    if not _mail_takes_replies(s, g):
        return {}
    seats = [
        p
        for p in s.scalars(sa.select(PlayerRow).where(PlayerRow.game_id == g.id, PlayerRow.replaced_at.is_(None)))
        if p.email
    ]
    wants = press_by_mail(s, [p.person_id for p in seats if p.person_id is not None])
    return {p.power: str(p.email) for p in seats if p.person_id is None or p.person_id in wants}


def copied(db: Database, message_id: int, power: str) -> bool:
    """Whether a copy of the message was queued for ``power`` (the notifier then sends no e-mail of its own)."""
    with db.session() as s:
        q = sa.select(OutboxRow.id).where(OutboxRow.key == f"press:{int(message_id)}:{power}")
        return s.scalars(q).first() is not None


def mail_copies_for(db: Database, name: str, power: str) -> str | None:
    """The address ``power``'s copies go to now, or ``None`` (for the press panel: what the player is told)."""
    with db.session() as s:
        return _copy_addresses(s, game_row(s, name)).get(power)


def _token(s: Session, g: GameRow, ch: PressChannelRow, power: str, address: str) -> str:
    row = s.scalars(
        sa.select(PressTokenRow).where(PressTokenRow.channel_id == ch.id, PressTokenRow.power == power)
    ).first()
    if row is not None and row.address == address.lower():
        return row.token
    if row is not None:  # a new player at the power: the last one's token no longer proves anything
        s.delete(row)
        s.flush()
    row = PressTokenRow(token=press_token_text(), game_id=g.id, channel_id=ch.id, power=power, address=address.lower())
    s.add(row)
    s.flush()
    return row.token


def token_owner(db: Database, token: str) -> TokenOwner | None:
    """Whose reply token this is (game, power, the address it went to, the channel), or ``None``."""
    with db.session() as s:
        row = s.get(PressTokenRow, token.lower())
        if row is None:
            return None
        g = s.get(GameRow, row.game_id)
        assert g is not None
        return TokenOwner(game=g.name, power=row.power, address=row.address, channel_id=row.channel_id)


_HELD_IN = (PressMessageRow.phase_id == sa.bindparam("phase_id"), PressMessageRow.released_at.is_(None))
_HELD = sa.select(PressMessageRow).where(*_HELD_IN).order_by(PressMessageRow.id)
""":func:`release_held`'s question, built once."""
ANY_HELD = sa.exists().where(*_HELD_IN)
"""Whether any postal press written in the phase of the bound ``phase_id`` waits for its release: the domain's
condition (:data:`dippouch.store.domains.Condition`), asked of every phase a worker processes (nearly always of
none), so that :func:`release_held` is called only where some does."""


def release_held(s: Session, g: GameRow, phase: PhaseRow, now: datetime) -> int:
    """Release the postal press written in ``phase`` (its results are out), queuing its copies by mail; in the
    processing transaction, so results and press go out together or not at all."""
    held = list(s.scalars(_HELD, {"phase_id": phase.id}))
    if not held:
        return 0
    rules = _rules(s, g)
    powers = tuple(game_variant(g).power_names)
    for held_row in held:
        held_row.released_at = now
        ch = s.get(PressChannelRow, held_row.channel_id)
        assert ch is not None
        _mail_copies(s, g, rules, ch, held_row, powers, now)
    return len(held)


# --------------------------------------------------------------------------------------------------
# Reading


def _muted_by(s: Session, g: GameRow, sender: str) -> set[str]:
    """Powers that mute or block ``sender``, and those whose players are in a block with its player."""
    return set(
        s.scalars(sa.select(PressBlockRow.power).where(PressBlockRow.game_id == g.id, PressBlockRow.other == sender))
    ) | blocked_powers(s, g.id, sender)


def _hidden_for(s: Session, g: GameRow, power: str | None) -> set[str]:
    """Senders ``power`` mutes or blocks."""
    if power is None:
        return set()
    q = sa.select(PressBlockRow.other).where(PressBlockRow.game_id == g.id, PressBlockRow.power == power)
    return set(s.scalars(q)) | blocked_powers(s, g.id, power)


def _visible(s: Session, g: GameRow, rules: PressRules, power: str | None, coordinator: bool) -> list[PressChannelRow]:
    powers = game_variant(g).power_names
    finished = g.status == "finished"
    rows = s.scalars(sa.select(PressChannelRow).where(PressChannelRow.game_id == g.id).order_by(PressChannelRow.id))
    return [
        r
        for r in rows
        if may_read(rules, r.kind, _members(r, powers), power=power, coordinator=coordinator, finished=finished)
    ]


def _released_for(power: str | None) -> Any:
    """Released messages, and the reader's own held ones."""
    if power is None:
        return PressMessageRow.released_at.is_not(None)
    return sa.or_(PressMessageRow.released_at.is_not(None), PressMessageRow.sender == power)


def threads(db: Database, name: str, *, power: str | None, coordinator: bool = False) -> list[Thread]:
    """The channels a reader may read, with what ``power`` has not read yet (muted senders left out), the
    most recent first. The announcements are always there, so every player finds them."""
    with db.session() as s:
        g = game_row(s, name)
        return _threads(s, g, _rules(s, g), power, coordinator)


@dataclass(frozen=True)
class Overview:
    """What a power's press panel shows, read in one transaction."""

    rules: PressRules
    finished: bool
    threads: list[Thread]
    blocks: dict[str, str]
    players: dict[str, str]
    """Power -> its current player's name."""
    recent: dict[int, list[Message]] = dataclasses.field(default_factory=dict)
    """Channel id -> its latest messages, oldest first (``recent`` of :func:`overview`), for the panel that
    shows its threads inline beside the board."""


def overview(db: Database, name: str, power: str, *, recent: int = 0) -> Overview:
    """A power's press panel: the rules, whether the game is over, its threads, its mutes and blocks, players;
    and, with ``recent``, each thread's latest ``recent`` messages as the power may read them."""
    with db.session() as s:
        g = game_row(s, name)
        rules = _rules(s, g)
        q = sa.select(PressBlockRow).where(PressBlockRow.game_id == g.id, PressBlockRow.power == power)
        players = s.execute(
            sa.select(PlayerRow.power, PlayerRow.name).where(PlayerRow.game_id == g.id, PlayerRow.replaced_at.is_(None))
        )
        threads = _threads(s, g, rules, power, False)
        return Overview(
            rules=rules,
            finished=g.status == "finished",
            threads=threads,
            blocks={r.other: r.kind for r in s.scalars(q)},
            players={p: n for p, n in players},
            recent=_recent(s, g, rules, power, threads, recent) if recent > 0 else {},
        )


def _recent(
    s: Session, g: GameRow, rules: PressRules, power: str, threads: Sequence[Thread], n: int
) -> dict[int, list[Message]]:
    """Each thread's latest ``n`` messages for ``power`` (released or its own, muted senders left out), in one
    statement: numbered newest first within each channel, the first ``n`` of each kept."""
    ids = [t.id for t in threads if t.id]
    if not ids:
        return {}
    hidden = _hidden_for(s, g, power)
    rank = (
        sa.func.row_number()
        .over(partition_by=PressMessageRow.channel_id, order_by=PressMessageRow.id.desc())
        .label("rank")
    )
    inner = sa.select(PressMessageRow.id, rank).where(
        PressMessageRow.game_id == g.id, PressMessageRow.channel_id.in_(ids), _released_for(power)
    )
    if hidden:
        inner = inner.where(PressMessageRow.sender.not_in(hidden))
    ranked = inner.subquery()
    got = list(
        s.scalars(
            sa.select(PressMessageRow)
            .join(ranked, ranked.c.id == PressMessageRow.id)
            .where(ranked.c.rank <= n)
            .order_by(PressMessageRow.id)
        )
    )
    finished = g.status == "finished"
    where = {t.id: (t.kind, list(t.members)) for t in threads}
    names = _phase_names(s, got)
    out: dict[int, list[Message]] = {}
    for m in got:
        out.setdefault(m.channel_id, []).append(_message(m, rules, power, finished, where[m.channel_id], names))
    return out


def _threads(s: Session, g: GameRow, rules: PressRules, power: str | None, coordinator: bool) -> list[Thread]:
    powers = game_variant(g).power_names
    rows = _visible(s, g, rules, power, coordinator)
    if not any(r.kind == ANNOUNCEMENT for r in rows) and (power is not None or coordinator):
        rows.insert(0, PressChannelRow(id=0, game_id=g.id, kind=ANNOUNCEMENT, members=ANNOUNCEMENTS))
    ids = [r.id for r in rows if r.id]
    hidden = _hidden_for(s, g, power)
    last: dict[int, tuple[int, datetime]] = {}
    unread: dict[int, int] = {}
    if ids:
        # One statement of per-channel subqueries, each walking the (channel, id) index from its newest
        # message: a game of many messages costs what its unread ones do, not a scan of all of them.
        newest = [
            sa.select(PressMessageRow.id)
            .where(PressMessageRow.channel_id == c, _released_for(power))
            .order_by(PressMessageRow.id.desc())
            .limit(1)
            .scalar_subquery()
            for c in ids
        ]
        tops = {c: int(i) for c, i in zip(ids, s.execute(sa.select(*newest)).one(), strict=True) if i}
        if tops:
            at = sa.select(PressMessageRow.id, PressMessageRow.sent_at).where(PressMessageRow.id.in_(tops.values()))
            when = {int(i): as_utc(t) for i, t in s.execute(at)}
            last = {c: (i, when[i]) for c, i in tops.items()}
        if power is not None:
            marks = sa.select(PressReadRow.channel_id, PressReadRow.last_read).where(PressReadRow.power == power)
            read = {c: int(n) for c, n in s.execute(marks) if c in set(ids)}
            behind = [c for c in ids if tops.get(c, 0) > read.get(c, 0)]
            counts = [
                sa.select(sa.func.count())
                .where(
                    PressMessageRow.channel_id == c,
                    PressMessageRow.id > read.get(c, 0),
                    PressMessageRow.released_at.is_not(None),
                    PressMessageRow.sender != power,
                    PressMessageRow.sender.not_in(hidden) if hidden else sa.true(),
                )
                .scalar_subquery()
                for c in behind
            ]
            if counts:
                unread = dict(zip(behind, (int(n) for n in s.execute(sa.select(*counts)).one()), strict=True))
    out = [
        Thread(
            id=r.id,
            kind=r.kind,
            members=_shown_members(rules, r, powers, power, g.status == "finished"),
            unread=unread.get(r.id, 0),
            last_id=last.get(r.id, (0, None))[0],
            last_at=last.get(r.id, (0, None))[1],
        )
        for r in rows
    ]
    out.sort(key=lambda t: (t.kind != ANNOUNCEMENT, -t.last_id))
    return out


def _thread_of(
    s: Session, g: GameRow, rules: PressRules, channel_id: int, power: str | None, coordinator: bool
) -> PressChannelRow:
    row = s.get(PressChannelRow, channel_id) if channel_id > 0 else None
    powers = game_variant(g).power_names
    if (
        row is None
        or row.game_id != g.id
        or not may_read(
            rules,
            row.kind,
            _members(row, powers),
            power=power,
            coordinator=coordinator,
            finished=g.status == "finished",
        )
    ):
        # The same answer whether it does not exist or is not the reader's: an id tells nothing.
        raise NoChannel(
            msg("no press channel %(channel)s in %(game)s that you may read", channel=channel_id, game=g.name)
        )
    return row


def _phase_names(s: Session, messages: Sequence[PressMessageRow]) -> dict[int, str]:
    """Phase id -> its name, for the phases these messages were written in (one read)."""
    ids = {m.phase_id for m in messages if m.phase_id is not None}
    if not ids:
        return {}
    return {int(i): str(n) for i, n in s.execute(sa.select(PhaseRow.id, PhaseRow.name).where(PhaseRow.id.in_(ids)))}


def _message(
    m: PressMessageRow,
    rules: PressRules,
    power: str | None,
    finished: bool,
    channel: tuple[str, list[str]] | None = None,
    phases: Mapping[int, str] | None = None,
) -> Message:
    return Message(
        id=m.id,
        channel_id=m.channel_id,
        sender=shown_sender(rules, m.sender, reader=power, finished=finished),
        text=m.body,
        sent_at=as_utc(m.sent_at),
        held=m.released_at is None,
        mine=power is not None and m.sender == power,
        kind=channel[0] if channel else "",
        members=tuple(channel[1]) if channel else (),
        phase=(phases or {}).get(m.phase_id, "") if m.phase_id is not None else "",
    )


def channel_page(
    db: Database,
    name: str,
    channel_id: int,
    *,
    power: str | None,
    coordinator: bool = False,
    before: int | None = None,
    limit: int = PAGE,
) -> ChannelPage:
    """A channel's latest ``limit`` messages (before message ``before``), oldest first, for a reader who may
    read it (else a refusal that says the same as for a channel that does not exist)."""
    limit = max(1, min(limit, 200))
    with db.session() as s:
        g = game_row(s, name)
        rules = _rules(s, g)
        row = _thread_of(s, g, rules, channel_id, power, coordinator)
        hidden = _hidden_for(s, g, power)
        q = sa.select(PressMessageRow).where(PressMessageRow.channel_id == row.id, _released_for(power))
        if hidden:
            q = q.where(PressMessageRow.sender.not_in(hidden))
        if before is not None:
            q = q.where(PressMessageRow.id < before)
        got = list(s.scalars(q.order_by(PressMessageRow.id.desc()).limit(limit + 1)))
        more = len(got) > limit
        finished = g.status == "finished"
        powers = game_variant(g).power_names
        where = (row.kind, _shown_members(rules, row, powers, power, finished))
        shown = got[:limit]
        names = _phase_names(s, shown)
        msgs = [_message(m, rules, power, finished, where, names) for m in reversed(shown)]
        thread = Thread(
            id=row.id,
            kind=row.kind,
            members=list(where[1]),
            unread=0,
            last_id=msgs[-1].id if msgs else 0,
            last_at=msgs[-1].sent_at if msgs else None,
        )
        mark = s.get(PressReadRow, (row.id, power)) if power is not None else None
        return ChannelPage(thread=thread, messages=msgs, more=more, read_up_to=mark.last_read if mark else 0)


def _read_mark(insert: Any) -> Any:
    return _forward_only(
        insert(PressReadRow).values(
            channel_id=sa.bindparam("channel"), power=sa.bindparam("power"), last_read=sa.bindparam("up_to")
        )
    )


_READ_MARK = {"postgresql": _read_mark(pg_insert), "sqlite": _read_mark(sqlite_insert)}
"""Move a read mark forward (never back), in one statement: a reader and their own send, or two readers, may
move it at the same moment. By dialect: an insert that updates on a conflict is written differently in each."""


def _read_up_to(s: Session, channel_id: int, power: str, up_to: int) -> None:
    s.execute(_READ_MARK[s.get_bind().dialect.name], {"channel": channel_id, "power": power, "up_to": up_to})


def mark_read(db: Database, name: str, channel_id: int, power: str, up_to: int | None = None) -> int:
    """``power`` has read the channel up to message ``up_to`` (default: all of it); returns that id."""
    with db.session() as s, s.begin():
        g = game_row(s, name)
        rules = _rules(s, g)
        row = _thread_of(s, g, rules, channel_id, power, False)
        top = s.scalar(
            sa.select(sa.func.max(PressMessageRow.id)).where(
                PressMessageRow.channel_id == row.id, PressMessageRow.released_at.is_not(None)
            )
        )
        mark = min(int(top or 0), up_to) if up_to is not None else int(top or 0)
        _read_up_to(s, row.id, power, mark)
        return mark


def messages_since(
    db: Database, name: str, power: str | None, after: int, *, coordinator: bool = False
) -> list[Message]:
    """Every message a reader may read with an id above ``after`` (released, not from a muted sender), oldest
    first: what live pages stream, and the hook for notifications ("a message was received")."""
    with db.session() as s:
        g = game_row(s, name)
        rules = _rules(s, g)
        rows = _visible(s, g, rules, power, coordinator)
        ids = [r.id for r in rows]
        if not ids:
            return []
        q = sa.select(PressMessageRow).where(
            PressMessageRow.game_id == g.id,
            PressMessageRow.id > after,
            PressMessageRow.channel_id.in_(ids),
            _released_for(power),
        )
        hidden = _hidden_for(s, g, power)
        if hidden:
            q = q.where(PressMessageRow.sender.not_in(hidden))
        finished = g.status == "finished"
        powers = game_variant(g).power_names
        kinds = {r.id: (r.kind, _shown_members(rules, r, powers, power, finished)) for r in rows}
        got = list(s.scalars(q.order_by(PressMessageRow.id).limit(500)))
        names = _phase_names(s, got)
        return [_message(m, rules, power, finished, kinds[m.channel_id], names) for m in got]


def games_with_press_since(db: Database, since: datetime) -> list[tuple[str, int, int]]:
    """(game, game id, first message id) of every game with messages released since ``since``: where the
    notifications' scan looks for "a message was received" (each reader's share then by
    :func:`messages_since`, which applies the press rules, mutes and postal release)."""
    q = (
        sa.select(GameRow.name, GameRow.id, sa.func.min(PressMessageRow.id))
        .join(GameRow, GameRow.id == PressMessageRow.game_id)
        .where(PressMessageRow.released_at >= as_utc(since))
        .group_by(GameRow.name, GameRow.id)
        .order_by(GameRow.name)
    )
    with db.session() as s:
        return [(str(a), int(b), int(c)) for a, b, c in s.execute(q)]


# --------------------------------------------------------------------------------------------------
# Conduct


def set_block(db: Database, name: str, power: str, other: str, kind: str | None, *, now: datetime) -> None:
    """``power`` mutes (``mute``), blocks (``block``) or lets through again (``None``) the power ``other``."""
    if kind not in ("mute", "block", None):
        raise GameError(msg("unknown choice %(choice)s: mute, block or none", choice=repr(kind)))
    with db.session() as s, s.begin():
        g = game_row(s, name)
        v = game_variant(g)
        try:
            other = v.power(other).name
        except NotFound as e:
            raise GameError(e.msg) from None
        if other == power:
            raise GameError(msg("you cannot mute or block yourself"))
        row = s.get(PressBlockRow, (g.id, power, other))
        if kind is None:
            if row is not None:
                s.delete(row)
            return
        if row is None:
            s.add(PressBlockRow(game_id=g.id, power=power, other=other, kind=kind, at=as_utc(now)))
        else:
            row.kind = kind
            row.at = as_utc(now)


def blocks(db: Database, name: str, power: str) -> dict[str, str]:
    """Other power -> ``mute`` or ``block``, as ``power`` chose."""
    with db.session() as s:
        g = game_row(s, name)
        q = sa.select(PressBlockRow).where(PressBlockRow.game_id == g.id, PressBlockRow.power == power)
        return {r.other: r.kind for r in s.scalars(q)}


def report(db: Database, name: str, power: str, message_id: int, reason: str, *, now: datetime) -> int:
    """``power`` reports a message it may read to the coordinator; the report's id. A message is reported
    once by each power, and a power makes at most :data:`REPORTS_PER_DAY` reports in any 24 hours."""
    reason = reason.strip()
    if len(reason) > 2000:
        raise GameError(msg("the reason is %(length)s characters long; at most 2000", length=len(reason)))
    now = as_utc(now)
    with db.session() as s, s.begin():
        # Locked, so two reports sent at once are counted one after the other (no second report of a
        # message, no report over the day's number, slips in beside the first).
        g = game_row(s, name, lock=True)
        rules = _rules(s, g)
        m = s.get(PressMessageRow, message_id)
        if m is None or m.game_id != g.id or m.released_at is None:
            raise GameError(
                msg("no message %(message)s in %(game)s that you may read", message=message_id, game=g.name)
            )
        _thread_of(s, g, rules, m.channel_id, power, False)
        mine = (PressReportRow.game_id == g.id, PressReportRow.power == power)
        earlier = s.scalars(sa.select(PressReportRow.at).where(*mine, PressReportRow.message_id == m.id)).first()
        if earlier is not None:
            raise GameError(
                msg(
                    "%(power)s reported message %(message)s already, on %(time)s UTC; the coordinator has that report "
                    "(a message is reported once)",
                    power=power,
                    message=m.id,
                    time=f"{as_utc(earlier):%Y-%m-%d at %H:%M}",
                )
            )
        since = now - timedelta(days=1)
        recent = list(s.scalars(sa.select(PressReportRow.at).where(*mine, PressReportRow.at > since)))
        if len(recent) >= REPORTS_PER_DAY:
            after = min(as_utc(t) for t in recent) + timedelta(days=1)
            raise GameError(
                msg(
                    "%(power)s has made %(count)s reports in the last 24 hours, the most a power may; the next may be "
                    "made from %(time)s UTC (or write to the coordinator)",
                    power=power,
                    count=len(recent),
                    time=f"{after:%Y-%m-%d %H:%M}",
                )
            )
        row = PressReportRow(game_id=g.id, message_id=m.id, power=power, reason=reason, at=now)
        s.add(row)
        s.flush()
        log_event(s, g, now, "press-report", power=power, message=m.id)
        return row.id


def readable(db: Database, name: str, power: str, message_id: int) -> bool:
    """Whether ``power`` may read message ``message_id`` of the game (what a report to the installation's
    moderators is checked against: one reports only what one was shown)."""
    with db.session() as s:
        g = game_row(s, name)
        m = s.get(PressMessageRow, message_id)
        if m is None or m.game_id != g.id or (m.released_at is None and m.sender != power):
            return False
        try:
            _thread_of(s, g, _rules(s, g), m.channel_id, power, False)
        except NoChannel:
            return False
        return m.sender not in _hidden_for(s, g, power)


def reports(db: Database, name: str) -> list[dict[str, Any]]:
    """Reported messages for the coordinator: who reported, why, and the message itself (the coordinator
    reads a reported message whatever the rules on private press: the reporter showed it)."""
    with db.session() as s:
        g = game_row(s, name)
        q = (
            sa.select(PressReportRow, PressMessageRow)
            .join(PressMessageRow, PressMessageRow.id == PressReportRow.message_id)
            .where(PressReportRow.game_id == g.id)
            .order_by(PressReportRow.id)
        )
        return [
            {
                "id": r.id,
                "by": r.power,
                "reason": r.reason,
                "at": as_utc(r.at).isoformat(),
                "message": {"id": m.id, "sender": m.sender, "text": m.body, "sent_at": as_utc(m.sent_at).isoformat()},
            }
            for r, m in s.execute(q)
        ]


# --------------------------------------------------------------------------------------------------
# The game file


def export_press(db: Database, name: str, *, coordinator: bool) -> dict[str, Any] | None:
    """The press a game file carries, as the rules allow (:func:`may_read`): once the game is over, what its
    rules open then (public press and announcements; private and group letters only where declared); before
    that, for a coordinator, the public channel and announcements (and, where the game lets them read private
    press, the rest). ``None`` when there is nothing the file may carry."""
    with db.session() as s:
        g = game_row(s, name)
        rules = _rules(s, g)
        rows = _visible(s, g, rules, None, coordinator)
        if not rows:
            return None
        powers = game_variant(g).power_names
        ids = [r.id for r in rows]
        finished = g.status == "finished"
        msgs = s.scalars(
            sa.select(PressMessageRow)
            .where(PressMessageRow.channel_id.in_(ids), PressMessageRow.released_at.is_not(None))
            .order_by(PressMessageRow.id)
        )
        return {
            "rules": rules.to_data(),
            "rules_text": describe(rules),
            "channels": [
                {"id": r.id, "kind": r.kind, "members": _shown_members(rules, r, powers, None, finished)} for r in rows
            ],
            "messages": [
                {
                    "id": m.id,
                    "channel": m.channel_id,
                    "sender": shown_sender(rules, m.sender, reader=None, finished=finished),
                    "text": m.body,
                    "sent_at": as_utc(m.sent_at).isoformat(),
                }
                for m in msgs
            ],
        }
