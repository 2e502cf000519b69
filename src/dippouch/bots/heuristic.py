"""The ``heuristic`` level: province values spread over the map, then coordinated orders (DumbBot's family
of published ideas -- value centres by who owns them and how strong the owner is, spread the values to the
provinces around so that units are drawn towards them, move greedily without bouncing off each other,
support and convoy one's own moves -- written afresh for any variant's map and rules).

Values (:class:`Values`), worked out once per power and position:

- a centre owned by nobody is worth most (it is the easiest to take), a centre of another power the more the
  larger that power is, an own centre as much as the enemy units next to it threaten it;
- each province then takes part of its best neighbours' values, a few rounds over the army graph and over the
  fleet graph apart, so a value is felt several moves away and each kind of unit follows its own roads.

Orders: units in order of how much they can gain move to their best free destination (a bounce with one's own
unit is never planned; a province held by another power is worth less unless a support is found); the units
left standing support the moves into contested provinces, or hold threatened centres, or convoy an own army.
Variant orders are weighed by what they do, not by name: an order that changes a unit's kind where it stands
(W3K's conversion) is chosen when the other kind would find far more to do from there; orders that give
things away (hand-overs, supply transfers) are never chosen. Retreats go to the best free province, builds to
the most valuable sites in the kind that suits them best (strength per cost), removals take the least useful
units, all to the counts of the variant's own adjustment rule.

What the power's memory says (:mod:`dippouch.bots.memory`) changes the movement orders: a failed move is not
sent again unchanged (elsewhere, or with more support than it had), wars read from the orders weigh threats and
targets, a free centre within reach is never left, an own centre a neighbour just moved next to is covered as
the year ends (the stab guard); near a solo the power drives for it, and against a power near one it holds a line.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from dippouch.bots.base import Legal, choose_adjustments
from dippouch.bots.engine import (
    Build,
    Convoy,
    Disband,
    GameMap,
    Hold,
    Move,
    Order,
    PhaseKind,
    Position,
    ProvinceKind,
    Retreat,
    RuleHooks,
    Support,
    Unit,
    Variant,
    hooks_for,
    legal_orders,
)
from dippouch.bots.memory import Memory

ROUNDS = 4
"""How many rounds values spread over the graph (a centre is felt about this many moves away)."""
SPREAD = 0.45
"""The share of its best neighbour's value a province takes each round."""
FAILED = 0.5
"""A move that failed just before is worth this share of its value, once more for each time in a row it failed."""
NEUTRAL = 3.0
"""The value of a centre nobody owns (the enemy's is 2 to 4 by its owner's size, one's own 0.5 to 4 by threat)."""
WAR_THREAT = 1.25
"""How much more a unit of a power at war with this one threatens (one of a power that helped it and never
attacked: 0.8 of its strength)."""
LINE = 2.5
"""How much more a unit on the stalemate line values staying (an own centre facing the leader's units)."""
GUARD = 1.0
"""The stab guard moves a unit to cover a centre only if its own plan is worth at most this much of the centre."""
THREATENED = 3.5
"""How much the threat to an own centre adds to its value at most: the heuristic guards by its values alone (the
search level, whose score counts an exposed centre against its replies, weighs it less: ``guarded``)."""
CROWDED = 0.4
"""What a build is worth (its share of its value) where the new unit could go nowhere own units cannot already go."""
NEAR_SOLO = 0.75
"""The share of a solo's centres at which a power drives for the solo, and the others hold a line against it."""


def victory_centres(variant: Variant) -> int:
    """The centres a solo takes: the variant's own number, else more than half the map's centres."""
    got = variant.victory.get("centres")
    return int(got) if isinstance(got, int) and got > 0 else len(variant.map.supply_centres) // 2 + 1


@dataclass(frozen=True)
class _Graph:
    """Province neighbours for armies and for fleets (coasts merged), made once per map."""

    army: tuple[tuple[int, ...], ...]
    fleet: tuple[tuple[int, ...], ...]
    centres: frozenset[int]


