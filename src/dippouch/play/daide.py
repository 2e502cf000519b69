"""DAIDE's way in: a DAIDE server whose players take seats, submit and vote through the same use cases as every
door."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from dippouch.interop.daide.server import DaideServer, Limits, UseCases
from dippouch.play.orders import send_orders
from dippouch.play.seats import seat_program
from dippouch.play.votes import draw_of, vote
from dippouch.store.repository import GameStore


def take_seat(store: GameStore, game: str, power: str, player: str, *, now: datetime) -> str:
    """A DAIDE client takes ``power`` under ``player`` (:func:`dippouch.play.seats.seat_program`: only an empty
    seat or a program's); the name the game recorded, which the seat is the client's under."""
    return seat_program(store, game, power, player, now=now).change.player


USE_CASES = UseCases(send_orders=send_orders, vote=vote, take_seat=take_seat, draw_of=draw_of)


def daide_server(
    store: GameStore,
    game: str,
    *,
    seats: Sequence[str] | None = None,
    poll: float = 1.0,
    clock: Callable[[], datetime] | None = None,
    limits: Limits | None = None,
) -> DaideServer:
    """A server for ``game`` (see :class:`DaideServer`); refused with ``NotServable`` for a map DAIDE cannot
    describe."""
    return DaideServer(store, game, use=USE_CASES, seats=seats, poll=poll, clock=clock, limits=limits)
