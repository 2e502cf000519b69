"""Fair play between people in the database: blocks, the devices and networks people sign in from, the signals
that two accounts may be one person, bans, merges, reports and the moderators' log.

A device id and a network are stored as keyed hashes (HMAC-SHA-256 under an installation secret): equal ids give
equal hashes, so shared devices show, while a leaked database gives no cookie to replay and no address. Networks
are kept :data:`NETWORK_DAYS` days: a household's address changes, and an old one says nothing.

Nothing here is shown to anyone but the installation's coordinator (the doors check: :mod:`dippouch.play.moderation`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, aliased

from dippouch.core.messages import N_, Msg, msg
from dippouch.game import GameError, as_utc
from dippouch.people.blocks import JoinCheck, SupportSignal, mailbox, unusual_supports
from dippouch.store.db import Database
from dippouch.store.installation import installation_secret
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow
from dippouch.store.models_openings import SignupRow, VacancyRow
from dippouch.store.models_web import WebSessionRow
from dippouch.store.moderation.models import (
    ModerationLogRow,
    ModerationReportRow,
    PersonBanRow,
    PersonBlockRow,
    PersonDeviceRow,
    PersonNetworkRow,
)
from dippouch.store.notify.models import NotifyDeliveryRow, NotifyPrefRow, NotifySettingsRow, NotifyTargetRow
from dippouch.store.people.models import (
    AbsenceRow,
    AbsenceUseRow,
    GameRosterRow,
    PasskeyRow,
    PostalAddressRow,
    ProxyAllyRow,
)
from dippouch.store.press.models import PressMessageRow
from dippouch.store.ratings.models import RatingLineRow
from dippouch.store.rows import game_row, log_event

I18N_DOMAIN = "rules"
"""The catalogue of the refusals said here."""

__all__ = [
    "BAN_KINDS",
    "NETWORK_DAYS",
    "REPORT_ACTIONS",
    "REPORT_KINDS",
    "Blocked",
    "LogEntry",
    "Report",
    "Signal",
    "ban",
    "banned",
    "block",
    "blocked_people",
    "blocked_powers_sql",
    "decide_report",
    "device_hash",
    "export_person",
    "forget_person",
    "join_check",
    "log",
    "merge",
    "moderation_log",
    "network_hash",
    "press_banned_sql",
    "record_sign_in",
    "report",
    "reports",
    "seats_of",
    "signals",
    "unban",
    "unblock",
    "warnings",
]

NETWORK_DAYS = 30
"""How long a sign-in's network is kept."""
BAN_KINDS = ("signin", "press")
REPORT_KINDS = ("message", "person", "game")
REPORT_ACTIONS = ("dismiss", "warn", "mute", "ban")
"""What a moderator does with a report: nothing (dismissed), a warning the person reads on their account page,
a ban from press in every game (``mute``), a ban from signing in."""
REASON_MOST = 1000
SUPPORT_GAMES = 200
"""The review page reads the supports of the newest this many games with two or more people."""


def _key(db: Database) -> bytes:
    return installation_secret(db, "moderation")


def device_hash(db: Database, device_id: str) -> str:
    """The keyed hash a device id is stored as."""
    return hmac.new(_key(db), b"device\n" + device_id.encode(), hashlib.sha256).hexdigest()


def network_hash(db: Database, network: str) -> str:
    """The short keyed hash a network is stored as (16 hex digits: enough to tell networks apart here)."""
    return hmac.new(_key(db), b"network\n" + network.encode(), hashlib.sha256).hexdigest()[:16]


def _person(s: Session, person_id: int) -> PersonRow:
    p = s.get(PersonRow, person_id)
    if p is None or p.deleted_at is not None:
        raise GameError(msg("no person %(person)s", person=person_id))
    return p


# --------------------------------------------------------------------------------------------------
# Blocks


@dataclass(frozen=True)
class Blocked:
    """A person one blocks, as their account page lists them."""

    person_id: int
    name: str
    at: datetime


def block(db: Database, person_id: int, other_id: int, *, now: datetime) -> None:
    """``person_id`` blocks ``other_id`` (again: nothing changes)."""
    if person_id == other_id:
        raise GameError(msg("you cannot block yourself"))
    with db.session() as s, s.begin():
        _person(s, other_id)
        q = sa.select(PersonBlockRow).where(PersonBlockRow.person_id == person_id, PersonBlockRow.other_id == other_id)
        if s.scalars(q).first() is None:
            s.add(PersonBlockRow(person_id=person_id, other_id=other_id, at=as_utc(now)))


