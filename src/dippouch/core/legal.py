"""Every legal order of a power's units: what a UI offers, what a bot chooses from, what the benchmark plays.

"Legal" follows the adjudicator (DATC's "illegal" is what it rejects before resolving): a unit may hold,
move where its kind can go, move by convoy where a chain of fleets in seas could carry it, support any
unit to hold in a province it could move to, support a move into such a province that the moving unit
could make (by land, or by a convoy route the supporter is not part of), and, as a fleet at sea, convoy an
army along a *proper* route it is part of (DATC 4.E.1/6.G.19; see :func:`paths.fleet_on_proper_route`). Retreat
phases offer the dislodged unit's retreats and a disband; adjustment phases builds (every unit kind on
every coast of every eligible site) and waive, or removals.

Orders are written the canonical way: supports name the destination province without a coast (a coast
does not matter to a support), fleet moves name the coast, a convoyed army's move to a province it cannot
reach by land has no "via convoy" (it needs none), and one it can reach by land is offered both ways.

Generation is on the hot path of bots and the benchmark, so it works on integer ids and precomputed
per-map tables, and calls the variant's rule hooks only when the variant changes movement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = ["all_legal_orders", "legal_orders", "register_legal_orders"]


@dataclass(frozen=True, slots=True)
class _Tables:
    """Per-map look-ups, built once: tuples indexed by province or location id."""

    coastal: tuple[bool, ...]
    """Province id -> a convoyed army may start or land there."""
    sea: tuple[bool, ...]
    army_adj: tuple[tuple[int, ...], ...]
    fleet_adj: tuple[tuple[int, ...], ...]
    fleet_reach: tuple[tuple[int, ...], ...]
    seas_next_to: tuple[tuple[int, ...], ...]
    province_of: tuple[int, ...]
    sea_adj: tuple[tuple[int, ...], ...]
    """Sea province -> the sea provinces a fleet there may move to (convoy chains)."""
    shore_of: tuple[frozenset[int], ...]
    """Province -> the coastal provinces a fleet there may move to (where a convoy may land)."""


_TABLES: dict[int, tuple[GameMap, _Tables]] = {}

#: Tests set this to check the standard rules' fast path against the general one.
_FORCE_GENERAL = False

#: The last position worked out by :func:`legal_orders`: [variant, position, power -> orders]. Positions are
#: values (never changed in place), so the same object means the same answer.
_LAST: list[Any] = []


def _tables(gmap: GameMap) -> _Tables:
    hit = _TABLES.get(id(gmap))
    if hit is not None and hit[0] is gmap:
        return hit[1]
    sea = tuple(p.kind == ProvinceKind.SEA for p in gmap.provinces)
    t = _Tables(
        coastal=tuple(p.kind == ProvinceKind.COAST for p in gmap.provinces),
        sea=sea,
        army_adj=tuple(tuple(sorted(a)) for a in gmap.army_adj),
        fleet_adj=tuple(tuple(sorted(a)) for a in gmap.fleet_adj),
        fleet_reach=tuple(tuple(sorted(a)) for a in gmap.fleet_reach),
        seas_next_to=tuple(tuple(sorted(s)) for s in gmap.seas_next_to),
        province_of=tuple(loc.province for loc in gmap.locations),
        sea_adj=tuple(
            tuple(sorted(q for q in gmap.fleet_reach[p] if sea[q])) if sea[p] else () for p in range(len(sea))
        ),
        shore_of=tuple(
            frozenset(q for q in gmap.fleet_reach[p] if gmap.provinces[q].kind == ProvinceKind.COAST)
            for p in range(len(sea))
        ),
    )
    _TABLES[id(gmap)] = (gmap, t)
    return t


def legal_orders(variant: Variant, position: Position, power: str) -> dict[int, list[Order]]:
    """Unit location id -> every legal order for that unit of ``power`` in ``position``'s phase.

    Movement: every unit of the power. Retreats: every dislodged unit of the power. Adjustments with
    builds due: each buildable site (province id) -> its builds and ``Waive``; with removals due: each
    unit -> its removal. A power with nothing to order gets ``{}``.
    """
    kind = variant.calendar.kind(position.phase)
    out: dict[int, list[Order]]
    if kind == PhaseKind.MOVEMENT:
        # Callers usually ask for every power in turn: work out the whole position once, hand out copies.
        last = _LAST
        if last and last[0] is variant and last[1] is position:
            everyone = last[2]
        else:
            everyone = _movement(variant, position, variant.power_names)
            _LAST[:] = [variant, position, everyone]
        mine = everyone.get(power)
        if mine is None:
            out = _movement(variant, position, (power,))[power]
        else:
            out = {loc: list(orders) for loc, orders in mine.items()}
    elif kind == PhaseKind.RETREATS:
        out = _retreats(variant, position, power)
    else:
        out = _adjustments(variant, position, power)
    return _with_extras(variant, position, power, out)


def all_legal_orders(variant: Variant, position: Position) -> dict[str, dict[int, list[Order]]]:
    """:func:`legal_orders` for every power at once, sharing the work (reach, convoy routes) between them."""
    kind = variant.calendar.kind(position.phase)
    if kind == PhaseKind.MOVEMENT:
        everyone = _movement(variant, position, variant.power_names)
    elif kind == PhaseKind.RETREATS:
        everyone = {p: _retreats(variant, position, p) for p in variant.power_names}
    else:
        everyone = {p: _adjustments(variant, position, p) for p in variant.power_names}
    return {p: _with_extras(variant, position, p, orders) for p, orders in everyone.items()}


#: Extra order generators of variants: rule name -> fn(variant, position, power, orders) that adds the
#: variant's own order kinds (W3K conversions, say) to ``orders`` in place. Active for a variant whose
#: ``[rules]`` table switches the rule name on, like the notation's :func:`notation.register_syntax`.
_EXTRAS: dict[str, Callable[[Variant, Position, str, dict[int, list[Order]]], None]] = {}


def register_legal_orders(rule: str, fn: Callable[[Variant, Position, str, dict[int, list[Order]]], None]) -> None:
    """Let a variant's rule module add its own order kinds to :func:`legal_orders` (see docs/notation.md)."""
    _EXTRAS[rule] = fn


