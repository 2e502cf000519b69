"""Stored ratings (:mod:`dippouch.play.ratings` over :mod:`dippouch.store.ratings.ledger`): after every step of a series
of games finishing for real (processed by the worker's own function, drawn by votes, processed by the
coordinator), on SQLite and PostgreSQL, the stored ratings equal a recomputation from scratch to the last bit
(:func:`dippouch.play.ratings_check.check_ratings`). The series has games finishing in another order than they
were created, two finishing at the same moment, a game taken in after a later one, bots, a practice game, a
private game made unlisted, a finished game rolled back and finished again, and another scoring system chosen.
"""

from __future__ import annotations

import math
import threading
from datetime import UTC, datetime, timedelta

import pytest
from rated_games import play_draw, play_solo
from solo_board import solo_board

from dippouch.bots.seats import seat_bot
from dippouch.game import GameSettings
from dippouch.play.processing import process_due
from dippouch.play.ratings import RatingsTask, board, hall_of_fame, person_rating, unscored, update_ratings
from dippouch.play.ratings_check import check_ratings, recompute, rewrite_ratings
from dippouch.play.records import choose_scoring
from dippouch.ranking.ratings import START
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.access import AccessStore
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.ratings import ledger as stored

T = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _people(store: GameStore) -> dict[str, int]:
    return {n: create_person(store, n, now=T) for n in ("Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus")}


def _seat(store: GameStore, game: str, seats: dict[str, int]) -> None:
    for power, person in seats.items():
        store_games.assign(store, game, power, f"{game} {power}", now=T)
        seat_person(store, game, power, person, now=T)


def _same(store: GameStore) -> None:
    """The stored ratings are up to date and equal a recomputation from scratch, and every pool conserves."""
    check = check_ratings(store)
    assert check.differences == () and check.pending == 0, check
    for pool in stored.pools(store):
        lines = stored.leaderboard(store, pool, limit=10_000)
        assert math.isclose(math.fsum(st.rating for _, st in lines), START * len(lines), rel_tol=1e-12)


def _overall(store: GameStore) -> dict[int, float]:
    return {p.person_id: p.rating for p in board(store, limit=100).places}