def unblock(db: Database, person_id: int, other_id: int) -> bool:
    """``person_id`` lets ``other_id`` through again; False if there was no such block."""
    with db.session() as s, s.begin():
        q = sa.delete(PersonBlockRow).where(PersonBlockRow.person_id == person_id, PersonBlockRow.other_id == other_id)
        return bool(s.execute(q).rowcount)  # type: ignore[attr-defined]


def blocked_people(db: Database, person_id: int) -> list[Blocked]:
    """The people ``person_id`` blocks, the latest first."""
    q = (
        sa.select(PersonBlockRow.other_id, PersonRow.name, PersonBlockRow.at)
        .join(PersonRow, PersonRow.id == PersonBlockRow.other_id)
        .where(PersonBlockRow.person_id == person_id)
        .order_by(PersonBlockRow.at.desc(), PersonBlockRow.id.desc())
    )
    with db.session() as s:
        return [Blocked(int(i), str(n), as_utc(at)) for i, n, at in s.execute(q)]


def blocks_person(db: Database, person_id: int, other_id: int) -> bool:
    with db.session() as s:
        q = sa.select(PersonBlockRow.id).where(
            PersonBlockRow.person_id == person_id, PersonBlockRow.other_id == other_id
        )
        return s.scalars(q).first() is not None


def _people_in(s: Session, game_id: int) -> set[int]:
    """Who is in a game: the people seated now and those signed up to its opening."""
    seated = sa.select(PlayerRow.person_id).where(
        PlayerRow.game_id == game_id, PlayerRow.replaced_at.is_(None), PlayerRow.person_id.is_not(None)
    )
    signed = sa.select(SignupRow.person_id).where(SignupRow.game_id == game_id, SignupRow.withdrawn_at.is_(None))
    return {int(p) for p in s.scalars(seated.union(signed)) if p is not None}


def join_check(db: Database, game: str, person_id: int) -> JoinCheck:
    """What a join of ``person_id`` into ``game`` must know of the people in it already (blocks either way, a
    device shared with one of them)."""
    with db.session() as s:
        g = game_row(s, game)
        others = _people_in(s, g.id) - {person_id}
        if not others:
            return JoinCheck(False, False, False)
        blocks = list(
            s.execute(
                sa.select(PersonBlockRow.person_id, PersonBlockRow.other_id).where(
                    sa.or_(
                        sa.and_(PersonBlockRow.person_id == person_id, PersonBlockRow.other_id.in_(others)),
                        sa.and_(PersonBlockRow.other_id == person_id, PersonBlockRow.person_id.in_(others)),
                    )
                )
            )
        )
        mine = sa.select(PersonDeviceRow.device_hash).where(PersonDeviceRow.person_id == person_id)
        shared = s.scalars(
            sa.select(PersonDeviceRow.id)
            .where(PersonDeviceRow.device_hash.in_(mine), PersonDeviceRow.person_id.in_(others))
            .limit(1)
        ).first()
        return JoinCheck(
            blocked_by_them=any(b == person_id for _, b in blocks),
            blocking=any(a == person_id for a, _ in blocks),
            same_device=shared is not None,
        )


def blocked_powers_sql(game: Any, sender: Any) -> sa.Select[Any]:
    """The powers of ``game`` (an id, or a bound parameter) whose players are in a block with the player of
    ``sender`` (a power), either way round: press passes neither way between them. One statement, for the
    press store to join to its own reads."""
    me, other = aliased(PlayerRow), aliased(PlayerRow)
    b = PersonBlockRow
    return (
        sa.select(other.power)
        .select_from(other)
        .join(me, sa.and_(me.game_id == other.game_id, me.power == sender, me.replaced_at.is_(None)))
        .join(
            b,
            sa.or_(
                sa.and_(b.person_id == me.person_id, b.other_id == other.person_id),
                sa.and_(b.person_id == other.person_id, b.other_id == me.person_id),
            ),
        )
        .where(other.game_id == game, other.replaced_at.is_(None))
    )


_BLOCKED_POWERS = blocked_powers_sql(sa.bindparam("game"), sa.bindparam("sender"))
"""Built once: building the statement (its aliases) cost 3 ms of CPU a read, three times the reading."""


def blocked_powers(s: Session, game_id: int, power: str | None) -> set[str]:
    """:func:`blocked_powers_sql` read (empty for a reader who is no power), on the connection: every press
    read asks it."""
    if power is None:
        return set()
    return {str(p) for p in s.connection().execute(_BLOCKED_POWERS, {"game": game_id, "sender": power}).scalars()}


def press_banned_sql(game: Any, sender: Any) -> sa.Select[Any]:
    """Whether the player of ``sender`` in ``game`` is banned from press (one row if so)."""
    return (
        sa.select(PlayerRow.power)
        .join(PersonBanRow, sa.and_(PersonBanRow.person_id == PlayerRow.person_id, PersonBanRow.kind == "press"))
        .where(PlayerRow.game_id == game, PlayerRow.power == sender, PlayerRow.replaced_at.is_(None))
    )


