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
per-map tables, and calls the variant's rule hooks only when the variant changes movement. Under the
standard movement rules most orders are facts of the map: a unit's hold, moves and supports of each
neighbour are made once per map and unit (:class:`_Fast`), what a connected group of fleets at sea offers
the armies on its shores once per group (:class:`_Group`), what the groups next to an army let it and
its supporters do once per army and set of seas (:class:`_Army`), and convoy orders and supports of
convoyed moves that recur between groups once per map and what they depend on, so a phase mostly joins
cached tuples. The caches make orders without the dataclasses' ``__init__`` (see :func:`_support`).
The general path (every hook asked) lists the same orders; tests hold the two together. A unit's list
starts with its hold; the order of the rest follows the caches and is not part of the contract.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from dippouch.core.adjustments import standard_count
from dippouch.core.calendar import PhaseKind
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = ["all_legal_orders", "legal_orders", "prepare"]


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


def _hold(kind: str, loc: int) -> Hold:
    o: Hold = _new(Hold)
    _HOLD_KIND(o, kind)
    _HOLD_LOC(o, loc)
    return o


def _move(kind: str, loc: int, dest: int, via_convoy: bool = False) -> Move:
    o: Move = _new(Move)
    _MOVE_KIND(o, kind)
    _MOVE_LOC(o, loc)
    _MOVE_DEST(o, dest)
    _MOVE_VIA(o, via_convoy)
    return o


def _support(kind: str, loc: int, target_kind: str, target: int, dest: int | None) -> Support:
    """``Support(kind, loc, target_kind, target, dest)`` for about half the cost (see above)."""
    o: Support = _new(Support)
    _SUP_KIND(o, kind)
    _SUP_LOC(o, loc)
    _SUP_TKIND(o, target_kind)
    _SUP_TARGET(o, target)
    _SUP_DEST(o, dest)
    _SUP_TPOWER(o, None)
    return o


def _convoy(loc: int, target: int, dest: int) -> Convoy:
    o: Convoy = _new(Convoy)
    _CON_KIND(o, "F")
    _CON_LOC(o, loc)
    _CON_TARGET(o, target)
    _CON_DEST(o, dest)
    _CON_TPOWER(o, None)
    return o


#: Tests set this to check the standard rules' fast path against the general one.
_FORCE_GENERAL = False

#: The last position worked out by :func:`legal_orders`, as one tuple (variant, position, power -> orders not
#: yet handed out, the variant's refusal hook), replaced whole: a thread reads one consistent entry, and
#: ``dict.pop`` hands each list out once even when threads ask at the same time. Positions are values (never
#: changed in place), so the same object means the same answer.
_LAST: list[
    tuple[Variant, Position, dict[str, dict[int, list[Order]]], Callable[[Position, str], str | None] | None] | None
] = [None]

# Enum members read through the class go through the enum metaclass's attribute hook (Python 3.11): read once.
_MOVEMENT = PhaseKind.MOVEMENT
_RETREATS = PhaseKind.RETREATS


def _tables(gmap: GameMap) -> _Tables:
    hit: _Tables | None = gmap.derived.get("legal.tables")
    if hit is not None:
        return hit
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
    gmap.derived["legal.tables"] = t
    return t


def legal_orders(variant: Variant, position: Position, power: str) -> dict[int, list[Order]]:
    """Unit location id -> every legal order for that unit of ``power`` in ``position``'s phase.

    Movement: every unit of the power. Retreats: every dislodged unit of the power. Adjustments with
    builds due: each buildable site (province id) -> its builds and ``Waive``; with removals due: each
    unit -> its removal. A power with nothing to order gets ``{}``.

    The lists are the caller's to change: the whole phase is worked out at the first call and each power
    gets the lists made for it; a second call for the same power and position works them out afresh.
    """
    # Callers usually ask for every power in turn: work out the whole position once and hand each power the
    # lists made for it. Asked again for a power, work its orders out afresh: its caller may have changed them.
    entry = _LAST[0]
    if entry is None or entry[1] is not position or entry[0] is not variant:
        refused = _refusal(variant)
        kind = variant.calendar.kind(position.phase)
        if kind is _RETREATS:
            if refused is not None and refused(position, power) is not None:
                return {}
            return _with_extras(variant, position, power, _retreats(variant, position, power))
        everyone = (
            _movement(variant, position, variant.power_names)
            if kind is _MOVEMENT
            else _adjustments_all(variant, position)
        )
        entry = _LAST[0] = (variant, position, everyone, refused)
    else:
        refused = entry[3]
    if refused is not None and refused(position, power) is not None:
        return {}
    out = entry[2].pop(power, None)
    if out is None:
        if variant.calendar.kind(position.phase) is _MOVEMENT:
            out = _movement(variant, position, (power,))[power]
        else:
            out = _adjustments(variant, position, power)
    return _with_extras(variant, position, power, out)


