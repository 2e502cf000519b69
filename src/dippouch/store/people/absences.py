"""Absences as stored: a person's holidays (recorded once, for all their games), each game's policy for a
player away at a deadline, and its application at the deadline, under the deadline worker's claim (:func:`apply_locked`).

The policy itself (how long an extension is, what "away" means) is :mod:`dippouch.people.absences`'; here it is
read, applied once per phase and power (``absence_uses`` is unique on them, and the game's row is locked), and
recorded. Games show the days a player is away, never the reason, which stays the person's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.lookup import ORDER_KINDS
from dippouch.core.messages import Days, Msg, msg, quantity
from dippouch.game import (
    GameError,
    LineCheck,
    RecordNotFound,
    as_utc,
    check_orders,
    may_submit,
    position_from_data,
    seen_position,
    stored_msg,
)
from dippouch.people.absences import (
    DEFAULT_BUDGET_DAYS,
    MAX_BUDGET_DAYS,
    NEEDS_PROXY_ORDERS,
    POLICIES,
    Away,
    away_on,
    back_on,
    extension,
)
from dippouch.store.db import Database
from dippouch.store.models import GameRow, PersonRow, PhaseRow, PlayerRow, SubmissionRow
from dippouch.store.people.models import AbsenceRow, AbsenceUseRow, GameRosterRow, ProxyAllyRow
from dippouch.store.readiness import CURRENT_PLAYERS
from dippouch.store.rows import game_row, game_settings, game_variant, log_event, phase_position, power_name
from dippouch.store.standing import standing_in_sql

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "ANY_POLICY",
    "ANY_USES",
    "Absence",
    "AbsencePolicy",
    "Applied",
    "GameAway",
    "Use",
    "absence_policy",
    "absence_policy_in",
    "absence_uses",
    "absence_uses_in",
    "absences_of",
    "apply_locked",
    "export_person",
    "forget_person",
    "game_absences",
    "game_absences_in",
    "players_and_seats",
    "proxy_allies",
    "record_absence",
    "remove_absence",
    "seated_people",
    "set_absence_policy",
    "set_proxy_ally",
    "stand_in_seats",
    "stand_in_seats_in",
]

MAX_REASON = 200
MAX_ABSENCE_DAYS = 366
MAX_ABSENCES = 40
STANDING_LABEL = "standing orders (away)"
PROXY_LABEL = "proxy orders (away)"


@dataclass(frozen=True)
class Absence:
    id: int
    first_day: date
    last_day: date
    reason: str

    @property
    def text(self) -> Msg:
        """How games show it, in the reader's language where it is shown ("away 3–21 Aug")."""
        return away_for(self.first_day, self.last_day)


def away_for(first: date, last: date) -> Msg:
    """A player's days away, said in the reader's language (the days as their language writes dates)."""
    return msg("away %(days)s", days=Days(first.isoformat(), last.isoformat()))


@dataclass(frozen=True)
class AbsencePolicy:
    policy: str
    budget_days: int
    stand_in_person_id: int | None
    stand_in_name: str | None
    proxy_orders: bool
    """The variant's rules let an absent player's allies order their units (W3K's proxy orders)."""


@dataclass(frozen=True)
class GameAway:
    """A player of the game away now or later: the days, never the reason."""

    power: str
    player: str
    first_day: date
    last_day: date
    text: Msg
    now: bool
    person_id: int | None = None
    """The player's person (their page), for the readers who may see who is away."""


@dataclass(frozen=True)
class Use:
    phase: str
    power: str
    policy: str
    days: float
    detail: dict[str, Any]
    applied_at: datetime

    @property
    def note(self) -> Msg | None:
        """What the policy could not do, or did not need to (a message value, or the English a use kept before
        notes were values)."""
        return stored_msg(self.detail.get("note_msg"), self.detail.get("note"))


@dataclass(frozen=True)
class Applied:
    game: str
    phase: str
    power: str
    policy: str
    detail: dict[str, Any]


def _live_person(s: Session, person_id: int) -> PersonRow:
    p = s.get(PersonRow, person_id)
    if p is None or p.deleted_at is not None:
        raise RecordNotFound(msg("no person %(person)s", person=person_id))
    return p


