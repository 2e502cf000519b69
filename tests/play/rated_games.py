"""Games played to their end for real, for the ratings' tests: a draw voted in Winter 1901 after a support and a
stab (the records doors' game, scored under sum of squares), and solos from a board where France holds 18
centres in Fall 1901."""

from __future__ import annotations

from datetime import datetime, timedelta

from solo_board import solo_board
from test_records_doors import FALL, SPRING

from dippouch.bots.seats import seat_bot
from dippouch.game import GameSettings
from dippouch.play.records import choose_scoring
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import seat_person


def seat(store: GameStore, game: str, power: str, person: int, now: datetime) -> None:
    store_games.assign(store, game, power, f"{game} {power}", now=now)
    seat_person(store, game, power, person, now=now)


def play_draw(store: GameStore, game: str, people: dict[str, int], now: datetime) -> None:
    """``game`` (standard) played to a draw in Winter 1901 by ``people`` (France, Germany, England), under SoS:
    France 6 centres, Germany 5, England 4."""
    store_games.create_game(store, game, "standard", now=now)
    for power, person in people.items():
        seat(store, game, power, person, now)
    for turn, orders in enumerate((SPRING, FALL), start=1):
        for power, text in orders.items():
            store_submissions.submit(store, game, power, text, now=now + timedelta(hours=turn))
        store_processing.process(store, game, now=now + timedelta(hours=turn, minutes=30), force=True)
    for power in people:
        store_votes.vote(store, game, power, True, now=now + timedelta(hours=3))
    assert store_status.status(store, game, now=now + timedelta(hours=3)).state == "finished"
    choose_scoring(store, game, "sos", now=now + timedelta(hours=3))


def play_solo(
    store: GameStore,
    game: str,
    people: dict[str, int],
    now: datetime,
    *,
    bot: str | None = None,
    settings: GameSettings | None = None,
) -> None:
    """``game`` won by France in Fall 1901 (processed at ``now`` + 30 minutes); ``people`` hold their powers,
    ``bot`` is a bot's seat."""
    store_games.create_game(store, game, "standard", now=now, position=solo_board(), settings=settings)
    for power, person in people.items():
        seat(store, game, power, person, now)
    if bot is not None:
        seat_bot(store, game, bot, "hold", now=now)
    store_processing.process(store, game, now=now + timedelta(minutes=30), force=True)
    assert store_status.status(store, game, now=now + timedelta(hours=1)).state == "finished"
