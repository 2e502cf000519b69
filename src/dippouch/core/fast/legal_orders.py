"""The standard rules' fast path of legal-order generation: most orders are facts of the map, made once.

The readable way to list a position's legal orders is :func:`dippouch.core.legal_orders._movement` (every
hook asked, every unit and neighbour looked at). Under the standard movement rules most of that work is a
fact of the map: a unit's hold, moves and supports of each neighbour are made once per map and unit
(:class:`Fast`), what a connected group of fleets at sea offers the armies on its shores once per group
(:class:`SeaGroup`), what the groups next to an army let it and its supporters do once per army and set of seas
(:class:`Army`), and convoy orders and supports of convoyed moves that recur between groups once per map and
what they depend on, so a phase mostly joins cached tuples (:func:`movement_orders`). The caches make orders
without the dataclasses' ``__init__`` (see :func:`new_support`).

Both ways list the same orders: tests/core/test_legal.py and tests/core/test_legal_cache_reuse.py run the general
way (``legal_orders._FORCE_GENERAL``) beside this one, and tests/core/test_legal_vs_adjudicator.py holds both
to the adjudicator.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence

from dippouch.core.board import Tables
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.orders import Convoy, Hold, Move, Order, Support
from dippouch.core.position import Position
from dippouch.core.variant import Variant

__all__ = [
    "Army",
    "Fast",
    "SeaGroup",
    "fast_tables",
    "fleet_group",
    "ids_in",
    "mask_of",
    "movement_orders",
    "new_convoy",
    "new_hold",
    "new_move",
    "new_support",
    "route_landings",
]


# The fast path's per-map caches make thousands of orders the first time a map is played (about 6,000 supports,
# moves and convoy orders in the benchmark's 20 games). A frozen dataclass's ``__init__`` sets each field through
# ``object.__setattr__``; setting the slots through their descriptors costs about half as much. The objects are
# the same class with the same fields, so they compare and hash like orders made the usual way (tested).
_new = object.__new__
_HOLD_KIND, _HOLD_LOC = (Hold.__dict__[f].__set__ for f in ("kind", "loc"))
_MOVE_KIND, _MOVE_LOC, _MOVE_DEST, _MOVE_VIA = (Move.__dict__[f].__set__ for f in ("kind", "loc", "dest", "via_convoy"))
_SUP_KIND, _SUP_LOC, _SUP_TKIND, _SUP_TARGET, _SUP_DEST, _SUP_TPOWER = (
    Support.__dict__[f].__set__ for f in ("kind", "loc", "target_kind", "target", "dest", "target_power")
)
_CON_KIND, _CON_LOC, _CON_TARGET, _CON_DEST, _CON_TPOWER = (
    Convoy.__dict__[f].__set__ for f in ("kind", "loc", "target", "dest", "target_power")
)


def new_hold(kind: str, loc: int) -> Hold:
    o: Hold = _new(Hold)
    _HOLD_KIND(o, kind)
    _HOLD_LOC(o, loc)
    return o


def new_move(kind: str, loc: int, dest: int, via_convoy: bool = False) -> Move:
    o: Move = _new(Move)
    _MOVE_KIND(o, kind)
    _MOVE_LOC(o, loc)
    _MOVE_DEST(o, dest)
    _MOVE_VIA(o, via_convoy)
    return o


def new_support(kind: str, loc: int, target_kind: str, target: int, dest: int | None) -> Support:
    """``Support(kind, loc, target_kind, target, dest)`` for about half the cost (see above)."""
    o: Support = _new(Support)
    _SUP_KIND(o, kind)
    _SUP_LOC(o, loc)
    _SUP_TKIND(o, target_kind)
    _SUP_TARGET(o, target)
    _SUP_DEST(o, dest)
    _SUP_TPOWER(o, None)
    return o


def new_convoy(loc: int, target: int, dest: int) -> Convoy:
    o: Convoy = _new(Convoy)
    _CON_KIND(o, "F")
    _CON_LOC(o, loc)
    _CON_TARGET(o, target)
    _CON_DEST(o, dest)
    _CON_TPOWER(o, None)
    return o


def fleet_group(sea_adj: Sequence[Iterable[int]], start: int, fleets: Container[int]) -> list[int]:
    """The seas of ``start``'s connected group of fleets: ``start`` and every fleet sea reached through others."""
    members = [start]
    i = 0
    while i < len(members):
        for q in sea_adj[members[i]]:
            if q in fleets and q not in members:
                members.append(q)
        i += 1
    return members


