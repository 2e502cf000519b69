"""Sign-ups for the last seat of an automatic game arriving at the same instant, on SQLite and PostgreSQL:
the first to take the game's lock fills it and draws the powers in the same transaction, and every other one
is refused with "has ended" or "is full", never answered "signed up" into a game with no empty power.

Real concurrency: threads calling the store, released together by a barrier, several games at once, for
several rounds (the draw seats seven powers, so a sign-up that came in between its steps had a wide window).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.openings import open_game, opening, sign_up
from dippouch.store.people.persons import create_person

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
GAMES, RACERS, ROUNDS = 4, 3, 3
REFUSED = ("has ended: every power is played", "is full")


def _race(store: GameStore, games: list[str], racers: list[int]) -> dict[str, list[str]]:
    """Every racer signs up for every game, all at the same instant; each game's answers ("signed up", or
    the refusal's message)."""
    barrier = threading.Barrier(len(games) * len(racers))
    answers: dict[str, list[str]] = {game: [] for game in games}
    unexpected: list[BaseException] = []

    def race(game: str, person: int) -> None:
        barrier.wait()
        try:
            sign_up(store, game, person, ["any"], now=T0)
            answers[game].append("signed up")
        except GameError as e:
            answers[game].append(str(e))
        except BaseException as e:  # recorded: the test shows it instead of a thread's traceback
            unexpected.append(e)

    threads = [threading.Thread(target=race, args=(g, p)) for g in games for p in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not unexpected, unexpected
    return answers


def test_simultaneous_sign_ups_for_the_last_seat_seat_one_and_refuse_the_others(store: GameStore) -> None:
    first = [create_person(store, f"P{i}", now=T0) for i in range(6)]
    racers = [create_person(store, f"R{i}", now=T0) for i in range(RACERS)]
    for r in range(ROUNDS):
        games = [f"g{r}_{i}" for i in range(GAMES)]
        for game in games:
            store_games.create_game(store, game, "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))
            open_game(store, game, now=T0, mode="preferences")
            for p in first:
                sign_up(store, game, p, ["any"], now=T0)
        answers = _race(store, games, racers)
        for game in games:
            got = answers[game]
            assert got.count("signed up") == 1, (r, game, got)
            refusals = [a for a in got if a != "signed up"]
            assert all(any(x in a for x in REFUSED) for a in refusals), (r, game, got)
            o = opening(store, game)
            assert o is not None and o.closed_at is not None and o.empty == []
            assert o.waiting == [], f"{[s.name for s in o.waiting]} left signed up into the full game {game}"
            seated = {s.name for s in o.signups if s.seated_as is not None}
            assert len(seated) == 7 and len({n for n in seated if n.startswith("R")}) == 1, (game, seated)