def prepare(variant: Variant) -> None:
    """Build the per-map tables :func:`legal_orders` uses now, rather than as units first come up.

    What is built here is a fact of the map and the standard rules, not of any position: each unit's hold,
    moves and supports of every unit that could stand or arrive next to it (some 3,700 supports on the
    standard map). A long-running process (a server, a bot, the benchmark) pays for it once at start-up, as
    for loading the variant; without it the first positions pay for it instead. Nothing that depends on
    where fleets stand (the convoy caches) is made. Calling it again is cheap.
    """
    t = _tables(variant.map)
    if not _standard_movement(hooks_for(variant)):
        return  # the general path asks the variant's hooks and keeps no per-unit tables
    fast = _fast(variant.map, t)
    for code, plausible in enumerate(fast.plausible):
        if plausible:
            fast.unit(code)


def all_legal_orders(variant: Variant, position: Position) -> dict[str, dict[int, list[Order]]]:
    """:func:`legal_orders` for every power at once, sharing the work (reach, convoy routes) between them."""
    kind = variant.calendar.kind(position.phase)
    if kind is _MOVEMENT:
        everyone = _movement(variant, position, variant.power_names)
    elif kind is _RETREATS:
        everyone = {p: _retreats(variant, position, p) for p in variant.power_names}
    else:
        everyone = _adjustments_all(variant, position)
    refused = _refusal(variant)
    return {
        p: {}
        if refused is not None and refused(position, p) is not None
        else _with_extras(variant, position, p, orders)
        for p, orders in everyone.items()
    }


def _refusal(variant: Variant) -> Callable[[Position, str], str | None] | None:
    """The variant's :meth:`RuleHooks.orders_refused` if it has one of its own (1000 AD civil disorder), else
    ``None``: a power whose orders are all refused has no legal order to be offered."""
    derived = variant.derived
    if "legal.refusal" in derived:
        fn: Callable[[Position, str], str | None] | None = derived["legal.refusal"]
        return fn
    hooks = hooks_for(variant)
    fn = None if hooks.is_standard("orders_refused") else hooks.orders_refused
    derived["legal.refusal"] = fn
    return fn


def _extras(variant: Variant) -> RuleHooks | None:
    """The variant's hooks if they add order kinds of their own (:meth:`RuleHooks.extra_legal_orders`)."""
    derived = variant.derived
    if "legal.extras" in derived:
        hit: RuleHooks | None = derived["legal.extras"]
        return hit
    hooks = hooks_for(variant)
    got = None if hooks.is_standard("extra_legal_orders") else hooks
    derived["legal.extras"] = got
    return got


def _with_extras(
    variant: Variant, position: Position, power: str, orders: dict[int, list[Order]]
) -> dict[int, list[Order]]:
    hooks = _extras(variant)
    if hooks is not None:
        hooks.extra_legal_orders(position, power, orders, lambda pos: all_legal_orders(variant, pos))
    return orders


# ------------------------------------------------------------------------------------------------ movement


def _fleet_group(sea_adj: Sequence[Iterable[int]], start: int, fleets: Container[int]) -> list[int]:
    """The seas of ``start``'s connected group of fleets: ``start`` and every fleet sea reached through others."""
    members = [start]
    i = 0
    while i < len(members):
        for q in sea_adj[members[i]]:
            if q in fleets and q not in members:
                members.append(q)
        i += 1
    return members


class _Convoys:
    """Which armies could be carried where by the fleets now at sea, as connected groups of fleets."""

    def __init__(self, t: _Tables, fast: _Fast, fleet_seas: list[int]) -> None:
        self.t = t
        self.fast = fast
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
        """Fleet sea -> destinations it can help carry an army in ``src`` to (see :func:`_route_landings`)."""
        cached = self._routes.get(src)
        if cached is not None:
            return cached
        out = _route_landings(self.fast, src, _mask(self.fleets))
        frozen = {f: frozenset(_bits(ds)) for f, ds in out.items()}
        self._routes[src] = frozen
        return frozen