def _with_extras(
    variant: Variant, position: Position, power: str, orders: dict[int, list[Order]]
) -> dict[int, list[Order]]:
    for rule, fn in _EXTRAS.items():
        if variant.rules.get(rule):
            fn(variant, position, power, orders)
    return orders


# ------------------------------------------------------------------------------------------------ movement


class _Convoys:
    """Which armies could be carried where by the fleets now at sea, as connected groups of fleets."""

    def __init__(self, t: _Tables, fleet_seas: list[int]) -> None:
        self.t = t
        self.fleets = set(fleet_seas)
        self._routes: dict[int, dict[int, frozenset[int]]] = {}
        self._avoiding: dict[tuple[int, int], set[int]] = {}
        self.group: dict[int, int] = {}
        self.members: list[list[int]] = []
        for s in fleet_seas:
            if s in self.group:
                continue
            gid = len(self.members)
            members = [s]
            self.group[s] = gid
            i = 0
            while i < len(members):
                for q in t.sea_adj[members[i]]:
                    if q in self.fleets and q not in self.group:
                        self.group[q] = gid
                        members.append(q)
                i += 1
            self.members.append(members)
        # Group -> coastal provinces next to one of its seas (where an army may embark or land).
        self.shores: list[frozenset[int]] = []
        for members in self.members:
            shore: set[int] = set()
            for s in members:
                shore |= t.shore_of[s]
            self.shores.append(frozenset(shore))

    def destinations(self, province: int, avoid: int | None = None) -> set[int]:
        """Coastal provinces an army in ``province`` could be convoyed to (not through the sea ``avoid``)."""
        out: set[int] = set()
        t = self.t
        if not t.coastal[province]:
            return out
        if avoid is None:
            seen: set[int] = set()
            for s in t.seas_next_to[province]:
                g = self.group.get(s)
                if g is not None and g not in seen:
                    seen.add(g)
                    out |= self.shores[g]
        else:
            key = (province, avoid)
            cached = self._avoiding.get(key)
            if cached is not None:
                return cached
            stack = [s for s in t.seas_next_to[province] if s in self.fleets and s != avoid]
            visited = set(stack)
            while stack:
                s = stack.pop()
                out |= t.shore_of[s]
                for q in t.sea_adj[s]:
                    if q in self.fleets and q != avoid and q not in visited:
                        visited.add(q)
                        stack.append(q)
            self._avoiding[key] = out
        out.discard(province)
        return out

    def routes_from(self, src: int) -> dict[int, frozenset[int]]:
        """Fleet sea -> destinations it can help carry an army in ``src`` to, on a proper route.

        One walk over the proper routes from ``src`` answers every fleet and destination at once; the
        rule is :func:`paths.fleet_on_proper_route`'s (DATC 6.G.19): after the first sea a route never
        enters a sea next to ``src`` or next to an earlier sea of the route, and it ends at the first sea
        next to its destination.
        """
        cached = self._routes.get(src)
        if cached is not None:
            return cached
        t = self.t
        fleets = self.fleets
        out: dict[int, set[int]] = {}
        near_src = set(t.seas_next_to[src])
        touched = [0] * len(t.coastal)  # province -> how many route seas before the current one touch it
        path: list[int] = []

        def walk(sea: int) -> None:
            ends = [d for d in t.shore_of[sea] if d != src and not touched[d]]
            if ends:
                for f in (*path, sea):
                    out.setdefault(f, set()).update(ends)
            nexts = [
                q for q in t.sea_adj[sea] if q in fleets and q not in near_src and not touched[q] and q not in path
            ]
            if not nexts:
                return
            path.append(sea)
            for q in t.fleet_reach[sea]:
                touched[q] += 1
            for q in nexts:
                if q not in path:
                    walk(q)
            for q in t.fleet_reach[sea]:
                touched[q] -= 1
            path.pop()

        for first in t.seas_next_to[src]:
            if first in fleets:
                walk(first)
        frozen = {f: frozenset(ds) for f, ds in out.items()}
        self._routes[src] = frozen
        return frozen