def mask_of(ids: Iterable[int]) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def ids_in(m: int) -> list[int]:
    """The ids set in the bit mask ``m``, ascending (taken from the top: one operation fewer a bit)."""
    out = []
    while m:
        b = m.bit_length() - 1
        out.append(b)
        m ^= 1 << b
    out.reverse()
    return out


def route_landings(fast: Fast, src: int, fleets: int) -> dict[int, int]:
    """Fleet's sea -> where the proper routes through it land an army from ``src`` (a mask), over the fleets
    in the seas of ``fleets`` (a mask): one walk answers every fleet and destination at once.

    The rule is :func:`paths.fleet_on_proper_route`'s (DATC 6.G.19): after the first sea a route never
    enters a sea next to ``src`` or next to an earlier sea of the route, and it ends at the first sea next to
    its destination. Each step of the walk carries ``before``: the seas a route may no longer enter (those
    next to ``src``, the route's own, those next to its earlier seas) and the coasts it may no longer end at
    (those next to its earlier seas). Sets of provinces are bit masks, so a step costs an ``&`` or ``|``.
    """
    shore_mask = fast.shore_mask
    start = fast.near_mask[src]
    landed: dict[int, int] = {}
    if fleets & (fleets - 1) == 0:  # a lone fleet next to the army carries it to any shore of its sea
        if fleets & start:
            sea = fleets.bit_length() - 1
            landed[sea] = shore_mask[sea] & ~(1 << src)
        return landed
    sea_adj_mask = fast.sea_adj_mask
    reach_mask = fast.reach_mask_of
    not_src = ~(1 << src)
    stack: list[tuple[int, tuple[int, ...], int]] = [(s, (), start) for s in ids_in(start & fleets)]
    while stack:
        sea, path, before = stack.pop()
        path = (*path, sea)
        ends = shore_mask[sea] & ~before & not_src
        if ends:
            for f in path:
                landed[f] = landed.get(f, 0) | ends
        nexts = sea_adj_mask[sea] & fleets & ~before
        if nexts:
            after = before | reach_mask[sea] | (1 << sea)
            for q in ids_in(nexts):
                stack.append((q, path, after))
    return landed


