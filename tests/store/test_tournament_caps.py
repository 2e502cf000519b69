"""How many tournaments one person runs at once, on SQLite and PostgreSQL: at most :data:`MAX_RUNNING` that are
not over (a game in it not finished, or no game yet and made within :data:`EMPTY_COUNTS`); the refusal says
the cap and how a place comes free, and made at the same instant they still keep to it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from dippouch.game import GameError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from dippouch.store.tournaments.stored import EMPTY_COUNTS, MAX_RUNNING, add_game, create_tournament, tournaments

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
REFUSAL = (
    f"you run {MAX_RUNNING} tournaments that are not over (at most {MAX_RUNNING}): one is over once every game in it "
    "has finished, and one without games stops counting 7 days after it was made"
)


def _cup(store: GameStore, name: str, person: int, now: datetime = T0) -> None:
    create_tournament(store, name, system="sos", variant=None, creator_id=person, now=now)


def _drawn(store: GameStore, name: str) -> str:
    """A game of three people that ended in a draw they all voted for."""
    store_games.create_game(store, name, "hundred3", now=T0)
    powers = [p for p, _, _ in store_games.players(store, name)]
    for power in powers:
        store_games.assign(store, name, power, f"{name}-{power}", now=T0)
    for power in powers:
        store_votes.vote(store, name, power, True, now=T0)
    assert store_status.status(store, name, now=T0).state == "finished"
    return name


def test_a_person_runs_a_few_tournaments_at_once_and_a_finished_one_frees_its_place(store: GameStore) -> None:
    ann, bob = (create_person(store, n, now=T0) for n in ("Ann", "Bob"))
    live = "live"
    store_games.create_game(store, live, "hundred3", now=T0)
    for i in range(MAX_RUNNING):
        _cup(store, f"Cup {i}", ann)
    with pytest.raises(GameError) as refused:
        _cup(store, "One more", ann)
    assert str(refused.value) == REFUSAL
    _cup(store, "Bob's", bob)  # the cap is each person's
    create_tournament(store, "The club's", system="sos", variant=None, creator_id=None, now=T0)  # no person's
    # A tournament whose games have all finished is over; one still playing a game is not.
    add_game(store, "Cup 0", _drawn(store, "d1"), round_number=None, now=T0)
    add_game(store, "Cup 1", live, round_number=None, now=T0)
    _cup(store, "Now there is room", ann)
    with pytest.raises(GameError, match="at most 5"):
        _cup(store, "But no more", ann)
    # A tournament left empty stops counting a week after it was made.
    later = T0 + EMPTY_COUNTS
    _cup(store, "A week on", ann, later)
    assert sum(1 for t in tournaments(store) if t.creator_id == ann) == MAX_RUNNING + 2


def test_tournaments_made_at_the_same_instant_keep_to_the_cap(store: GameStore) -> None:
    cy = create_person(store, "Cy", now=T0)
    barrier = threading.Barrier(MAX_RUNNING + 3)
    made: list[str] = []
    refused: list[str] = []

    def one(i: int) -> None:
        barrier.wait()
        try:
            _cup(store, f"Race {i}", cy)
            made.append(f"Race {i}")
        except GameError as e:
            refused.append(str(e))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(MAX_RUNNING + 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == MAX_RUNNING and refused == [REFUSAL] * 3