class _Plain:
    """Per-map caches for the standard rules: a unit's own orders and its supports of a neighbour depend
    only on the two units' kinds and places, so each is built once and reused in every later phase."""

    def __init__(self, gmap: GameMap, t: _Tables) -> None:
        self.t = t
        self.own: dict[tuple[str, int], tuple[Order, ...]] = {}
        self.near: dict[tuple[str, int], frozenset[int]] = {}
        self.reach_sets: dict[tuple[str, int], frozenset[int]] = {}
        # Runs of orders that convoys bring, by what they depend on (making order objects costs more than
        # looking them up): a unit's convoyed moves by its destinations, supports by destination and armies,
        # a fleet's convoys by army and destinations.
        self.made_lists: dict[tuple[Any, ...], tuple[Order, ...]] = {}
        self.supports: dict[tuple[str, int, str, int], tuple[Order, ...]] = {}
        # Provinces any unit in a province could move to (for "could this unit support that one").
        any_reach = [set(a) for a in t.army_adj]
        for loc, reach in enumerate(t.fleet_reach):
            any_reach[t.province_of[loc]].update(reach)
        self.any_reach = tuple(frozenset(a) for a in any_reach)

    def reach(self, kind: str, loc: int) -> tuple[int, ...]:
        t = self.t
        return t.fleet_reach[loc] if kind == "F" else t.army_adj[t.province_of[loc]] if kind == "A" else ()

    def own_orders(self, kind: str, loc: int) -> tuple[Order, ...]:
        key = (kind, loc)
        got = self.own.get(key)
        if got is None:
            t = self.t
            moves: list[Order] = [Hold(kind, loc)]
            if kind == "F":
                moves.extend(Move(kind, loc, d) for d in t.fleet_adj[loc])
            elif kind == "A":
                moves.extend(Move(kind, loc, d) for d in t.army_adj[t.province_of[loc]])
            got = self.own[key] = tuple(moves)
        return got

    def near_provinces(self, kind: str, loc: int) -> frozenset[int]:
        """Provinces whose unit this one might support by land or sea: in its reach, or reaching into it."""
        key = (kind, loc)
        got = self.near.get(key)
        if got is None:
            mine = self.reach_set(kind, loc)
            me = self.t.province_of[loc]
            got = self.near[key] = frozenset(
                r for r in range(len(self.any_reach)) if r != me and (r in mine or mine & self.any_reach[r])
            )
        return got

    def reach_set(self, kind: str, loc: int) -> frozenset[int]:
        key = (kind, loc)
        got = self.reach_sets.get(key)
        if got is None:
            got = self.reach_sets[key] = frozenset(self.reach(kind, loc))
        return got

    def support_orders(self, kind: str, loc: int, other_kind: str, other_loc: int) -> tuple[Order, ...]:
        """Supports of the unit ``other`` that do not depend on convoys: to hold, and to move by land/sea."""
        key = (kind, loc, other_kind, other_loc)
        got = self.supports.get(key)
        if got is None:
            t = self.t
            me, r = t.province_of[loc], t.province_of[other_loc]
            mine = set(self.reach(kind, loc))
            out: list[Order] = []
            if r in mine:
                out.append(Support(kind, loc, other_kind, other_loc, None))
            for d in sorted(mine.intersection(self.reach(other_kind, other_loc))):
                if d != me:
                    out.append(Support(kind, loc, other_kind, other_loc, d))
            got = self.supports[key] = tuple(out)
        return got


