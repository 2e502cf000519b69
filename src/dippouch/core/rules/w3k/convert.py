"""W3K's conversion: a unit in a coastal centre its power owns becomes the other type (army <-> fleet).

Ordered in two consecutive movement seasons, the conversion completes at the end of the second. Meanwhile the
unit holds (the adjudicator's default stand-in), gives no support and may be supported; any attack on it
disrupts the conversion. Conversions under way live in ``Position.state["w3k_converting"]``.

This module is the order kind's one home: its value, when it is legal, its legal orders, how it is read and
written, how it is drawn, and the check of its state key. The season's bookkeeping (completing or dropping a
conversion at the end of a phase, the report's sentences) is in :mod:`.hooks`, with the other kinds'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.lookup import Drawing, register_order_kind, register_unit_badge
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import Arg, Msg, choices, msg
from dippouch.core.notation import (
    OrderReader,
    format_place,
    format_unit,
    register_format,
    register_syntax,
)
from dippouch.core.orders import Order
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import mapping_of, state_key
from dippouch.core.rules.w3k.common import CONVERTING, ORDERS_RULE, PROXIES, province_key

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["Convert", "add_legal_converts", "convert_problem", "legal_converts"]

I18N_DOMAIN = "rules"
"""The catalogue of these rules' refusals and reasons (:mod:`dippouch.core.messages`)."""


@dataclass(frozen=True, slots=True)
class Convert(Order):
    """Convert a unit to the other type (army <-> fleet) over two consecutive movement seasons."""

    kind: str | None
    loc: int
    coast: int | None = None
    """For an army becoming a fleet in a province with split coasts: the coast (location id) it will use."""


def convert_problem(variant: Variant, position: Position, order: Convert) -> Msg | None:
    """Why ``order`` cannot be a conversion, or ``None`` when it can."""
    gmap = variant.map
    prov = gmap.province_of(order.loc)
    p = gmap.provinces[prov]
    unit = position.units.get(prov)
    if unit is None:
        return msg("no unit in %(place)s", place=gmap.label(prov))
    if p.kind != ProvinceKind.COAST or not p.supply_centre:
        return msg("%(place)s is not a coastal supply centre", place=gmap.label(prov))
    if position.centres.get(prov) != unit.power:
        return msg("%(power)s does not own %(place)s", power=unit.power, place=gmap.label(prov))
    if unit.kind == "A" and p.coasts and (order.coast is None or gmap.province_of(order.coast) != prov):
        options: Arg = ""
        for c in p.coasts:
            label = gmap.label(c)
            options = label if not options else choices((options, label))
        return msg("name the coast the fleet will use: %(options)s", options=options)
    return None


def legal_converts(variant: Variant, position: Position, unit: Unit) -> list[Order]:
    """The unit's legal conversions: one, or for an army in a province with split coasts one per coast."""
    gmap = variant.map
    prov = gmap.province_of(unit.loc)
    coasts = gmap.provinces[prov].coasts if unit.kind == "A" else ()
    candidates = [Convert(unit.kind, unit.loc, c) for c in coasts] if coasts else [Convert(unit.kind, unit.loc)]
    return [c for c in candidates if convert_problem(variant, position, c) is None]


def add_legal_converts(
    hooks: Any,
    position: Position,
    power: str,
    orders: dict[int, list[Order]],
    standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
) -> None:
    """Movement: add a Convert for each of ``power``'s units in a coastal centre it owns (one per coast for
    an army in a province with split coasts), unless it is handed to another power this season: its owner
    may then only hand it over (:func:`.hand_over.add_legal_hand_overs`)."""
    variant = hooks.variant
    if variant.calendar.kind(position.phase) != PhaseKind.MOVEMENT:
        return
    provinces = variant.map.provinces
    handed: Mapping[str, str] = position.state.get(PROXIES) or {}
    for prov, unit in position.units.items():
        if unit.power == power and handed.get(provinces[prov].abbr, power) == power:
            orders.setdefault(unit.loc, []).extend(legal_converts(variant, position, unit))


# -- notation

CONVERT_WORDS = ("convert", "converts", "conversion", "cv")


def _read_convert(r: OrderReader) -> Order | None:
    """``Convert F Dublin``, ``Army Cork converts to Fleet (South Coast)``."""
    if r.peek() in CONVERT_WORDS:
        r.pos += 1
        kind, loc = r.unit()
        return _convert_tail(r, kind, loc)
    owner = r.owner()
    unit = r.unit_or_none()
    if unit is None:
        return None
    kind, loc = unit
    if owner is None and r.accept(CONVERT_WORDS):
        return _convert_tail(r, kind, loc)
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


# -- drawing: a dash-dotted ring round the unit; a lettered badge beside a unit converting


def _converting(variant: Variant, position: Position) -> dict[str, tuple[str, str]]:
    """Province abbreviation -> ("converting", the type it becomes) for each unit converting."""
    converting = position.state.get(CONVERTING)
    if not isinstance(converting, Mapping) or not converting:
        return {}
    provinces = variant.map.provinces
    out: dict[str, tuple[str, str]] = {}
    for prov, u in position.units.items():
        abbr = provinces[prov].abbr
        if abbr in converting:
            out[abbr] = ("converting", "F" if u.kind == "A" else "A")
    return out


@state_key(CONVERTING)
def _check_converting(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        province_key(variant, ("coast",)),
        lambda kind: None if kind in ("A", "F") else 'the unit type converting is "A" or "F"',
    )


register_syntax(ORDERS_RULE, _read_convert, verbs=("convert",))
register_format(Convert, _format_convert)
register_order_kind(
    Convert,
    lambda o: Drawing("ring", "convert", unit=o.loc),
    rule=ORDERS_RULE,
    key=("convert", "ring"),
    legal=add_legal_converts,
)
register_unit_badge(_converting)