def _mark_games(s: Session, person_id: int, now: datetime, kind: str, **detail: Any) -> None:
    """An event in each game the person plays: the game pages, remade when a game's events change, then show
    the absence (its days only)."""
    seats = s.execute(
        sa.select(GameRow, PlayerRow.power)
        .join(PlayerRow, PlayerRow.game_id == GameRow.id)
        .where(PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None))
    ).all()
    for g, power in seats:
        log_event(s, g, now, kind, power=power, **detail)


def record_absence(
    db: Database, person_id: int, first_day: date, last_day: date, *, now: datetime, reason: str = ""
) -> int:
    """A holiday of the person, for every game they play (days inclusive)."""
    reason = " ".join(str(reason).split())
    if len(reason) > MAX_REASON:
        raise GameError(
            msg("reason: at most %(most)s characters (this one has %(count)s)", most=MAX_REASON, count=len(reason))
        )
    if last_day < first_day:
        raise GameError(
            msg(
                "to: %(last)s is before 'from' (%(first)s); did you mean from %(last)s to %(first)s?",
                last=last_day.isoformat(),
                first=first_day.isoformat(),
            )
        )
    if (last_day - first_day).days + 1 > MAX_ABSENCE_DAYS:
        raise GameError(
            msg(
                "an absence is at most %(most)s days (this one is %(days)s); for longer, hand your seats over",
                most=MAX_ABSENCE_DAYS,
                days=(last_day - first_day).days + 1,
            )
        )
    now = as_utc(now)
    if last_day < now.date():
        raise GameError(
            msg("to: %(day)s has passed; record an absence that is still to come", day=last_day.isoformat())
        )
    with db.session() as s, s.begin():
        _live_person(s, person_id)
        count = s.scalar(
            sa.select(sa.func.count()).where(AbsenceRow.person_id == person_id, AbsenceRow.last_day >= now.date())
        )
        if (count or 0) >= MAX_ABSENCES:
            raise GameError(
                msg(
                    "you have %(count)s absences to come already (at most %(most)s)",
                    count=count or 0,
                    most=MAX_ABSENCES,
                )
            )
        row = AbsenceRow(person_id=person_id, first_day=first_day, last_day=last_day, reason=reason, created_at=now)
        s.add(row)
        s.flush()
        _mark_games(s, person_id, now, "away", first=first_day.isoformat(), last=last_day.isoformat())
        return row.id


def remove_absence(db: Database, person_id: int, absence_id: int, *, now: datetime) -> None:
    with db.session() as s, s.begin():
        row = s.get(AbsenceRow, absence_id)
        if row is None or row.person_id != person_id:
            raise GameError(msg("you have no absence #%(id)s", id=absence_id))
        s.delete(row)
        _mark_games(s, person_id, as_utc(now), "away_removed")


def absences_of(db: Database, person_id: int) -> list[Absence]:
    with db.session() as s:
        q = sa.select(AbsenceRow).where(AbsenceRow.person_id == person_id).order_by(AbsenceRow.first_day)
        return [Absence(r.id, r.first_day, r.last_day, r.reason) for r in s.scalars(q)]


# ------------------------------------------------------------------------------------------------ policy


_POLICY = (
    sa.select(GameRosterRow.absence_policy, GameRosterRow.budget_days, GameRosterRow.stand_in_person_id, PersonRow.name)
    .outerjoin(PersonRow, sa.and_(PersonRow.id == GameRosterRow.stand_in_person_id, PersonRow.deleted_at.is_(None)))
    .where(GameRosterRow.game_id == sa.bindparam("game_id"))
)
"""The game's policy and its stand-in's name (none for a person who deleted their data), in one statement built
once: every game page made reads it, and a deadline's processing."""


def _policy_of(s: Session, g: GameRow, stored: bool = True) -> AbsencePolicy:
    proxy = bool(game_variant(g).rules.get("proxy_orders"))
    row = s.execute(_POLICY, {"game_id": g.id}).first() if stored else None
    if row is None:
        return AbsencePolicy("none", DEFAULT_BUDGET_DAYS, None, None, proxy)
    policy, budget_days, stand_in, name = row
    return AbsencePolicy(policy, budget_days, stand_in, name, proxy)