_PLAIN: dict[int, tuple[GameMap, _Plain]] = {}


def _plain(gmap: GameMap, t: _Tables) -> _Plain:
    hit = _PLAIN.get(id(gmap))
    if hit is not None and hit[0] is gmap:
        return hit[1]
    c = _Plain(gmap, t)
    _PLAIN[id(gmap)] = (gmap, c)
    return c


def _movement_plain(
    variant: Variant, position: Position, powers: Sequence[str], t: _Tables
) -> dict[str, dict[int, list[Order]]]:
    """The standard rules' fast path: cached per-unit and per-pair orders, plus what convoys add this phase.

    Order objects are values, so the ones convoys bring are cached per map too (``cache.made_lists``).
    """
    cache = _plain(variant.map, t)
    units = position.units
    fleet_seas = [p for p, u in units.items() if u.kind == "F" and t.sea[p]]
    convoys = _Convoys(t, fleet_seas) if fleet_seas else None
    convoy_reach: dict[int, frozenset[int]] = {}
    dest_groups: dict[int, list[int]] = {}
    """Coastal province -> the groups of fleets that could land an army there."""
    group_armies: list[list[int]] = []
    """Group -> the armies standing next to it (who might be convoyed by it)."""
    army_adj = variant.map.army_adj
    if convoys is not None:
        group_armies = [[] for _ in convoys.members]
        for p, u in units.items():
            if u.kind == "A" and t.coastal[p]:
                groups = {g for g in map(convoys.group.get, t.seas_next_to[p]) if g is not None}
                if groups:
                    cr: set[int] = set()
                    for g in groups:
                        cr |= convoys.shores[g]
                        group_armies[g].append(p)
                    cr.discard(p)
                    if cr:
                        convoy_reach[p] = frozenset(cr)
        for g, shore in enumerate(convoys.shores):
            if group_armies[g]:
                for d in shore:
                    dest_groups.setdefault(d, []).append(g)

    by_dest: dict[int, tuple[int, ...]] = {}
    made_lists = cache.made_lists
    if len(made_lists) > 200_000:  # keyed by this game's convoy situations: keep memory bounded
        made_lists.clear()
    own, near, supports = cache.own, cache.near, cache.supports
    keys = units.keys()
    everyone: dict[str, dict[int, list[Order]]] = {power: {} for power in powers}
    for p, u in units.items():
        out = everyone.get(u.power)
        if out is None:
            continue
        kind, loc = u.kind, u.loc
        key = (kind, loc)
        base = own.get(key)
        orders = list(base if base is not None else cache.own_orders(kind, loc))
        by_sea = convoy_reach.get(p)
        if by_sea:
            mkey = (kind, loc, by_sea)
            listed = made_lists.get(mkey)
            if listed is None:
                # Adjacent destinations need "via convoy" to mean the convoy (DATC v3.2 preference).
                land = cache.reach_set(kind, loc)
                listed = made_lists[mkey] = tuple(Move(kind, loc, q, q in land) for q in sorted(by_sea))
            orders.extend(listed)
        nb = near.get(key)
        if nb is None:
            nb = cache.near_provinces(kind, loc)
        for r in nb & keys:
            other = units[r]
            sk = (kind, loc, other.kind, other.loc)
            sup = supports.get(sk)
            if sup is None:
                sup = cache.support_orders(kind, loc, other.kind, other.loc)
            if sup:
                orders.extend(sup)
        if dest_groups and convoys is not None:
            # Supports of moves only a convoy makes: into d, for every army some fleets could land at d.
            at_sea = p in convoys.fleets
            for d in cache.reach(kind, loc):
                if d == p:
                    continue
                armies = by_dest.get(d)
                if armies is None:
                    armies = by_dest[d] = _landing(d, dest_groups, group_armies, army_adj)
                if not armies:
                    continue
                if at_sea:
                    # A fleet cannot both support a convoyed move and be part of its route.
                    for r in armies:
                        if r != p and d in convoys.destinations(r, avoid=p):
                            orders.append(Support(kind, loc, "A", r, d))
                    continue
                skey = (kind, loc, d, armies)
                listed = made_lists.get(skey)
                if listed is None:
                    listed = made_lists[skey] = tuple(Support(kind, loc, "A", r, d) for r in armies if r != p)
                orders.extend(listed)
        if convoys is not None and kind == "F" and p in convoys.group:
            shore = convoys.shores[convoys.group[p]]
            for r in convoy_reach:
                if r in shore:
                    dests_by_fleet = convoys.routes_from(r).get(p)
                    if dests_by_fleet:
                        ckey = (loc, r, dests_by_fleet)
                        listed = made_lists.get(ckey)
                        if listed is None:
                            listed = made_lists[ckey] = tuple(Convoy(kind, loc, r, d) for d in sorted(dests_by_fleet))
                        orders.extend(listed)
        out[loc] = orders
    return everyone


