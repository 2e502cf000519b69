"""The search bot as a coach: for a movement phase, the orders the search bot (:class:`dippouch.bots.search.SearchBot`)
would have given each power and the centres it expected from them, beside what was played; over a game, its turning
points; and a hint (the bot's orders for one's own power) in a practice game or the sandbox.

**Expected centres.** The bot weighs its candidates against replies it samples for the other powers; the coach
adjudicates the bot's chosen orders, and the orders that were played, against those same replies, and counts the
power's centres on each board they lead to as a year's end would (the centres it owns that nobody else stands on,
and the centres it stands on): the mean over the replies is what the orders "expected". So the bot's figure and the
player's are measured on one scale, against one guess of what the others do. The bot's own figure is the coach's
reading of the position for the power: how many centres it could count on from here.

**Turning points** (:func:`turning_points`), read from a game's analysed phases in order:

- a *swing*: a power's expected centres changed by :data:`TURN` or more from one analysed phase to the next (what
  it and the others played in the first, and the retreats and adjustments after it, made the difference);
- a *stab*: a swing upwards in a phase where the power attacked (moved into, or supported a move into, a province
  holding) a unit or a centre of a power it had not attacked before in the game;
- a *lost chance*: the bot's orders expected :data:`LOST_CHANCE` or more centres than the orders played.

The biggest of them (at most :data:`MOST_TURNS`, by the change in centres) are the game's turning points. Only
movement phases are analysed: retreats and adjustments are the heuristic's in the bot too, and there is little to
search in them.

Who may see it is the doors' question, answered here (:func:`shown`): a finished game, a practice game at any time,
never a running game of people. The analysis is made by the worker (:class:`CoachTask`), kept by phase in the store
(:mod:`dippouch.store.learning.coach`), and read by the replay (:func:`game_coach`).
"""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dippouch.bots.search import SearchBot
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.jsonio import position_from_json
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.messages import Msg, PhaseName, choices, msg, quantity
from dippouch.core.notation import format_order
from dippouch.core.orders import Move, Order, Support
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import GameError
from dippouch.store.bots import practice_game
from dippouch.store.db import Database
from dippouch.store.history import history
from dippouch.store.learning.coach import analysed_phases, game_status, phases_to_analyse, save_analysis
from dippouch.store.variant_copy import variant_of

I18N_DOMAIN = "rules"
"""The catalogue of the coach's words and refusals, said in the reader's language where they are shown."""

__all__ = [
    "BUDGET",
    "HINT_BUDGET",
    "LOST_CHANCE",
    "MOST_TURNS",
    "TURN",
    "CoachHint",
    "CoachTask",
    "GameCoach",
    "NotCoached",
    "PhaseLook",
    "PowerLook",
    "TurningPoint",
    "analyse_pending",
    "analyse_phase",
    "game_coach",
    "game_hint",
    "hint",
    "hint_allowed",
    "hint_seed",
    "power_named",
    "projected_centres",
    "shown",
    "turning_points",
]

log = logging.getLogger("dippouch.coach")

BUDGET = 0.25
"""CPU seconds the bot thinks for one power in one phase of an analysis (the worker's; a test gives less)."""
HINT_BUDGET = 1.0
"""CPU seconds a hint thinks for (one power, asked for while the player waits)."""
TURN = 1.0
"""The least change of a power's expected centres, from one analysed phase to the next, that is a turning point."""
LOST_CHANCE = 1.0
"""How many more centres the bot's orders must expect than those played for a lost chance."""
MOST_TURNS = 10
"""The most turning points a game lists (the biggest changes)."""


class NotCoached(GameError):
    """A hint or an analysis asked for where the coach does not speak (the message says why)."""


def _r(x: float) -> float:
    return round(x, 2)