def absence_policy(db: Database, game: str) -> AbsencePolicy:
    with db.read_session() as s:  # a page's read: no write lock
        return _policy_of(s, game_row(s, game))


def absence_policy_in(s: Session, g: GameRow, *, stored: bool = True) -> AbsencePolicy:
    """:func:`absence_policy` of the game row read already, in the caller's read; ``stored`` False: the caller
    knows the game has no policy of its own (the game page asks with its row), so the default is read from
    nothing."""
    return _policy_of(s, g, stored)


def set_absence_policy(
    db: Database,
    game: str,
    policy: str,
    *,
    now: datetime,
    budget_days: int | None = None,
    stand_in_person_id: int | None = None,
) -> AbsencePolicy:
    """The coordinator's choice for players away at a deadline (see :mod:`dippouch.people.absences`)."""
    policy = str(policy).strip().lower().replace("-", "_")
    if policy not in POLICIES:
        raise GameError(
            msg(
                "absence_policy: %(value)s is not a choice; choose one of %(choices)s",
                value=repr(policy),
                choices=", ".join(POLICIES),
            )
        )
    if budget_days is not None and not 0 <= budget_days <= MAX_BUDGET_DAYS:
        raise GameError(
            msg(
                "budget_days: %(value)s is out of range; give 0 to %(most)s days",
                value=budget_days,
                most=MAX_BUDGET_DAYS,
            )
        )
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        if policy in NEEDS_PROXY_ORDERS and not game_variant(g).rules.get("proxy_orders"):
            raise GameError(
                msg(
                    "absence_policy: %(variant)s's rules have no proxy orders; choose extend, stand_in or standing",
                    variant=g.variant,
                )
            )
        if policy == "stand_in":
            if stand_in_person_id is None:
                raise GameError(msg("stand_in: name the person who stands in (their e-mail address)"))
            _live_person(s, stand_in_person_id)
        row = s.get(GameRosterRow, g.id)
        if row is None:
            row = GameRosterRow(game_id=g.id, roster_visibility=None, absence_policy="none", budget_days=14)
            s.add(row)
        row.absence_policy = policy
        if budget_days is not None:
            row.budget_days = budget_days
        row.stand_in_person_id = stand_in_person_id if policy == "stand_in" else None
        log_event(s, g, as_utc(now), "absence_policy", policy=policy, budget_days=row.budget_days)
        s.flush()
        return _policy_of(s, g)


def _aways(s: Session, person_ids: list[int], since: date) -> dict[int, list[Away]]:
    out: dict[int, list[Away]] = {}
    if person_ids:
        q = sa.select(AbsenceRow).where(AbsenceRow.person_id.in_(person_ids), AbsenceRow.last_day >= since)
        for r in s.scalars(q):
            out.setdefault(r.person_id, []).append(Away(r.id, r.first_day, r.last_day))
    return out


def game_absences(db: Database, game: str, today: date) -> list[GameAway]:
    """The game's players away now or later (days only), by first day."""
    with db.read_session() as s:  # a page's read: no write lock
        g = game_row(s, game)
        return game_absences_in(s, seated_people(s, g.id), today)


# Built once, as the stand-ins' statement below: every game page made sends both. The current players' statement
# widened by each seat's person: the game page reads its status's players from the same rows (players_and_seats).
_SEATED = CURRENT_PLAYERS.add_columns(PersonRow.name, PersonRow.id).outerjoin(
    PersonRow, sa.and_(PersonRow.id == PlayerRow.person_id, PersonRow.deleted_at.is_(None))
)
ANY_POLICY = sa.exists().where(GameRosterRow.game_id == GameRow.id)
"""Whether the game (the row a statement reads) has a policy of its own (:func:`absence_policy_in`'s ``stored``)."""
ANY_USES = sa.exists().where(AbsenceUseRow.game_id == GameRow.id)
"""Whether the game (the row a statement reads) has used an absence policy: :func:`absence_uses_in` finds nothing
without."""
_USES = (
    sa.select(
        AbsenceUseRow.power,
        AbsenceUseRow.policy,
        AbsenceUseRow.days,
        AbsenceUseRow.detail,
        AbsenceUseRow.applied_at,
        PhaseRow.name,
    )
    .join(PhaseRow, PhaseRow.id == AbsenceUseRow.phase_id)
    .where(AbsenceUseRow.game_id == sa.bindparam("game_id"))
    .order_by(AbsenceUseRow.id)
)


