"""A model of how the field's rule-based bots order a movement phase: David Norman's DumbBot algorithm.

The search level foresees the other powers' orders by sampling them; the better its samples match what they
will order, the better its choice (with the others' actual orders known, a lone search power among six
DumbBots wins most of its games). The hobby's rule-based bots descend from DumbBot (2003, the DAIDE project),
whose algorithm is published ("DumbBot Algorithm", daide.org.uk/s0003.html) and whose constants are in its
public source and in MILA's MIT-licensed port (github.com/diplomacy/research,
``diplomacy_research/players/rulesets/dumbbot_ruleset.py``). This module is our own implementation of that
published algorithm for any variant, from our map data, to sample such a power's movement orders; no code of
either is in it. The facts taken over: the weights below and the steps.

1. Each power's size is ``n² + 4n + 16`` for its ``n`` centres; the centres nobody owns count as one more
   power, so an unowned centre is valued like another power's centre (the original's neutral power).
2. A province's first value: an other power's (or nobody's) centre is worth its owner's size to attack; an own
   centre is worth, to defend, the size of the largest other power with a unit that can move into it.
   First value = attack x 700 + defence x 300 in a phase before which no centres change hands ("spring"),
   x 600 and x 400 in one after which they do ("fall").
3. Nine more layers spread the values: a province's value in layer ``k`` is its own in layer ``k-1`` plus
   that of every place a unit could move to it from (once per unit kind that could), divided by 5.
4. A destination's worth: the layers weighed 100, 1000, 30, 10, 6, 5, 4, 3, 2, 1 in spring (1000 and 100 first
   in fall), plus 1000 for each own unit that could move there, minus 1000 for the most units one other power
   could move there.
5. Units in random order, each taking the best of its destinations (its own province is holding), passing to
   the next best with a chance that grows as the two are closer (half the time at most); a destination an own
   unit stands in waits for that unit's order (and is given up if that unit holds, unless it needs support
   against two or more: then it is supported); one another own unit already moves to is given up unless
   another power could move there too (then that move is supported). Finally a unit that holds supports, where
   it can, the most valuable of the own units next to it that need it.

Orders are chosen among the engine's legal orders; a move goes by land or sea, never by convoy (the
algorithm orders no convoys).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dippouch.bots.engine import GameMap, Hold, Move, Order, Position, Support, Variant, hooks_for

SIZE = (1.0, 4.0, 16.0)
"""A power's size: ``a n² + b n + c`` for its ``n`` centres."""
SPRING = (700.0, 300.0, (100.0, 1000.0, 30.0, 10.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0))
"""Attack weight, defence weight, layer weights in a movement phase after which no centres change hands."""
FALL = (600.0, 400.0, (1000.0, 100.0, 30.0, 10.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0))
"""The same in a movement phase after which centres change hands."""
STRENGTH = 1000.0
COMPETITION = 1000.0
NEXT_BEST = 0.5
"""The most a unit passes over its best destination for the next (when the two are worth the same)."""
CLOSENESS = 5.0
"""How fast the chance of passing falls as the next best is worth less: relative difference times this."""
DEFERRALS = 4
"""Times a unit waits for the order of the unit standing where it would go, before it gives that place up
(units may choose each other's places in a ring; the algorithm's random picks end such a ring only by chance)."""


def _feeders(gmap: GameMap) -> tuple[tuple[int, ...], ...]:
    """Province -> the province of every place a unit could move to it from, once per unit kind that could
    (kept on the map: it is the same for every position)."""
    got = gmap.derived.get("bots.province_value.feeders")
    if isinstance(got, tuple):
        return got
    into: list[list[int]] = [[] for _ in range(gmap.province_count)]
    for p in range(gmap.province_count):
        if gmap.can_hold("A", p):
            for q in gmap.army_adj[p]:
                into[q].append(p)
        for loc in gmap.fleet_locations(p):
            for q in gmap.fleet_reach[loc]:
                into[q].append(p)
    feeders = tuple(tuple(sorted(f)) for f in into)
    gmap.derived["bots.province_value.feeders"] = feeders
    return feeders


@dataclass(frozen=True)
class Worths:
    """One power's worth of every province as a destination, in one position."""

    value: Sequence[float]
    competition: Sequence[int]
    """Province -> the most units one other power could move there."""