class SeaGroup:
    """A connected group of fleets at sea and what it offers the armies on its shores.

    Cached per map by its seas (a bit mask over province ids): fleets often stay put for phases on end and
    small groups recur, so the convoy orders of an army next to a group, and where the group could carry it
    without one of its fleets, are worked out once. Sets of provinces are bit masks here: a route walk or a
    search of the group then costs an ``&`` or ``|`` per step instead of a loop over a province's neighbours.
    """

    __slots__ = ("_avoiding", "_convoys", "fast", "mask", "shore_mask", "shores")

    def __init__(self, fast: Fast, mask: int) -> None:
        self.fast = fast
        self.mask = mask
        shore = 0
        shore_mask = fast.shore_mask
        for s in ids_in(mask):
            shore |= shore_mask[s]
        self.shore_mask = shore
        """The coastal provinces next to one of its seas (where an army may embark or land)."""
        self.shores = tuple(ids_in(shore))
        """The same, ascending (walking a tuple is cheaper than taking a wide mask apart bit by bit)."""
        self._convoys: dict[int, tuple[tuple[int, tuple[Order, ...]], ...]] = {}
        self._avoiding: dict[int, int] = {}

    def convoys(self, src: int) -> tuple[tuple[int, tuple[Order, ...]], ...]:
        """(fleet's unit code, its convoy orders) for the army in ``src``, from :func:`route_landings`.

        A route never leaves its group, so the answer depends on the group only.
        """
        got = self._convoys.get(src)
        if got is not None:
            return got
        fast = self.fast
        landed = route_landings(fast, src, self.mask)
        convoys = fast.convoys
        made: list[tuple[int, tuple[Order, ...]]] = []
        for f in sorted(landed):
            ends = landed[f]
            key = (f, src, ends)
            listed = convoys.get(key)
            if listed is None:
                carried = fast.carried
                base = ((f + 1) * fast.province_count + src) * fast.province_count
                orders: list[Order] = []
                for d in ids_in(ends):
                    o = carried.get(base + d)
                    if o is None:
                        o = carried[base + d] = new_convoy(f, src, d)
                    orders.append(o)
                if len(convoys) > 200_000:  # keyed by the games' fleet positions: keep memory bounded
                    convoys.clear()
                listed = convoys[key] = tuple(orders)
            made.append((2 * f + 1, listed))
        got = self._convoys[src] = tuple(made)
        return got

    def avoiding(self, r: int, sea: int) -> int:
        """Where this group could carry the army in ``r`` without the fleet in ``sea`` (one of its own), a mask."""
        fast = self.fast
        key = sea * fast.province_count + r
        got = self._avoiding.get(key)
        if got is None:
            allowed = self.mask & ~(1 << sea)
            todo = seen = fast.near_mask[r] & allowed
            shore_mask = fast.shore_mask
            sea_adj_mask = fast.sea_adj_mask
            out = 0
            while todo:
                low = todo & -todo
                todo ^= low
                s = low.bit_length() - 1
                out |= shore_mask[s]
                new = sea_adj_mask[s] & allowed & ~seen
                seen |= new
                todo |= new
            got = self._avoiding[key] = out & ~(1 << r)
        return got


class Army:
    """What the groups of fleets next to an army let it and others do: cached per army and set of seas."""

    __slots__ = ("fast", "fleet_orders", "groups", "helpers", "mask", "moves", "only", "r", "supports")

    def __init__(
        self,
        fast: Fast,
        r: int,
        mask: int,
        groups: list[SeaGroup],
        moves: tuple[Order, ...],
        fleet_orders: tuple[tuple[int, tuple[Order, ...]], ...],
        only: int,
        helpers: tuple[int, ...],
    ) -> None:
        self.fast = fast
        self.r = r
        self.mask = mask
        """The seas of the groups (a bit mask)."""
        self.groups = groups
        self.moves = moves
        """The army's convoyed moves."""
        self.fleet_orders = fleet_orders
        """(fleet's unit code, its convoy orders of this army)."""
        self.only = only
        """Where only a convoy could bring the army (a mask)."""
        self.helpers = helpers
        """Codes of the units that could move to one of those provinces (and so support the army there)."""
        self.supports: dict[int, tuple[Order, ...]] = {}
        """Helper's code -> its supports of the army's moves that only a convoy makes (filled as they come up)."""

    def supports_by(self, c: int) -> tuple[Order, ...]:
        """The supports by the unit ``c`` of the army's moves that only a convoy makes.

        They depend on the helper, the army and the destinations alone, and the same ones recur for many sets
        of seas (an army's entries differ by fleets that change nothing for this helper), so they are shared
        per map through :attr:`Fast.backing`; this entry keeps its own look-up for the phases to come.
        """
        fast = self.fast
        r = self.r
        ends = fast.reach_mask[c] & self.only
        if c & 1:
            p = fast.t.loc_prov[c >> 1]
            if self.mask >> p & 1:
                # A fleet cannot both support a convoyed move and be part of its route: only where its own
                # group could carry the army without it, or another group could.
                avoid = 0
                for g in self.groups:
                    avoid |= g.avoiding(r, p) if g.mask >> p & 1 else g.shore_mask
                ends &= avoid
        key = (ends, c, r)
        backing = fast.backing
        listed = backing.get(key)
        if listed is None:
            made = fast.convoy_supports
            n = fast.province_count
            base = (c * n + r) * n
            kind = "F" if c & 1 else "A"
            out: list[Order] = []
            for d in ids_in(ends):
                got = made.get(base + d)
                if got is None:
                    got = made[base + d] = new_support(kind, c >> 1, "A", r, d)
                out.append(got)
            if len(backing) > 200_000:  # keyed by the games' fleet positions: keep memory bounded
                backing.clear()
            listed = backing[key] = tuple(out)
        self.supports[c] = listed
        return listed