def seated_people(s: Session, game_id: int) -> list[tuple[str, str, int]]:
    """(power, name, person id) of each seat a person plays now (not a name-only seat, nor a person who
    deleted their data): who may be away, and whom the game page links to."""
    return players_and_seats(s, game_id)[1]


def players_and_seats(s: Session, game_id: int) -> tuple[list[tuple[str, str, datetime]], list[tuple[str, str, int]]]:
    """(:func:`dippouch.store.readiness.current_players`, :func:`seated_people`) in one statement: the game page
    asks both, and each was a statement of its own."""
    players, seats = [], []
    for power, name, assigned_at, person, pid in s.execute(_SEATED, {"game_id": game_id}):
        players.append((str(power), str(name), assigned_at))
        if pid is not None:
            seats.append((str(power), str(person), int(pid)))
    return players, seats


def game_absences_in(s: Session, seats: list[tuple[str, str, int]], today: date) -> list[GameAway]:
    """:func:`game_absences` of the ``seats`` read already (:func:`seated_people`), in the caller's read."""
    aways = _aways(s, [pid for *_, pid in seats], today)
    out = [
        GameAway(
            power,
            name,
            a.first_day,
            a.last_day,
            away_for(a.first_day, a.last_day),
            a.covers(today),
            person_id=pid,
        )
        for power, name, pid in seats
        for a in aways.get(pid, [])
    ]
    return sorted(out, key=lambda a: (a.first_day, a.power))


def absence_uses(db: Database, game: str) -> list[Use]:
    with db.read_session() as s:  # a page's read: no write lock
        return absence_uses_in(s, game_row(s, game).id)


def absence_uses_in(s: Session, game_id: int) -> list[Use]:
    """:func:`absence_uses` in the caller's read."""
    return [
        Use(name, power, policy, days, dict(detail), applied_at)
        for power, policy, days, detail, applied_at, name in s.execute(_USES, {"game_id": game_id})
    ]


def stand_in_seats(db: Database, person_id: int, today: date) -> list[tuple[str, str]]:
    """(game, power) of the seats ``person_id`` stands in for today: games whose policy names them, whose
    player is away today."""
    with db.session() as s:
        return stand_in_seats_in(s, person_id, today)


_STANDING_IN = (
    sa.select(GameRow.name, PlayerRow.power, PlayerRow.person_id)
    .join(GameRosterRow, GameRosterRow.game_id == GameRow.id)
    .join(PlayerRow, PlayerRow.game_id == GameRow.id)
    .where(
        GameRosterRow.absence_policy == "stand_in",
        GameRosterRow.stand_in_person_id == sa.bindparam("person"),
        PlayerRow.replaced_at.is_(None),
        PlayerRow.person_id.is_not(None),
        GameRow.status != "finished",
    )
)
"""The seats a person may stand in for (their players' absences apart): built once, as every signed-in request
asks it (:func:`dippouch.store.access.AccessStore.session_info`)."""


def stand_in_seats_in(s: Session, person_id: int, today: date) -> list[tuple[str, str]]:
    """:func:`stand_in_seats` in the caller's session (a sign-in reads it with the session's other grants)."""
    rows = s.execute(_STANDING_IN, {"person": person_id}).all()
    if not rows:
        return []
    aways = _aways(s, sorted({pid for *_, pid in rows if pid is not None}), today)
    return [(game, power) for game, power, pid in rows if pid is not None and away_on(aways.get(pid, []), today)]