def worths(variant: Variant, position: Position, power: str, fall: bool) -> Worths:
    """Steps 1 to 4 of the module docstring for ``power`` (``fall``: centres change hands after this phase)."""
    gmap = variant.map
    hooks = hooks_for(variant)
    n = gmap.province_count
    counts: dict[str, int] = {}
    for holder in position.centres.values():
        counts[holder] = counts.get(holder, 0) + 1
    a, b, c = SIZE

    def size(k: int) -> float:
        return a * k * k + b * k + c

    neutral = sum(1 for sc in gmap.supply_centres if sc not in position.centres)
    # Who could move where: per province, each power's count of units that could move there.
    reach: list[dict[str, int]] = [{} for _ in range(n)]
    for prov, unit in position.units.items():
        if hooks.movement_kind(unit.kind) == "F":
            targets: frozenset[int] = gmap.fleet_reach[unit.loc]
        else:
            targets = gmap.army_adj[prov]
        for q in targets:
            reach[q][unit.power] = reach[q].get(unit.power, 0) + 1
    attack_w, defence_w, layers = FALL if fall else SPRING
    first = [0.0] * n
    for sc in gmap.supply_centres:
        owner = position.centres.get(sc)
        if owner is None:
            first[sc] = attack_w * size(neutral)
        elif owner != power:
            first[sc] = attack_w * size(counts[owner])
        else:
            threat = max((size(counts.get(p, 0)) for p in reach[sc] if p != power), default=0.0)
            first[sc] = defence_w * threat
    feeders = _feeders(gmap)
    value = [layers[0] * v for v in first]
    layer = first
    for w in layers[1:]:
        layer = [(layer[p] + sum(layer[q] for q in feeders[p])) / 5.0 for p in range(n)]
        for p in range(n):
            value[p] += w * layer[p]
    competition = [max((k for p, k in r.items() if p != power), default=0) for r in reach]
    for p in range(n):
        value[p] += STRENGTH * reach[p].get(power, 0) - COMPETITION * competition[p]
    return Worths(value, competition)


def _next_best(choices: list[int], value: Sequence[float], rng: random.Random) -> int:
    """Step 5's pick among ``choices`` (best first): the best, or, by chance, one further down."""
    i = 0
    while i + 1 < len(choices):
        here, there = value[choices[i]], value[choices[i + 1]]
        chance = abs(here - there) * CLOSENESS / here if here != 0 else 0.0
        if NEXT_BEST > rng.random() >= chance:
            i += 1
            continue
        break
    return choices[i]


def movement_orders(
    variant: Variant,
    position: Position,
    power: str,
    legal: Mapping[int, Sequence[Order]],
    worth: Worths,
    rng: random.Random,
) -> list[Order]:
    """Step 5 of the module docstring: ``power``'s movement orders, among its ``legal`` orders."""
    gmap = variant.map
    prov_of = gmap.province_of
    value = worth.value
    competition = worth.competition
    at: dict[int, int] = {}  # province -> the unit's location
    goes: dict[int, list[int]] = {}  # province -> provinces it may move to without a convoy
    for loc, options in legal.items():
        p = prov_of(loc)
        at[p] = loc
        goes[p] = sorted({prov_of(o.dest) for o in options if isinstance(o, Move) and not o.via_convoy})
    queue = list(at)
    rng.shuffle(queue)
    chosen: dict[int, tuple[str, int | None, int | None]] = {}  # province -> (H | M | S, target, destination)
    moving: dict[int, int] = {}  # destination -> mover's province
    waiting: dict[int, set[int]] = {p: set() for p in at}
    deferred: dict[int, int] = {}
    while queue:
        p = queue.pop(0)
        choices = sorted([q for q in goes[p] if q not in waiting[p]] + [p], key=lambda q: -value[q])
        while True:
            q = _next_best(choices, value, rng)
            if q == p:
                chosen[p] = ("H", None, None)
                break
            if q in at and q not in chosen:
                if deferred.get(p, 0) >= DEFERRALS:
                    choices.remove(q)  # units waiting on each other in a ring: this one stops waiting
                    continue
                deferred[p] = deferred.get(p, 0) + 1
                queue.insert(queue.index(q) + 1, p)  # decide once the unit standing there has its order
                waiting[q].add(p)
                break
            if q in at and chosen[q][0] != "M":
                if competition[q] > 1:
                    chosen[p] = ("S", q, None)
                    break
                choices.remove(q)
                continue
            if q in moving:
                if competition[q] > 0:
                    chosen[p] = ("S", moving[q], q)
                    break
                choices.remove(q)
                continue
            chosen[p] = ("M", None, q)
            moving[q] = p
            break
    # Holds that can help: support the most valuable neighbour that needs it.
    for p, (what, _, _) in list(chosen.items()):
        if what != "H":
            continue
        best: tuple[float, int, int | None] | None = None
        for q in goes[p]:
            mover = moving.get(q)
            if mover is not None and competition[q] > 0 and (best is None or value[mover] > best[0]):
                best = (value[mover], mover, q)
            if q in chosen and chosen[q][0] != "M" and competition[q] > 1 and (best is None or value[q] > best[0]):
                best = (value[q], q, None)
        if best is not None and best[0] > 0:
            chosen[p] = ("S", best[1], best[2])
    out: list[Order] = []
    for p, (what, target, dest) in chosen.items():
        options = legal[at[p]]
        order: Order | None = None
        if what == "M":
            order = next(
                (o for o in options if isinstance(o, Move) and not o.via_convoy and prov_of(o.dest) == dest), None
            )
        elif what == "S" and target is not None:
            order = next(
                (
                    o
                    for o in options
                    if isinstance(o, Support)
                    and prov_of(o.target) == target
                    and (o.dest is None if dest is None else o.dest is not None and prov_of(o.dest) == dest)
                ),
                None,
            )
        if order is None:
            order = next((o for o in options if isinstance(o, Hold)), options[0])
        out.append(order)
    return out