@dataclass(frozen=True)
class PowerLook:
    """One power in one analysed phase: the bot's orders and what was played, each with the centres it expected."""

    power: str
    centres: int
    """The power's centres when the phase opened."""
    coach: tuple[str, ...]
    """The bot's orders (canonical text)."""
    coach_expected: float
    played: tuple[str, ...]
    """The orders adjudicated in the phase (canonical text); empty for a power that sent none."""
    played_expected: float
    attacked: tuple[str, ...] = ()
    """The powers whose unit or centre the played orders attacked (a move into it, or a support of one)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "power": self.power,
            "centres": self.centres,
            "coach": list(self.coach),
            "coach_expected": self.coach_expected,
            "played": list(self.played),
            "played_expected": self.played_expected,
            "attacked": list(self.attacked),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> PowerLook:
        return PowerLook(
            power=str(data["power"]),
            centres=int(data["centres"]),
            coach=tuple(str(o) for o in data["coach"]),
            coach_expected=float(data["coach_expected"]),
            played=tuple(str(o) for o in data["played"]),
            played_expected=float(data["played_expected"]),
            attacked=tuple(str(p) for p in data.get("attacked") or ()),
        )


@dataclass(frozen=True)
class PhaseLook:
    """One analysed movement phase: every power that had units, and the CPU seconds the analysis took."""

    phase_id: int
    phase: str
    powers: tuple[PowerLook, ...]
    seconds: float
    budget: float

    def as_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "powers": [p.as_json() for p in self.powers],
            "seconds": self.seconds,
            "budget": self.budget,
        }

    @staticmethod
    def from_json(phase_id: int, data: Mapping[str, Any]) -> PhaseLook:
        return PhaseLook(
            phase_id=phase_id,
            phase=str(data["phase"]),
            powers=tuple(PowerLook.from_json(p) for p in data.get("powers") or ()),
            seconds=float(data.get("seconds") or 0.0),
            budget=float(data.get("budget") or 0.0),
        )

    def of(self, power: str) -> PowerLook | None:
        return next((p for p in self.powers if p.power == power), None)


# ---- the analysis of one phase -------------------------------------------------------------------------------


def projected_centres(v: Variant, after: Position, power: str) -> int:
    """The centres ``power`` would have if the year ended on ``after``: those it owns that no other power's unit
    stands on, and those its units stand on."""
    gmap = v.map
    count = 0
    for prov in range(len(gmap.provinces)):
        if not gmap.provinces[prov].supply_centre:
            continue
        stands = after.units.get(prov)
        if stands is not None:
            count += stands.power == power
        elif after.centres.get(prov) == power:
            count += 1
    return count


def _seed(*parts: object) -> int:
    """A seed from the phase and the power: the same phase is analysed the same way again."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def _played(v: Variant, legal: Mapping[int, Sequence[Order]], texts: Sequence[str]) -> list[Order]:
    """The stored canonical orders as the engine's orders (a text that is no legal order now is left out: its
    unit holds, as the adjudicator would have it)."""
    by_text = {format_order(v, o): o for options in legal.values() for o in options}
    return [by_text[t] for t in texts if t in by_text]


def _attacked(v: Variant, pos: Position, power: str, orders: Sequence[Order]) -> tuple[str, ...]:
    prov_of = v.map.province_of
    hit: set[str] = set()
    for o in orders:
        dest = o.dest if isinstance(o, Move | Support) else None
        if dest is None:
            continue
        p = prov_of(dest)
        stands = pos.units.get(p)
        for other in (stands.power if stands is not None else None, pos.centres.get(p)):
            if other is not None and other != power:
                hit.add(other)
    return tuple(sorted(hit))


def _expected(
    v: Variant, pos: Position, power: str, orders: Sequence[Order], replies: Sequence[Mapping[str, list[Order]]]
) -> float:
    total = 0
    for reply in replies:
        total += projected_centres(v, adjudicate(v, pos, {**reply, power: list(orders)}).next, power)
    return total / len(replies)


def _think(
    v: Variant, pos: Position, power: str, budget: float, seed: int
) -> tuple[list[Order], list[dict[str, list[Order]]]]:
    """The bot's orders for ``power`` and the replies it weighed them against (one empty reply when nobody
    else has a unit to order)."""
    bot = SearchBot(budget=budget, clock=time.process_time)
    orders = bot.orders(v, pos, power, random.Random(seed))
    return orders, list(bot.last_replies) or [{}]


def analyse_phase(
    v: Variant,
    pos: Position,
    played: Mapping[str, Sequence[str]],
    *,
    phase_id: int = 0,
    budget: float = BUDGET,
    salt: str = "",
) -> PhaseLook:
    """The coach's look at a movement position: for every power with units, the bot's orders and the played
    ``orders`` (power -> canonical texts), each with the centres it expected against the bot's replies.
    ``salt`` (the game's name) varies the bot's draws between games; the same phase gives the same look."""
    name = v.calendar.name(pos.phase)
    started = time.process_time()
    looks: list[PowerLook] = []
    if v.calendar.kind(pos.phase) is PhaseKind.MOVEMENT:
        legal = all_legal_orders(v, pos)
        for power in v.power_names:
            mine = legal.get(power)
            if not mine:
                continue
            coach, replies = _think(v, pos, power, budget, _seed(salt, name, power))
            given = _played(v, mine, played.get(power) or ())
            looks.append(
                PowerLook(
                    power=power,
                    centres=len(pos.centres_of(power)),
                    coach=tuple(format_order(v, o) for o in coach),
                    coach_expected=_r(_expected(v, pos, power, coach, replies)),
                    played=tuple(format_order(v, o) for o in given),
                    played_expected=_r(_expected(v, pos, power, given, replies)),
                    attacked=_attacked(v, pos, power, given),
                )
            )
    return PhaseLook(phase_id, name, tuple(looks), _r(time.process_time() - started), budget)


