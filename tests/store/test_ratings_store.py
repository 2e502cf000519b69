"""The stored ratings' room (:mod:`dippouch.store.ratings.ledger`) on SQLite and PostgreSQL: doubles kept to the last bit,
what it sees as pending (new finished games, and any taken in whose game changed), its lock and version, the
leaderboard's order and ranks, and a person's data."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import votes as store_votes
from dippouch.store.access import AccessStore
from dippouch.store.finished import save_scoring
from dippouch.store.people.data import export_all, forget_all
from dippouch.store.people.persons import create_person
from dippouch.store.ratings import ledger as stored
from dippouch.store.ratings.ledger import OVERALL, FinishedFacts, PoolStanding, RatedLine, TakenGame

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
AWKWARD = (0.1 + 0.2, 100 / 3, math.pi * 1e-7, 5e-324, 1.7976931348623157e308, 99.99999999999999)
"""Doubles whose last bits a float column of fewer bits, or a text round trip, would lose."""


def _draw(store: GameStore, name: str, at: datetime, settings: GameSettings | None = None) -> None:
    store_games.create_game(store, name, "standard", now=NOW, settings=settings)
    for power in POWERS:
        store_votes.vote(store, name, power, True, now=at)


def _taken(f: FinishedFacts, people: list[int], scores: list[float]) -> TakenGame:
    lines = tuple(
        RatedLine(p, POWERS[i], s, s / sum(scores), False, None)
        for i, (p, s) in enumerate(zip(people, scores, strict=True))
    )
    return TakenGame(f, True, "sos", None, True, 1.0, lines)


def test_doubles_are_kept_to_the_last_bit(store: GameStore) -> None:
    people = [create_person(store, f"P{i}", now=NOW) for i in range(len(AWKWARD))]
    _draw(store, "g", NOW + timedelta(days=1))
    (facts,) = stored.pending(store).enter
    with stored.writing(store, None) as w:
        w.take_in([_taken(facts, people, list(AWKWARD))])
        w.put(OVERALL, {p: PoolStanding(r, 1, 1, 1) for p, r in zip(people, AWKWARD, strict=True)}, known=(), games=1)
    kept = {p: st.rating for p, st in stored.leaderboard(store, OVERALL, limit=100)}
    assert [kept[p].hex() for p in people] == [r.hex() for r in AWKWARD]
    (game,) = stored.everything(store).games.values()
    assert [ln.score.hex() for ln in game.lines] == [r.hex() for r in AWKWARD]
    assert stored.pending(store).empty


def test_pending_sees_every_change_of_a_game_taken_in(store: GameStore) -> None:
    _draw(store, "a", NOW + timedelta(days=2))
    _draw(store, "b", NOW + timedelta(days=1), GameSettings(practice="tag"))
    store_games.create_game(store, "running", "standard", now=NOW)
    plan = stored.pending(store)
    assert [f.name for f in plan.enter] == ["b", "a"]  # in order of their end, not of their creation
    b, a = plan.enter
    assert (b.practice, a.practice, a.scoring, a.visibility, a.ended_at) == (
        True,
        False,
        None,
        "public",
        NOW + timedelta(days=2),
    )
    with stored.writing(store, plan.version) as w:
        w.take_in([TakenGame(f, False, None, None, False, 1.0, ()) for f in plan.enter])
    assert stored.pending(store).empty and stored.version(store) == plan.version + 1
    with pytest.raises(stored.StaleRatings, match="plan again"), stored.writing(store, plan.version):
        pass

    save_scoring(store, "a", "sos", now=NOW + timedelta(days=3))
    assert [f.scoring for f in stored.pending(store).enter] == ["sos"]
    save_scoring(store, "a", None, now=NOW + timedelta(days=3))
    assert stored.pending(store).empty  # back as it was taken in
    AccessStore(store).set_visibility("b", "unlisted")
    assert [(f.name, f.visibility) for f in stored.pending(store).enter] == [("b", "unlisted")]
    AccessStore(store).set_visibility("b", "public")
    store_history.rollback(store, "a", "spring 1901", now=NOW + timedelta(days=4))
    assert stored.pending(store).gone == (a.game_id,)  # no longer finished
    for power in POWERS:
        store_votes.vote(store, "a", power, True, now=NOW + timedelta(days=5))
    again = stored.pending(store)
    assert again.gone == () and [(f.name, f.branch, f.ended_at) for f in again.enter] == [
        ("a", a.branch + 1, NOW + timedelta(days=5))
    ]
    # A change no fact shows (a seat handed over after the end) is seen by a deep look, in the game's event log.
    with stored.writing(store, None) as w:
        w.take_out([a.game_id])
        w.take_in([TakenGame(again.enter[0], False, None, None, False, 1.0, ())])
    store_games.assign(store, "a", "France", "someone else", now=NOW + timedelta(days=6), replace=True)
    assert stored.pending(store).empty
    assert [f.name for f in stored.pending(store, deep=True).enter] == ["a"]
    assert stored.pending(store, limit=0).waiting == 0 and stored.pending(store, deep=True, limit=0).waiting == 1


def test_a_leaderboard_orders_by_rating_then_person_and_equal_ratings_share_a_rank(store: GameStore) -> None:
    people = [create_person(store, f"P{i}", now=NOW) for i in range(5)]
    ratings = [90.0, 110.0, 100.0, 110.0, 100.0]
    with stored.writing(store, None) as w:
        w.put(
            "standard", {p: PoolStanding(r, 2, 2, 1) for p, r in zip(people, ratings, strict=True)}, known=(), games=3
        )
    got = stored.leaderboard(store, "standard", limit=10)
    assert [p for p, _ in got] == [people[1], people[3], people[2], people[4], people[0]]
    assert [p for p, _ in stored.leaderboard(store, "standard", offset=2, limit=2)] == [people[2], people[4]]
    assert [stored.better_than(store, "standard", r) for r in (110.0, 100.0, 90.0)] == [0, 2, 4]
    assert stored.pools(store) == {"standard": stored.PoolCount("standard", 5, 3)}
    assert stored.leaderboard(store, OVERALL) == [] and stored.person_standings(store, people[0]) == {
        "standard": PoolStanding(90.0, 2, 2, 1)
    }


def test_a_persons_data_lists_their_ratings_and_forgetting_them_keeps_the_numbers(store: GameStore) -> None:
    people = [create_person(store, f"P{i}", now=NOW) for i in range(2)]
    _draw(store, "g", NOW + timedelta(days=1))
    (facts,) = stored.pending(store).enter
    with stored.writing(store, None) as w:
        w.take_in([_taken(facts, people, [3.0, 1.0])])
        w.put(
            OVERALL,
            {people[0]: PoolStanding(104.0, 1, 0, 0), people[1]: PoolStanding(96.0, 1, 0, 0)},
            known=(),
            games=1,
        )
    data = export_all(store, people[0])["ratings"]
    assert data["ratings"] == [{"pool": "overall", "rating": 104.0, "games": 1}]
    assert [(g["game"], g["power"], g["share"]) for g in data["rated_games"]] == [("g", "Austria", 0.75)]
    forget_all(store, people[0], now=NOW + timedelta(days=2))
    assert stored.person_standings(store, people[0]) == {OVERALL: PoolStanding(104.0, 1, 0, 0)}
