"""A client's connection, a power held over DAIDE and the orders it has given in the open phase: what its orders say as dippouch text,
which of them the game's arrival check refuses, and what DAIDE's MIS says is still missing. Pure over the
variant and the board; the server (:mod:`dippouch.interop.daide.server`) keeps the seats and talks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.orders import Build, Disband, Order, Waive
from dippouch.core.position import Position
from dippouch.interop.daide.board import DaideBoard, ReadOrder, Unfit
from dippouch.interop.daide.codec import Tree

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = [
    "Conn",
    "DaideSeat",
    "fit_orders",
    "missing",
    "offered",
    "order_key",
    "orders_text",
    "refused",
    "take_back",
    "withdraw",
]


@dataclass
class Conn:
    """One client connection."""

    writer: asyncio.StreamWriter
    address: str = ""
    """The peer's address: the caps and the passcode guesses are counted by it."""
    name: str = ""
    version: str = ""
    power: str | None = None
    observer: bool = False
    in_game: bool = False
    """Told the game (after YES (MAP)): it gets the results, ownership and positions as they come."""
    alerts: set[int] = field(default_factory=set)
    alerted: set[tuple[int, str]] = field(default_factory=set)
    wrong: int = 0
    """Wrong passcodes this connection sent (IAM)."""


@dataclass
class DaideSeat:
    """A client's connection, a power held over DAIDE: its passcode and the orders it has given in the open phase."""

    power: str
    passcode: int
    name: str = ""
    player: str = ""
    """The player name the game records the seat under (``daide:NAME``): the seat is the client's while the game
    says so."""
    version: str = ""
    conn: Conn | None = None
    phase: str | None = None
    orders: dict[Any, tuple[ReadOrder, Order]] = field(default_factory=dict)
    go: bool = True
    ready: bool = False


def offered(
    wanted: Sequence[str],
    held_here: set[str],
    position: Position,
    acting: frozenset[str],
    holders: Mapping[str, str | None],
    programs: tuple[str, ...],
) -> list[str]:
    """The powers a client that says NME may be given, empty seats first: those of ``wanted`` still in the game
    (units, centres, or something to do now), held by no client of this server (its client may come back with
    IAM), and whose seat is empty or held under a program's name (``holders``: the game's players now). The
    seating use case decides, under the game's lock."""
    free = [
        p
        for p in wanted
        if p not in held_here
        and (position.units_of(p) or position.centres_of(p) or p in acting)
        and (holders.get(p) is None or str(holders.get(p)).startswith(programs))
    ]
    return sorted(free, key=lambda p: holders.get(p) is not None)


def orders_text(variant: Variant, seat: DaideSeat, kind: PhaseKind) -> tuple[list[Any], str]:
    """The seat's orders as one submission's text, a line each, with the key of each line's order."""
    from dippouch.core.notation import format_order

    keys = list(seat.orders)
    return keys, "\n".join(format_order(variant, seat.orders[k][1], phase_kind=kind) for k in keys)


def refused(variant: Variant, position: Position, seat: DaideSeat, kind: PhaseKind) -> set[Any]:
    """The keys of the orders the game's arrival check refuses, judged together as one submission."""
    from dippouch.game import check_orders

    keys, text = orders_text(variant, seat, kind)
    lines = check_orders(variant, position, seat.power, text)
    return {keys[ln.line - 1] for ln in lines if not ln.accepted and 0 < ln.line <= len(keys)}


def take_back(seat: DaideSeat, keys: set[Any], before: dict[Any, tuple[ReadOrder, Order]]) -> None:
    """Orders refused give way to what the power had ordered before for the same unit, if anything."""
    for key in keys:
        if key in before:
            seat.orders[key] = before[key]
        else:
            seat.orders.pop(key, None)


def order_key(variant: Variant, order: Order, n: int) -> Any:
    """What a later order replaces: the same unit's order, the same province's build; waives add up."""
    m = variant.map
    if isinstance(order, Waive):
        return ("waive", n)
    if isinstance(order, Build):
        return ("build", m.province_of(order.loc))
    return m.province_of(order.unit_loc or 0)


def missing(board: DaideBoard, position: Position, seat: DaideSeat) -> list[Any] | None:
    """The MIS message's parts, or None when the power's orders are complete."""
    from dippouch.game import adjustment_delta

    variant = board.variant
    pos = position
    kind = variant.calendar.kind(pos.phase)
    if kind is PhaseKind.ADJUSTMENTS:
        delta = adjustment_delta(variant, pos, seat.power)
        given = [o for _r, o in seat.orders.values()]
        if delta > 0:
            left = delta - sum(1 for o in given if isinstance(o, (Build, Waive)))
            return ["MIS", [-left]] if left > 0 else None
        if delta < 0:
            left = -delta - sum(1 for o in given if isinstance(o, Disband))
            return ["MIS", [left]] if left > 0 else None
        return None
    if kind is PhaseKind.RETREATS:
        waiting = [d for p, d in sorted(pos.dislodged.items()) if d.unit.power == seat.power and p not in seat.orders]
        if not waiting:
            return None
        return [
            "MIS",
            *([*board.unit(d.unit), "MRT", [board.place(r) for r in sorted(d.retreats)]] for d in waiting),
        ]
    units = [u for p, u in sorted(pos.units.items()) if u.power == seat.power and p not in seat.orders]
    return ["MIS", *(board.unit(u) for u in units)] if units else None


def fit_orders(
    board: DaideBoard, seat: DaideSeat, position: Position, kind: PhaseKind, read: Sequence[tuple[ReadOrder, Tree]]
) -> tuple[list[tuple[Tree, str]], list[tuple[Any, ReadOrder, Order, Tree]]]:
    """The orders of a SUB fitted to the seat's power and the board: the notes of those that do not fit (THX's
    note, with the order's tokens), and those that do, each with the key it is kept under."""
    notes: list[tuple[Tree, str]] = []
    fresh: list[tuple[Any, ReadOrder, Order, Tree]] = []
    for r, t in read:
        try:
            order = board.fit(r, seat.power, position, kind)
        except Unfit as e:
            notes.append((t, e.note))
            continue
        fresh.append((order_key(board.variant, order, len(seat.orders) + len(fresh)), r, order, t))
    return notes, fresh


def withdraw(board: DaideBoard, seat: DaideSeat, position: Position, tree: Tree) -> bool:
    """NOT (SUB (order)): the order taken back; False when the seat gave no such order."""
    r = board.read_order(tree)
    try:
        order = board.fit(r, seat.power, position, board.variant.calendar.kind(position.phase))
    except Unfit:
        return False
    key = next((k for k, (_r, o) in seat.orders.items() if o == order), None)
    if key is None:
        return False
    del seat.orders[key]
    return True