def _graph(gmap: GameMap) -> _Graph:
    got = gmap.derived.get("bots.graph")
    if isinstance(got, _Graph):
        return got
    n = gmap.province_count
    fleet: list[set[int]] = [set() for _ in range(n)]
    for loc in range(len(gmap.locations)):
        fleet[gmap.province_of(loc)].update(gmap.fleet_reach[loc])
    g = _Graph(
        tuple(tuple(sorted(a)) for a in gmap.army_adj),
        tuple(tuple(sorted(f)) for f in fleet),
        frozenset(gmap.supply_centres),
    )
    gmap.derived["bots.graph"] = g
    return g


class Values:
    """Province values for one power in one position, for armies and for fleets.

    ``memory`` (the power's, :mod:`dippouch.bots.memory`) tells who is at war with whom: the units of a power at
    war with this one threaten more, those of a power that helped it and never attacked less; the centres of a
    power at war with this one, or busy with another war, are worth more; so are those of the powers in
    ``finish`` (the search level's: powers near their end, whose centres a power's units are otherwise drawn
    away from, being small). ``mode``: ``"solo"`` when the power owns most of what a solo takes
    (:data:`NEAR_SOLO`): every other centre is worth more and taking it matters more than guarding; ``"line"``
    when another power (``leader``) is that near: the centres facing the leader's units are held (the stalemate
    line), and the leader's centres are worth more than anyone else's. ``guarded``: how much the threat to an own
    centre adds to its value at most (on the stalemate line, :data:`THREATENED` whatever is given)."""

    def __init__(
        self,
        variant: Variant,
        position: Position,
        power: str,
        memory: Memory | None = None,
        finish: Collection[str] = (),
        guarded: float = THREATENED,
    ) -> None:
        gmap = variant.map
        g = _graph(gmap)
        self.gmap = gmap
        self.graph = g
        self.hooks: RuleHooks = hooks_for(variant)
        n = gmap.province_count
        sizes: dict[str, int] = {}
        for owner in position.centres.values():
            sizes[owner] = sizes.get(owner, 0) + 1
        biggest = max(sizes.values(), default=1)
        self.to_win = victory_centres(variant)
        """Centres a solo takes (the search level drives for one from a share of them)."""
        near = NEAR_SOLO * self.to_win
        leader = max((p for p in sizes if p != power), key=lambda p: (sizes[p], p), default=None)
        self.mode = (
            "solo" if sizes.get(power, 0) >= near else "line" if leader is not None and sizes[leader] >= near else ""
        )
        self.leader = leader if self.mode == "line" else None
        weight: dict[str, float] = {}
        for other in sizes.keys() | {u.power for u in position.units.values()}:
            w = 1.0
            if memory is not None and memory.at_war(other, power):
                w = WAR_THREAT
            elif memory is not None and memory.friendly(other, power):
                w = 0.8
            if other == self.leader:
                w = max(w, WAR_THREAT)
            weight[other] = w
        # On the stalemate line a threatened centre is held at any level: the line's holes are the leader's solo.
        cap = max(guarded, THREATENED) if self.mode == "line" else guarded
        threat = [0.0] * n
        for prov, unit in position.units.items():
            if unit.power == power:
                continue
            strength = self.hooks.unit_strength(unit) * weight.get(unit.power, 1.0)
            for q in self.reach(unit.kind, prov):
                threat[q] += strength
        self.threat = threat
        base = [0.0] * n
        for sc in sorted(g.centres):
            holder = position.centres.get(sc)
            if holder == power:
                base[sc] = 0.5 + min(threat[sc], cap)
            elif holder is None:
                base[sc] = NEUTRAL + (1.5 if self.mode == "solo" else 0.0)
            else:
                base[sc] = 2.0 + 2.0 * sizes.get(holder, 0) / biggest
                if memory is not None and (memory.at_war(holder, power) or memory.busy(holder, power)):
                    base[sc] += 0.5  # its units are committed: to us (fight back) or elsewhere (a weak spot)
                if self.mode == "solo" or holder in finish:
                    base[sc] = max(base[sc], 4.0) + 0.5
                elif holder == self.leader:
                    base[sc] += 1.0
        self.base = base
        self.army = _spread(base, g.army, gmap, ProvinceKind.SEA)
        self.fleet = _spread(base, g.fleet, gmap, None)

    def of(self, unit_kind: str, prov: int) -> float:
        """The value of ``prov`` for a unit of ``unit_kind`` (its movement kind: a 1000 AD D moves as an army)."""
        return self.fleet[prov] if self.hooks.movement_kind(unit_kind) == "F" else self.army[prov]

    def reach(self, unit_kind: str, prov: int) -> tuple[int, ...]:
        """The provinces a unit of ``unit_kind`` in ``prov`` moves or supports into (its movement kind's
        neighbours, coasts merged)."""
        return self.graph.fleet[prov] if self.hooks.movement_kind(unit_kind) == "F" else self.graph.army[prov]