# ---- turning points ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurningPoint:
    """A turning point of a game: a phase, a power, what happened (``swing``, ``stab`` or ``lost``) and its
    size in centres; :attr:`words` says it."""

    kind: str
    phase_id: int
    phase: str
    power: str
    before: float
    """``swing``, ``stab``: the power's expected centres in the phase; ``lost``: what its played orders expected."""
    after: float
    """``swing``, ``stab``: its expected centres in the next analysed phase; ``lost``: what the bot's expected."""
    victim: str | None = None

    @property
    def change(self) -> float:
        return _r(self.after - self.before)

    @property
    def words(self) -> Msg:
        phase = PhaseName(self.phase)
        before, after = quantity(self.before, 1), quantity(self.after, 1)
        if self.kind == "stab":
            return msg(
                "%(phase)s: %(power)s attacked %(victim)s for the first time; its expected centres went from "
                "%(before)s to %(after)s",
                phase=phase,
                power=self.power,
                victim=self.victim or "",
                before=before,
                after=after,
            )
        if self.kind == "lost":
            return msg(
                "%(phase)s: a lost chance for %(power)s: its orders expected %(played)s centres, the coach's %(coach)s",
                phase=phase,
                power=self.power,
                played=before,
                coach=after,
            )
        return msg(
            "%(phase)s: %(power)s's expected centres went from %(before)s to %(after)s",
            phase=phase,
            power=self.power,
            before=before,
            after=after,
        )


def turning_points(looks: Sequence[PhaseLook], *, most: int = MOST_TURNS) -> list[TurningPoint]:
    """The game's turning points (see the module's notes), the biggest ``most``, in the game's order."""
    found: list[TurningPoint] = []
    attacked_before: dict[str, set[str]] = {}
    for i, look in enumerate(looks):
        nxt = looks[i + 1] if i + 1 < len(looks) else None
        for p in look.powers:
            first = [x for x in p.attacked if x not in attacked_before.get(p.power, set())]
            attacked_before.setdefault(p.power, set()).update(p.attacked)
            if p.coach_expected - p.played_expected >= LOST_CHANCE:
                found.append(
                    TurningPoint("lost", look.phase_id, look.phase, p.power, p.played_expected, p.coach_expected)
                )
            later = nxt.of(p.power) if nxt is not None else None
            if later is None:
                continue
            change = later.coach_expected - p.coach_expected
            if abs(change) < TURN:
                continue
            if change > 0 and first:
                found.append(
                    TurningPoint(
                        "stab", look.phase_id, look.phase, p.power, p.coach_expected, later.coach_expected, first[0]
                    )
                )
            else:
                found.append(
                    TurningPoint("swing", look.phase_id, look.phase, p.power, p.coach_expected, later.coach_expected)
                )
    biggest = sorted(found, key=lambda t: (-abs(t.change), t.phase_id, t.power, t.kind))[:most]
    order = {look.phase_id: i for i, look in enumerate(looks)}
    return sorted(biggest, key=lambda t: (order[t.phase_id], t.power, t.kind))


# ---- who may see it ------------------------------------------------------------------------------------------


def shown(db: Database, game: str) -> bool:
    """Whether the coach speaks about ``game`` now: once it is finished, or at any time in a practice game; never
    while a game of people runs (it would tell a player what the bot thinks of everyone's position)."""
    state = game_status(db, game)
    return state == "finished" or practice_game(db, game) is not None


# ---- what the doors read -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameCoach:
    """The coach's reading of a game: its analysed phases in the game's order, and its turning points."""

    game: str
    shown: bool
    """False: a running game of people (nothing else is filled in)."""
    phases: tuple[PhaseLook, ...]
    turning_points: tuple[TurningPoint, ...]
    waiting: int
    """Movement phases of the game's line of play not analysed yet (the worker takes them in turn)."""


def game_coach(db: Database, game: str) -> GameCoach:
    """What the replay shows of the coach for ``game`` (see :func:`shown`): the analysed phases of its line of
    play (a phase a rollback abandoned is not the game's), and the turning points among them."""
    if not shown(db, game):
        return GameCoach(game, False, (), (), 0)
    line = [h for h in history(db, game) if h.status == "processed" and h.kind == "movement" and h.next_position]
    stored = analysed_phases(db, game)
    looks = tuple(PhaseLook.from_json(h.id, stored[h.id]) for h in line if h.id in stored)
    return GameCoach(game, True, looks, tuple(turning_points(looks)), len(line) - len(looks))


# ---- hints ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoachHint:
    """The bot's orders for one power in one position, and the centres it expected from them."""

    power: str
    phase: str
    orders: tuple[str, ...]
    expected: float