def set_proxy_ally(db: Database, person_id: int, game: str, ally: str | None, *, now: datetime) -> str | None:
    """The ally who orders the person's units in ``game`` while they are away (policy ``proxy``); None clears
    it. The person must play a seat there, and the game's rules must allow proxy orders."""
    with db.session() as s, s.begin():
        g = game_row(s, game, lock=True)
        v = game_variant(g)
        if not v.rules.get("proxy_orders"):
            raise GameError(
                msg(
                    "ally: %(variant)s's rules have no proxy orders, so no ally can order your units", variant=g.variant
                )
            )
        seat = s.scalars(
            sa.select(PlayerRow).where(
                PlayerRow.game_id == g.id, PlayerRow.person_id == person_id, PlayerRow.replaced_at.is_(None)
            )
        ).first()
        if seat is None:
            raise GameError(msg("you play no seat in %(game)s", game=game))
        row = s.get(ProxyAllyRow, (g.id, seat.power))
        if ally is None or not ally.strip():
            if row is not None:
                s.delete(row)
            return None
        name = power_name(v, ally.strip())
        if name == seat.power:
            others = ", ".join(p for p in v.power_names if p != seat.power)
            raise GameError(
                msg("ally: %(power)s is your own power; name another (%(others)s)", power=name, others=others)
            )
        if row is None:
            s.add(ProxyAllyRow(game_id=g.id, power=seat.power, ally=name, person_id=person_id, set_at=as_utc(now)))
        else:
            row.ally, row.person_id, row.set_at = name, person_id, as_utc(now)
        return name


def proxy_allies(db: Database, person_id: int) -> dict[str, str]:
    """Game -> the ally the person named there."""
    with db.session() as s:
        q = (
            sa.select(GameRow.name, ProxyAllyRow.ally)
            .join(GameRow, GameRow.id == ProxyAllyRow.game_id)
            .where(ProxyAllyRow.person_id == person_id)
        )
        return {game: ally for game, ally in s.execute(q)}


# ------------------------------------------------------------------------------------------------ the deadline


def _budget_used(s: Session, game_id: int, person_id: int) -> float:
    used = s.scalar(
        sa.select(sa.func.coalesce(sa.func.sum(AbsenceUseRow.days), 0.0)).where(
            AbsenceUseRow.game_id == game_id, AbsenceUseRow.person_id == person_id, AbsenceUseRow.policy == "extend"
        )
    )
    return float(used or 0.0)


def _last_orders(s: Session, ph: PhaseRow, power: str) -> str | None:
    """The text of the orders that stood for ``power`` in the latest processed phase of the same kind on the
    game's line of play."""
    earlier = s.scalars(
        sa.select(PhaseRow)
        .where(
            PhaseRow.game_id == ph.game_id,
            PhaseRow.kind == ph.kind,
            PhaseRow.status == "processed",
            PhaseRow.id < ph.id,
        )
        .order_by(PhaseRow.id.desc())
        .limit(5)
    )
    for prev in earlier:
        sub = standing_in_sql(s, prev.id, prev.deadline, power=power).get(power)
        if sub is not None:
            orders = [LineCheck.from_data(d).order for d in sub.lines]
            kept = [o for o in orders if o]
            if kept:
                return "\n".join(kept)
    return None


def _noted(note: Msg) -> dict[str, Any]:
    """A use's note as stored: the message's values (said in the reader's language where it is shown), and its
    English beside them for the programs that read the JSON."""
    return {"note": str(note), "note_msg": note.to_data()}


def _apply_standing(db: Database, s: Session, g: GameRow, ph: PhaseRow, power: str) -> dict[str, Any]:
    v = game_variant(g)
    # Checked as the power's own orders are on arrival: in fog, on what it sees (a carried support of a unit
    # gone out of its sight is refused, and the version's verdicts tell the player nothing more).
    pos = seen_position(v, phase_position(db, v, ph), power, game_settings(g))
    text = _last_orders(s, ph, power)
    assert ph.deadline is not None
    if text is None:
        return {"carried": [], **_noted(msg("no earlier orders: every unit holds"))}
    lines = check_orders(v, pos, power, text)
    carried = [ln.order for ln in lines if ln.accepted and ln.order]
    if carried:
        _add_version(s, ph, power, text, lines, STANDING_LABEL)
    return {"carried": carried, "dropped": [ln.text for ln in lines if not ln.accepted]}