def _mask(ids: Iterable[int]) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def _bits(m: int) -> list[int]:
    """The ids set in the bit mask ``m``, ascending (taken from the top: one operation fewer a bit)."""
    out = []
    while m:
        b = m.bit_length() - 1
        out.append(b)
        m ^= 1 << b
    out.reverse()
    return out


def _route_landings(fast: _Fast, src: int, fleets: int) -> dict[int, int]:
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
    stack: list[tuple[int, tuple[int, ...], int]] = [(s, (), start) for s in _bits(start & fleets)]
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
            for q in _bits(nexts):
                stack.append((q, path, after))
    return landed


class _Group:
    """A connected group of fleets at sea and what it offers the armies on its shores.

    Cached per map by its seas (a bit mask over province ids): fleets often stay put for phases on end and
    small groups recur, so the convoy orders of an army next to a group, and where the group could carry it
    without one of its fleets, are worked out once. Sets of provinces are bit masks here: a route walk or a
    search of the group then costs an ``&`` or ``|`` per step instead of a loop over a province's neighbours.
    """

    __slots__ = ("_avoiding", "_convoys", "fast", "mask", "shore_mask", "shores")

    def __init__(self, fast: _Fast, mask: int) -> None:
        self.fast = fast
        self.mask = mask
        shore = 0
        shore_mask = fast.shore_mask
        for s in _bits(mask):
            shore |= shore_mask[s]
        self.shore_mask = shore
        """The coastal provinces next to one of its seas (where an army may embark or land)."""
        self.shores = tuple(_bits(shore))
        """The same, ascending (walking a tuple is cheaper than taking a wide mask apart bit by bit)."""
        self._convoys: dict[int, tuple[tuple[int, tuple[Order, ...]], ...]] = {}
        self._avoiding: dict[int, int] = {}

    def convoys(self, src: int) -> tuple[tuple[int, tuple[Order, ...]], ...]:
        """(fleet's unit code, its convoy orders) for the army in ``src``, from :func:`_route_landings`.

        A route never leaves its group, so the answer depends on the group only.
        """
        got = self._convoys.get(src)
        if got is not None:
            return got
        fast = self.fast
        landed = _route_landings(fast, src, self.mask)
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
                for d in _bits(ends):
                    o = carried.get(base + d)
                    if o is None:
                        o = carried[base + d] = _convoy(f, src, d)
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