def test_stored_ratings_equal_a_recomputation_after_every_step(store: GameStore) -> None:
    ids = _people(store)
    ann, bob, cy, di, eve, fay, gus = ids.values()
    assert update_ratings(store).changed is False and board(store).places == ()

    # A draw, ended by votes (sum of squares: France 6, Germany 5, England 4 centres).
    play_draw(store, "draw1", {"France": ann, "Germany": bob, "England": cy}, T)
    done = update_ratings(store)
    assert (done.entered, done.replayed) == (1, False)
    _same(store)
    assert update_ratings(store).changed is False  # idempotent: nothing new, nothing written
    version = stored.version(store)

    # Created in one order, finished together by the worker's processing: both end at the same moment, and
    # are rated in the order of their names (alpha before zeta), not of their creation.
    for name, seats in (("zeta", {"France": di, "Russia": ann}), ("alpha", {"France": eve, "Russia": di})):
        store_games.create_game(store, name, "standard", now=T + timedelta(days=1), position=solo_board())
        _seat(store, name, seats)
    processed = process_due(store, now=T + timedelta(days=30))
    assert sorted(p.game for p in processed) == ["alpha", "zeta"]
    # Never rated: a practice game (won by a person against a bot) and a bot's solo, processed in the same look.
    play_solo(
        store,
        "practice1",
        {"France": fay, "Russia": gus},
        T + timedelta(days=31),
        bot="Italy",
        settings=GameSettings(practice="tag"),
    )
    store_games.create_game(store, "botwin", "standard", now=T + timedelta(days=31), position=solo_board())
    _seat(store, "botwin", {"Russia": fay, "Turkey": gus})
    seat_bot(store, "botwin", "France", "hold", now=T + timedelta(days=31))
    store_processing.process(store, "botwin", now=T + timedelta(days=31, hours=1), force=True)
    done = RatingsTask()(store, T)  # the worker's task
    assert (done.entered, done.replayed, done.version) == (4, False, version + 1)
    _same(store)
    assert fay not in _overall(store) and gus not in _overall(store)  # the practice game and the bot's solo
    assert board(store, "standard").games == 3

    # A game taken in after a later one: its end is earlier than zeta's, so every game after it is replayed.
    play_solo(store, "late", {"France": cy, "Russia": bob}, T + timedelta(days=40))
    assert not update_ratings(store).replayed
    play_solo(store, "early", {"France": bob, "Russia": cy}, T + timedelta(days=20))
    done = update_ratings(store)
    assert (done.entered, done.replayed) == (1, True)
    _same(store)

    # A private game counts for nobody; made unlisted it counts (rating its people at its own end), but the
    # hall of fame never lists it.
    play_solo(store, "secret", {"France": gus, "Russia": fay}, T + timedelta(days=10))
    AccessStore(store).set_visibility("secret", "private")
    update_ratings(store)
    assert gus not in _overall(store)
    _same(store)
    AccessStore(store).set_visibility("secret", "unlisted")
    assert update_ratings(store).replayed
    assert gus in _overall(store) and "secret" not in {h.game for h in hall_of_fame(store, solo=True, limit=100)}
    _same(store)
    # Unlisted to public: the hall lists it, and no rating moves.
    before = _overall(store)
    AccessStore(store).set_visibility("secret", "public")
    assert not update_ratings(store).replayed
    assert "secret" in {h.game for h in hall_of_fame(store, solo=True, limit=100)} and _overall(store) == before
    _same(store)

    # Another scoring system for the draw: its shares change, and everything after it.
    choose_scoring(store, "draw1", "dss", now=T + timedelta(days=50))
    assert update_ratings(store).replayed
    _same(store)

    # The draw rolled back: unfinished, it rates nobody; finished again later, it is rated at its new end.
    store_history.rollback(store, "draw1", "winter 1901", now=T + timedelta(days=51))
    done = update_ratings(store)
    assert (done.taken_out, done.replayed) == (1, True)
    assert person_rating(store, cy)[None].games == 2  # late and early
    _same(store)
    for power in ("France", "Germany", "England"):
        store_votes.vote(store, "draw1", power, True, now=T + timedelta(days=52))
    assert store_status.status(store, "draw1", now=T + timedelta(days=52)).state == "finished"
    done = update_ratings(store)
    assert (done.entered, done.replayed) == (1, False)  # it now ends after every other game
    _same(store)
    assert person_rating(store, cy)[None].games == 3

    # What the doors read is what is stored.
    mine = person_rating(store, bob)
    assert mine[None].games == 3 and mine["standard"].rating == mine[None].rating
    places = board(store, limit=100).places
    assert [p.rank for p in places] == sorted(p.rank for p in places) and places[0].rank == 1
    page = board(store, offset=2, limit=2).places
    assert [p.person_id for p in page] == [p.person_id for p in places[2:4]]
    assert [p.rank for p in page] == [p.rank for p in places[2:4]]


def test_an_update_planned_on_older_ratings_is_planned_again(store: GameStore) -> None:
    ids = _people(store)
    play_draw(store, "d1", {"France": ids["Ann"], "Germany": ids["Bob"], "England": ids["Cy"]}, T)
    plan = stored.pending(store)
    assert [f.name for f in plan.enter] == ["d1"]
    update_ratings(store)  # another updater got there first
    with pytest.raises(stored.StaleRatings), stored.writing(store, plan.version):
        pass
    assert update_ratings(store).changed is False
    _same(store)


def test_updates_running_at_once_take_every_game_in_once(store: GameStore) -> None:
    ids = list(_people(store).values())
    for n in range(6):
        play_solo(store, f"s{n}", {"France": ids[n], "Russia": ids[n + 1]}, T + timedelta(hours=n))
    errors: list[BaseException] = []

    def run() -> None:
        try:
            update_ratings(store)
        except BaseException as e:  # reported by the test, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _same(store)
    assert stored.pools(store)[stored.OVERALL].games == 6


def test_a_bounded_update_takes_the_earliest_games_first(store: GameStore) -> None:
    ids = list(_people(store).values())
    for n in range(5):
        play_solo(store, f"s{n}", {"France": ids[n], "Russia": ids[n + 1]}, T + timedelta(hours=10 - n))
    first = update_ratings(store, limit=2)
    assert (first.entered, first.waiting) == (2, 3)
    assert {g.game for g in hall_of_fame(store, solo=True)} == {"s4", "s3"}  # the two that ended first
    rest = update_ratings(store, limit=2)
    assert (rest.entered, rest.waiting, rest.replayed) == (2, 1, False)
    update_ratings(store, limit=2)
    _same(store)