class Fast:
    """Per-map caches for the standard rules' fast path.

    A unit is a *code*, ``2 * location + (1 if fleet)``, so tables are flat lists indexed by it. A unit's own
    orders depend on its code alone and its supports of a neighbour on the two codes, so each is made
    once and reused in every later phase; a phase only looks up who stands where and joins cached tuples.
    """

    def __init__(self, gmap: GameMap, t: Tables) -> None:
        self.t = t
        n = 2 * len(t.loc_prov)
        self.province_count = len(t.sea)
        self.army_adj = gmap.army_adj
        self.units: list[tuple[tuple[Order, ...], tuple[int, ...], list[tuple[Order, ...]]] | None] = [None] * n
        """Unit code -> (its hold and moves, codes of the units it could support in ascending order, its supports
        of each unit by code). The last is a list over every code, mostly empty: the per-phase join indexes it
        once per neighbour present, and a list subscript costs less than a dict look-up (about 3% of a warm
        phase)."""
        self.reach: tuple[tuple[int, ...], ...] = tuple(
            t.fleet_reach_list[c >> 1] if c & 1 else t.army_adj_list[t.loc_prov[c >> 1]] for c in range(n)
        )
        codes_at: list[list[int]] = [[] for _ in range(self.province_count)]
        self.plausible = [False] * n
        """Unit code -> whether such a unit can stand there (an army on land or a coast, a fleet at sea or on a
        coast); a position with any other unit goes the general way."""
        for p in gmap.provinces:
            if p.kind in (ProvinceKind.LAND, ProvinceKind.COAST):
                codes_at[p.id].append(2 * p.id)
            codes_at[p.id].extend(2 * loc + 1 for loc in gmap.fleet_locations(p.id))
            for c in codes_at[p.id]:
                self.plausible[c] = True
        self.codes_at = tuple(tuple(c) for c in codes_at)
        """Province -> the codes of the units that can stand in it."""
        reaching: list[set[int]] = [set() for _ in range(self.province_count)]
        for c in range(n):
            if self.plausible[c]:
                for d in self.reach[c]:
                    reaching[d].add(c)
        self.reaching = tuple(frozenset(r) for r in reaching)
        """Province -> the codes of the units that could move there by land or sea (who could support a move there)."""
        self.groups: dict[int, SeaGroup] = {}
        """The seas of a connected group of fleets (a bit mask) -> what it offers."""
        self.armies: tuple[dict[int, Army], ...] = tuple({} for _ in range(self.province_count))
        """Army's province -> the seas of the groups of fleets next to it (a bit mask) -> what they let it do."""
        # Sets of provinces as bit masks over province ids, for the convoy caches' walks and searches.
        count = self.province_count
        self.shore_mask = tuple(mask_of(t.shore_of[p]) for p in range(count))
        self.seas_near = tuple(tuple(sorted(t.seas_next_to_list[p])) for p in range(count))
        """Province -> the seas next to it."""
        self.near_mask = tuple(mask_of(near) for near in self.seas_near)
        self.sea_adj_mask = tuple(mask_of(t.sea_adj[p]) for p in range(count))
        self.reach_mask_of = tuple(mask_of(t.fleet_reach_list[p]) if t.sea[p] else 0 for p in range(count))
        """Sea -> every province next to it."""
        self.army_adj_mask = tuple(mask_of(gmap.army_adj[p]) for p in range(count))
        self.reach_mask = tuple(mask_of(r) for r in self.reach)
        self.backing: dict[tuple[int, int, int], tuple[Order, ...]] = {}
        """(destinations as a mask, helper's code, army's province) -> the helper's supports of the army's moves
        there: see :meth:`Army.supports_by`."""
        self.convoys: dict[tuple[int, int, int], tuple[Order, ...]] = {}
        """(fleet's sea, army's province, where it could carry the army: a mask) -> those convoy orders: the
        same fleet carries the same army to the same places in many groups (two in five in the benchmark)."""
        self.convoy_supports: dict[int, Support] = {}
        self.carried: dict[int, Order] = {}
        """Convoyed moves and convoy orders by integer key: the same ones come up for many groups of fleets."""

    def unit(self, c: int) -> tuple[tuple[Order, ...], tuple[int, ...], list[tuple[Order, ...]]]:
        """What the unit ``c`` may do whoever stands around it: hold, move by land or sea, support a unit in
        its reach or moving into it (and which units those are).

        Made by walking the unit's reach once, province by province, and handing each province's supports to
        the units that could stand or arrive there, rather than intersecting reaches pair by pair: a
        neighbour's supports come out in the same order (to hold first, then moves by destination id).
        """
        got = self.units[c]
        if got is None:
            t = self.t
            loc = c >> 1
            me = t.loc_prov[loc]
            if c & 1:
                kind = "F"
                dests = t.fleet_adj_list[loc]
            else:
                kind = "A"
                dests = t.army_adj_list[me]
            own = (new_hold(kind, loc), *[new_move(kind, loc, d) for d in dests])
            mine = self.reach[c]  # sorted
            codes_at = self.codes_at
            made: dict[int, list[Order]] = {}
            for q in mine:  # to hold: whatever stands in my reach
                for oc in codes_at[q]:
                    made[oc] = [new_support(kind, loc, "F" if oc & 1 else "A", oc >> 1, None)]
            reaching = self.reaching
            here = codes_at[me]
            for d in mine:  # to move where I could move
                for oc in reaching[d]:
                    if oc in here:
                        continue
                    s = new_support(kind, loc, "F" if oc & 1 else "A", oc >> 1, d)
                    listed = made.get(oc)
                    if listed is None:
                        made[oc] = [s]
                    else:
                        listed.append(s)
            supports: list[tuple[Order, ...]] = [()] * len(self.units)
            for oc, listed in made.items():
                supports[oc] = tuple(listed)
            got = self.units[c] = (own, tuple(sorted(made)), supports)
        return got

    def army(self, r: int, mask: int, group_of: dict[int, int]) -> Army:
        """What the fleets in the seas of ``mask`` (every group of fleets next to ``r``, as this phase's
        ``group_of`` found them) let the army in ``r`` and others do, cached per army and mask: fleets stay put
        for phases on end, so nine uses in ten of an entry in the benchmark's games find it made. Its supports
        are made as their supporters come up (a fleet of the groups may support the army's convoyed move only
        where the others could carry it).
        """
        groups: list[SeaGroup] = []
        for s in self.seas_near[r]:
            g = group_of.get(s)  # the seas of the group of the fleet in s (a mask), as this phase found them
            if g is None:
                continue
            group = self.groups.get(g)
            if group is None:
                if len(self.groups) > 50_000:  # keyed by the games' fleet positions: keep memory bounded
                    self.groups.clear()
                group = self.groups[g] = SeaGroup(self, g)
            if group not in groups:
                groups.append(group)
        if len(groups) == 1:
            shores: Iterable[int] = groups[0].shores
            fleet_orders = groups[0].convoys(r)
            dests = groups[0].shore_mask
        else:
            shores = sorted(frozenset().union(*[g.shores for g in groups]))
            fleet_orders = tuple(x for g in groups for x in g.convoys(r))
            dests = 0
            for group in groups:
                dests |= group.shore_mask
        carried = self.carried
        land = self.army_adj[r]
        n = self.province_count
        moves: list[Order] = []
        only: list[int] = []
        for q in shores:
            if q == r:
                continue
            move = carried.get(r * n + q)
            if move is None:
                # Adjacent destinations need "via convoy" to mean the convoy (DATC v3.2 preference).
                move = carried[r * n + q] = new_move("A", r, q, q in land)
            moves.append(move)
            if q not in land:
                only.append(q)
        reaching = self.reaching
        helpers = tuple(frozenset().union(*[reaching[d] for d in only]))
        cached = self.armies[r]
        if len(cached) > 2_000:  # keyed by the games' fleet positions: keep memory bounded
            cached.clear()
        got = cached[mask] = Army(
            self, r, mask, groups, tuple(moves), fleet_orders, dests & ~self.army_adj_mask[r] & ~(1 << r), helpers
        )
        return got