def power_named(v: Variant, name: str) -> str:
    """The variant's power called ``name`` (in any case), or a refusal naming the powers."""
    found = next((p for p in v.power_names if p.casefold() == name.strip().casefold()), None)
    if found is None:
        raise NotCoached(
            msg(
                "no power %(power)s here; the powers are %(powers)s",
                power=repr(name[:40]),
                powers=choices(v.power_names),
            )
        )
    return found


def hint(v: Variant, pos: Position, power: str, *, budget: float = HINT_BUDGET, seed: int = 0) -> CoachHint:
    """The bot's orders for ``power`` (retreats and adjustments too: the bot's are the heuristic's there)."""
    power = power_named(v, power)
    legal = all_legal_orders(v, pos).get(power)
    name = v.calendar.name(pos.phase)
    if not legal:
        return CoachHint(power, name, (), float(len(pos.centres_of(power))))
    orders, replies = _think(v, pos, power, budget, seed)
    expected = _expected(v, pos, power, orders, replies)
    if v.calendar.kind(pos.phase) is not PhaseKind.MOVEMENT:
        expected = float(len(pos.centres_of(power)))
    return CoachHint(power, name, tuple(format_order(v, o) for o in orders), _r(expected))


def hint_seed(game: str, phase_id: int, power: str) -> int:
    """The bot's draws for a hint: the same hint when asked twice in one phase."""
    return _seed(game, phase_id, power)


def hint_allowed(db: Database, game: str) -> None:
    """Refuse a hint in ``game`` unless it is a practice game (never in a game of people, running or rated,
    where it would be the bot playing for the player; nor in a finished game, whose replay has the coach)."""
    if practice_game(db, game) is None:
        if game_status(db, game) == "finished":
            raise NotCoached(msg("%(game)s is over: its replay shows what the coach would have played", game=game))
        raise NotCoached(
            msg(
                "no hints in %(game)s: the coach gives hints only in a practice game against bots or in the sandbox, "
                "never in a game of people",
                game=game,
            )
        )


def game_hint(db: Database, game: str, power: str, *, budget: float = HINT_BUDGET) -> CoachHint:
    """A hint for ``power`` in ``game``'s open phase, where :func:`hint_allowed`."""
    hint_allowed(db, game)
    line = [h for h in history(db, game) if h.status == "open"]
    if not line:
        raise NotCoached(msg("%(game)s has no open phase to give a hint for", game=game))
    v = variant_of(db, game)
    pos = position_from_json(v, line[-1].position)
    return hint(v, pos, power, budget=budget, seed=hint_seed(game, line[-1].id, power))


# ---- the worker's task ---------------------------------------------------------------------------------------


def analyse_pending(
    db: Database, *, now: datetime, seconds: float = 2.0, budget: float = BUDGET, limit: int = 20
) -> int:
    """Analyse movement phases of finished and practice games not analysed yet, oldest game first, until
    ``seconds`` of CPU have been spent (at least one phase) or ``limit`` phases are done; how many were."""
    started = time.process_time()
    done = 0
    variants: dict[str, Variant] = {}
    for todo in phases_to_analyse(db, limit=limit):
        try:
            v = variants.get(todo.game)
            if v is None:
                v = variants[todo.game] = variant_of(db, todo.game)
            pos = position_from_json(v, todo.position)
            data = analyse_phase(v, pos, todo.orders, phase_id=todo.phase_id, budget=budget, salt=todo.game).as_json()
        except DippouchError as e:
            # A game whose variant or position no longer reads (a variant file changed since): kept as analysed
            # with nothing in it, so it does not stand before every other game's phases at each look.
            log.warning("coach: %s phase %d not analysed: %s", todo.game, todo.phase_id, e)
            data = {"phase": "", "powers": [], "failed": str(e)}
        save_analysis(db, todo.game_id, todo.phase_id, data, now=now)
        done += 1
        if time.process_time() - started >= seconds:
            break
    return done


class CoachTask:
    """The worker's task (and ``dippouch serve``'s scheduler's): at each look, :func:`analyse_pending` for at
    most ``seconds`` of CPU, so a backlog of finished games (the first look after an upgrade) never holds up the
    processing of phases, which runs before the tasks at every look."""

    def __init__(self, *, seconds: float = 2.0, budget: float = BUDGET, idle: float = 60.0) -> None:
        """``idle``: seconds to wait after a look that found nothing to analyse before looking again (the look is
        a query over every finished game's phases: not one to make every few seconds for nothing)."""
        self.seconds = seconds
        self.budget = budget
        self.idle = idle
        self.resting_until: float | None = None
        self.__name__ = "coach_task"

    def __call__(self, db: Database, now: datetime) -> int:
        if self.resting_until is not None and time.monotonic() < self.resting_until:
            return 0
        done = analyse_pending(db, now=now, seconds=self.seconds, budget=self.budget)
        self.resting_until = None if done else time.monotonic() + self.idle
        if done:
            log.info("coach: %d phases analysed", done)
        return done
