"""Puzzles from recorded games: a movement position where one set of orders for one power wins something
definite *whatever* its neighbours do, and no other set does.

A puzzle's **goal** is one of two things the board says plainly after the moves:

- ``take``: a unit of the power stands in a supply centre the power does not own (a centre taken; in an
  autumn the centre is then the power's);
- ``keep``: the power's unit in a province is still there (not dislodged, not moved away).

Its **neighbourhood**: the power's units on or next to the target (the ones that can take part: a support
into a province needs its supporter beside it) and the other powers' units that can touch those: on or next
to the target, or next to one of the power's units (a unit that could cut their supports). Every other unit
holds: a puzzle is about a corner of the board, as a player reads it.

The **replies** are every combination of the enemy units' orders that could matter: each may hold, move
anywhere, support or convoy a unit of the neighbourhood (a support or a convoy of a unit outside it is a hold
for every purpose here, so it is counted as the hold). The enemies are one coalition: the answer must win
against what all of them do together. A neighbourhood with more than :data:`MAX_REPLIES` replies, or more
than :data:`MAX_CANDIDATES` candidate sets of the power's orders, is left alone (the bound of the search).

The **candidates** are every combination of the power's neighbourhood units' legal orders. A candidate wins
when it reaches the goal against every reply (the engine adjudicates each). A unit "makes no difference"
when, among the winners, any order of it wins with the others' orders: it is left out of the answer (the
player may order it anything). The position is a puzzle when exactly one set of the other units' orders
wins (:func:`solve`), and when holding everything does not already win (no puzzle in doing nothing).

A puzzle's **difficulty** (1 to 5) counts what the answer asks: how many units act, whether it needs a
support, a convoy or an attack that only cuts or holds an enemy in place, and how many candidates there were
to choose from.

Sources are recorded games: the installation's finished games (:func:`store_sources`) and files of recorded
positions (:func:`corpus_sources`, the JSON-lines format :func:`write_corpus` writes; the test data's corpus).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.jsonio import position_from_json, position_to_json
from dippouch.core.legal_orders import legal_orders
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import format_order, format_unit, parse_orders
from dippouch.core.orders import Convoy, Hold, Move, Order, Support
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult
from dippouch.core.variant import Variant
from dippouch.game import GameError

I18N_DOMAIN = "rules"
"""The catalogue of the puzzles' refusals and goals, said in the reader's language where they are shown."""

__all__ = [
    "GOALS",
    "MAX_CANDIDATES",
    "MAX_REPLIES",
    "CheckedAnswer",
    "Puzzle",
    "Source",
    "check_answer",
    "corpus_sources",
    "daily_index",
    "find_puzzles",
    "goal_words",
    "read_answer",
    "solve",
    "store_sources",
    "write_corpus",
]

GOALS = ("take", "keep")
MAX_REPLIES = 1000
"""The most enemy replies a puzzle is checked against (a bigger neighbourhood is not a puzzle here)."""
MAX_WINNERS = 24
"""The most winning candidates a corner may have: more, and it has many answers (or units that make no
difference with many orders each, which a puzzle would not ask about): not searched further."""
BUDGET = 20_000
"""The most adjudications spent on one corner: the search's bound in time (about ten seconds)."""
MAX_CANDIDATES = 3000
"""The most candidate sets of the power's orders searched."""
MAX_UNITS = 3
"""The most units of the power in a neighbourhood."""


@dataclass(frozen=True)
class Source:
    """One recorded movement position: the game it comes from (its name, or a corpus's name for it) and its
    board (whose phase the position names)."""

    label: str
    variant: str
    position: Mapping[str, Any]
    """The position as :func:`dippouch.core.jsonio.position_to_json` writes it."""


