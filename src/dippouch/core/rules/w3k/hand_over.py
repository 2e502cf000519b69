"""W3K's hand-over (proxy order): the owner hands a unit to another power for this season only.

"Army London is under the orders of Manchester": only that power's order for the unit then counts. Hand-overs
are decided before the phase is resolved (:meth:`.hooks.W3KHooks.prepare_orders`) and recorded in
``Position.state["w3k_proxies"]`` for the season.

This module is the order kind's one home: its value, its legal orders (which also decide who may order a
handed unit), how it is read and written, how it is drawn, and the check of its state key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.lookup import Drawing, register_order_kind
from dippouch.core.messages import msg
from dippouch.core.notation import OrderReader, format_unit, register_format, register_syntax
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.rules.base import mapping_of, state_key
from dippouch.core.rules.w3k.common import ORDERS_RULE, PROXIES, power_name, province_key, without

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["Proxy", "add_legal_hand_overs"]


@dataclass(frozen=True, slots=True)
class Proxy(Order):
    """The owner hands a unit to another power for this season: "Army London is under the orders of B"."""

    kind: str | None
    loc: int
    to: str
    """The power that may order the unit (canonical name)."""
    owner: str | None = None
    """The owner the order names before the unit ("Command of the Protectorate's Army London"), or None."""


def add_legal_hand_overs(
    hooks: Any,
    position: Position,
    power: str,
    orders: dict[int, list[Order]],
    standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
) -> None:
    """Movement: add a hand-over of each of ``power``'s units to every other power, after the unit's other
    orders (its conversions, added before: :func:`.convert.add_legal_converts`).

    A hand-over already decided (``position.state["w3k_proxies"]``, as :meth:`W3KHooks.prepare_orders`
    records it, so a game layer can show the orders the owner has sent so far) moves the unit's orders to
    the recipient, and leaves the owner only its hand-overs: its own orders for the unit would be illegal.
    """
    variant = hooks.variant
    if variant.calendar.kind(position.phase) != PhaseKind.MOVEMENT:
        return
    gmap = variant.map
    others = [p for p in variant.power_names if p != power]
    handed: Mapping[str, str] = position.state.get(PROXIES) or {}
    unhanded: Mapping[str, Mapping[int, Sequence[Order]]] | None = None
    for prov, unit in position.units.items():
        to = handed.get(gmap.provinces[prov].abbr)
        if unit.power == power:
            proxies: list[Order] = [Proxy(unit.kind, unit.loc, p) for p in others]
            if to is not None and to != power:
                orders[unit.loc] = proxies
                continue
            orders.setdefault(unit.loc, []).extend(proxies)
        elif to == power:
            # The unit's ordinary orders (and conversion) as its owner would have them without the hand-over;
            # only the owner may hand it on.
            if unhanded is None:  # worked out once, however many units were handed to this power
                unhanded = standard(position.with_(state=without(position.state, PROXIES)))
            owner = unhanded.get(unit.power, {})
            orders[unit.loc] = [o for o in owner.get(unit.loc, ()) if not isinstance(o, Proxy)]


# -- notation


def _read_proxy(r: OrderReader) -> Order | None:
    """``Army London is under the orders of Manchester``, ``Command of Army London is offered to Manchester``."""
    if r.peek() == "command" and r.peek(1) == "of":
        r.pos += 2
        owner = r.owner()
        kind, loc = r.unit()
        r.accept(("is",))
        if not (r.accept(("offered", "given", "handed")) and r.accept(("to",))):
            raise r.fail(msg("write 'Command of Army London is offered to Manchester'"))
        return Proxy(kind, loc, power_name(r), owner)
    owner = r.owner()
    unit = r.unit_or_none()
    if unit is None:
        return None
    kind, loc = unit
    r.accept(("is",))
    if r.accept(("under", "proxy")):
        r.accept(("the",))
        r.accept(("orders", "order", "command"))
        r.accept(("of", "to"))
        return Proxy(kind, loc, power_name(r), owner)
    return None


def _format_proxy(variant: Variant, order: Order, full: bool) -> str:
    assert isinstance(order, Proxy)
    owner = "" if order.owner is None else f"{order.owner} " if order.kind else f"{order.owner}'s "
    return f"{owner}{format_unit(variant, order.kind, order.loc, full=full)} under orders of {order.to}"


@state_key(PROXIES)
def _check_proxies(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        province_key(variant, ("land", "coast", "sea")),
        lambda power: None if power in variant.power_names else "the unit is handed to a power by name",
    )


register_syntax(ORDERS_RULE, _read_proxy)
register_format(Proxy, _format_proxy)
# A ring in the colour of the power the unit is handed to, with a tag bearing its letter.
register_order_kind(
    Proxy,
    lambda o: Drawing("hand_over", "proxy", unit=o.loc, power=o.to),
    rule=ORDERS_RULE,
    key=("proxy", "hand_over"),
    legal=add_legal_hand_overs,
)