def test_a_check_finds_a_difference_and_fix_rewrites_it(store: GameStore) -> None:
    ids = _people(store)
    play_draw(store, "d1", {"France": ids["Ann"], "Germany": ids["Bob"], "England": ids["Cy"]}, T)
    play_solo(store, "s1", {"France": ids["Di"], "Russia": ids["Ann"]}, T + timedelta(days=1))
    update_ratings(store)
    # Damage one stored figure, as a fault would: the check names it, to the last bit.
    with stored.writing(store, None) as w:
        st = w.standings(stored.OVERALL, [ids["Ann"]])[ids["Ann"]]
        w.put(
            stored.OVERALL,
            {ids["Ann"]: stored.PoolStanding(st.rating + 1e-9, st.games, st.known, st.steady)},
            known=[ids["Ann"]],
            games=0,
        )
    check = check_ratings(store)
    assert not check.equal and len(check.differences) == 1
    assert check.differences[0].startswith(f"overall: person {ids['Ann']}: stored PoolStanding(rating=")
    # A finished game not taken in yet is told apart: pending, and a difference until the update runs.
    play_solo(store, "s2", {"France": ids["Eve"], "Russia": ids["Ann"]}, T + timedelta(days=2))
    fresh = recompute(store)
    check = check_ratings(store, fresh)
    assert check.pending == 1 and "game s2: finished, not taken in" in check.differences
    fixed = rewrite_ratings(store, fresh)
    assert fixed.equal and fixed.pending == 0 and (fixed.games, fixed.rated, fixed.people) == (3, 3, 5)
    _same(store)


def test_a_worker_look_takes_the_games_it_finished_in(store: GameStore) -> None:
    """The real path of a running installation: a worker's look processes a due phase that ends a game, then
    runs its tasks, the ratings' among them."""
    from dippouch.worker.service import Worker

    ids = _people(store)
    start = store.clock() - timedelta(days=30)  # the phase's deadline has passed by the database's clock
    store_games.create_game(store, "due", "standard", now=start, position=solo_board())
    _seat(store, "due", {"France": ids["Ann"], "Russia": ids["Bob"]})
    worker = Worker(store, fetch=False)
    assert [p.game for p in worker.look()] == ["due"]
    assert store_status.status(store, "due", now=store.clock()).state == "finished"
    assert [h.game for h in hall_of_fame(store, solo=True)] == ["due"]
    _same(store)


def test_the_reliability_beside_a_rating_counts_games_left_in_civil_disorder(store: GameStore) -> None:
    """Who leaves a game in civil disorder has not finished it: s1 allows one missed phase and nobody sends
    orders, so both its players end in civil disorder; s2 allows two."""
    ids = _people(store)
    play_solo(store, "s1", {"France": ids["Ann"], "Russia": ids["Bob"]}, T, settings=GameSettings(missed_limit=1))
    play_solo(store, "s2", {"France": ids["Bob"], "Russia": ids["Cy"]}, T + timedelta(days=1))
    update_ratings(store)
    got = {p.person_id: p.finished for p in board(store).places}
    assert got == {ids["Ann"]: 0.0, ids["Bob"]: 0.5, ids["Cy"]: 1.0}
    _same(store)


def test_a_game_that_cannot_be_read_is_listed_and_stops_no_update(store: GameStore) -> None:
    """A finished game whose variant can no longer be built (its stored copy lost, its file gone) is listed as
    unscored, with why; the games after it are taken in all the same."""
    import sqlalchemy as sa

    ids = _people(store)
    play_solo(store, "lost", {"France": ids["Ann"], "Russia": ids["Bob"]}, T)
    play_solo(store, "kept", {"France": ids["Bob"], "Russia": ids["Cy"]}, T + timedelta(days=1))
    with store.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE games SET variant = 'gone', variant_data = NULL, variant_hash = NULL WHERE name = 'lost'")
        )
    assert update_ratings(store).entered == 2
    (why,) = [w for g, w in unscored(store) if g == "lost"]
    assert str(why).startswith("cannot be read:") and "gone" in why
    # Kept as a message value, so a German reader is told in German (the variant's name as it is).
    assert why.id == "cannot be read: %(reason)s"
    assert say(why, "de").startswith("nicht lesbar: ") and "gone" in say(why, "de")
    assert {p.person_id for p in board(store).places} == {ids["Bob"], ids["Cy"]}
    _same(store)