def _landing(
    d: int, dest_groups: dict[int, list[int]], group_armies: list[list[int]], army_adj: Sequence[frozenset[int]]
) -> tuple[int, ...]:
    """Armies that only a convoy could bring to ``d`` (one next to ``d`` moves there by land instead)."""
    out: list[int] = []
    for g in dest_groups.get(d, ()):
        for r in group_armies[g]:
            if r != d and d not in army_adj[r] and r not in out:
                out.append(r)
    return tuple(out)


def _movement(variant: Variant, position: Position, powers: Sequence[str]) -> dict[str, dict[int, list[Order]]]:
    gmap = variant.map
    t = _tables(gmap)
    hooks = hooks_for(variant)
    plain = hooks.standard_movement
    units = position.units
    if plain and not _FORCE_GENERAL and all(u.kind in ("A", "F") for u in units.values()):
        return _movement_plain(variant, position, powers, t)
    fleet_seas = [p for p, u in units.items() if t.sea[p] and _moves_as(hooks, plain, u.kind) == "F"]
    convoys = _Convoys(t, fleet_seas)

    # Where each unit could move (province ids, coasts ignored) by land or sea, and by convoy.
    reach: dict[int, tuple[int, ...]] = {}
    convoy_reach: dict[int, set[int]] = {}
    for p, u in units.items():
        mk = _moves_as(hooks, plain, u.kind)
        if mk == "F":
            here = t.fleet_reach[u.loc]
        elif mk == "A":
            here = t.army_adj[p]
            cr = convoys.destinations(p) if convoys.members else set()
            if not plain:
                cr = {q for q in cr if hooks.may_enter(u, q)}
            convoy_reach[p] = cr
        else:
            here = ()
        if not plain:
            here = tuple(q for q in here if hooks.may_enter(u, q))
        reach[p] = here

    everyone: dict[str, dict[int, list[Order]]] = {power: {} for power in powers}
    for p, u in units.items():
        if plain:
            givers = [u.power] if u.power in everyone else []
        else:
            # Usually the owner; a variant may let another power order the unit (W3K proxies).
            givers = [pw for pw in powers if hooks.may_order(position, pw, u)]
        if not givers:
            continue
        kind, loc = u.kind, u.loc
        orders: list[Order] = [Hold(kind, loc)]
        mk = _moves_as(hooks, plain, kind)
        # Moves.
        if mk == "F":
            for dest in t.fleet_adj[loc]:
                if plain or hooks.may_enter(u, t.province_of[dest]):
                    orders.append(Move(kind, loc, dest))
        else:
            land = reach[p]
            orders.extend(Move(kind, loc, q) for q in land)
            by_sea = convoy_reach.get(p, ())
            for q in sorted(by_sea):
                # Adjacent destinations need "via convoy" to mean the convoy (DATC v3.2 preference).
                orders.append(Move(kind, loc, q, q in land))
        # Supports: to hold a unit where this one could move; to move into such a province.
        mine = reach[p]
        mine_set = set(mine)
        for r, other in units.items():
            if r == p:
                continue
            if r in mine_set and (plain or hooks.may_support(u, r, None)):
                orders.append(Support(kind, loc, other.kind, other.loc, None))
            theirs: Iterable[int] = reach[r]
            by_convoy = convoy_reach.get(r)
            if by_convoy:
                if p in convoys.fleets:
                    # A fleet cannot both support a convoyed move and be part of its route.
                    by_convoy = {q for q in convoys.destinations(r, avoid=p) if plain or hooks.may_enter(other, q)}
                theirs = set(theirs) | by_convoy
            for d in sorted(mine_set.intersection(theirs)):
                if d != p and (plain or hooks.may_support(u, r, d)):
                    orders.append(Support(kind, loc, other.kind, other.loc, d))
        # Convoys: a fleet at sea, for every army it could help carry.
        if mk == "F" and t.sea[p] and p in convoys.group:
            shore = convoys.shores[convoys.group[p]]
            for r, other in units.items():
                if r not in shore or _moves_as(hooks, plain, other.kind) != "A":
                    continue
                for d in sorted(convoys.routes_from(r).get(p, ())):
                    if plain or hooks.may_enter(other, d):
                        orders.append(Convoy(kind, loc, other.loc, d))
        for pw in givers:
            everyone[pw][loc] = orders if pw == givers[0] else list(orders)
    return everyone


