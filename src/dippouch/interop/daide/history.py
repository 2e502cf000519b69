"""What a DAIDE client is told of the game's past, each reply as the client's sight allows: the turns processed
since the server last looked, a turn asked for by HST, the last movement's orders (ORD) and every position the
game has stood in (the end's summary). Pure: the server hands in the game's stored phases."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.interop.daide.board import DaideBoard
from dippouch.interop.daide.replies import Sighted, now_parts, sco_parts, told_parts

__all__ = ["Turn", "first_parts", "last_orders_parts", "seen_positions", "turn_parts", "turns_after"]

Turn = tuple[Position, list[Any], Position | None]
"""A processed phase: where it started, its results, where it left the board (None at the game's end)."""


def _position(variant: Variant, data: Any) -> Position:
    from dippouch.game import position_from_data  # the game layer, loaded when a client asks

    return position_from_data(variant, data)


def turns_after(variant: Variant, phases: Sequence[Any], phase_id: int | None) -> list[Turn]:
    """The phases processed from ``phase_id`` on (none when it is not among ``phases``)."""
    ids = [p.id for p in phases]
    if phase_id not in ids:
        return []
    return [
        (
            _position(variant, p.position),
            p.results or [],
            _position(variant, p.next_position) if p.next_position else None,
        )
        for p in phases[ids.index(phase_id) :]
        if p.status == "processed"
    ]


def first_parts(board: DaideBoard, variant: Variant, phases: Sequence[Any], powers: Sighted) -> list[Any]:
    """HST without a turn: the game's first position (its centres, then its units)."""
    first = _position(variant, phases[0].position)
    return [sco_parts(board, first, powers), now_parts(board, first, powers)]


def turn_parts(
    board: DaideBoard, variant: Variant, phases: Sequence[Any], turn: Any, powers: Sighted
) -> list[Any] | None:
    """HST of ``turn``: its orders and results, then the centres and units after it; None if it was not
    processed."""
    for p in phases:
        pos = _position(variant, p.position)
        if pos.phase == turn and p.status == "processed":
            return list(told_parts(board, pos, p, sco=True, powers=powers))
    return None


def last_orders_parts(board: DaideBoard, variant: Variant, phases: Sequence[Any], powers: Sighted) -> list[Any] | None:
    """ORD: the last movement phase's orders and results, and the retreats and builds after it; None before the
    first movement phase was processed."""
    done = [p for p in phases if p.status == "processed"]
    last = max((i for i, p in enumerate(done) if p.kind == PhaseKind.MOVEMENT.value), default=None)
    if last is None:
        return None
    out: list[Any] = []
    for p in done[last:]:
        out += told_parts(board, _position(variant, p.position), p, sco=False, powers=powers)
    return out


def seen_positions(variant: Variant, phases: Sequence[Any]) -> list[Position]:
    """Every position the game stood in, the last included (the end's summary counts centres over them)."""
    return [_position(variant, p.next_position or p.position) for p in phases]