def _hands_over_to(order: Any, ally: str) -> bool:
    """Whether ``order`` hands its unit to ``ally``: known by the drawing its order kind registers (the core's
    one registry), so no rule module is named here."""
    kind = ORDER_KINDS.get(type(order))
    drawing = kind.draw(order) if kind is not None else None
    return drawing is not None and drawing.shape == "hand_over" and drawing.power == ally


def _apply_proxy(s: Session, g: GameRow, ph: PhaseRow, power: str) -> dict[str, Any]:
    """Hand each unit of the absent ``power`` over to the ally its player named (W3K's proxy orders), as a
    version received at the deadline; the ally's orders for those units then count."""
    row = s.get(ProxyAllyRow, (g.id, power))
    if row is None:
        return _noted(msg("no ally named: the units follow the rules for units without orders"))
    from dippouch.core.legal_orders import legal_orders  # the proxy policy's only use: loaded when needed
    from dippouch.core.notation import format_order

    v = game_variant(g)
    pos = seen_position(v, position_from_data(v, ph.position), power, game_settings(g))  # as _apply_standing's
    orders = [o for choices in legal_orders(v, pos, power).values() for o in choices if _hands_over_to(o, row.ally)]
    if not orders:
        return {"ally": row.ally, **_noted(msg("nothing to hand over this phase"))}
    text = "\n".join(format_order(v, o, phase_kind=ph.kind) for o in orders)
    lines = check_orders(v, pos, power, text)
    _add_version(s, ph, power, text, lines, PROXY_LABEL)
    return {"ally": row.ally, "handed": [ln.order for ln in lines if ln.accepted and ln.order]}


def _add_version(s: Session, ph: PhaseRow, power: str, text: str, lines: list[LineCheck], label: str) -> None:
    """A version of ``power``'s orders received at the deadline (so it counts, and stands as the last)."""
    version = (
        s.scalar(
            sa.select(sa.func.max(SubmissionRow.version)).where(
                SubmissionRow.phase_id == ph.id, SubmissionRow.power == power
            )
        )
        or 0
    ) + 1
    s.add(
        SubmissionRow(
            phase_id=ph.id,
            power=power,
            version=version,
            submitted_at=ph.deadline,
            text=text,
            lines=[ln.to_data() for ln in lines],
            ready=False,
            stands=True,
            source="cli",
            label=label,
        )
    )


def _apply_game(db: Database, s: Session, g: GameRow, ph: PhaseRow, now: datetime, deadline: datetime) -> list[Applied]:
    """``deadline``: the moment the phase's orders are taken (its deadline, or now for a coordinator's
    process-now); the players away on its day get the policy."""
    policy = _policy_of(s, g)
    seats = s.execute(
        sa.select(PlayerRow.power, PlayerRow.person_id).where(
            PlayerRow.game_id == g.id, PlayerRow.replaced_at.is_(None), PlayerRow.person_id.is_not(None)
        )
    ).all()
    aways = _aways(s, [pid for _, pid in seats if pid is not None], deadline.date())
    if not aways:
        return []
    v = game_variant(g)
    pos = phase_position(db, v, ph)
    standing = standing_in_sql(s, ph.id, deadline)
    done = set(s.scalars(sa.select(AbsenceUseRow.power).where(AbsenceUseRow.phase_id == ph.id)))
    out: list[Applied] = []
    longest = timedelta(0)
    for power, pid in seats:
        assert pid is not None
        mine = aways.get(pid, [])
        away = away_on(mine, deadline.date())
        if away is None or power in done or power in standing or not may_submit(v, pos, power):
            continue
        detail: dict[str, Any] = {"first": away.first_day.isoformat(), "last": away.last_day.isoformat()}
        days = 0.0
        if policy.policy == "extend":
            left = policy.budget_days - _budget_used(s, g.id, pid)
            ext = extension(deadline, mine, left)
            back = back_on(mine, deadline.date())
            if ext is None:
                detail.update(_noted(msg("budget spent (%(days)s days): the deadline stands", days=policy.budget_days)))
            else:
                days = ext.total_seconds() / 86400
                longest = max(longest, ext)
                detail["deadline"] = (deadline + ext).isoformat()
                if back is not None and deadline.date() + ext < back:
                    detail.update(_noted(msg("budget runs out: %(days)s of the days away given", days=quantity(days))))
        elif policy.policy == "standing":
            detail.update(_apply_standing(db, s, g, ph, power))
        elif policy.policy == "stand_in":
            detail["stand_in"] = policy.stand_in_name
        elif policy.policy == "proxy":
            detail.update(_apply_proxy(s, g, ph, power))
        s.add(
            AbsenceUseRow(
                game_id=g.id,
                phase_id=ph.id,
                power=power,
                person_id=pid,
                policy=policy.policy,
                days=days,
                detail=detail,
                applied_at=now,
            )
        )
        log_event(s, g, now, "absence", phase=ph.name, power=power, policy=policy.policy, **detail)
        out.append(Applied(g.name, ph.name, power, policy.policy, detail))
    if longest > timedelta(0):
        ph.deadline = deadline + longest
        log_event(s, g, now, "extend", phase=ph.name, by=longest.total_seconds(), deadline=ph.deadline.isoformat())
    return out