# --------------------------------------------------------------------------------------------------
# Sign-ins


def record_sign_in(db: Database, person_id: int, *, device: str | None, network: str | None, now: datetime) -> None:
    """Remember the device (its keyed hash) and network a person signed in from; networks older than
    :data:`NETWORK_DAYS` are forgotten here too."""
    now = as_utc(now)
    dev = device_hash(db, device) if device else None
    net = network_hash(db, network) if network else None
    with db.session() as s, s.begin():
        if dev is not None:
            row = s.scalars(
                sa.select(PersonDeviceRow).where(
                    PersonDeviceRow.device_hash == dev, PersonDeviceRow.person_id == person_id
                )
            ).first()
            if row is None:
                s.add(PersonDeviceRow(person_id=person_id, device_hash=dev, first_seen=now, last_seen=now))
            else:
                row.last_seen = now
        s.execute(sa.delete(PersonNetworkRow).where(PersonNetworkRow.last_seen < now - timedelta(days=NETWORK_DAYS)))
        if net is not None:
            nrow = s.scalars(
                sa.select(PersonNetworkRow).where(
                    PersonNetworkRow.network_hash == net, PersonNetworkRow.person_id == person_id
                )
            ).first()
            if nrow is None:
                s.add(PersonNetworkRow(person_id=person_id, network_hash=net, last_seen=now))
            else:
                nrow.last_seen = now


# --------------------------------------------------------------------------------------------------
# Signals


@dataclass(frozen=True)
class Signal:
    """Accounts that may be one person, and why: ``kind`` is ``passkey``, ``device``, ``mailbox``,
    ``network`` (one network, in one game) or ``supports`` (one supporting the other far more than chance)."""

    kind: str
    people: tuple[int, ...]
    names: tuple[str, ...]
    game: str | None = None
    supports: SupportSignal | None = None


def _groups(rows: Iterable[tuple[Any, int]]) -> list[tuple[int, ...]]:
    by: dict[Any, set[int]] = {}
    for key, person in rows:
        by.setdefault(key, set()).add(int(person))
    return sorted({tuple(sorted(v)) for v in by.values() if len(v) > 1})


def signals(db: Database, *, now: datetime) -> list[Signal]:
    """Every signal there is now, strongest first (a shared passkey, a device, a mailbox, a network in a game,
    then supports)."""
    out: list[tuple[str, tuple[int, ...], str | None, SupportSignal | None]] = []
    with db.session() as s:
        live = sa.select(PersonRow.id).where(PersonRow.deleted_at.is_(None))
        for group in _groups(s.execute(sa.select(PasskeyRow.public_key, PasskeyRow.person_id))):
            out.append(("passkey", group, None, None))
        devices = sa.select(PersonDeviceRow.device_hash, PersonDeviceRow.person_id).where(
            PersonDeviceRow.person_id.in_(live)
        )
        for group in _groups(s.execute(devices)):
            out.append(("device", group, None, None))
        addresses = s.execute(sa.select(PersonRow.email, PersonRow.id).where(PersonRow.email.is_not(None)))
        for group in _groups((mailbox(str(e)), i) for e, i in addresses):
            out.append(("mailbox", group, None, None))
        since = as_utc(now) - timedelta(days=NETWORK_DAYS)
        nets = s.execute(
            sa.select(PersonNetworkRow.network_hash, PersonNetworkRow.person_id).where(
                PersonNetworkRow.last_seen >= since
            )
        )
        for group in _groups(nets):
            out += [("network", pair, game, None) for pair, game in _shared_games(s, group)]
        out += _support_signals(s)
        ids = {p for _, group, _, _ in out for p in group}
        names = (
            dict(s.execute(sa.select(PersonRow.id, PersonRow.name).where(PersonRow.id.in_(ids))).all()) if ids else {}
        )
    return [Signal(k, g, tuple(str(names.get(p, p)) for p in g), game, sup) for k, g, game, sup in out]