def _moves_as(hooks: RuleHooks, plain: bool, kind: str) -> str:
    return kind if plain else hooks.movement_kind(kind)


# ------------------------------------------------------------------------------------------------ retreats


def _retreats(variant: Variant, position: Position, power: str) -> dict[int, list[Order]]:
    out: dict[int, list[Order]] = {}
    for d in position.dislodged.values():
        u = d.unit
        if u.power != power:
            continue
        orders: list[Order] = [Retreat(u.kind, u.loc, dest) for dest in sorted(d.retreats)]
        orders.append(Disband(u.kind, u.loc))
        out[u.loc] = orders
    return out


# ------------------------------------------------------------------------------------------------ adjustments


def _adjustments(variant: Variant, position: Position, power: str) -> dict[int, list[Order]]:
    hooks = hooks_for(variant)
    gmap = variant.map
    delta = hooks.adjustment_delta(position, power)
    out: dict[int, list[Order]] = {}
    if delta < 0:
        for u in sorted(position.units.values(), key=lambda u: u.loc):
            if u.power == power:
                out[u.loc] = [Disband(u.kind, u.loc)]
        return out
    if delta == 0:
        return out
    kinds = _unit_kinds(variant)
    for site in sorted(hooks.build_sites(position, power)):
        if site in position.units:
            continue
        builds: list[Order] = []
        locs = (site, *gmap.provinces[site].coasts)
        for kind in kinds:
            if delta < hooks.unit_cost(kind):
                continue
            for loc in locs:
                if hooks.may_build_kind(position, power, kind, loc):
                    builds.append(Build(kind, loc))
        if builds:
            builds.append(Waive())
            out[site] = builds
    return out


def _unit_kinds(variant: Variant) -> tuple[str, ...]:
    extra = variant.rules.get("moves_as", {})
    return ("A", "F", *(str(k) for k in extra if str(k) not in ("A", "F")))