def fast_tables(gmap: GameMap, t: Tables) -> Fast:
    hit: Fast | None = gmap.derived.get("legal.fast")
    if hit is not None:
        return hit
    c = gmap.derived["legal.fast"] = Fast(gmap, t)
    return c


def movement_orders(
    variant: Variant, position: Position, powers: Sequence[str], t: Tables
) -> dict[str, dict[int, list[Order]]] | None:
    """The standard rules' fast path: cached per-unit and per-pair orders, plus what convoys add this phase.

    Returns ``None`` for a unit kind other than army and fleet (the general path handles those).
    """
    fast = fast_tables(variant.map, t)
    units = position.units
    sea = t.sea
    info = fast.units
    present = [False] * len(info)
    """Unit code -> whether such a unit stands on the board (a list subscript per neighbour in the join below
    costs less than intersecting a set of the unit's neighbours with a set of the units present)."""
    fleet_seas: list[int] = []
    plausible = fast.plausible
    everyone: dict[str, dict[int, list[Order]]] = {power: {} for power in powers}
    work: list[tuple[int, dict[int, list[Order]]]] = []
    """(unit code, its power's orders) of each unit to list orders for."""
    armies: list[int] = []
    """Provinces of the armies that a convoy might carry."""
    coastal = t.coastal
    for p, u in units.items():
        k = u.kind
        if k == "A":
            c = 2 * u.loc
            if coastal[p]:
                armies.append(p)
        elif k == "F":
            c = 2 * u.loc + 1
            if sea[p]:
                fleet_seas.append(p)
        else:
            return None
        if not plausible[c]:
            return None
        present[c] = True
        out = everyone.get(u.power)
        if out is not None:
            work.append((c, out))

    lists: list[list[Order] | None] = [None] * len(info)
    """Unit code -> its list, for the convoy orders below to be added to."""
    for c, out in work:
        own, nb, tab = info[c] or fast.unit(c)
        orders = list(own)
        for oc in nb:
            if present[oc]:
                orders += tab[oc]
        out[c >> 1] = lists[c] = orders

    # Convoys: connected groups of fleets at sea and, for each army on their shores, what they let it and
    # others do (cached per army and set of seas: fleets stay put for phases on end).
    if fleet_seas and armies:
        sea_adj = t.sea_adj
        fleets = set(fleet_seas)
        group_of: dict[int, int] = {}
        """Fleet's sea -> the seas of its connected group of fleets, as a bit mask over province ids."""
        seas_near = fast.seas_near
        armies_at = fast.armies
        for r in armies:
            seas = 0
            for s in seas_near[r]:
                if s not in fleets:
                    continue
                g = group_of.get(s)
                if g is None:
                    members = fleet_group(sea_adj, s, fleets)
                    g = 0
                    for m in members:
                        g |= 1 << m
                    for m in members:
                        group_of[m] = g
                seas |= g
            if not seas:
                continue
            a = armies_at[r].get(seas) or fast.army(r, seas, group_of)
            for c, listed in a.fleet_orders:
                x = lists[c]
                if x is not None:
                    x += listed
            supports = a.supports
            for c in a.helpers:  # a unit not on the board (or of a power not asked for) has no list
                x = lists[c]
                if x is not None:
                    backing = supports.get(c)
                    if backing is None:
                        backing = a.supports_by(c)
                    x += backing
            if a.moves:
                x = lists[2 * r]
                if x is not None:
                    x += a.moves
    return everyone