def _shared_games(s: Session, people: Sequence[int]) -> list[tuple[tuple[int, ...], str]]:
    """The games two of ``people`` are in together (seated or signed up), as (the two, the game)."""
    seated = sa.select(PlayerRow.game_id, PlayerRow.person_id).where(
        PlayerRow.person_id.in_(people), PlayerRow.replaced_at.is_(None)
    )
    signed = sa.select(SignupRow.game_id, SignupRow.person_id).where(
        SignupRow.person_id.in_(people), SignupRow.withdrawn_at.is_(None)
    )
    by_game: dict[int, set[int]] = {}
    for g, p in s.execute(seated.union(signed)):
        if p is not None:
            by_game.setdefault(int(g), set()).add(int(p))
    shared = {g: sorted(ps) for g, ps in by_game.items() if len(ps) > 1}
    if not shared:
        return []
    names = dict(s.execute(sa.select(GameRow.id, GameRow.name).where(GameRow.id.in_(shared))).all())
    out: list[tuple[tuple[int, ...], str]] = []
    for g, ps in sorted(shared.items()):
        for i, a in enumerate(ps):
            for b in ps[i + 1 :]:
                out.append(((a, b), str(names[g])))
    return out


def _supported(line: str) -> str | None:
    """The province a support order's line supports a unit in (``A PAR S A BUR - MAR`` -> ``BUR``), or None."""
    head, sep, rest = line.upper().partition(" S ")
    if not sep or not head:
        return None
    target = rest.split(" - ", 1)[0].split()
    return target[-1].split("/", 1)[0] if target else None


def _support_signals(s: Session) -> list[tuple[str, tuple[int, ...], str | None, SupportSignal | None]]:
    """Supports between two people's powers in the newest :data:`SUPPORT_GAMES` games that seat two people or
    more, from the orders the phases stored when processed."""
    counted = (
        sa.select(PlayerRow.game_id)
        .where(PlayerRow.person_id.is_not(None))
        .group_by(PlayerRow.game_id)
        .having(sa.func.count(sa.distinct(PlayerRow.person_id)) > 1)
        .order_by(PlayerRow.game_id.desc())
        .limit(SUPPORT_GAMES)
    )
    games = [int(g) for g in s.scalars(counted)]
    if not games:
        return []
    seats: dict[int, dict[str, int]] = {}
    for g, power, person in s.execute(
        sa.select(PlayerRow.game_id, PlayerRow.power, PlayerRow.person_id).where(
            PlayerRow.game_id.in_(games), PlayerRow.person_id.is_not(None)
        )
    ):
        if person is not None:  # the latest player of a power counts
            seats.setdefault(int(g), {})[str(power)] = int(person)
    names = dict(s.execute(sa.select(GameRow.id, GameRow.name).where(GameRow.id.in_(games))).all())
    out: list[tuple[str, tuple[int, ...], str | None, SupportSignal | None]] = []
    for g in games:
        phases = s.execute(
            sa.select(PhaseRow.position, PhaseRow.orders).where(
                PhaseRow.game_id == g, PhaseRow.status == "processed", PhaseRow.kind == "movement"
            )
        )
        given: list[tuple[str, str]] = []
        powers: set[str] = set()
        for position, orders in phases:
            owner = {}
            for u in (position or {}).get("units", []):
                where = str(u.get("unit", "")).split()[-1:] or [""]
                owner[where[0].upper().split("/", 1)[0]] = str(u.get("power", ""))
            powers.update(owner.values())
            for by, lines in (orders or {}).items():
                for line in [lines] if isinstance(lines, str) else lines or []:
                    to = owner.get(_supported(str(line)) or "")
                    if to and to != by:
                        given.append((str(by), to))
        people = seats.get(g, {})
        for sig in unusual_supports(given, sorted(powers | set(people)), people):
            pair = (people[sig.by], people[sig.to])
            if pair[0] != pair[1]:
                out.append(("supports", pair, str(names[g]), sig))
    return out


# --------------------------------------------------------------------------------------------------
# Bans and merges


def banned(db: Database, person_id: int, kind: str = "signin") -> bool:
    with db.session() as s:
        return s.get(PersonBanRow, (person_id, kind)) is not None


MERGED = N_("merged into person #%(id)s")
"""The reason a merge bans the account merged away: the system's words (stored as the message's data, said in
the moderator's language), not a moderator's."""


def _merged(into_id: int) -> str:
    return json.dumps(Msg(MERGED, {"id": into_id}).to_data())


def _ban_reason(text: str) -> Msg | str:
    """A ban's reason: a moderator's words as typed, or the merge's message (only that id is read back, so no
    typed reason is ever taken for a message)."""
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if isinstance(data, dict) and data.get("id") == MERGED:
            return Msg.from_data(data)
    return text


def bans(db: Database) -> list[tuple[int, str, str, Msg | str, datetime]]:
    """(person, name, kind, reason, when) of every ban, the latest first."""
    q = (
        sa.select(PersonBanRow.person_id, PersonRow.name, PersonBanRow.kind, PersonBanRow.reason, PersonBanRow.at)
        .join(PersonRow, PersonRow.id == PersonBanRow.person_id)
        .order_by(PersonBanRow.at.desc())
    )
    with db.session() as s:
        return [(int(p), str(n), str(k), _ban_reason(str(r)), as_utc(at)) for p, n, k, r, at in s.execute(q)]


