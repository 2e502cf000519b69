"""Wars of the Three Kingdoms (W3K): sea areas, conversion, proxy orders, supply transfer, lots, victory.

Everything here is selected by data in ``w3k.toml`` (``[variant] map_hooks = ["w3k_seas"]`` and the
``[rules]`` table), never by the variant's name, so a corrected or derived map keeps working.

Sea movement
    The rulebook groups sea regions into Sea Areas (after the BBC Shipping Forecast): one Primary Sea
    Region and some Local Sea Regions each. The map file says only which area a sea region belongs to and
    what it touches directly (``borders``); :func:`derive_sea_edges` applies the rulebook's two rules to
    produce every fleet move at sea. Keeping the rules in code and the geography in data means a
    correction to one border updates every move that follows from it, which hand-written lists would not.

Rules (the ``w3k`` hook set, ``[rules] hooks = "w3k"``)
    * Convert: a unit in a coastal centre its power owns, ordered to convert in two consecutive movement
      seasons, becomes the other type at the end of the second. Meanwhile it holds (the adjudicator's
      default stand-in), gives no support and may be supported; any attack on it disrupts the conversion.
      Conversions under way live in ``Position.state["w3k_converting"]`` (province abbreviation ->
      the unit type converting), by abbreviation so a saved game survives a corrected map.
    * Proxy orders: the owner's order hands a unit to another power for this season only; only that
      power's order for it counts. Decided before the phase is resolved (:meth:`W3KHooks.prepare_orders`).
    * Supply transfer in Winter: "Send 2 units' supply to Manchester" moves build allowance from the
      sender to the recipient before any builds are judged; builds are then honoured in the order listed.
      A power may not list both builds and removals; removals owed and not ordered are drawn by lots from
      the ``rng`` the caller passes in, and the draw is written into each removal's reason.
    * Mercy position: a power with no centres keeps one unit (it owes removals only beyond one).
    * Victory and draws: :func:`winner` and :func:`draw_powers`, pure functions of a position.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import VariantError, VariantProblem
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import (
    OrderParseError,
    OrderReader,
    format_place,
    format_unit,
    register_format,
    register_syntax,
)
from dippouch.core.orders import Build, Disband, Order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome
from dippouch.core.rules.base import (
    AdjustmentContext,
    MovementSummary,
    RuleHooks,
    mapping_of,
    register_hooks,
    register_victory,
    state_key,
)
from dippouch.core.variant import MAP_HOOKS

if TYPE_CHECKING:
    from dippouch.core.results import OrderResult
    from dippouch.core.variant import Variant

__all__ = [
    "Convert",
    "Proxy",
    "SeaAreas",
    "SendSupply",
    "W3KHooks",
    "derive_sea_edges",
    "draw_powers",
    "sea_areas",
    "winner",
]


class SeaAreas:
    """Sea areas read from a variant's data: membership, roles and direct borders (all by abbreviation)."""

    def __init__(
        self,
        area_of: Mapping[str, str],
        primary: Mapping[str, str],
        direct: Mapping[str, frozenset[str]],
    ) -> None:
        self.area_of = dict(area_of)
        """Sea region -> its area key."""
        self.primary = dict(primary)
        """Area key -> its primary sea region."""
        self.direct = dict(direct)
        """Sea region -> locations it touches directly: other seas and coasts (``"dev/sc"`` for a split coast)."""
        self.members: dict[str, list[str]] = {}
        for sea, area in sorted(self.area_of.items()):
            self.members.setdefault(area, []).append(sea)

    def is_primary(self, sea: str) -> bool:
        return self.primary.get(self.area_of[sea]) == sea

    def neighbours(self, sea: str) -> frozenset[str]:
        """Every location a fleet in ``sea`` may move to, by the rulebook's two rules."""
        area = self.area_of[sea]
        out: set[str] = set(self.members[area]) - {sea}
        if not self.is_primary(sea):
            # "Each Local Sea Region borders: all other Local Sea Regions and the Primary Sea Region of its
            # Sea Area; for any Local Sea Region it borders that aren't in its Sea Area, that region, and
            # that Area's Primary Sea Region; any coastal land regions it borders itself." A foreign primary
            # it touches directly is a sea region it borders directly (the Luce Bay example).
            for t in self.direct[sea]:
                out.add(t)
                if t in self.area_of and self.area_of[t] != area:
                    out.add(self.primary[self.area_of[t]])
            return frozenset(out)
        # "Each Primary Sea Region borders: all Local Sea Regions in its Sea Area; all Local Sea Regions that
        # border its entire Sea Area; the Primary Sea Region of those Sea Areas its Area borders; all
        # coastal land regions bordering or (in the case of islands) within its Sea Area."
        for member in self.members[area]:
            for t in self.direct[member]:
                if t not in self.area_of:
                    out.add(t)  # a coast touching the area
                elif self.area_of[t] != area:
                    other = self.area_of[t]
                    out.add(self.primary[other])
                    if not self.is_primary(t):
                        out.add(t)
        return frozenset(out)


