"""Bots in a fog-of-war game think from what their power sees, as a person in the seat would."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from dippouch.bots.engine import Order
from dippouch.bots.memory import Memory
from dippouch.bots.seats import play_seats, seat_bot, think_here
from dippouch.catalog import load_variant
from dippouch.core.position import Position
from dippouch.core.sight import sight
from dippouch.core.variant import Variant
from dippouch.game import GameSettings, position_from_data
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _seen_by_bot(db_url: str, *, fog: bool) -> tuple[Variant, Position, dict[str, Position]]:
    """The whole board of a standard game's first phase, and the position each bot was handed to think on."""
    store = GameStore(db_url)
    store_games.create_game(store, "g", "standard", settings=GameSettings(fog=fog), now=T0)
    for power in ("France", "Turkey"):
        seat_bot(store, "g", power, "heuristic", now=T0)
    handed: dict[str, Position] = {}

    def think(
        level: str, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None
    ) -> list[Order]:
        handed[power] = position
        return think_here(level, variant, position, power, rng, memory)

    moves = play_seats(store, now=T0 + timedelta(minutes=1), think=think)
    assert sorted(m.power for m in moves) == ["France", "Turkey"]
    variant = load_variant("standard")
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement", open_ok=True, submissions=False)
    return variant, position_from_data(variant, rec["position"]), handed


def test_a_bot_in_a_fog_game_is_handed_only_its_powers_sight(db_url: str) -> None:
    variant, board, handed = _seen_by_bot(db_url, fog=True)
    for power, position in handed.items():
        seen = sight(variant, board, power)
        assert dict(position.units) == dict(seen.units), power
        assert dict(position.centres) == dict(seen.centres), power
        # Spring 1901: France cannot see Turkey's units, nor Turkey France's; its own it sees all of.
        assert {u.power for u in position.units.values()} < set(variant.power_names), power
        assert all(u in position.units.values() for u in board.units.values() if u.power == power)
    far = {u.power for u in handed["France"].units.values()}
    assert "Turkey" not in far and "Russia" not in far


def test_a_bot_in_an_open_game_is_handed_the_whole_board(db_url: str) -> None:
    _, board, handed = _seen_by_bot(db_url, fog=False)
    for position in handed.values():
        assert dict(position.units) == dict(board.units)
        assert dict(position.centres) == dict(board.centres)