class _Army:
    """What the groups of fleets next to an army let it and others do: cached per army and set of seas."""

    __slots__ = ("fast", "fleet_orders", "groups", "helpers", "mask", "moves", "only", "r", "supports")

    def __init__(
        self,
        fast: _Fast,
        r: int,
        mask: int,
        groups: list[_Group],
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
        per map through :attr:`_Fast.backing`; this entry keeps its own look-up for the phases to come.
        """
        fast = self.fast
        r = self.r
        ends = fast.reach_mask[c] & self.only
        if c & 1:
            p = fast.t.province_of[c >> 1]
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
            for d in _bits(ends):
                got = made.get(base + d)
                if got is None:
                    got = made[base + d] = _support(kind, c >> 1, "A", r, d)
                out.append(got)
            if len(backing) > 200_000:  # keyed by the games' fleet positions: keep memory bounded
                backing.clear()
            listed = backing[key] = tuple(out)
        self.supports[c] = listed
        return listed


class _Fast:
    """Per-map caches for the standard rules' fast path.

    A unit is a *code*, ``2 * location + (1 if fleet)``, so tables are flat lists indexed by it. A unit's own
    orders depend on its code alone and its supports of a neighbour on the two codes, so each is made
    once and reused in every later phase; a phase only looks up who stands where and joins cached tuples.
    """

    def __init__(self, gmap: GameMap, t: _Tables) -> None:
        self.t = t
        n = 2 * len(t.province_of)
        self.province_count = len(t.sea)
        self.army_adj = gmap.army_adj
        self.units: list[tuple[tuple[Order, ...], tuple[int, ...], list[tuple[Order, ...]]] | None] = [None] * n
        """Unit code -> (its hold and moves, codes of the units it could support in ascending order, its supports
        of each unit by code). The last is a list over every code, mostly empty: the per-phase join indexes it
        once per neighbour present, and a list subscript costs less than a dict look-up (about 3% of a warm
        phase)."""
        self.reach: tuple[tuple[int, ...], ...] = tuple(
            t.fleet_reach[c >> 1] if c & 1 else t.army_adj[t.province_of[c >> 1]] for c in range(n)
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
        self.groups: dict[int, _Group] = {}
        """The seas of a connected group of fleets (a bit mask) -> what it offers."""
        self.armies: tuple[dict[int, _Army], ...] = tuple({} for _ in range(self.province_count))
        """Army's province -> the seas of the groups of fleets next to it (a bit mask) -> what they let it do."""
        # Sets of provinces as bit masks over province ids, for the convoy caches' walks and searches.
        count = self.province_count
        self.shore_mask = tuple(_mask(t.shore_of[p]) for p in range(count))
        self.seas_near = tuple(tuple(sorted(t.seas_next_to[p])) for p in range(count))
        """Province -> the seas next to it."""
        self.near_mask = tuple(_mask(near) for near in self.seas_near)
        self.sea_adj_mask = tuple(_mask(t.sea_adj[p]) for p in range(count))
        self.reach_mask_of = tuple(_mask(t.fleet_reach[p]) if t.sea[p] else 0 for p in range(count))
        """Sea -> every province next to it."""
        self.army_adj_mask = tuple(_mask(gmap.army_adj[p]) for p in range(count))
        self.reach_mask = tuple(_mask(r) for r in self.reach)
        self.backing: dict[tuple[int, int, int], tuple[Order, ...]] = {}
        """(destinations as a mask, helper's code, army's province) -> the helper's supports of the army's moves
        there: see :meth:`_Army.supports_by`."""
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
            me = t.province_of[loc]
            if c & 1:
                kind = "F"
                dests = t.fleet_adj[loc]
            else:
                kind = "A"
                dests = t.army_adj[me]
            own = (_hold(kind, loc), *[_move(kind, loc, d) for d in dests])
            mine = self.reach[c]  # sorted
            codes_at = self.codes_at
            made: dict[int, list[Order]] = {}
            for q in mine:  # to hold: whatever stands in my reach
                for oc in codes_at[q]:
                    made[oc] = [_support(kind, loc, "F" if oc & 1 else "A", oc >> 1, None)]
            reaching = self.reaching
            here = codes_at[me]
            for d in mine:  # to move where I could move
                for oc in reaching[d]:
                    if oc in here:
                        continue
                    s = _support(kind, loc, "F" if oc & 1 else "A", oc >> 1, d)
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

    def army(self, r: int, mask: int, group_of: dict[int, int]) -> _Army:
        """What the fleets in the seas of ``mask`` (every group of fleets next to ``r``, as this phase's
        ``group_of`` found them) let the army in ``r`` and others do, cached per army and mask: fleets stay put
        for phases on end, so nine uses in ten of an entry in the benchmark's games find it made. Its supports
        are made as their supporters come up (a fleet of the groups may support the army's convoyed move only
        where the others could carry it).
        """
        groups: list[_Group] = []
        for s in self.seas_near[r]:
            g = group_of.get(s)  # the seas of the group of the fleet in s (a mask), as this phase found them
            if g is None:
                continue
            group = self.groups.get(g)
            if group is None:
                if len(self.groups) > 50_000:  # keyed by the games' fleet positions: keep memory bounded
                    self.groups.clear()
                group = self.groups[g] = _Group(self, g)
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
                move = carried[r * n + q] = _move("A", r, q, q in land)
            moves.append(move)
            if q not in land:
                only.append(q)
        reaching = self.reaching
        helpers = tuple(frozenset().union(*[reaching[d] for d in only]))
        cached = self.armies[r]
        if len(cached) > 2_000:  # keyed by the games' fleet positions: keep memory bounded
            cached.clear()
        got = cached[mask] = _Army(
            self, r, mask, groups, tuple(moves), fleet_orders, dests & ~self.army_adj_mask[r] & ~(1 << r), helpers
        )
        return got


def _fast(gmap: GameMap, t: _Tables) -> _Fast:
    hit: _Fast | None = gmap.derived.get("legal.fast")
    if hit is not None:
        return hit
    c = gmap.derived["legal.fast"] = _Fast(gmap, t)
    return c


def _movement_fast(
    variant: Variant, position: Position, powers: Sequence[str], t: _Tables
) -> dict[str, dict[int, list[Order]]] | None:
    """The standard rules' fast path: cached per-unit and per-pair orders, plus what convoys add this phase.

    Returns ``None`` for a unit kind other than army and fleet (the general path handles those).
    """
    fast = _fast(variant.map, t)
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
                    members = _fleet_group(sea_adj, s, fleets)
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


def _movement(variant: Variant, position: Position, powers: Sequence[str]) -> dict[str, dict[int, list[Order]]]:
    gmap = variant.map
    t = _tables(gmap)
    hooks = hooks_for(variant)
    plain = _standard_movement(hooks)
    units = position.units
    if plain and not _FORCE_GENERAL:
        fast = _movement_fast(variant, position, powers, t)
        if fast is not None:
            return fast
    fleet_seas = [p for p, u in units.items() if t.sea[p] and _moves_as(hooks, plain, u.kind) == "F"]
    convoys = _Convoys(t, _fast(gmap, t), fleet_seas)

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


def _standard_movement(hooks: RuleHooks) -> bool:
    """:attr:`RuleHooks.standard_movement`, asked once per hooks object (it looks at half a dozen methods)."""
    hit: bool | None = hooks.derived.get("legal.standard_movement")
    if hit is not None:
        return hit
    plain = hooks.derived["legal.standard_movement"] = hooks.standard_movement
    return plain


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


def _adjustments_all(variant: Variant, position: Position) -> dict[str, dict[int, list[Order]]]:
    """Every power's adjustment orders; under the standard adjustment rules in one pass over the position."""
    powers = variant.power_names
    hooks = hooks_for(variant)
    if not _standard_adjustments(variant, hooks):
        return {p: _adjustments(variant, position, p) for p in powers}
    centres = position.centres
    units = position.units
    # The after-Fall check counted this board already (and the phase will again): the count is shared.
    surplus = standard_count(units, centres)
    builds = _site_builds(variant, hooks)
    everyone: dict[str, dict[int, list[Order]]] = {power: {} for power in powers}
    short = False
    for power, d in surplus.items():
        if d > 0:
            out = everyone.get(power)
            if out is None:
                continue
            for site in sorted(position.homes.get(power, ())):
                if site not in units and centres.get(site) == power:
                    listed = builds[site]
                    if listed is None:
                        listed = builds[site] = _builds_at(variant, hooks, position, power, site)
                    if listed:
                        out[site] = list(listed)
        elif d < 0:
            short = True
    if short:  # one removal offered for each unit of a power with more units than centres, by location
        for u in sorted(units.values(), key=_loc_of):
            if surplus.get(u.power, 0) < 0:
                out = everyone.get(u.power)
                if out is not None:
                    key = (u.kind, u.loc)
                    removal = _REMOVALS.get(key)
                    if removal is None:
                        removal = _REMOVALS[key] = Disband(u.kind, u.loc)
                    out[u.loc] = [removal]
    return everyone


_loc_of: Callable[[Unit], int] = attrgetter("loc")

_REMOVALS: dict[tuple[str, int], Disband] = {}
"""(unit kind, location) -> its removal: a power short of centres is offered one for each of its units, phase
after phase, so each is made once."""


def _standard_adjustments(variant: Variant, hooks: RuleHooks) -> bool:
    """Whether no adjustment hook, unit cost or extra build site differs from the standard rules.

    Then a power's builds are its vacant owned home centres, each with every unit kind that can stand
    there, whoever builds and whatever else the position holds; so they are made once per map.
    """
    hit: bool | None = hooks.derived.get("legal.standard_adjustments")
    if hit is not None:
        return hit
    standard = all(
        hooks.is_standard(point)
        for point in ("adjustment_delta", "build_sites", "may_build_kind", "unit_cost", "movement_kind")
    ) and not any(variant.rules.get(rule) for rule in ("unit_costs", "extra_build_centres", "moves_as"))
    hooks.derived["legal.standard_adjustments"] = standard
    return standard


def _site_builds(variant: Variant, hooks: RuleHooks) -> list[tuple[Order, ...] | None]:
    """Province -> its builds and ``Waive`` under the standard rules, filled in as sites come up."""
    gmap = variant.map
    hit: list[tuple[Order, ...] | None] | None = gmap.derived.get("legal.site_builds")
    if hit is not None:
        return hit
    table: list[tuple[Order, ...] | None] = [None] * gmap.province_count
    gmap.derived["legal.site_builds"] = table
    return table


def _builds_at(variant: Variant, hooks: RuleHooks, position: Position, power: str, site: int) -> tuple[Order, ...]:
    locs = (site, *variant.map.provinces[site].coasts)
    builds: list[Order] = [
        Build(kind, loc)
        for kind in _unit_kinds(variant)
        for loc in locs
        if hooks.may_build_kind(position, power, kind, loc)
    ]
    if builds:
        builds.append(Waive())
    return tuple(builds)


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