def weak_powers(position: Position, power: str, at_most: int) -> frozenset[str]:
    """The other powers that own ``at_most`` centres or fewer (and at least one): the ones to finish."""
    sizes: dict[str, int] = {}
    for owner in position.centres.values():
        if owner != power:
            sizes[owner] = sizes.get(owner, 0) + 1
    return frozenset(p for p, n in sizes.items() if n <= at_most)


def captures(variant: Variant, position: Position) -> bool:
    """Whether centres change hands after this movement phase (an adjustment phase comes before the next
    movement phase): then standing on a centre matters more than standing well."""
    steps = variant.calendar.steps
    i = position.phase.step
    for k in range(1, len(steps) + 1):
        kind = steps[(i + k) % len(steps)].kind
        if kind is PhaseKind.ADJUSTMENTS:
            return True
        if kind is PhaseKind.MOVEMENT:
            return False
    return False


def _spread(base: list[float], adj: Sequence[Sequence[int]], gmap: GameMap, skip: ProvinceKind | None) -> list[float]:
    values = list(base)
    kinds = [p.kind for p in gmap.provinces]
    for _ in range(ROUNDS):
        nxt = list(base)
        for i, near in enumerate(adj):
            if kinds[i] == skip or not near:
                continue
            best = max(values[j] for j in near)
            nxt[i] = base[i] + SPREAD * best
        values = nxt
    return values


@dataclass
class _Plan:
    unit: Unit
    options: Sequence[Order]
    order: Order
    dest: int
    """Province the unit will be in if its order succeeds."""
    score: float


