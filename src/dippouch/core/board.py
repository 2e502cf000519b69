"""The board as the adjudicator, the order checks and legal-order listing read it: per-map tables and
per-phase convoy routes.

:func:`tables` compiles a map's look-ups to plain tuples once, the one per-map table type of the core (the
movement resolver's hot loop does no attribute or enum work, and legal orders are listed from the same
tables); :class:`BoardRoutes` answers the two convoy questions legality asks (is there a
route, is this fleet on a proper one) over the fleets of one board, remembering the answers for the phase.
Both :mod:`~dippouch.core.movement` and :mod:`~dippouch.core.order_checks` use them, so an order is judged
against the same routes whether it is checked on arrival or adjudicated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.paths import convoy_path_exists, fleet_on_proper_route
from dippouch.core.position import Unit
from dippouch.core.results import Reason

__all__ = ["CONVOY", "HOLD", "MOVE", "NONE", "SUPPORT", "BoardRoutes", "Tables", "tables"]

#: Order codes of the movement resolver (:mod:`dippouch.core.movement`) and its fast loop
#: (:mod:`dippouch.core.fast.movement`): what a province's unit carries out, NONE while it has no order.
NONE, HOLD, MOVE, SUPPORT, CONVOY = -1, 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class Tables:
    """Per-map lookups as plain tuples, so the hot loop does no attribute or enum work."""

    loc_prov: tuple[int, ...]
    sea: tuple[bool, ...]
    army_adj: tuple[frozenset[int], ...]
    fleet_adj: tuple[frozenset[int], ...]
    fleet_reach: tuple[frozenset[int], ...]
    army_ok: tuple[bool, ...]
    """Province id -> an army may stand there (land or coast)."""
    coastal: tuple[bool, ...]
    """Province id -> a coast (where a convoy can start or land)."""
    seas_symmetric: bool
    """Whether fleets pass between sea provinces both ways (every real map): then convoy routes over the
    fleets at sea are found by grouping the fleets once a phase instead of one search per question."""
    sea_coasts: tuple[frozenset[int], ...]
    """Sea province id -> the coastal provinces a fleet there borders (where a convoy through it can start
    or land); empty for other provinces."""
    between: dict[int, tuple[int, ...]]
    """``src * province_count + dst`` -> the sea provinces bordering both coasts, filled as pairs are asked
    (the one-fleet convoy question, asked a few times every phase, then costs no set intersection)."""
    seas: frozenset[int]
    """The sea provinces (under standard unit kinds only fleets stand there)."""
    unmatched: dict[tuple[int, str, int | None], Reason]
    """``(target location, target kind, support destination or None)`` -> why a support of that unit matches
    no order. Most supports in a phase match nothing, and the reason depends on the map alone: one shared
    ``Reason`` per case instead of one made per support and phase."""
    # Ascending tuples for listing legal orders (:mod:`dippouch.core.legal_orders`): walked in a stable order,
    # where the adjudicator asks the sets above for membership.
    army_adj_list: tuple[tuple[int, ...], ...]
    fleet_adj_list: tuple[tuple[int, ...], ...]
    fleet_reach_list: tuple[tuple[int, ...], ...]
    seas_next_to_list: tuple[tuple[int, ...], ...]
    sea_adj: tuple[tuple[int, ...], ...]
    """Sea province -> the sea provinces a fleet there may move to (convoy chains); empty for other provinces."""
    shore_of: tuple[frozenset[int], ...]
    """Province -> the coastal provinces a fleet there may move to (where a convoy may land)."""


def tables(gmap: GameMap) -> Tables:
    """The map's board tables, made once and kept on the map."""
    got: Tables | None = gmap.derived.get("board.tables")
    if got is not None:
        return got
    sea = tuple(p.kind == ProvinceKind.SEA for p in gmap.provinces)
    t = Tables(
        loc_prov=tuple(loc.province for loc in gmap.locations),
        sea=sea,
        army_adj=gmap.army_adj,
        fleet_adj=gmap.fleet_adj,
        fleet_reach=gmap.fleet_reach,
        army_ok=tuple(p.kind in (ProvinceKind.LAND, ProvinceKind.COAST) for p in gmap.provinces),
        coastal=tuple(p.kind == ProvinceKind.COAST for p in gmap.provinces),
        seas_symmetric=all(
            a in gmap.fleet_reach[b]
            for a, pa in enumerate(gmap.provinces)
            if pa.kind == ProvinceKind.SEA
            for b in gmap.fleet_reach[a]
            if gmap.provinces[b].kind == ProvinceKind.SEA
        ),
        sea_coasts=tuple(
            frozenset(
                c for c, q in enumerate(gmap.provinces) if q.kind == ProvinceKind.COAST and s in gmap.seas_next_to[c]
            )
            if p.kind == ProvinceKind.SEA
            else frozenset()
            for s, p in enumerate(gmap.provinces)
        ),
        between={},
        seas=frozenset(s for s, p in enumerate(gmap.provinces) if p.kind == ProvinceKind.SEA),
        unmatched={},
        army_adj_list=tuple(tuple(sorted(a)) for a in gmap.army_adj),
        fleet_adj_list=tuple(tuple(sorted(a)) for a in gmap.fleet_adj),
        fleet_reach_list=tuple(tuple(sorted(a)) for a in gmap.fleet_reach),
        seas_next_to_list=tuple(tuple(sorted(s)) for s in gmap.seas_next_to),
        sea_adj=tuple(
            tuple(sorted(q for q in gmap.fleet_reach[p] if sea[q])) if sea[p] else () for p in range(len(sea))
        ),
        shore_of=tuple(
            frozenset(q for q in gmap.fleet_reach[p] if gmap.provinces[q].kind == ProvinceKind.COAST)
            for p in range(len(sea))
        ),
    )
    gmap.derived["board.tables"] = t
    return t