def sea_areas(data: Mapping[str, Any]) -> SeaAreas:
    """Read and check ``[sea_areas]`` and the ``area``/``borders`` keys of sea provinces.

    Raises :class:`VariantError` listing every problem, each with the key path to fix.
    """
    problems: list[VariantProblem] = []
    provinces: Mapping[str, Mapping[str, Any]] = data.get("provinces", {})
    areas: Mapping[str, Any] = data.get("sea_areas", {})
    kinds = {str(k).lower(): str(v.get("type", "")).lower() for k, v in provinces.items()}
    coasts = {str(k).lower(): {str(c).lower() for c in v.get("coasts", {})} for k, v in provinces.items()}

    area_of: dict[str, str] = {}
    for abbr, p in provinces.items():
        if kinds[abbr.lower()] != "sea":
            continue
        area = p.get("area")
        if not isinstance(area, str) or area not in areas:
            close = difflib.get_close_matches(str(area), list(areas), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(
                VariantProblem(f"provinces.{abbr}.area", f"sea region needs the key of a [sea_areas] table{hint}")
            )
            continue
        area_of[abbr.lower()] = area

    primary: dict[str, str] = {}
    for key, spec in areas.items():
        prim = str(spec.get("primary", "")).lower() if isinstance(spec, Mapping) else ""
        if area_of.get(prim) != key:
            problems.append(
                VariantProblem(
                    f"sea_areas.{key}.primary",
                    f"{prim or '(missing)'!r} must be a sea province whose area is {key!r}",
                )
            )
            continue
        primary[key] = prim

    direct: dict[str, set[str]] = {s: set() for s in area_of}
    for sea in area_of:
        raw = provinces[next(k for k in provinces if k.lower() == sea)].get("borders", [])
        if not isinstance(raw, list):
            problems.append(VariantProblem(f"provinces.{sea}.borders", "must be a list of names"))
            continue
        for item in raw:
            name = str(item).strip().lower()
            base, _, coast = name.partition("/")
            kind = kinds.get(base)
            where = f"provinces.{sea}.borders"
            if kind is None:
                close = difflib.get_close_matches(base, list(kinds), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(VariantProblem(where, f"unknown province {name!r}{hint}"))
            elif kind == "sea" and coast:
                problems.append(VariantProblem(where, f"{name!r}: a sea region has no coasts"))
            elif kind not in ("sea", "coast"):
                problems.append(VariantProblem(where, f"{name!r} is a {kind or 'untyped'} province, not a coast"))
            elif kind == "coast" and coasts[base] and coast not in coasts[base]:
                options = ", ".join(f"{base}/{c}" for c in sorted(coasts[base]))
                problems.append(VariantProblem(where, f"{name!r}: name one of its coasts: {options}"))
            elif kind == "coast" and coast and not coasts[base]:
                problems.append(VariantProblem(where, f"{name!r}: {base} has no separate coasts"))
            elif name == sea:
                problems.append(VariantProblem(where, "a region cannot border itself"))
            else:
                direct[sea].add(name)
                if kind == "sea" and name in direct:
                    direct[name].add(sea)
    if problems:
        raise VariantError("sea areas (w3k_seas map hook)", problems)
    return SeaAreas(area_of, primary, {k: frozenset(v) for k, v in direct.items()})


def derive_sea_edges(data: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """The ``w3k_seas`` map hook: every fleet edge from a sea region, derived from the Sea Areas."""
    areas = sea_areas(data)
    edges: set[tuple[str, str]] = set()
    for sea in sorted(areas.area_of):
        for t in areas.neighbours(sea):
            edges.add((sea, t) if sea < t else (t, sea))
    return sorted(edges)


MAP_HOOKS["w3k_seas"] = derive_sea_edges


# --------------------------------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, slots=True)
class Convert(Order):
    """Convert a unit to the other type (army <-> fleet) over two consecutive movement seasons."""

    kind: str | None
    loc: int
    coast: int | None = None
    """For an army becoming a fleet in a province with split coasts: the coast (location id) it will use."""


@dataclass(frozen=True, slots=True)
class Proxy(Order):
    """The owner hands a unit to another power for this season: "Army London is under the orders of B"."""

    kind: str | None
    loc: int
    to: str
    """The power that may order the unit (canonical name)."""
    owner: str | None = None
    """The owner the order names before the unit ("Command of the Protectorate's Army London"), or None."""


@dataclass(frozen=True, slots=True)
class SendSupply(Order):
    """Winter: "Send 2 units' supply to Player C" (builds the sender gives up for the recipient)."""

    count: int
    to: str

    @property
    def unit_loc(self) -> int | None:
        return None


# --------------------------------------------------------------------------------------------------
# Hooks

_PROXIES = "w3k_proxies"
_SUPPLY = "w3k_supply"
_CONVERTING = "w3k_converting"


@register_hooks(
    "w3k",
    describe="Proxy orders: a power may hand a unit to another power for one season; in winter a power may send "
    "the supply of units to another, which may then build beyond its own count. Removals owed and not ordered "
    "are drawn by lots. A power with no centre keeps one unit (the mercy position).",
)
class W3KHooks(RuleHooks):
    """The W3K rules that data cannot express (see the module docstring and docs/variants/w3k.md)."""

    # -- orders decided before the phase is resolved

    def prepare_orders(
        self, position: Position, orders: Mapping[str, Sequence[Order]]
    ) -> tuple[Position, dict[tuple[str, int], tuple[str, str]]]:
        kind = self.variant.calendar.kind(position.phase)
        decided: dict[tuple[str, int], tuple[str, str]] = {}
        state = dict(position.state)
        if kind == PhaseKind.MOVEMENT:
            state[_PROXIES] = self._proxies(position, orders, decided)
        elif kind == PhaseKind.ADJUSTMENTS:
            state[_SUPPLY] = self._transfers(position, orders, decided)
        else:
            for power, olist in orders.items():
                for i, o in enumerate(olist):
                    if isinstance(o, (Proxy, SendSupply)):
                        decided[(power, i)] = ("illegal", "not an order of a retreat phase")
        return position.with_(state=state), decided

    def _proxies(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        decided: dict[tuple[str, int], tuple[str, str]],
    ) -> dict[str, str]:
        gmap = self.variant.map
        handed: dict[str, str] = {}
        for power, olist in orders.items():
            for i, o in enumerate(olist):
                if isinstance(o, SendSupply):
                    decided[(power, i)] = ("illegal", "supply is sent in Winter adjustments only")
                    continue
                if not isinstance(o, Proxy):
                    continue
                prov = gmap.province_of(o.loc)
                unit = position.units.get(prov)
                abbr = gmap.provinces[prov].abbr
                name = gmap.label(prov)
                if unit is None:
                    decided[(power, i)] = ("illegal", f"no unit in {name}")
                elif o.owner is not None and o.owner != unit.power:
                    label = gmap.unit_label(unit.kind, unit.loc)
                    decided[(power, i)] = (
                        "illegal",
                        f"{label} belongs to {unit.power}, not to {o.owner} as the order says",
                    )
                elif unit.power != power:
                    decided[(power, i)] = ("illegal", f"only {unit.power}, its owner, can hand over the unit in {name}")
                elif o.to == power or o.to not in self.variant.power_names:
                    decided[(power, i)] = ("illegal", f"cannot hand a unit to {o.to!r}")
                elif abbr in handed:
                    decided[(power, i)] = (
                        "illegal",
                        f"the unit in {name} is already under the orders of {handed[abbr]}; the first hand-over counts",
                    )
                else:
                    handed[abbr] = o.to
                    decided[(power, i)] = ("succeeds", f"{o.to} orders the unit in {name} this season")
        return handed

    def _transfers(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        decided: dict[tuple[str, int], tuple[str, str]],
    ) -> dict[str, int]:
        net: dict[str, int] = {}
        names = self.variant.power_names
        for power, olist in orders.items():
            available = self._own_delta(position, power)
            for i, o in enumerate(olist):
                if isinstance(o, Proxy):
                    decided[(power, i)] = ("illegal", "units are handed over in movement seasons only")
                    continue
                if not isinstance(o, SendSupply):
                    continue
                if o.to == power or o.to not in names:
                    decided[(power, i)] = ("illegal", f"cannot send supply to {o.to!r}")
                elif o.count < 1:
                    decided[(power, i)] = ("illegal", "send at least one unit's supply")
                elif o.count > available:
                    decided[(power, i)] = (
                        "illegal",
                        f"{power} has {max(available, 0)} unit(s) of excess supply, not {o.count}",
                    )
                else:
                    available -= o.count
                    net[power] = net.get(power, 0) - o.count
                    net[o.to] = net.get(o.to, 0) + o.count
                    decided[(power, i)] = ("succeeds", f"{o.count} unit(s) of supply to {o.to} for this Winter")
            builds = [i for i, o in enumerate(olist) if isinstance(o, Build)]
            removals = [i for i, o in enumerate(olist) if isinstance(o, Disband)]
            if builds and removals:
                why = "a player may not list both builds and removals; any removals owed are drawn by lots"
                for i in builds + removals:
                    decided[(power, i)] = ("illegal", why)
        self._covered_removals(position, orders, net, decided)
        return net

    def _covered_removals(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        net: Mapping[str, int],
        decided: dict[tuple[str, int], tuple[str, str]],
    ) -> None:
        """Removals made unnecessary by supply received this Winter fail (the first ones still owed count).

        The recipient wrote them, legally, before it could know of the transfer, so they are not illegal;
        they are just not carried out ("fails"), and the units stay.
        """
        gmap = self.variant.map
        for power, olist in orders.items():
            received = net.get(power, 0)
            if received <= 0:
                continue
            owed = max(0, -(self._own_delta(position, power) + received))
            for i, o in enumerate(olist):
                if not isinstance(o, Disband) or (power, i) in decided:
                    continue
                unit = position.units.get(gmap.province_of(o.loc))
                if unit is None or unit.power != power:
                    continue  # judged as usual (illegal)
                if owed > 0:
                    owed -= self.unit_cost(unit.kind)
                    continue
                decided[(power, i)] = (
                    "fails",
                    f"no removal needed: supply received this Winter covers {power}'s units",
                )

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        """The owner orders its units, except one handed to another power this season (proxy order)."""
        handed = position.state.get(_PROXIES)
        if handed:
            gmap = self.variant.map
            to = handed.get(gmap.provinces[gmap.province_of(unit.loc)].abbr)
            if to is not None:
                return bool(to == power)
        return unit.power == power

    # -- conversion

    def convert_problem(self, position: Position, power: str, order: Convert) -> str | None:
        """Why ``order`` cannot be a conversion, or ``None`` when it can."""
        gmap = self.variant.map
        prov = gmap.province_of(order.loc)
        p = gmap.provinces[prov]
        unit = position.units.get(prov)
        if unit is None:
            return f"no unit in {gmap.label(prov)}"
        if p.kind != ProvinceKind.COAST or not p.supply_centre:
            return f"{gmap.label(prov)} is not a coastal supply centre"
        if position.centres.get(prov) != unit.power:
            return f"{unit.power} does not own {gmap.label(prov)}"
        if unit.kind == "A" and p.coasts and (order.coast is None or gmap.province_of(order.coast) != prov):
            options = " or ".join(gmap.label(c) for c in p.coasts)
            return f"name the coast the fleet will use: {options}"
        return None

    def order_problem(self, position: Position, power: str, order: Order) -> str | None:
        """A conversion outside a coastal centre its owner owns is illegal; hand-overs and supply transfers
        are decided in :meth:`prepare_orders` and never reach the movement phase."""
        if isinstance(order, Convert):
            return self.convert_problem(position, power, order)
        return "not an order of a movement phase"

    def hand_over(self, position: Position, unit: Unit, power: str) -> tuple[Position, str] | None:
        """An order for another power's unit counts only if its owner hands the unit over this season."""
        gmap = self.variant.map
        abbr = gmap.provinces[gmap.province_of(unit.loc)].abbr
        handed = dict(position.state.get(_PROXIES) or {})
        handed[abbr] = power
        what = f"{gmap.unit_label(unit.kind, unit.loc)} is {unit.power}'s"
        note = (
            f"{what}: this order counts only if {unit.power} hands the unit over to {power} this season "
            f"(its order '{gmap.unit_label(unit.kind, unit.loc)} under orders of {power}'); otherwise it is "
            f"judged illegal and the unit follows {unit.power}'s orders"
        )
        return position.with_(state={**position.state, _PROXIES: handed}), note

    def supply_note(self, position: Position, power: str) -> str | None:
        """Builds beyond a power's own supply count only if another power sends it supply this Winter."""
        return (
            f"beyond {power}'s own supply: this build counts only if another power sends {power} supply this "
            "Winter (Send N supply to ...); otherwise it is judged illegal"
        )

    def extra_order_result(
        self, position: Position, power: str, order: Order, summary: MovementSummary
    ) -> tuple[str, str]:
        # Conversions only: order_problem refused every other extra order, and illegal conversions, before the
        # phase was resolved.
        assert isinstance(order, Convert)
        gmap = self.variant.map
        prov = gmap.province_of(order.loc)
        attackers = summary.attacked.get(prov, ())
        if attackers:
            names = ", ".join(sorted(gmap.label(a) for a in attackers))
            return "disrupted", f"conversion disrupted by the attack from {names}"
        unit = position.units[prov]
        if position.state.get(_CONVERTING, {}).get(gmap.provinces[prov].abbr) == unit.kind:
            return "succeeds", "conversion complete"
        return "succeeds", "conversion begun; order it again next movement season"

    def extra_legal_orders(
        self,
        position: Position,
        power: str,
        orders: dict[int, list[Order]],
        standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
    ) -> None:
        _legal_w3k(self, position, power, orders, standard)

    # -- adjustments

    def _own_delta(self, position: Position, power: str) -> int:
        owned = sum(1 for o in position.centres.values() if o == power)
        cost = sum(self.unit_cost(u.kind) for u in position.units.values() if u.power == power)
        if owned == 0:
            return min(0, 1 - cost)  # the mercy position: one unit is kept without a centre
        return owned - cost

    def adjustment_delta(self, position: Position, power: str) -> int:
        """Owned centres minus units, with the mercy position and this Winter's supply transfers."""
        return self._own_delta(position, power) + int(position.state.get(_SUPPLY, {}).get(power, 0))

    def builds_used(self, order: Order) -> int:
        return order.count if isinstance(order, SendSupply) else super().builds_used(order)

    def adjustment_order(self, ctx: AdjustmentContext, power: str, order: Order) -> tuple[str, str] | None:
        return None  # transfers are decided in prepare_orders; anything else is illegal

    def removal_order(
        self, position: Position, power: str, count: int, rng: random.Random | None
    ) -> tuple[list[int], str]:
        """Removals owed and not ordered are drawn by lots (rulebook: "drawing lots or a similar method")."""
        gmap = self.variant.map
        units = sorted(
            (u for u in position.units.values() if u.power == power),
            key=lambda u: gmap.locations[u.loc].abbr,
        )
        source = "the game's random draw"
        if rng is None:
            phase = self.variant.calendar.name(position.phase)
            rng = random.Random(f"w3k {phase} {power}")
            source = f"a draw seeded with {f'w3k {phase} {power}'!r}"
        pool = list(units)
        drawn: list[Unit] = []
        paid = 0
        while pool and paid < count:
            u = pool.pop(rng.randrange(len(pool)))
            drawn.append(u)
            paid += self.unit_cost(u.kind)
        names = ", ".join(gmap.unit_label(u.kind, u.loc) for u in units)
        picked = ", ".join(gmap.unit_label(u.kind, u.loc) for u in drawn)
        return [gmap.province_of(u.loc) for u in drawn], f"drawn by lots ({source}) among {names}: {picked}"

    # -- phase end: conversions finish, per-season hand-overs and transfers lapse

    def phase_end(self, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
        after = super().phase_end(before, after, results)
        state = dict(after.state)
        state.pop(_PROXIES, None)
        state.pop(_SUPPLY, None)
        converting: dict[str, str] = dict(before.state.get(_CONVERTING, {}))
        units = dict(after.units)
        gmap = self.variant.map
        if self.variant.calendar.kind(before.phase) == PhaseKind.MOVEMENT:
            going: dict[str, str] = {}
            for r in results:
                if not isinstance(r.order, Convert) or r.result != Outcome.SUCCEEDS:
                    continue
                prov = gmap.province_of(r.order.loc)
                unit = before.units[prov]
                if units.get(prov) != unit:
                    continue
                if converting.get(gmap.provinces[prov].abbr) == unit.kind:
                    new_kind = "F" if unit.kind == "A" else "A"
                    loc = (r.order.coast if r.order.coast is not None else prov) if new_kind == "F" else prov
                    units[prov] = Unit(unit.power, new_kind, loc)
                else:
                    going[gmap.provinces[prov].abbr] = unit.kind
            converting = going
        else:
            converting = {
                k: v
                for k, v in converting.items()
                if before.units.get(gmap.province_of(gmap.loc(k))) == units.get(gmap.province_of(gmap.loc(k)))
            }
        if converting:
            state[_CONVERTING] = converting
        else:
            state.pop(_CONVERTING, None)
        return after.with_(units=units, state=state)

    # -- reports: what the W3K rules did, in words

    def phase_notes(self, before: Position, after: Position, results: Sequence[OrderResult]) -> list[str]:
        """Conversions (begun, continued, disrupted, completed, lapsed), hand-overs and supply sent."""
        gmap = self.variant.map
        notes: list[str] = []
        kind = self.variant.calendar.kind(before.phase)
        was: Mapping[str, str] = before.state.get(_CONVERTING) or {}
        still: Mapping[str, str] = after.state.get(_CONVERTING) or {}
        if kind == PhaseKind.MOVEMENT:
            ordered: set[int] = set()
            for r in results:
                if not isinstance(r.order, Convert) or r.automatic:
                    continue
                prov = gmap.province_of(r.order.loc)
                unit = before.units.get(prov)
                if unit is None or r.result == Outcome.ILLEGAL:
                    continue
                ordered.add(prov)
                who = self._unit_words(unit)
                if r.result == Outcome.DISRUPTED:
                    notes.append(f"Conversion disrupted: {who} stays {_A[unit.kind]} ({r.reason}).")
                elif r.result == Outcome.SUCCEEDS and gmap.provinces[prov].abbr in was:
                    new = after.units.get(prov)
                    now = f" (now {gmap.unit_label(new.kind, new.loc)})" if new is not None else ""
                    notes.append(f"Conversion completed: {who} is now {_A.get(_FLIP[unit.kind], 'a unit')}{now}.")
                elif r.result == Outcome.SUCCEEDS:
                    notes.append(
                        f"Conversion begun: {who} is converting to {_A.get(_FLIP[unit.kind], 'a unit')}; it completes "
                        f"when ordered to convert again in the next movement season (an attack on it disrupts it)."
                    )
            for abbr, unit_kind in sorted(was.items()):
                prov = gmap.province_of(gmap.loc(abbr))
                unit = before.units.get(prov)
                if unit is None or prov in ordered:
                    continue
                notes.append(
                    f"Conversion lapsed: {self._unit_words(unit)} was not ordered to convert again, so it stays "
                    f"{_A[unit_kind]}."
                )
            for r in results:
                if isinstance(r.order, Proxy) and r.result == Outcome.SUCCEEDS:
                    unit = before.units.get(gmap.province_of(r.order.loc))
                    if unit is not None:
                        notes.append(
                            f"Hand-over: {self._unit_words(unit)} was under {r.order.to}'s orders this season."
                        )
        else:
            for abbr, unit_kind in sorted(was.items()):
                prov = gmap.province_of(gmap.loc(abbr))
                unit = before.units.get(prov)
                if unit is None:
                    continue
                if abbr in still:
                    notes.append(
                        f"Conversion continues: {self._unit_words(unit)} is converting to "
                        f"{_A.get(_FLIP[unit_kind], 'a unit')}; order it to convert again in the next movement "
                        "season to complete it."
                    )
                else:
                    notes.append(f"Conversion ended: {self._unit_words(unit)} is no longer there.")
            for r in results:
                if isinstance(r.order, SendSupply) and r.result == Outcome.SUCCEEDS:
                    notes.append(
                        f"Supply sent: {r.power} gave {r.order.count} unit(s) of its supply to {r.order.to} this Winter."
                    )
        return notes

    def _unit_words(self, unit: Unit) -> str:
        """``the Crown army in Bristol``: a unit in a report's sentence."""
        variant = self.variant
        adjective = variant.power(unit.power).adjective if unit.power in variant.power_names else unit.power
        return (
            f"the {adjective} {_WORD.get(unit.kind, 'unit')} in {variant.map.label(variant.map.province_of(unit.loc))}"
        )


_WORD = {"A": "army", "F": "fleet"}
_A = {"A": "an army", "F": "a fleet"}
_FLIP = {"A": "F", "F": "A"}


# --------------------------------------------------------------------------------------------------
# Legal orders: Convert, hand-overs and supply transfers, next to the standard ones


def _legal_w3k(
    hooks: W3KHooks,
    position: Position,
    power: str,
    orders: dict[int, list[Order]],
    standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
) -> None:
    """Add W3K's own orders to ``power``'s legal orders (:meth:`W3KHooks.extra_legal_orders`).

    Movement: a Convert for each unit in a coastal centre its power owns (one per coast for an army in a
    province with split coasts), and a hand-over of each of the power's units to every other power. A
    hand-over already decided (``position.state["w3k_proxies"]``, as :meth:`W3KHooks.prepare_orders`
    records it, so a game layer can show the orders the owner has sent so far) moves the unit's orders to
    the recipient, and leaves the owner only its hand-overs: its own orders for the unit would be illegal.
    Winter: every amount of supply from one up to the power's own excess, to every other power, listed
    with each vacant build site as an alternative to building there (like ``Waive``); a power with excess
    supply and nowhere to build lists them under the first centre it owns.
    """
    kind = hooks.variant.calendar.kind(position.phase)
    if kind == PhaseKind.MOVEMENT:
        _legal_movement(hooks, position, power, orders, standard)
    elif kind == PhaseKind.ADJUSTMENTS:
        _legal_transfers(hooks, position, power, orders)


def _converts(hooks: W3KHooks, position: Position, unit: Unit) -> list[Order]:
    gmap = hooks.variant.map
    prov = gmap.province_of(unit.loc)
    coasts = gmap.provinces[prov].coasts if unit.kind == "A" else ()
    candidates = [Convert(unit.kind, unit.loc, c) for c in coasts] if coasts else [Convert(unit.kind, unit.loc)]
    return [c for c in candidates if hooks.convert_problem(position, unit.power, c) is None]


def _legal_movement(
    hooks: W3KHooks,
    position: Position,
    power: str,
    orders: dict[int, list[Order]],
    standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
) -> None:
    variant = hooks.variant
    gmap = variant.map
    others = [p for p in variant.power_names if p != power]
    handed: Mapping[str, str] = position.state.get(_PROXIES) or {}
    unhanded: Mapping[str, Mapping[int, Sequence[Order]]] | None = None
    for prov, unit in position.units.items():
        to = handed.get(gmap.provinces[prov].abbr)
        if unit.power == power:
            proxies: list[Order] = [Proxy(unit.kind, unit.loc, p) for p in others]
            if to is not None and to != power:
                orders[unit.loc] = proxies
                continue
            listed = orders.setdefault(unit.loc, [])
            listed.extend(_converts(hooks, position, unit))
            listed.extend(proxies)
        elif to == power:
            # The unit's ordinary orders (and conversion) as its owner would have them without the hand-over;
            # only the owner may hand it on.
            if unhanded is None:  # worked out once, however many units were handed to this power
                unhanded = standard(position.with_(state=_without(position.state, _PROXIES)))
            owner = unhanded.get(unit.power, {})
            orders[unit.loc] = [o for o in owner.get(unit.loc, ()) if not isinstance(o, Proxy)]


def _legal_transfers(hooks: W3KHooks, position: Position, power: str, orders: dict[int, list[Order]]) -> None:
    excess = hooks._own_delta(position, power)  # received supply cannot be sent on
    if excess < 1:
        return
    names = hooks.variant.power_names
    sends: list[Order] = [SendSupply(n, p) for p in names if p != power for n in range(1, excess + 1)]
    sites = [k for k, listed in orders.items() if any(isinstance(o, Build) for o in listed)]
    if not sites:
        owned = sorted(p for p, o in position.centres.items() if o == power)
        sites = owned[:1]
    for site in sites:
        orders.setdefault(site, []).extend(sends)


def _without(state: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != key}


# --------------------------------------------------------------------------------------------------
# Victory and draws (pure functions the game layer calls at the end of a year)


def _capitals(variant: Variant) -> dict[str, list[int]]:
    gmap = variant.map
    caps = variant.victory.get("capitals", {})
    return {str(k): [gmap.province_of(gmap.loc(str(n))) for n in v] for k, v in dict(caps).items()}


def winner(variant: Variant, position: Position) -> str | None:
    """The power that has won: ``[victory] centres`` centres and one capital of each kingdom, else ``None``."""
    need = int(variant.victory.get("centres", 55))
    caps = _capitals(variant)
    for power in variant.power_names:
        owned = {p for p, o in position.centres.items() if o == power}
        if len(owned) >= need and all(owned & set(c) for c in caps.values()):
            return power
    return None


def draw_powers(variant: Variant, position: Position) -> list[str] | None:
    """The powers that may share a draw now, or ``None`` if no draw is possible.

    "To draw, a group of players must eliminate all players that do not control both of one country's
    potential capital cities": every power still in the game (with a unit or a centre) must hold both
    capitals of some kingdom.
    """
    caps = _capitals(variant)
    alive = [
        p
        for p in variant.power_names
        if any(u.power == p for u in position.units.values()) or p in position.centres.values()
    ]
    for power in alive:
        owned = {p for p, o in position.centres.items() if o == power}
        if not any(set(c) <= owned for c in caps.values()):
            return None
    return alive or None


# --------------------------------------------------------------------------------------------------
# Notation: active in variants whose [rules] table sets ``w3k_orders = true``

_CONVERT_WORDS = ("convert", "converts", "conversion", "cv")
_SEND_WORDS = ("send", "sends", "transfer", "transfers", "give", "gives", "allocate", "allocates")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def _power_name(r: OrderReader) -> str:
    """The rest of the order as a power name (``Player Manchester``, ``the Crown``, ``Irish Confederacy``)."""
    r.accept(("player", "the"))
    words = r.raw[r.pos :]
    text = " ".join(w for w in words if w not in (".", ";", ","))
    if not text:
        raise r.fail("name the power, e.g. 'to Manchester'", token="")
    try:
        name = r.variant.power(text).name
    except KeyError as e:
        raise r.fail(str(e.args[0]), token=text) from None
    r.pos = len(r.words)
    return name


def _read_w3k(r: OrderReader) -> Order | None:
    """Convert, proxy and supply-transfer orders, and "Build an Army at Fort William"."""
    first = r.peek()
    if first in _SEND_WORDS:
        r.pos += 1
        word = r.peek() or ""
        count = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
        if count is None:
            raise r.fail("say how many units' supply to send: 'Send 2 units' supply to Manchester'")
        r.pos += 1
        while not r.at_end() and r.peek() != "to":
            r.pos += 1  # "units' supply", "unit's supply", "supply", "builds"
        if not r.accept(("to",)):
            raise r.fail("say who receives the supply: 'Send 2 units' supply to Manchester'", token="")
        return SendSupply(count, _power_name(r))
    if first in ("build", "builds") and (r.peek(1) in ("a", "an") and r.peek(2) in ("army", "fleet")):
        r.pos += 2
        kind = r.kind()
        if kind is None:
            return None
        r.accept(("at", "in", "on"))
        return Build(kind, r.location())
    if first == "command" and r.peek(1) == "of":
        r.pos += 2
        owner = r.owner()
        kind, loc = r.unit()
        r.accept(("is",))
        if not (r.accept(("offered", "given", "handed")) and r.accept(("to",))):
            raise r.fail("write 'Command of Army London is offered to Manchester'")
        return Proxy(kind, loc, _power_name(r), owner)
    if first in _CONVERT_WORDS:
        r.pos += 1
        kind, loc = r.unit()
        return _convert_tail(r, kind, loc)
    owner = r.owner()
    try:
        kind, loc = r.unit()
    except OrderParseError:
        return None
    if owner is None and r.accept(_CONVERT_WORDS):
        return _convert_tail(r, kind, loc)
    r.accept(("is",))
    if r.accept(("under", "proxy")):
        r.accept(("the",))
        r.accept(("orders", "order", "command"))
        r.accept(("of", "to"))
        return Proxy(kind, loc, _power_name(r), owner)
    return None


def _convert_tail(r: OrderReader, kind: str | None, loc: int) -> Convert:
    coast = None
    if r.accept(("to", "into", "-")):
        r.accept(("a", "an"))
        r.kind()
        if not r.at_end():
            # "to F cae/nc", or just the coast of the unit's own province: "to Fleet (North Coast)".
            own = r._coast(loc)
            coast = own if own != loc else r.location("coast")
    return Convert(kind, loc, coast)


def _format_convert(variant: Variant, order: Order, full: bool) -> str:
    assert isinstance(order, Convert)
    head = format_unit(variant, order.kind, order.loc, full=full) + " convert"
    return head if order.coast is None else f"{head} to F {format_place(variant, order.coast, full=full)}"


def _format_proxy(variant: Variant, order: Order, full: bool) -> str:
    assert isinstance(order, Proxy)
    owner = "" if order.owner is None else f"{order.owner} " if order.kind else f"{order.owner}'s "
    return f"{owner}{format_unit(variant, order.kind, order.loc, full=full)} under orders of {order.to}"


def _format_send(variant: Variant, order: Order, full: bool) -> str:
    assert isinstance(order, SendSupply)
    return f"Send {order.count} supply to {order.to}"


register_syntax("w3k_orders", _read_w3k, verbs=("convert", "send"))
register_victory(
    "w3k_capitals",
    winner,
    draw_powers,
    describe_victory="The winner must also hold one capital of each kingdom (England: London or York; Scotland: "
    "Edinburgh or Glasgow; Ireland: Dublin or Belfast).",
    describe_draw="A draw is only between kingdoms: every power still in the game must hold both capitals of one "
    "kingdom (London and York, Edinburgh and Glasgow, or Dublin and Belfast); then the survivors may agree it "
    "by unanimous vote.",
)
register_format(Convert, _format_convert)
register_format(Proxy, _format_proxy)
register_format(SendSupply, _format_send)


# --------------------------------------------------------------------------------------------------
# State read from outside (the adjudication contract, imported games): each key's shape, checked on reading


def _province_key(variant: Variant, kinds: tuple[str, ...]) -> Callable[[str], str | None]:
    def ok(abbr: str) -> str | None:
        try:
            prov = variant.map.province(abbr)
        except KeyError:
            return "no such province"
        return None if prov.kind.value in kinds else f"not a {' or '.join(kinds)} province"

    return ok


def _power_key(variant: Variant) -> Callable[[str], str | None]:
    return lambda name: None if name in variant.power_names else f"not a power ({', '.join(variant.power_names)})"


@state_key(_CONVERTING)
def _check_converting(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        _province_key(variant, ("coast",)),
        lambda kind: None if kind in ("A", "F") else 'the unit type converting is "A" or "F"',
    )


@state_key(_PROXIES)
def _check_proxies(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        _province_key(variant, ("land", "coast", "sea")),
        lambda power: None if power in variant.power_names else "the unit is handed to a power by name",
    )


@state_key(_SUPPLY)
def _check_supply(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        _power_key(variant),
        lambda n: None if type(n) is int and -100 <= n <= 100 else "a number of units' supply (-100 to 100)",
    )
