"""W3K's supply transfer in Winter: "Send 2 units' supply to Manchester".

Build allowance moves from the sender to the recipient before any builds are judged
(:meth:`.hooks.W3KHooks.prepare_orders`); this Winter's net transfers live in ``Position.state["w3k_supply"]``.

This module is the order kind's one home: its value, its legal orders, how it is read and written, how it
is drawn (a line under the legend: a transfer has no place on the map), and the check of its state key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.lookup import Drawing, register_order_kind
from dippouch.core.messages import msg
from dippouch.core.notation import OrderReader, register_format, register_syntax
from dippouch.core.orders import Build, Order
from dippouch.core.position import Position
from dippouch.core.rules.base import mapping_of, state_key
from dippouch.core.rules.w3k.common import ORDERS_RULE, SUPPLY, power_key, power_name

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = ["SendSupply", "add_legal_transfers"]


@dataclass(frozen=True, slots=True)
class SendSupply(Order):
    """Winter: "Send 2 units' supply to Player C" (builds the sender gives up for the recipient)."""

    count: int
    to: str

    @property
    def unit_loc(self) -> int | None:
        return None


def add_legal_transfers(
    hooks: Any,
    position: Position,
    power: str,
    orders: dict[int, list[Order]],
    standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
) -> None:
    """Winter: add every amount of supply from one up to the power's own excess, to every other power,
    listed with each vacant build site as an alternative to building there (like ``Waive``); a power with
    excess supply and nowhere to build lists them under the first centre it owns. Received supply cannot
    be sent on (the excess is the power's own: :meth:`W3KHooks._own_delta`)."""
    variant = hooks.variant
    if variant.calendar.kind(position.phase) != PhaseKind.ADJUSTMENTS:
        return
    excess = hooks._own_delta(position, power)
    if excess < 1:
        return
    names = variant.power_names
    sends: list[Order] = [SendSupply(n, p) for p in names if p != power for n in range(1, excess + 1)]
    sites = [k for k, listed in orders.items() if any(isinstance(o, Build) for o in listed)]
    if not sites:
        owned = sorted(p for p, o in position.centres.items() if o == power)
        sites = owned[:1]
    for site in sites:
        orders.setdefault(site, []).extend(sends)


# -- notation

SEND_WORDS = ("send", "sends", "transfer", "transfers", "give", "gives", "allocate", "allocates")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def _read_send(r: OrderReader) -> Order | None:
    """``Send 2 units' supply to Manchester``, ``Transfer one supply to the Crown``."""
    if r.peek() not in SEND_WORDS:
        return None
    r.pos += 1
    word = r.peek() or ""
    # ASCII digits only: str.isdigit also takes '²', which int refuses (a typed order is never a traceback)
    count = int(word) if word.isascii() and word.isdigit() and len(word) <= 6 else NUMBER_WORDS.get(word)
    if count is None:
        raise r.fail(msg("say how many units' supply to send: 'Send 2 units' supply to Manchester'"))
    r.pos += 1
    while not r.at_end() and r.peek() != "to":
        r.pos += 1  # "units' supply", "unit's supply", "supply", "builds"
    if not r.accept(("to",)):
        raise r.fail(msg("say who receives the supply: 'Send 2 units' supply to Manchester'"), token="")
    return SendSupply(count, power_name(r))


def _read_build(r: OrderReader) -> Order | None:
    """W3K's phrasing of a standard build: ``Build an Army at Fort William``."""
    if not (r.peek() in ("build", "builds") and r.peek(1) in ("a", "an") and r.peek(2) in ("army", "fleet")):
        return None
    r.pos += 2
    kind = r.kind()
    if kind is None:
        return None
    r.accept(("at", "in", "on"))
    return Build(kind, r.location())


def _format_send(variant: Variant, order: Order, full: bool) -> str:
    assert isinstance(order, SendSupply)
    return f"Send {order.count} supply to {order.to}"


def _drawing(o: SendSupply) -> Drawing:
    supply = "1 unit's supply" if o.count == 1 else f"{o.count} units' supply"
    return Drawing("note", "supply", text=f"sends {supply} to {o.to}")


@state_key(SUPPLY)
def _check_supply(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        power_key(variant),
        lambda n: None if type(n) is int and -100 <= n <= 100 else "a number of units' supply (-100 to 100)",
    )


register_syntax(ORDERS_RULE, _read_send, verbs=("send",))
register_syntax(ORDERS_RULE, _read_build)
register_format(SendSupply, _format_send)
register_order_kind(SendSupply, _drawing, rule=ORDERS_RULE, legal=add_legal_transfers)