def log(
    s: Session,
    action: str,
    *,
    now: datetime,
    by: str,
    person_id: int | None = None,
    other_id: int | None = None,
    report_id: int | None = None,
    detail: str = "",
) -> None:
    """A line of the moderators' log, in the caller's transaction."""
    s.add(
        ModerationLogRow(
            at=as_utc(now),
            action=action,
            person_id=person_id,
            other_id=other_id,
            report_id=report_id,
            by=by[:200],
            detail=detail[:REASON_MOST],
        )
    )


def ban(db: Database, person_id: int, kind: str, reason: str, *, now: datetime, by: str) -> None:
    """Ban ``person_id`` from signing in (their browsers signed out at once) or from press; logged."""
    if kind not in BAN_KINDS:
        raise GameError(msg("no ban %(kind)s; choose one of %(kinds)s", kind=repr(kind), kinds=", ".join(BAN_KINDS)))
    now = as_utc(now)
    with db.session() as s, s.begin():
        _person(s, person_id)
        if s.get(PersonBanRow, (person_id, kind)) is None:
            s.add(PersonBanRow(person_id=person_id, kind=kind, reason=reason.strip()[:REASON_MOST], at=now))
        if kind == "signin":
            s.execute(
                sa.update(WebSessionRow)
                .where(WebSessionRow.person_id == person_id, WebSessionRow.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        log(s, f"ban-{kind}", now=now, by=by, person_id=person_id, detail=reason.strip())


def unban(db: Database, person_id: int, kind: str, *, now: datetime, by: str) -> bool:
    with db.session() as s, s.begin():
        row = s.get(PersonBanRow, (person_id, kind))
        if row is None:
            return False
        s.delete(row)
        log(s, f"unban-{kind}", now=now, by=by, person_id=person_id)
        return True


def seats_of(db: Database, person_id: int) -> list[str]:
    """The games ``person_id`` is in and that are not over: seated, or signed up to the opening."""
    with db.session() as s:
        seated = sa.select(PlayerRow.game_id).where(PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None))
        signed = sa.select(SignupRow.game_id).where(SignupRow.person_id == person_id, SignupRow.withdrawn_at.is_(None))
        ids = set(s.scalars(seated.union(signed)))
        if not ids:
            return []
        q = sa.select(GameRow.name).where(GameRow.id.in_(ids), GameRow.status != "finished").order_by(GameRow.name)
        return [str(n) for n in s.scalars(q)]


def merge(db: Database, from_id: int, into_id: int, *, now: datetime, by: str) -> list[str]:
    """Move ``from_id``'s seats (current and past), sign-ups, rated lines, claims, devices and blocks, and what
    it kept for itself (holidays, postal addresses, notification settings: :func:`_carry_over_own`) to
    ``into_id``, and ban ``from_id`` from signing in; each game whose seats changed logs it (so the ratings'
    deep update takes it in again with its new people). Returns those games' names."""
    if from_id == into_id:
        raise GameError(msg("a person cannot be merged into themselves"))
    now = as_utc(now)
    with db.session() as s, s.begin():
        _person(s, from_id)
        _person(s, into_id)
        games = {int(g) for g in s.scalars(sa.select(PlayerRow.game_id).where(PlayerRow.person_id == from_id))}
        s.execute(sa.update(PlayerRow).where(PlayerRow.person_id == from_id).values(person_id=into_id))
        theirs = sa.select(SignupRow.game_id).where(SignupRow.person_id == into_id)
        s.execute(sa.delete(SignupRow).where(SignupRow.person_id == from_id, SignupRow.game_id.in_(theirs)))
        s.execute(sa.update(SignupRow).where(SignupRow.person_id == from_id).values(person_id=into_id))
        s.execute(sa.update(VacancyRow).where(VacancyRow.claimed_by == from_id).values(claimed_by=into_id))
        s.execute(sa.update(VacancyRow).where(VacancyRow.from_person_id == from_id).values(from_person_id=into_id))
        rated = sa.select(RatingLineRow.game_id).where(RatingLineRow.person_id == into_id)
        s.execute(sa.delete(RatingLineRow).where(RatingLineRow.person_id == from_id, RatingLineRow.game_id.in_(rated)))
        s.execute(sa.update(RatingLineRow).where(RatingLineRow.person_id == from_id).values(person_id=into_id))
        devices = sa.select(PersonDeviceRow.device_hash).where(PersonDeviceRow.person_id == into_id)
        s.execute(
            sa.delete(PersonDeviceRow).where(
                PersonDeviceRow.person_id == from_id, PersonDeviceRow.device_hash.in_(devices)
            )
        )
        s.execute(sa.update(PersonDeviceRow).where(PersonDeviceRow.person_id == from_id).values(person_id=into_id))
        for blocker, other in list(
            s.execute(
                sa.select(PersonBlockRow.person_id, PersonBlockRow.other_id).where(
                    sa.or_(PersonBlockRow.person_id == from_id, PersonBlockRow.other_id == from_id)
                )
            )
        ):
            s.execute(
                sa.delete(PersonBlockRow).where(PersonBlockRow.person_id == blocker, PersonBlockRow.other_id == other)
            )
            a, b = (into_id if blocker == from_id else blocker), (into_id if other == from_id else other)
            exists = sa.select(PersonBlockRow.id).where(PersonBlockRow.person_id == a, PersonBlockRow.other_id == b)
            if a != b and s.scalars(exists).first() is None:
                s.add(PersonBlockRow(person_id=a, other_id=b, at=now))
                s.flush()
        _carry_over_own(s, from_id, into_id)
        if s.get(PersonBanRow, (from_id, "signin")) is None:
            s.add(PersonBanRow(person_id=from_id, kind="signin", reason=_merged(into_id), at=now))
        s.execute(
            sa.update(WebSessionRow)
            .where(WebSessionRow.person_id == from_id, WebSessionRow.revoked_at.is_(None))
            .values(revoked_at=now)
        )
        names = []
        for g in s.scalars(sa.select(GameRow).where(GameRow.id.in_(games)).order_by(GameRow.name)):
            log_event(s, g, now, "people-merged", into=into_id)
            names.append(g.name)
        log(s, "merge", now=now, by=by, person_id=from_id, other_id=into_id, detail=", ".join(names))
        return names


def _carry_over_own(s: Session, from_id: int, into_id: int) -> None:
    """What the merged account kept for itself goes to the surviving one: holidays, postal addresses and how it
    wants to be notified (choices, the deadline lead, push and webhook targets), its language and time zone,
    and the seats' own choices (a proxy ally named, a game's stand-in). The surviving account's own value wins
    wherever both have one (its primary address, a choice of the same event and channel, its lead, language
    and zone), and what both hold alike is kept once."""
    own = list(s.scalars(sa.select(AbsenceRow).where(AbsenceRow.person_id == into_id)))
    for ab in list(s.scalars(sa.select(AbsenceRow).where(AbsenceRow.person_id == from_id))):
        if any((o.first_day, o.last_day) == (ab.first_day, ab.last_day) for o in own):
            s.delete(ab)
        else:
            ab.person_id = into_id
    addresses = list(s.scalars(sa.select(PostalAddressRow).where(PostalAddressRow.person_id == into_id)))
    for ad in list(s.scalars(sa.select(PostalAddressRow).where(PostalAddressRow.person_id == from_id))):
        # One primary address (no days) a person; an alternate for the same days is the survivor's to keep.
        if any((o.first_day, o.last_day) == (ad.first_day, ad.last_day) for o in addresses):
            s.delete(ad)
        else:
            ad.person_id = into_id
    mine = sa.select(NotifyPrefRow.event, NotifyPrefRow.channel).where(NotifyPrefRow.person_id == into_id)
    chosen = {(str(event), str(channel)) for event, channel in s.execute(mine)}
    for pref in list(s.scalars(sa.select(NotifyPrefRow).where(NotifyPrefRow.person_id == from_id))):
        if (pref.event, pref.channel) not in chosen:
            s.add(NotifyPrefRow(person_id=into_id, event=pref.event, channel=pref.channel, enabled=pref.enabled))
        s.delete(pref)
    theirs = s.get(NotifySettingsRow, from_id)
    if theirs is not None:
        if s.get(NotifySettingsRow, into_id) is None:
            s.add(NotifySettingsRow(person_id=into_id, deadline_hours=theirs.deadline_hours))
        s.delete(theirs)
    targets = list(s.scalars(sa.select(NotifyTargetRow).where(NotifyTargetRow.person_id == into_id)))
    for tg in list(s.scalars(sa.select(NotifyTargetRow).where(NotifyTargetRow.person_id == from_id))):
        if any((o.kind, dict(o.config)) == (tg.kind, dict(tg.config)) for o in targets):
            s.delete(tg)
        else:
            tg.person_id = into_id
    s.flush()
    # Deliveries still waiting go where the person now is (their targets moved with them).
    s.execute(sa.update(NotifyDeliveryRow).where(NotifyDeliveryRow.person_id == from_id).values(person_id=into_id))
    s.execute(sa.update(ProxyAllyRow).where(ProxyAllyRow.person_id == from_id).values(person_id=into_id))
    s.execute(
        sa.update(GameRosterRow).where(GameRosterRow.stand_in_person_id == from_id).values(stand_in_person_id=into_id)
    )
    s.execute(sa.update(AbsenceUseRow).where(AbsenceUseRow.person_id == from_id).values(person_id=into_id))
    gone, kept = _person(s, from_id), _person(s, into_id)
    kept.language = kept.language or gone.language
    kept.time_zone = kept.time_zone or gone.time_zone


# --------------------------------------------------------------------------------------------------
# Reports


@dataclass(frozen=True)
class Report:
    """A report as the moderators' queue shows it, with its evidence."""

    id: int
    kind: str
    reporter_id: int
    reporter: str
    reason: str
    at: datetime
    status: str
    game: str | None
    person_id: int | None
    person: str | None
    message: str | None
    """The reported message's words (a message report)."""
    sender: str | None
    """The power that sent it."""
    phase: str | None
    """The phase it was written in."""


def report(
    db: Database,
    reporter_id: int,
    kind: str,
    reason: str,
    *,
    now: datetime,
    game: str | None = None,
    message_id: int | None = None,
    person_id: int | None = None,
) -> int:
    """Queue a report (the use case checked that the reporter may read what they report); its id."""
    reason = reason.strip()
    if kind not in REPORT_KINDS:
        raise GameError(
            msg("no report of %(kind)s; report one of %(kinds)s", kind=repr(kind), kinds=", ".join(REPORT_KINDS))
        )
    if not reason:
        raise GameError(msg("say in a few words what is wrong: the moderators read the reason first"))
    if len(reason) > REASON_MOST:
        raise GameError(
            msg("the reason is %(length)s characters long; at most %(most)s", length=len(reason), most=REASON_MOST)
        )
    with db.session() as s, s.begin():
        game_id = game_row(s, game).id if game else None
        if person_id is not None:
            _person(s, person_id)
        if message_id is not None:
            m = s.get(PressMessageRow, message_id)
            if m is None or m.game_id != game_id:
                raise GameError(
                    msg("no message %(message)s in %(game)s that you may read", message=message_id, game=game or "")
                )
            q = (
                sa.select(PlayerRow.person_id)
                .where(PlayerRow.game_id == m.game_id, PlayerRow.power == m.sender, PlayerRow.assigned_at <= m.sent_at)
                .order_by(PlayerRow.assigned_at.desc(), PlayerRow.id.desc())
            )
            sender = s.scalars(q).first()
            person_id = int(sender) if sender is not None else None
        row = ModerationReportRow(
            reporter_id=reporter_id,
            kind=kind,
            game_id=game_id,
            message_id=message_id,
            person_id=person_id,
            reason=reason,
            at=as_utc(now),
            status="open",
        )
        s.add(row)
        s.flush()
        return int(row.id)


def reports(db: Database, *, open_only: bool = True, report_id: int | None = None) -> list[Report]:
    """The queue, oldest first, with each report's evidence (the message's words, its game and phase)."""
    reporter, reported = aliased(PersonRow), aliased(PersonRow)
    q = (
        sa.select(ModerationReportRow, reporter.name, reported.name, GameRow.name, PressMessageRow, PhaseRow.name)
        .join(reporter, reporter.id == ModerationReportRow.reporter_id)
        .outerjoin(reported, reported.id == ModerationReportRow.person_id)
        .outerjoin(GameRow, GameRow.id == ModerationReportRow.game_id)
        .outerjoin(PressMessageRow, PressMessageRow.id == ModerationReportRow.message_id)
        .outerjoin(PhaseRow, PhaseRow.id == PressMessageRow.phase_id)
        .order_by(ModerationReportRow.id)
    )
    if open_only:
        q = q.where(ModerationReportRow.status == "open")
    if report_id is not None:
        q = q.where(ModerationReportRow.id == report_id)
    with db.session() as s:
        return [
            Report(
                id=r.id,
                kind=r.kind,
                reporter_id=r.reporter_id,
                reporter=str(rn),
                reason=r.reason,
                at=as_utc(r.at),
                status=r.status,
                game=gn,
                person_id=r.person_id,
                person=pn,
                message=m.body if m is not None else None,
                sender=m.sender if m is not None else None,
                phase=ph,
            )
            for r, rn, pn, gn, m, ph in s.execute(q)
        ]


def decide_report(db: Database, report_id: int, action: str, *, now: datetime, by: str, note: str = "") -> Report:
    """Close a report with ``action`` (the use case does what the action means); logged."""
    if action not in REPORT_ACTIONS:
        raise GameError(
            msg(
                "no action %(action)s; choose one of %(actions)s",
                action=repr(action),
                actions=", ".join(REPORT_ACTIONS),
            )
        )
    with db.session() as s, s.begin():
        row = s.get(ModerationReportRow, report_id)
        if row is None or row.status != "open":
            raise GameError(msg("no open report %(report)s", report=report_id))
        if action != "dismiss" and row.person_id is None:
            raise GameError(msg("report %(report)s names nobody to act on: dismiss it", report=report_id))
        row.status = action
        row.decided_at = as_utc(now)
        log(
            s,
            action,
            now=now,
            by=by,
            person_id=row.person_id,
            report_id=row.id,
            detail=note.strip(),  # a warning's words are the person's to read: never the reporter's own
        )
    return reports(db, open_only=False, report_id=report_id)[0]


@dataclass(frozen=True)
class LogEntry:
    at: datetime
    action: str
    person_id: int | None
    other_id: int | None
    report_id: int | None
    by: str
    detail: str


def moderation_log(db: Database, *, limit: int = 50) -> list[LogEntry]:
    q = sa.select(ModerationLogRow).order_by(ModerationLogRow.id.desc()).limit(limit)
    with db.session() as s:
        return [
            LogEntry(as_utc(r.at), r.action, r.person_id, r.other_id, r.report_id, r.by, r.detail) for r in s.scalars(q)
        ]


def warnings(db: Database, person_id: int) -> list[tuple[datetime, str]]:
    """The warnings the moderators gave ``person_id`` (when, why), the latest first: their account page shows them."""
    q = (
        sa.select(ModerationLogRow.at, ModerationLogRow.detail)
        .where(ModerationLogRow.person_id == person_id, ModerationLogRow.action == "warn")
        .order_by(ModerationLogRow.id.desc())
    )
    with db.session() as s:
        return [(as_utc(a), str(d)) for a, d in s.execute(q)]


def sender_of(db: Database, game: str, message_id: int) -> tuple[str, int | None] | None:
    """The power that sent message ``message_id`` and the person who played it then (if a person did), or
    ``None`` for a message that is not the game's."""
    with db.session() as s:
        g = game_row(s, game)
        m = s.get(PressMessageRow, message_id)
        if m is None or m.game_id != g.id:
            return None
        q = (
            sa.select(PlayerRow.person_id)
            .where(PlayerRow.game_id == g.id, PlayerRow.power == m.sender, PlayerRow.assigned_at <= m.sent_at)
            .order_by(PlayerRow.assigned_at.desc(), PlayerRow.id.desc())
        )
        got = s.scalars(q).first()
        return str(m.sender), (int(got) if got is not None else None)


# --------------------------------------------------------------------------------------------------
# A person's data


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """What "download my data" holds of moderation: the people one blocks, the reports one made, the warnings
    one was given, and when one's devices and networks were seen (their hashes say nothing to anyone)."""
    given = [{"at": at.isoformat(), "note": note} for at, note in warnings(db, person_id)]
    with db.session() as s:
        blocked = s.execute(
            sa.select(PersonBlockRow.other_id, PersonBlockRow.at).where(PersonBlockRow.person_id == person_id)
        )
        made = s.scalars(sa.select(ModerationReportRow).where(ModerationReportRow.reporter_id == person_id))
        devices = s.execute(
            sa.select(PersonDeviceRow.first_seen, PersonDeviceRow.last_seen).where(
                PersonDeviceRow.person_id == person_id
            )
        )
        networks = s.scalars(sa.select(PersonNetworkRow.last_seen).where(PersonNetworkRow.person_id == person_id))
        return {
            "blocks": [{"person": int(o), "at": as_utc(at).isoformat()} for o, at in blocked],
            "reports_made": [
                {"kind": r.kind, "reason": r.reason, "at": as_utc(r.at).isoformat(), "status": r.status} for r in made
            ],
            "devices": [{"first_seen": as_utc(a).isoformat(), "last_seen": as_utc(b).isoformat()} for a, b in devices],
            "networks_seen": [as_utc(at).isoformat() for at in networks],
            "warnings": given,
        }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: the blocks either way, the devices and networks go; the reasons of the
    reports one made are emptied (the moderators' decisions and the log stay, naming an emptied person)."""
    with db.session() as s, s.begin():
        s.execute(
            sa.delete(PersonBlockRow).where(
                sa.or_(PersonBlockRow.person_id == person_id, PersonBlockRow.other_id == person_id)
            )
        )
        s.execute(sa.delete(PersonDeviceRow).where(PersonDeviceRow.person_id == person_id))
        s.execute(sa.delete(PersonNetworkRow).where(PersonNetworkRow.person_id == person_id))
        s.execute(sa.update(ModerationReportRow).where(ModerationReportRow.reporter_id == person_id).values(reason=""))