class HeuristicBot:
    """Coordinated orders from spread province values; ``noise`` > 0 varies them (the search level's candidates)."""

    name = "heuristic"

    def __init__(
        self, noise: float = 0.0, crowding: bool = False, finish: int = 0, guarded: float = THREATENED
    ) -> None:
        self.noise = noise
        self.crowding = crowding
        """Whether a build is worth less where the new unit could go only where own units already go (the search
        level's builds: a Turkey of four armies about Bulgaria and one fleet had nowhere to grow for years)."""
        self.finish = finish
        """Other powers with this many centres or fewer (and at least one) are drawn to as targets: their centres
        are valued like a solo's (the search level's own candidates; 0: none)."""
        self.guarded = guarded
        """How much the threat to an own centre adds to its value at most (:data:`THREATENED`; the search level's
        own candidates and builds: less)."""

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        legal = legal_orders(variant, position, power)
        if not legal:
            return []
        return self.orders_from(variant, position, power, legal, rng, memory)

    def orders_from(
        self,
        variant: Variant,
        position: Position,
        power: str,
        legal: Legal,
        rng: random.Random,
        memory: Memory | None = None,
    ) -> list[Order]:
        """Orders chosen from ``legal`` (the caller's lists, for the search level that already has them);
        ``memory``: ``power``'s moves that failed just before, which it does not send again unchanged."""
        finish = weak_powers(position, power, self.finish) if self.finish else frozenset()
        values = Values(variant, position, power, memory, finish, self.guarded)
        kind = variant.calendar.kind(position.phase)
        if kind is PhaseKind.MOVEMENT:
            return self._movement(variant, position, power, legal, values, rng, memory or Memory())
        if kind is PhaseKind.RETREATS:
            return self._retreats(variant, position, legal, values, rng)
        return self._adjustments(variant, position, power, legal, values, rng)

    # -- movement

    def _jitter(self, rng: random.Random) -> float:
        return 1.0 + self.noise * (rng.random() - 0.5) * 2 if self.noise else 1.0

    def _movement(
        self,
        variant: Variant,
        position: Position,
        power: str,
        legal: Legal,
        v: Values,
        rng: random.Random,
        memory: Memory,
    ) -> list[Order]:
        gmap = variant.map
        prov_of = gmap.province_of
        capture = captures(variant, position)
        plans: list[_Plan] = []
        for loc, options in legal.items():
            prov = prov_of(loc)
            unit = position.units.get(prov)
            if unit is None or not options:
                continue
            hold = next((o for o in options if isinstance(o, Hold)), options[0])
            stay = v.of(unit.kind, prov) * (1.2 if prov in position.centres and v.threat[prov] else 0.8)
            if v.mode == "line" and position.centres.get(prov) == power and self._faces(position, prov, v):
                stay *= LINE  # on the stalemate line: a centre facing the leader's units is held, not left
            if capture and prov in v.graph.centres and position.centres.get(prov) != power:
                stay *= 2.0  # standing on another's centre as the year ends takes it
            plans.append(_Plan(unit, options, hold, prov, stay * self._jitter(rng)))
        # Units that can gain most choose first.
        candidates: list[tuple[float, int, Order, int]] = []
        for i, plan in enumerate(plans):
            for o in plan.options:
                if isinstance(o, Move):
                    dest = prov_of(o.dest)
                    score = v.of(plan.unit.kind, dest)
                    other = position.units.get(dest)
                    if other is not None and other.power != power:
                        score *= 0.7 if v.mode == "solo" else 0.55
                    if dest in v.graph.centres and position.centres.get(dest) != power:
                        score *= (2.0 if v.mode == "solo" else 1.6) if capture else 1.15
                    # A move that failed just before is worth less each time it failed: the unit looks
                    # elsewhere, or, if it still goes, is given the support it lacked (_supports).
                    score *= FAILED ** memory.failures(prov, dest)
                    candidates.append((score * self._jitter(rng), i, o, dest))
        candidates.sort(key=lambda t: -t[0])
        # Own fleets' convoy orders by what they would carry where, gathered once: a big power's candidate
        # moves that need a convoy each looked through every order of every unit otherwise (a W3K power of 21
        # units: 7,400 orders, 425 times, 70 ms of a decision).
        convoys: dict[tuple[int, int], list[tuple[int, Convoy]]] = {}
        for k, plan in enumerate(plans):
            for o in plan.options:
                if isinstance(o, Convoy):
                    convoys.setdefault((o.target, o.dest), []).append((k, o))
        taken: dict[int, int] = {}  # destination province -> plan index
        moved: set[int] = set()
        for score, i, order, dest in candidates:
            plan = plans[i]
            if i in moved or dest in taken or score <= plan.score:
                continue
            occupant = position.units.get(dest)
            if occupant is not None and occupant.power == power:
                j = next((k for k, p in enumerate(plans) if p.unit.loc == occupant.loc), None)
                if j is None or j not in moved or plans[j].dest == prov_of(plan.unit.loc):
                    continue  # never plan to bounce off one's own unit that stays, nor to swap with it
            if self._needs_convoy(gmap, plan.unit, dest) and not self._convoy(plans, moved, plan, order, convoys):
                continue
            plan.order, plan.dest, plan.score = order, dest, score
            moved.add(i)
            taken[dest] = i
        for i, plan in enumerate(plans):
            if i not in moved:
                taken.setdefault(plan.dest, i)
        kept = self._guard(position, power, plans, moved, v, gmap, memory, capture)
        self._neglected(position, power, plans, moved, v, gmap, capture, kept, memory)
        self._supports(position, power, plans, moved, v, gmap, memory)
        self._movers_support(position, power, plans, moved, v, gmap, memory)
        self._no_repeats(position, plans, v, gmap, memory, kept)
        # Again for the units _no_repeats sent elsewhere: a free centre beats the best other province.
        self._neglected(position, power, plans, moved, v, gmap, capture, kept, memory)
        self._conversions(position, plans, moved, v)
        return [p.order for p in plans]

    def _faces(self, position: Position, prov: int, v: Values) -> bool:
        """Whether a unit of the leader (the power near a solo) stands next to ``prov``."""
        g = v.graph
        return any(
            (u := position.units.get(q)) is not None and u.power == v.leader
            for q in set(g.army[prov]) | set(g.fleet[prov])
        )

    @staticmethod
    def _guard(
        position: Position,
        power: str,
        plans: list[_Plan],
        moved: set[int],
        v: Values,
        gmap: GameMap,
        memory: Memory,
        capture: bool,
    ) -> set[int]:
        """The stab guard: an own centre that a unit of another power just moved next to (it arrived in the
        last movement phase) and that no own unit will stand in is covered, by the unit standing in it staying
        or by the own unit with least to do that can move in. The plans so changed, by index."""
        if not capture:
            return set()  # the centre changes hands only as the year ends
        prov_of = gmap.province_of
        g = v.graph
        danger: set[int] = set()
        for other, prov in memory.arrived:
            unit = position.units.get(prov)
            if other == power or unit is None or unit.power != other:
                continue
            danger.update(q for q in v.reach(unit.kind, prov) if position.centres.get(q) == power)
        kept: set[int] = set()
        for c in sorted(danger):
            if any(p.dest == c for p in plans):
                continue
            best: tuple[float, int, Order] | None = None
            for k, plan in enumerate(plans):
                if k in kept or isinstance(plan.order, Convoy):
                    continue
                here = prov_of(plan.unit.loc)
                if here == c:
                    pick: Order | None = next((o for o in plan.options if isinstance(o, Hold)), None)
                else:
                    pick = next(
                        (
                            o
                            for o in plan.options
                            if isinstance(o, Move)
                            and prov_of(o.dest) == c
                            and not HeuristicBot._overseas(gmap, plan, c)
                        ),
                        None,
                    )
                if pick is None or (isinstance(pick, Move) and memory.failures(here, c) >= 2):
                    continue  # (a cover that bounced twice running is not sent a third time alike)
                if isinstance(plan.order, Move) and plan.dest in g.centres and position.centres.get(plan.dest) != power:
                    continue  # a unit taking a centre takes it
                if plan.dest == here and here in danger:
                    continue  # it guards its own centre already
                cost = plan.score - (v.base[c] if here == c else 0.0)
                if cost > GUARD * v.of(plan.unit.kind, c):
                    continue  # what it would give up is worth more than the centre
                if best is None or cost < best[0]:
                    best = (cost, k, pick)
            if best is None:
                continue
            _, k, pick = best
            plan = plans[k]
            plan.order, plan.dest = pick, c
            if isinstance(pick, Move):
                moved.add(k)
            else:
                moved.discard(k)
            kept.add(k)
        return kept

    @staticmethod
    def _neglected(
        position: Position,
        power: str,
        plans: list[_Plan],
        moved: set[int],
        v: Values,
        gmap: GameMap,
        capture: bool,
        kept: set[int],
        memory: Memory,
    ) -> None:
        """No centre within reach is neglected: an empty centre nobody owns (in any movement phase: taken
        early), or another power's empty centre as the year ends, that an own unit can move into and that no
        own unit will enter, is entered by the unit that can with least to do (not one taking a centre itself,
        holding a threatened centre of its own or guarding one). A centre the unit bounced over before is
        entered again once no other power's unit can reach it (the players' trial saw Serbia and Tunis left
        unowned in 1903 after the bots that bounced there gave up on them)."""
        prov_of = gmap.province_of
        g = v.graph
        for c in sorted(g.centres):
            owner = position.centres.get(c)
            if owner == power or position.units.get(c) is not None or (owner is not None and not capture):
                continue
            if any(p.dest == c for p in plans):
                continue
            best: tuple[float, int, Move] | None = None
            for k, plan in enumerate(plans):
                if k in kept or isinstance(plan.order, Convoy | Support):
                    continue
                here = prov_of(plan.unit.loc)
                if plan.dest in g.centres and position.centres.get(plan.dest) != power and plan.dest != here:
                    continue  # it is taking a centre already
                if plan.dest == here and position.centres.get(here) == power and v.threat[here]:
                    continue  # it holds a threatened centre of its own
                if plan.dest == here and here in g.centres and position.centres.get(here) != power and capture:
                    continue  # it stands on a centre it takes by staying
                pick = next(
                    (
                        o
                        for o in plan.options
                        if isinstance(o, Move) and prov_of(o.dest) == c and not HeuristicBot._overseas(gmap, plan, c)
                    ),
                    None,
                )
                if pick is None:
                    continue
                if memory.failures(here, c) and v.threat[c]:
                    continue  # bounced there before and still contested: not sent again unchanged (_no_repeats)
                if best is None or plan.score < best[0]:
                    best = (plan.score, k, pick)
            if best is None:
                continue
            _, k, pick = best
            plans[k].order, plans[k].dest = pick, c
            moved.add(k)
            kept.add(k)

    @staticmethod
    def _overseas(gmap: GameMap, plan: _Plan, dest: int) -> bool:
        """Whether the unit's move to ``dest`` would need a convoy (the guard and the neglected centres send
        only moves that go by themselves)."""
        return bool(HeuristicBot._needs_convoy(gmap, plan.unit, dest))

    @staticmethod
    def _needs_convoy(gmap: GameMap, unit: Unit, dest: int) -> bool:
        return unit.kind != "F" and dest not in gmap.army_adj[gmap.province_of(unit.loc)]

    @staticmethod
    def _convoy(
        plans: list[_Plan],
        moved: set[int],
        plan: _Plan,
        order: Order,
        convoys: dict[tuple[int, int], list[tuple[int, Convoy]]],
    ) -> bool:
        """Order own idle fleets to convoy ``order``; False when none of them can (it would need others' fleets).
        ``convoys``: every own unit's convoy orders by (army's location, destination), in plan order."""
        assert isinstance(order, Move)
        found = False
        for k, o in convoys.get((plan.unit.loc, order.dest), ()):
            other = plans[k]
            if k in moved or other is plan:
                continue
            other.order, other.score = o, 0.0
            moved.add(k)  # a fleet's first matching convoy is its order; later ones of it are skipped
            found = True
        return found

    def _supports(
        self,
        position: Position,
        power: str,
        plans: list[_Plan],
        moved: set[int],
        v: Values,
        gmap: GameMap,
        memory: Memory,
    ) -> None:
        """Units left standing support own moves into contested provinces, or own units on threatened centres."""
        prov_of = gmap.province_of
        moving_to = {plans[i].dest: plans[i] for i in moved if isinstance(plans[i].order, Move)}
        holders = {p.dest: p for k, p in enumerate(plans) if k not in moved}
        support_count: dict[int, int] = {}
        for k, plan in enumerate(plans):
            if k in moved:
                continue
            best: tuple[float, Support] | None = None
            for o in plan.options:
                if not isinstance(o, Support):
                    continue
                target = prov_of(o.target)
                if o.dest is None:
                    held = holders.get(target)
                    if held is None or held is plan or not v.threat[target]:
                        continue
                    worth = v.base[target] * min(v.threat[target], 2.0) * 0.6
                else:
                    mover = moving_to.get(o.dest)
                    if mover is None or prov_of(mover.unit.loc) != target:
                        continue
                    contested = v.threat[o.dest] or (
                        position.units.get(o.dest) is not None and position.units[o.dest].power != power
                    )
                    worth = v.of(mover.unit.kind, o.dest) * (1.5 if contested else 0.3)
                    if memory.failures(target, o.dest):
                        worth *= 3.0  # the move failed unsupported before: this time it goes with help
                worth /= 1 + support_count.get(prov_of(o.target), 0)
                if best is None or worth > best[0]:
                    best = (worth, o)
            # A supporter standing on a threatened centre keeps it by standing there too; a support is held
            # there as well, but it is worth leaving the centre open only if the support is worth more.
            if best is not None and best[0] > 0.5 * plan.score:
                plan.order = best[1]
                support_count[prov_of(best[1].target)] = support_count.get(prov_of(best[1].target), 0) + 1
                moved.add(k)

    def _movers_support(
        self,
        position: Position,
        power: str,
        plans: list[_Plan],
        moved: set[int],
        v: Values,
        gmap: GameMap,
        memory: Memory,
    ) -> None:
        """A unit whose own move gains little supports an own attack on a province another power holds
        instead, when nobody supports its move and no own unit is moving into the province it stands in."""
        prov_of = gmap.province_of
        entering = {p.dest for p in plans if isinstance(p.order, Move)}
        supported = {prov_of(p.order.target) for p in plans if isinstance(p.order, Support)}
        attacks = {
            p.dest: p
            for p in plans
            if isinstance(p.order, Move)
            and position.units.get(p.dest) is not None
            and position.units[p.dest].power != power
        }
        for plan in plans:
            order = plan.order
            if not isinstance(order, Move) or prov_of(plan.unit.loc) in supported:
                continue
            here = prov_of(plan.unit.loc)
            if here in entering:
                continue
            best: tuple[float, Support] | None = None
            for o in plan.options:
                if not isinstance(o, Support) or o.dest is None or o.dest not in attacks:
                    continue
                mover = attacks[o.dest]
                if mover is plan or prov_of(mover.unit.loc) != prov_of(o.target):
                    continue
                worth = v.of(mover.unit.kind, o.dest) * (3.0 if memory.failures(prov_of(o.target), o.dest) else 1.3)
                if best is None or worth > best[0]:
                    best = (worth, o)
            if best is not None and best[0] > 1.2 * plan.score:
                entering.discard(plan.dest)
                plan.order, plan.dest = best[1], here
                supported.add(prov_of(best[1].target))

    @staticmethod
    def _no_repeats(
        position: Position, plans: list[_Plan], v: Values, gmap: GameMap, memory: Memory, kept: set[int]
    ) -> None:
        """A move that failed just before is not sent again as it was: own units that can support it do, one
        more than it had when it failed (units holding, or whose own moves are worth less, and that nobody moves
        in behind); failing that, the unit goes to the best other free province, or holds."""
        prov_of = gmap.province_of
        supported: dict[tuple[int, int], int] = {}
        for p in plans:
            if isinstance(p.order, Support) and p.order.dest is not None:
                key = (prov_of(p.order.target), p.order.dest)
                supported[key] = supported.get(key, 0) + 1
        entering = {p.dest for p in plans if isinstance(p.order, Move)}
        for k, plan in enumerate(plans):
            if k in kept:
                continue  # sent by the stab guard or to a centre no other power can reach now: not a repeat
            order = plan.order
            if not isinstance(order, Move):
                continue
            src, dest = prov_of(plan.unit.loc), prov_of(order.dest)
            # Sent again, a failed move needs more support than it had when it failed: else it is the same plan.
            needed = memory.supports_had(src, dest) + 1 - supported.get((src, dest), 0)
            if not memory.failures(src, dest) or needed <= 0:
                continue
            helpers: list[tuple[_Plan, Support]] = []
            for other in plans:
                if len(helpers) >= needed:
                    break
                if other is plan or isinstance(other.order, Support | Convoy):
                    continue
                here = prov_of(other.unit.loc)
                if isinstance(other.order, Move) and (other.score > plan.score or here in entering):
                    continue
                found = next(
                    (
                        o
                        for o in other.options
                        if isinstance(o, Support) and o.dest == dest and prov_of(o.target) == src
                    ),
                    None,
                )
                if found is not None:
                    helpers.append((other, found))
            if len(helpers) >= needed:
                for other, support in helpers:
                    if isinstance(other.order, Move):
                        entering.discard(other.dest)
                    other.order, other.dest = support, prov_of(other.unit.loc)
                supported[(src, dest)] = supported.get((src, dest), 0) + len(helpers)
                continue
            # Nobody can help: the best other province free of own units' plans, else stand (unless an own unit
            # moves in behind: staying would bounce it, so then the move goes on).
            staying = {p.dest for p in plans if not isinstance(p.order, Move)}
            best: tuple[float, Move] | None = None
            for o in plan.options:
                if not isinstance(o, Move) or o.via_convoy:
                    continue
                to = prov_of(o.dest)
                if to == dest or to in entering or to in staying or memory.failures(src, to):
                    continue
                worth = v.of(plan.unit.kind, to)
                if best is None or worth > best[0]:
                    best = (worth, o)
            if best is not None and best[0] > 0:
                entering.discard(dest)
                plan.order, plan.dest = best[1], prov_of(best[1].dest)
                entering.add(plan.dest)
            elif src not in entering:
                entering.discard(dest)
                plan.order = next((o for o in plan.options if isinstance(o, Hold)), plan.order)
                plan.dest = src

    def _conversions(self, position: Position, plans: list[_Plan], moved: set[int], v: Values) -> None:
        """A unit with little to do that may become the other kind where it stands (an extra order about the
        unit that neither moves it nor hands it to anyone) converts when the other kind finds far more to do."""
        g = v.graph
        for k, plan in enumerate(plans):
            if k in moved:
                continue
            extra = [
                o
                for o in plan.options
                if not isinstance(o, Hold | Move | Support | Convoy)
                and getattr(o, "loc", None) == plan.unit.loc
                and not hasattr(o, "to")
            ]
            if not extra:
                continue
            prov = v.gmap.province_of(plan.unit.loc)
            as_fleet = v.hooks.movement_kind(plan.unit.kind) == "F"
            now = max((v.of(plan.unit.kind, q) for q in (g.fleet if as_fleet else g.army)[prov]), default=0.0)
            other_adj = g.army[prov] if as_fleet else g.fleet[prov]
            other_values = v.army if as_fleet else v.fleet
            then = max((other_values[q] for q in other_adj), default=0.0)
            if then > 1.6 * now + 0.5:
                plan.order = extra[0]
                moved.add(k)

    # -- retreats and adjustments

    def _retreats(
        self, variant: Variant, position: Position, legal: Legal, v: Values, rng: random.Random
    ) -> list[Order]:
        prov_of = variant.map.province_of
        out: list[Order] = []
        taken: set[int] = set()
        for loc in sorted(legal):
            options = legal[loc]
            dislodged = position.dislodged.get(prov_of(loc))
            kind = dislodged.unit.kind if dislodged is not None else "A"
            best: tuple[float, Order] | None = None
            for o in options:
                if isinstance(o, Retreat) and prov_of(o.dest) not in taken:
                    score = v.of(kind, prov_of(o.dest)) * self._jitter(rng)
                    if best is None or score > best[0]:
                        best = (score, o)
            if best is not None:
                taken.add(prov_of(best[1].dest))  # type: ignore[attr-defined]
                out.append(best[1])
            else:
                out.extend(o for o in options[:1] if isinstance(o, Disband))
        return out

    def _adjustments(
        self, variant: Variant, position: Position, power: str, legal: Legal, v: Values, rng: random.Random
    ) -> list[Order]:
        gmap = variant.map
        hooks = v.hooks
        # The movement kinds of the units, the ones built so far included (see ``built``).
        kinds = [hooks.movement_kind(u.kind) for u in position.units_of(power)]
        covered: set[int] = set()

        def cover(prov: int, kind: str) -> None:
            covered.add(prov)
            covered.update(v.reach(kind, prov))

        if self.crowding:
            for prov, u in position.units.items():
                if u.power == power:
                    cover(prov, u.kind)

        def score(o: Order) -> float:
            if isinstance(o, Build):
                prov = gmap.province_of(o.loc)
                unit = Unit(power, o.kind, o.loc)
                value = v.of(o.kind, prov) * hooks.unit_strength(unit) / max(1, hooks.unit_cost(o.kind))
                if hooks.movement_kind(o.kind) == "F" and kinds.count("F") >= 0.5 * max(1, len(kinds)):
                    value *= 0.7
                if self.crowding:
                    reach = v.reach(o.kind, prov)
                    fresh = sum(1 for q in reach if q not in covered)
                    value *= CROWDED + (1.0 - CROWDED) * fresh / max(1, len(reach))
                return value * self._jitter(rng)
            if isinstance(o, Disband):
                prov = gmap.province_of(o.loc)
                unit_at = position.units.get(prov)
                kind = unit_at.kind if unit_at is not None else "A"
                return v.of(kind, prov) + 2.0 * v.threat[prov] * (prov in v.graph.centres)
            return 0.0

        def built(o: Build) -> None:
            # The next build is weighed with this one in: its kind in the fleets' share, its reach covered.
            kinds.append(hooks.movement_kind(o.kind))
            if self.crowding:
                cover(gmap.province_of(o.loc), o.kind)

        return choose_adjustments(variant, position, power, legal, score, built)
