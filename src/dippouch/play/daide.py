"""DAIDE's way in: a DAIDE server whose players submit and vote through the same use cases as every door."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from dippouch.interop.daide.server import DaideServer, UseCases
from dippouch.play.orders import send_orders
from dippouch.play.votes import vote
from dippouch.store.repository import GameStore

USE_CASES = UseCases(send_orders=send_orders, vote=vote)


def daide_server(
    store: GameStore,
    game: str,
    *,
    seats: Sequence[str] | None = None,
    poll: float = 1.0,
    clock: Callable[[], datetime] | None = None,
) -> DaideServer:
    """A server for ``game`` (see :class:`DaideServer`); refused with ``NotServable`` for a map DAIDE cannot
    describe."""
    return DaideServer(store, game, use=USE_CASES, seats=seats, poll=poll, clock=clock)