@dataclass(frozen=True)
class Puzzle:
    """A solved puzzle, as stored and shown."""

    key: str
    """A digest of the goal and the units of its corner: the same puzzle found twice is one."""
    variant: str
    source: str
    phase: str
    position: Mapping[str, Any]
    power: str
    goal: str
    target: str
    """The target province's abbreviation."""
    units: tuple[str, ...]
    """The power's units of the neighbourhood (``A par``), which the player orders."""
    answer: tuple[str, ...]
    """The winning orders of the units that matter (canonical text, sorted); the others may do anything."""
    difficulty: int
    candidates: int
    replies: int
    skills: tuple[str, ...] = ()
    """What the answer uses: ``support``, ``convoy``, ``cut`` (an attack that only cuts or pins)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "variant": self.variant,
            "source": self.source,
            "phase": self.phase,
            "position": dict(self.position),
            "power": self.power,
            "goal": self.goal,
            "target": self.target,
            "units": list(self.units),
            "answer": list(self.answer),
            "difficulty": self.difficulty,
            "candidates": self.candidates,
            "replies": self.replies,
            "skills": list(self.skills),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Puzzle:
        return Puzzle(
            key=str(data["key"]),
            variant=str(data["variant"]),
            source=str(data["source"]),
            phase=str(data["phase"]),
            position=dict(data["position"]),
            power=str(data["power"]),
            goal=str(data["goal"]),
            target=str(data["target"]),
            units=tuple(str(u) for u in data["units"]),
            answer=tuple(str(o) for o in data["answer"]),
            difficulty=int(data["difficulty"]),
            candidates=int(data["candidates"]),
            replies=int(data["replies"]),
            skills=tuple(str(s) for s in data.get("skills") or ()),
        )


def goal_words(goal: str, target_name: str, unit: str = "", *, short: bool = False) -> Msg:
    """The goal in words (a message, said in the reader's language); ``short``: as a list names it."""
    if short:
        if goal == "take":
            return msg("Take %(province)s", province=target_name)
        return msg("Keep %(province)s", province=target_name)
    if goal == "take":
        return msg("Take %(province)s: a unit of yours must stand in it after the moves.", province=target_name)
    return msg(
        "Keep %(unit)s in %(province)s: it must not be dislodged, whatever the others do.",
        unit=unit,
        province=target_name,
    )


# --- the neighbourhood ---------------------------------------------------------------------------------------


def _near(v: Variant, prov: int) -> frozenset[int]:
    """The provinces a unit of any kind could move to from ``prov`` (and ``prov`` itself)."""
    got: dict[int, frozenset[int]] | None = v.map.derived.get("puzzles.near")
    if got is None:
        gmap = v.map
        got = {}
        for p in gmap.provinces:
            around = set(gmap.army_adj[p.id]) | {p.id}
            for loc in gmap.fleet_locations(p.id):
                around |= gmap.fleet_reach[loc]
            got[p.id] = frozenset(around)
        v.map.derived["puzzles.near"] = got
    return got[prov]


@dataclass
class _Corner:
    """One goal's neighbourhood in one position, with what the search goes through."""

    v: Variant
    pos: Position
    """The corner's board: its units and those next to them (see :func:`_corner`)."""
    power: str
    goal: str
    target: int
    mine: list[Unit]
    mine_orders: list[list[Order]]
    enemies: list[Unit]
    enemy_orders: list[list[Order]]
    before: Unit | None = None
    """The unit to keep (``keep``)."""
    replies: list[dict[str, list[Order]]] = field(default_factory=list)

    def reached(self, after: Position) -> bool:
        prov = self.target
        if self.goal == "take":
            u = after.units.get(prov)
            return u is not None and u.power == self.power
        return after.units.get(prov) == self.before


def _orders_of(v: Variant, pos: Position, unit: Unit) -> list[Order]:
    return list(legal_orders(v, pos, unit.power).get(unit.loc, [Hold(unit.kind, unit.loc)]))


def _corner(v: Variant, pos: Position, power: str, goal: str, target: int) -> _Corner | None:
    """The neighbourhood of a goal, or None when it is out of the search's bounds or has nothing to solve."""
    gmap = v.map
    near_target = _near(v, target)
    mine = sorted((u for p, u in pos.units.items() if u.power == power and p in near_target), key=lambda u: u.loc)
    if not mine or len(mine) > MAX_UNITS:
        return None
    close = set(near_target)
    for u in mine:
        close |= _near(v, gmap.province_of(u.loc))
    enemies = sorted((u for p, u in pos.units.items() if u.power != power and p in close), key=lambda u: u.loc)
    if not any(gmap.province_of(u.loc) in near_target for u in enemies):
        return None  # nobody can contest it: no puzzle
    here = {gmap.province_of(u.loc) for u in (*mine, *enemies)}

    def within(u: Unit) -> list[Order]:
        # A support or convoy of a unit outside the corner is the same as a hold here: left out.
        return [
            o
            for o in _orders_of(v, pos, u)
            if not (isinstance(o, Support | Convoy) and gmap.province_of(o.target) not in here)
        ]

    mine_orders = [within(u) for u in mine]
    if math.prod(len(o) for o in mine_orders) > MAX_CANDIDATES:
        return None
    enemy_orders = [within(u) for u in enemies]
    if math.prod(len(o) for o in enemy_orders) > MAX_REPLIES:
        return None
    # The corner's units and those standing where they could move (which hold) are all the adjudication
    # needs: a unit elsewhere holds and touches nothing here. A smaller board adjudicates several times faster.
    touched = set(here)
    for u in (*mine, *enemies):
        touched |= _near(v, gmap.province_of(u.loc))
    board = pos.with_(units={p: u for p, u in pos.units.items() if p in touched}, dislodged={})
    corner = _Corner(v, board, power, goal, target, mine, mine_orders, enemies, enemy_orders)
    if goal == "keep":
        corner.before = pos.units.get(target)
    for combo in itertools.product(*enemy_orders):
        reply: dict[str, list[Order]] = {}
        for u, o in zip(enemies, combo, strict=True):
            reply.setdefault(u.power, []).append(o)
        corner.replies.append(reply)
    return corner


def _wins(c: _Corner, mine: Sequence[Order], replies: Iterable[int], spent: list[int] | None = None) -> int | None:
    """The index of the first reply (in ``replies``' order) that beats ``mine``, or None: it wins. ``spent``
    counts the adjudications."""
    for i in replies:
        if spent is not None:
            spent[0] += 1
        orders = dict(c.replies[i])
        orders[c.power] = list(mine)
        if not c.reached(adjudicate(c.v, c.pos, orders).next):
            return i
    return None


@dataclass(frozen=True)
class _Solution:
    answer: tuple[Order, ...]
    """The winning orders of the units that matter, in the neighbourhood's unit order."""
    matters: tuple[Unit, ...]
    candidates: int


def _may_win(c: _Corner, cand: Sequence[Order]) -> bool:
    """Whether a candidate could reach the goal at all: a centre is taken only by a move into it, and a unit
    that moves away does not keep its province. (Most candidates fail so, without an adjudication.)"""
    gmap = c.v.map
    if c.goal == "take":
        return any(isinstance(o, Move) and gmap.province_of(o.dest) == c.target for o in cand)
    return not any(isinstance(o, Move) and gmap.province_of(o.loc) == c.target for o in cand)


def _search(c: _Corner) -> _Solution | None:
    """The one winning set of orders of the units that matter, or None (none, or more than one)."""
    hold_all = tuple(Hold(u.kind, u.loc) for u in c.mine)
    killers: list[int] = []  # replies that beat a candidate before: tried first, as they usually beat the next
    order = range(len(c.replies))
    winners: list[tuple[Order, ...]] = []
    candidates = list(itertools.product(*c.mine_orders))
    spent = [0]
    for cand in candidates:
        if not _may_win(c, cand):
            continue
        beaten = _wins(c, cand, killers, spent)
        if beaten is None:
            beaten = _wins(c, cand, (i for i in order if i not in killers), spent)
            if beaten is not None:
                killers.insert(0, beaten)
                del killers[8:]
        if beaten is None:
            if cand == hold_all:
                return None  # doing nothing already wins: no puzzle
            winners.append(cand)
            if len(winners) > MAX_WINNERS:
                return None
        if spent[0] > BUDGET:
            return None
    if not winners:
        return None
    keep = list(range(len(c.mine)))
    won = set(winners)
    for i in range(len(c.mine)):
        # Unit i makes no difference when, for every winner, each of its orders wins with the others' orders.
        others = [j for j in keep if j != i]
        groups: dict[tuple[Order, ...], set[Order]] = {}
        for w in won:
            groups.setdefault(tuple(w[j] for j in others), set()).add(w[i])
        if all(len(got) == len(c.mine_orders[i]) for got in groups.values()):
            keep = others
            won = {tuple(w[j] if j in keep else c.mine_orders[j][0] for j in range(len(c.mine))) for w in won}
    answers = {tuple(w[j] for j in keep) for w in won}
    if len(answers) != 1 or not keep:
        return None
    (answer,) = answers
    return _Solution(answer, tuple(c.mine[j] for j in keep), len(candidates))


def _skills(c: _Corner, answer: Sequence[Order]) -> tuple[str, ...]:
    gmap = c.v.map
    got = []
    if any(isinstance(o, Support) for o in answer):
        got.append("support")
    if any(isinstance(o, Convoy) or (isinstance(o, Move) and o.via_convoy) for o in answer):
        got.append("convoy")
    enemy_at = {gmap.province_of(u.loc) for u in c.enemies}
    if any(
        isinstance(o, Move) and gmap.province_of(o.dest) != c.target and gmap.province_of(o.dest) in enemy_at
        for o in answer
    ):
        got.append("cut")
    return tuple(got)


def _difficulty(answer: Sequence[Order], skills: Sequence[str], candidates: int) -> int:
    acting = sum(1 for o in answer if not isinstance(o, Hold))
    points = acting + len(skills) + (1 if candidates >= 300 else 0)
    return max(1, min(5, points))


def _key(v: Variant, c: _Corner) -> str:
    """The corner's digest: its goal and every unit in it. Bots (and people) leave a front standing for
    years; the same corner met again in another phase or game is the same puzzle, found once."""
    units = sorted(f"{u.power} {format_unit(v, u.kind, u.loc)}" for u in (*c.mine, *c.enemies))
    text = json.dumps([v.name, c.power, c.goal, v.map.provinces[c.target].abbr, units])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def solve(source: Source, power: str, goal: str, target: str, v: Variant | None = None) -> Puzzle | None:
    """The puzzle of ``power`` reaching ``goal`` at ``target`` (a province's abbreviation) in the source's
    position, or None when it is not one (out of bounds, no winner, more than one, or nothing to do)."""
    v = v or load_variant(source.variant)
    pos = position_from_json(v, source.position)
    return _solve(v, source, pos, power, goal, v.map.province_of(v.map.loc(target)), set())


def _solve(
    v: Variant, source: Source, pos: Position, power: str, goal: str, prov: int, seen: set[str]
) -> Puzzle | None:
    """:func:`solve` of a read position; a corner whose key is in ``seen`` is not searched again (and a
    searched one's key is added)."""
    if v.calendar.kind(pos.phase) is not PhaseKind.MOVEMENT:
        return None
    c = _corner(v, pos, power, goal, prov)
    if c is None:
        return None
    key = _key(v, c)
    if key in seen:
        return None
    seen.add(key)
    found = _search(c)
    if found is None:
        return None
    skills = _skills(c, found.answer)
    return Puzzle(
        key=key,
        variant=v.name,
        source=source.label,
        phase=v.calendar.name(pos.phase),
        position=dict(source.position),
        power=power,
        goal=goal,
        target=v.map.provinces[prov].abbr,
        units=tuple(format_unit(v, u.kind, u.loc) for u in c.mine),
        answer=tuple(sorted(format_order(v, o) for o in found.answer)),
        difficulty=_difficulty(found.answer, skills, found.candidates),
        candidates=found.candidates,
        replies=len(c.replies),
        skills=skills,
    )


def _goals(v: Variant, pos: Position, power: str) -> Iterator[tuple[str, int]]:
    """The goals worth trying for ``power``: centres it does not own that one of its units could enter, and
    its units an enemy could attack."""
    gmap = v.map
    reach: set[int] = set()
    for p, u in pos.units.items():
        if u.power == power:
            reach |= _near(v, p)
    for prov in sorted(reach):
        if gmap.provinces[prov].supply_centre and pos.centres.get(prov) != power:
            here = pos.units.get(prov)
            if here is None or here.power != power:
                yield "take", prov
    for p, u in sorted(pos.units.items()):
        if u.power == power and any(e.power != power for q, e in pos.units.items() if q in _near(v, p)):
            yield "keep", p


def find_puzzles(sources: Iterable[Source], *, limit: int | None = None) -> Iterator[Puzzle]:
    """Every puzzle in the sources' positions, in their order (each power, then each goal), at most ``limit``;
    one a position and power at most (the first found), so a collection does not dwell on one board, and a
    corner met before (the same goal and units) is not searched again."""
    seen: set[str] = set()
    found = 0
    variants: dict[str, Variant] = {}
    for source in sources:
        v = variants.get(source.variant)
        if v is None:
            v = variants[source.variant] = load_variant(source.variant)
        pos = position_from_json(v, source.position)
        if v.calendar.kind(pos.phase) is not PhaseKind.MOVEMENT:
            continue
        for power in v.power_names:
            for goal, prov in _goals(v, pos, power):
                got = _solve(v, source, pos, power, goal, prov, seen)
                if got is None:
                    continue
                yield got
                found += 1
                if limit is not None and found >= limit:
                    return
                break


# --- checking a player's answer ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckedAnswer:
    """A player's answer checked against every reply."""

    orders: tuple[str, ...]
    """The orders read (canonical text), the units not named holding."""
    solved: bool
    reply: tuple[str, ...] = ()
    """The reply that beats it (each enemy order, ``Germany: A mun - bur``), when it fails."""
    results: tuple[OrderResult, ...] = ()
    """The adjudicated results of the power's orders against that reply."""
    replies: int = 0


class AnswerError(GameError):
    """An answer the puzzle cannot check (the message says which line and why)."""


def read_answer(p: Puzzle, text: str, v: Variant | None = None) -> list[Order]:
    """The player's orders for the puzzle's units (one a line, as in a game); a line that is not an order,
    names a unit not in the puzzle or is not legal there is refused, naming it."""
    v = v or load_variant(p.variant)
    pos = position_from_json(v, p.position)
    mine = {u.loc: u for u in pos.units.values() if u.power == p.power}
    allowed = {v.map.loc(u.split(" ", 1)[1]) for u in p.units}
    legal = legal_orders(v, pos, p.power)
    got: dict[int, Order] = {}
    for line in parse_orders(v, text, phase_kind=PhaseKind.MOVEMENT):
        if line.error is not None:
            raise AnswerError(msg("line %(line)s: %(error)s", line=line.line, error=line.error.msg))
        order = line.order
        assert order is not None
        loc = order.unit_loc
        unit = mine.get(loc) if loc is not None else None
        if unit is None or loc not in allowed:
            raise AnswerError(
                msg(
                    "line %(line)s: %(text)s is not an order for one of the puzzle's units (%(units)s)",
                    line=line.line,
                    text=repr(line.text),
                    units=", ".join(p.units),
                )
            )
        if loc in got:
            raise AnswerError(
                msg(
                    "line %(line)s: a second order for %(unit)s",
                    line=line.line,
                    unit=format_unit(v, unit.kind, unit.loc),
                )
            )
        fitted = next((o for o in legal.get(unit.loc, []) if _same(o, order)), None)
        if fitted is None:
            raise AnswerError(
                msg("line %(line)s: %(text)s is not a legal order here", line=line.line, text=repr(line.text))
            )
        got[loc] = fitted
    return [got.get(loc) or Hold(mine[loc].kind, loc) for loc in sorted(allowed)]


def _same(legal: Order, given: Order) -> bool:
    """Whether a player's order is the legal order ``legal`` (a unit's kind left out, or a support naming a
    coast, reads as the same order)."""
    if type(legal) is not type(given):
        return False
    for name in getattr(legal, "__dataclass_fields__", {}):
        a, b = getattr(legal, name), getattr(given, name)
        if name in ("kind", "target_kind", "target_power") and b is None:
            continue
        if a != b:
            return False
    return True


def check_answer(p: Puzzle, orders: Sequence[Order], v: Variant | None = None) -> CheckedAnswer:
    """The answer against every reply: solved, or the first reply (in the fixed order of the replies) that
    beats it with the results of the power's orders against it."""
    v = v or load_variant(p.variant)
    pos = position_from_json(v, p.position)
    prov = v.map.province_of(v.map.loc(p.target))
    c = _corner(v, pos, p.power, p.goal, prov)
    texts = tuple(format_order(v, o) for o in orders)
    if c is None:  # pragma: no cover - a stored puzzle was checked when it was found
        raise AnswerError(msg("this puzzle can no longer be checked"))
    beaten = _wins(c, orders, range(len(c.replies)))
    if beaten is None:
        return CheckedAnswer(texts, True, replies=len(c.replies))
    reply = c.replies[beaten]
    all_orders = dict(reply)
    all_orders[p.power] = list(orders)
    res = adjudicate(v, pos, all_orders)
    return CheckedAnswer(
        texts,
        False,
        reply=tuple(f"{power}: {format_order(v, o)}" for power, olist in reply.items() for o in olist),
        results=tuple(r for r in res.results if r.power == p.power and not r.automatic),
        replies=len(c.replies),
    )


def daily_index(day: date, count: int) -> int:
    """Which of ``count`` puzzles (in their stored order) is the puzzle of ``day``: a digest of the date, so
    every site and every reader on that day gets the same one, and the order does not follow a calendar."""
    if count <= 0:
        raise ValueError("no puzzle to choose from")
    return int(hashlib.sha256(day.isoformat().encode()).hexdigest(), 16) % count


# --- sources -------------------------------------------------------------------------------------------------


def corpus_sources(path: Path) -> Iterator[Source]:
    """The movement positions of a corpus file: one game a line, ``{"game", "variant", "positions"}``
    (gzipped when its name ends in ``.gz``)."""
    with gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            game = json.loads(line)
            for position in game["positions"]:
                yield Source(str(game["game"]), str(game["variant"]), position)


def write_corpus(path: Path, games: Iterable[tuple[str, Variant, Sequence[Position]]]) -> int:
    """Write recorded games' movement positions as :func:`corpus_sources` reads them; the positions written."""
    n = 0
    # mtime 0: the same games write the same bytes (a corpus in the repository changes only when they do).
    raw = gzip.GzipFile(path, "wb", mtime=0) if path.suffix == ".gz" else None
    with io.TextIOWrapper(raw, encoding="utf-8") if raw else path.open("w", encoding="utf-8") as f:
        for name, v, positions in games:
            kept = [position_to_json(v, p) for p in positions if v.calendar.kind(p.phase) is PhaseKind.MOVEMENT]
            n += len(kept)
            f.write(json.dumps({"game": name, "variant": v.name, "positions": kept}, separators=(",", ":")) + "\n")
    return n


def store_sources(positions: Iterable[tuple[str, str, str, Mapping[str, Any]]]) -> Iterator[Source]:
    """Sources from the store's finished games' movement phases (game, variant, phase, position)."""
    for game, variant, _phase, position in positions:
        yield Source(game, variant, position)


def bot_games(
    variant: Variant, seeds: Iterable[int], *, years: int, levels: Sequence[str] = ("heuristic",)
) -> Iterator[tuple[str, Variant, list[Position]]]:
    """Games played by bots from the variant's start (one a seed, the seats' levels taken in turn from
    ``levels``), each with every position it went through: a recorded corpus the tests can make again."""
    import random

    from dippouch.bots import make_bot
    from dippouch.core.legal_orders import all_legal_orders

    for seed in seeds:
        rng = random.Random(seed)
        seats = {p: make_bot(levels[(i + seed) % len(levels)]) for i, p in enumerate(variant.power_names)}
        pos = variant.start
        seen: list[Position] = []
        while pos.phase.year < variant.start.phase.year + years:
            seen.append(pos)
            legal = all_legal_orders(variant, pos)
            orders = {
                p: seats[p].orders(variant, pos, p, random.Random(rng.getrandbits(64)), None)
                for p in variant.power_names
                if legal.get(p)
            }
            pos = adjudicate(variant, pos, orders, rng=random.Random(rng.getrandbits(64))).next
        yield f"bots-{variant.name}-{seed}", variant, seen
