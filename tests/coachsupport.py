"""A finished standard game played by bots through the store, Spring 1901 to Winter 1910, for the coach's tests
(tests/play/test_coach*.py, tests/web/test_coach*.py): every power seated and ordered by the heuristic bot each
phase (its orders sent as text, as a player's are), processed phase by phase, then drawn by every survivor."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from dippouch.bots.heuristic import HeuristicBot
from dippouch.catalog import load_variant
from dippouch.core.jsonio import position_from_json
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.notation import format_order
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes


def play_bot_game(store: GameStore, game: str, now: datetime, *, last_year: int = 1910, seed: int = 7) -> int:
    """``game`` played by heuristic bots to the end of ``last_year``, then drawn; the phases processed."""
    v = load_variant("standard")
    store_games.create_game(store, game, "standard", now=now)
    for power in v.power_names:
        store_games.assign(store, game, power, f"{power} bot", now=now)
    rng = random.Random(seed)
    bot = HeuristicBot()
    processed = 0
    while True:
        (current,) = [h for h in store_history.history(store, game) if h.status == "open"]
        pos = position_from_json(v, current.position)
        if pos.phase.year > last_year:
            break
        legal = all_legal_orders(v, pos)
        at = now + timedelta(hours=processed + 1)
        for power in v.power_names:
            if legal.get(power):
                orders = bot.orders(v, pos, power, random.Random(rng.getrandbits(64)))
                store_submissions.submit(store, game, power, "\n".join(format_order(v, o) for o in orders), now=at)
        store_processing.process(store, game, now=at + timedelta(minutes=1), force=True)
        processed += 1
    end = now + timedelta(hours=processed + 2)
    for power in v.power_names:
        if store_status.status(store, game, now=end).state == "finished":
            break
        if pos.centres_of(power) or pos.units_of(power):
            store_votes.vote(store, game, power, True, now=end)
    assert store_status.status(store, game, now=end).state == "finished"
    return processed