HAS_POLICY = sa.exists().where(GameRosterRow.game_id == sa.bindparam("game_id"), GameRosterRow.absence_policy != "none")
"""Whether the game of the bound ``game_id`` has an absence policy (:func:`apply_locked` does nothing without one):
the domain's condition (:data:`dippouch.store.domains.Condition`), false for most games."""


def apply_locked(
    db: Database, s: Session, g: GameRow, phase_id: int, now: datetime, *, forced: bool = False
) -> list[Applied]:
    """Apply the game's absence policy at the deadline of ``phase_id``, in the caller's transaction, with the
    game's row locked (the deadline workers' claim, :func:`dippouch.store.claims.process_next_due`, and
    :func:`dippouch.store.processing.process`, the coordinator's and the command line's): each player away on
    the deadline's day who must act and has sent nothing that stands gets the policy, once per phase and
    power (``absence_uses`` is unique on them).

    An extended phase is no longer due, so the processing that follows in the same transaction leaves it;
    standing or proxy orders are a version received at the deadline, so that processing uses them.

    ``forced``: the coordinator processes the phase now, before its deadline ("process now"). The orders are
    taken now, so the players away today get the policy, as at a deadline, except ``extend``: the
    coordinator chose not to wait, and their choice comes first (the confirmation page says so before)."""
    row = s.get(GameRosterRow, g.id)
    if row is None or row.absence_policy == "none":
        return []
    ph = s.get(PhaseRow, phase_id)
    if ph is None or ph.status != "open":
        return []
    now = as_utc(now)
    if forced:
        if row.absence_policy == "extend":
            return []  # the phase is processed now whatever its deadline: an extension would be a false record
        return _apply_game(db, s, g, ph, now, now if ph.deadline is None else min(ph.deadline, now))
    if ph.deadline is None or ph.deadline > now:
        return []
    return _apply_game(db, s, g, ph, now, ph.deadline)


# ------------------------------------------------------------------------------------------------ privacy


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """The person's absences (with their reasons), for "download my data"."""
    return {
        "absences": [
            {"id": a.id, "from": a.first_day.isoformat(), "to": a.last_day.isoformat(), "reason": a.reason}
            for a in absences_of(db, person_id)
        ],
        "proxy_allies": proxy_allies(db, person_id),
    }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """Delete the person's absences ("delete my data"). What games did for them at past deadlines stays in
    the games' history, without the person."""
    with db.session() as s, s.begin():
        s.execute(sa.delete(AbsenceRow).where(AbsenceRow.person_id == person_id))
        s.execute(sa.delete(ProxyAllyRow).where(ProxyAllyRow.person_id == person_id))
        s.execute(sa.update(AbsenceUseRow).where(AbsenceUseRow.person_id == person_id).values(person_id=None))
        s.execute(
            sa.update(GameRosterRow)
            .where(GameRosterRow.stand_in_person_id == person_id)
            .values(stand_in_person_id=None)
        )