class BoardRoutes:
    """Convoy routes over the fleets on the board (what legality asks), remembered for one phase.

    The fleets at sea are listed on the first question only: most phases ask none.
    """

    __slots__ = ("_fleets", "_reaches", "gmap", "memo", "mk", "sea", "std", "tab", "units")

    def __init__(
        self,
        gmap: GameMap,
        units: Mapping[int, Unit],
        tab: Tables,
        std: bool,
        mk: Callable[[str], str],
    ) -> None:
        self.gmap = gmap
        self.units = units
        self.tab = tab
        self.sea = tab.sea
        self.std = std
        self.mk = mk
        self._fleets: set[int] | None = None
        self._reaches: list[set[int]] | None = None
        self.memo: dict[tuple[int, int, int, bool], bool] = {}

    @property
    def fleets(self) -> set[int]:
        got = self._fleets
        if got is None:
            sea, mk = self.sea, self.mk
            if self.std:
                units = self.units
                got = {p for p in self.tab.seas.intersection(units) if units[p].kind == "F"}
            else:
                got = {p for p, u in self.units.items() if mk(u.kind) == "F" and sea[p]}
            self._fleets = got
        return got

    def exists(self, src: int, dst: int, avoid: int) -> bool:
        """A route from ``src`` to ``dst`` not through ``avoid`` (-1: none)."""
        tab = self.tab
        coastal = tab.coastal
        if src == dst or not coastal[src] or not coastal[dst]:
            return False  # only coasts are convoy ends
        # The usual route is one fleet bordering both ends: found without listing the fleets.
        key = src * len(coastal) + dst
        both = tab.between.get(key)
        if both is None:
            near = self.gmap.seas_next_to
            both = tab.between[key] = tuple(sorted(near[src] & near[dst]))
        units, std = self.units, self.std
        for s in both:
            u = units.get(s)
            if u is not None and s != avoid and (u.kind if std else self.mk(u.kind)) == "F":
                return True
        fleets = self.fleets
        if (avoid < 0 or avoid not in fleets) and tab.seas_symmetric:
            # Nothing left out: a route exists when one group of fleets in touching seas borders both ends.
            for coasts in self.reaches:  # noqa: SIM110 (a plain loop: any() over a generator costs more here)
                if src in coasts and dst in coasts:
                    return True
            return False
        mkey = (src, dst, avoid, False)
        got = self.memo.get(mkey)
        if got is None:
            got = convoy_path_exists(self.gmap, src, dst, fleets, avoid=avoid if avoid >= 0 else None)
            self.memo[mkey] = got
        return got

    @property
    def reaches(self) -> list[set[int]]:
        """For each group of fleets a convoy can pass between (fleets at sea in touching seas), the coasts
        they border: a convoy route over the fleets exists exactly between two coasts of one group."""
        got = self._reaches
        if got is None:
            fleets = self.fleets
            reach = self.gmap.fleet_reach
            sea_coasts = self.tab.sea_coasts
            seen: set[int] = set()
            got = []
            for f in fleets:
                if f in seen:
                    continue
                group = {f}
                stack = [f]
                while stack:
                    # The fleets next to this one not yet in the group, found by set operations (in C).
                    new = (reach[stack.pop()] & fleets) - group
                    if new:
                        group |= new
                        stack.extend(new)
                seen |= group
                coasts: set[int] = set()
                for g in group:
                    coasts |= sea_coasts[g]
                got.append(coasts)
            self._reaches = got
        return got

    def proper(self, src: int, dst: int, fleet: int) -> bool:
        """Whether the fleet at ``fleet`` is on a proper route (DATC 4.E.1: necessary for some route)."""
        near = self.gmap.seas_next_to
        if src != dst and fleet in near[src] and fleet in near[dst]:
            # A fleet bordering both ends is a route of its own, and a proper one (asked about the fleet
            # giving the convoy order, so there is a fleet at sea there).
            tab = self.tab
            u = self.units.get(fleet)
            if (
                u is not None
                and tab.coastal[src]
                and tab.coastal[dst]
                and (u.kind if self.std else self.mk(u.kind)) == "F"
                and self.sea[fleet]
            ):
                return True
        key = (src, dst, fleet, True)
        got = self.memo.get(key)
        if got is None:
            got = fleet_on_proper_route(self.gmap, src, dst, self.fleets, fleet)
            self.memo[key] = got
        return got
