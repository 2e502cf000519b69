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

Generation is on the hot path of bots and the benchmark, so it works on integer ids and the map's board
tables (:func:`dippouch.core.board.tables`), and calls the variant's rule hooks only when the variant changes
movement. This module is the readable way (:func:`_movement`, every hook asked); under the standard movement
rules most orders are facts of the map, and the fast path in :mod:`dippouch.core.fast.legal_orders` joins
them from per-map caches instead. Both list the same orders; tests hold the two together. A unit's list
starts with its hold; the order of the rest follows the caches and is not part of the contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter

from dippouch.core.adjustments import standard_count
from dippouch.core.board import Tables, tables
from dippouch.core.calendar import PhaseKind
from dippouch.core.fast.legal_orders import Fast, fast_tables, ids_in, mask_of, movement_orders, route_landings
from dippouch.core.messages import Msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = ["all_legal_orders", "legal_orders", "legal_orders_given", "prepare"]


#: Tests set this to check the standard rules' fast path against the general one.
_FORCE_GENERAL = False

#: The last position worked out by :func:`legal_orders`, as one tuple (variant, position, power -> orders not
#: yet handed out, the variant's refusal hook), replaced whole: a thread reads one consistent entry, and
#: ``dict.pop`` hands each list out once even when threads ask at the same time. Positions are values (never
#: changed in place), so the same object means the same answer.
_LAST: list[
    tuple[Variant, Position, dict[str, dict[int, list[Order]]], Callable[[Position, str], Msg | None] | None] | None
] = [None]

# Enum members read through the class go through the enum metaclass's attribute hook (Python 3.11): read once.
_MOVEMENT = PhaseKind.MOVEMENT
_RETREATS = PhaseKind.RETREATS


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


def legal_orders_given(
    variant: Variant, position: Position, power: str, sent: Mapping[str, Sequence[Order]]
) -> dict[int, list[Order]]:
    """:func:`legal_orders` for ``power`` once the orders the other powers have sent so far (``sent``, power
    -> orders) are counted: what they decide before the phase is judged (:meth:`RuleHooks.prepare_orders`)
    can change what ``power`` may order. W3K: a unit its owner hands to ``power`` this season (a proxy order)
    is listed with its orders, so a player can pick orders for it as for their own; supply another power
    sends in Winter counts towards ``power``'s builds.

    ``power``'s own orders in ``sent`` are left out: its own draft does not narrow its list (a hand-over it
    has written can still be replaced by an order for the unit). Variants that decide nothing before the
    phase is judged get :func:`legal_orders` unchanged.
    """
    hooks = hooks_for(variant)
    others = {p: list(orders) for p, orders in sent.items() if p != power and orders}
    if not others or hooks.is_standard("prepare_orders"):
        return legal_orders(variant, position, power)
    judged, _ = hooks.prepare_orders(position, others)
    return legal_orders(variant, judged, power)


def prepare(variant: Variant) -> None:
    """Build the per-map tables :func:`legal_orders` uses now, rather than as units first come up.

    What is built here is a fact of the map and the standard rules, not of any position: each unit's hold,
    moves and supports of every unit that could stand or arrive next to it (some 3,700 supports on the
    standard map). A long-running process (a server, a bot, the benchmark) pays for it once at start-up, as
    for loading the variant; without it the first positions pay for it instead. Nothing that depends on
    where fleets stand (the convoy caches) is made. Calling it again is cheap.
    """
    t = tables(variant.map)
    if not _standard_movement(hooks_for(variant)):
        return  # the general path asks the variant's hooks and keeps no per-unit tables
    fast = fast_tables(variant.map, t)
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


def _refusal(variant: Variant) -> Callable[[Position, str], Msg | None] | None:
    """The variant's :meth:`RuleHooks.orders_refused` if it has one of its own (1000 AD civil disorder), else
    ``None``: a power whose orders are all refused has no legal order to be offered."""
    derived = variant.derived
    if "legal.refusal" in derived:
        fn: Callable[[Position, str], Msg | None] | None = derived["legal.refusal"]
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


class _Convoys:
    """Which armies could be carried where by the fleets now at sea, as connected groups of fleets."""

    def __init__(self, t: Tables, fast: Fast, fleet_seas: list[int]) -> None:
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
            for s in t.seas_next_to_list[province]:
                g = self.group.get(s)
                if g is not None and g not in seen:
                    seen.add(g)
                    out |= self.shores[g]
        else:
            key = (province, avoid)
            cached = self._avoiding.get(key)
            if cached is not None:
                return cached
            stack = [s for s in t.seas_next_to_list[province] if s in self.fleets and s != avoid]
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
        """Fleet sea -> destinations it can help carry an army in ``src`` to (see :func:`route_landings`)."""
        cached = self._routes.get(src)
        if cached is not None:
            return cached
        out = route_landings(self.fast, src, mask_of(self.fleets))
        frozen = {f: frozenset(ids_in(ds)) for f, ds in out.items()}
        self._routes[src] = frozen
        return frozen


def _movement(variant: Variant, position: Position, powers: Sequence[str]) -> dict[str, dict[int, list[Order]]]:
    gmap = variant.map
    t = tables(gmap)
    hooks = hooks_for(variant)
    plain = _standard_movement(hooks)
    units = position.units
    if plain and not _FORCE_GENERAL:
        fast = movement_orders(variant, position, powers, t)
        if fast is not None:
            return fast
    fleet_seas = [p for p, u in units.items() if t.sea[p] and _moves_as(hooks, plain, u.kind) == "F"]
    convoys = _Convoys(t, fast_tables(gmap, t), fleet_seas)

    # Where each unit could move (province ids, coasts ignored) by land or sea, and by convoy.
    reach: dict[int, tuple[int, ...]] = {}
    convoy_reach: dict[int, set[int]] = {}
    for p, u in units.items():
        mk = _moves_as(hooks, plain, u.kind)
        if mk == "F":
            here = t.fleet_reach_list[u.loc]
        elif mk == "A":
            here = t.army_adj_list[p]
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
            for dest in t.fleet_adj_list[loc]:
                if plain or hooks.may_enter(u, t.loc_prov[dest]):
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
