"""Quick one-on-one matchmaking (:mod:`dippouch.play.duels` over :mod:`dippouch.store.duels`), on SQLite and
PostgreSQL: the first two waiting are paired into one game, seated and told; two requests at the same moment
(two threads, two stores) make exactly one game; the limits; and a rated one-on-one game played through to its
end, rated in its own pool and not the overall one.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from random import Random

import pytest
import sqlalchemy as sa

from dippouch.game import GameError
from dippouch.play.blocks import block
from dippouch.play.duels import MOST_RUNNING, ask_for_duel, leave_queue, queue_view
from dippouch.play.ratings import board, one_on_one, update_ratings
from dippouch.play.ratings_check import check_ratings, rewrite_ratings
from dippouch.play.records import choose_scoring
from dippouch.ranking.ratings import START
from dippouch.store import GameStore
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.models import GameRow, PlayerRow
from dippouch.store.models_duels import DuelWaitRow
from dippouch.store.notify.events import events_after
from dippouch.store.people.persons import create_person
from dippouch.store.ratings import ledger as stored_ratings

T = datetime(2026, 5, 4, 9, tzinfo=UTC)


def _people(store: GameStore, *names: str) -> list[int]:
    return [create_person(store, n, now=T) for n in names]


def _seats(store: GameStore, game: str) -> dict[str, int | None]:
    """Power -> the person who plays it now."""
    with store.session() as s:
        rows = s.execute(
            sa.select(PlayerRow.power, PlayerRow.person_id)
            .join(GameRow, GameRow.id == PlayerRow.game_id)
            .where(GameRow.name == game, PlayerRow.replaced_at.is_(None))
        ).all()
    return {power: person for power, person in rows}


def _duel_games(store: GameStore) -> list[str]:
    with store.session() as s:
        return list(s.scalars(sa.select(GameRow.name).where(GameRow.variant == "duel").order_by(GameRow.id)))


def test_the_first_two_waiting_are_paired_seated_and_told(store: GameStore) -> None:
    ann, bob, cy = _people(store, "Ann", "Bob", "Cy")
    first = ask_for_duel(store, ann, "fva", now=T)
    assert first.got.game is None
    assert str(first.message) == "You are waiting for an opponent: the next person to ask plays you."
    view = queue_view(store, ann)
    assert view.waiting is not None and view.waiting.ahead == 0 and view.waiting.pairing == "fva"
    assert queue_view(store, None).others == 1
    # Asking twice is refused while waiting.
    with pytest.raises(GameError, match="already waiting"):
        ask_for_duel(store, ann, "any", now=T)

    second = ask_for_duel(store, bob, "any", now=T + timedelta(minutes=1), rng=Random(7))
    game = second.got.game
    assert game is not None and second.got.opponent == "Ann"
    # Ann asked for France against Austria: that is the game, whatever Bob asked.
    st = store_status.status(store, game, now=T + timedelta(minutes=1))
    assert st.state == "active"
    seats = _seats(store, game)
    assert sorted(seats) == ["Austria", "France"] and sorted(seats.values(), key=str) == sorted([ann, bob], key=str)
    assert seats[str(second.got.power)] == bob
    assert str(second.message) == f"{game} starts now: you play {second.got.power} against Ann."
    # Told: the game's "started" event (the notification channels' game_starting) names both powers.
    started = [e for e in events_after(store, 0, ["started"]) if e.game == game]
    assert len(started) == 1 and started[0].detail["powers"] == ["Austria", "France"]
    # The queue is empty again; both see their game.
    assert queue_view(store, None).others == 0
    assert [(g.game, g.power) for g in queue_view(store, ann).games] == [
        (game, next(p for p, who in seats.items() if who == ann))
    ]
    # A third person waits alone.
    assert ask_for_duel(store, cy, "any", now=T + timedelta(minutes=2)).got.game is None


def test_two_people_letting_the_game_choose_get_a_pairing_without_a_shared_border(store: GameStore) -> None:
    pairings = {("Austria", "France"), ("Germany", "Italy"), ("England", "Turkey")}
    seen = set()
    for i in range(6):
        a, b = _people(store, f"A{i}", f"B{i}")
        ask_for_duel(store, a, "any", now=T)
        got = ask_for_duel(store, b, "any", now=T, rng=Random(i))
        assert got.got.game is not None
        seen.add(tuple(sorted(_seats(store, got.got.game))))
    assert seen <= pairings and len(seen) > 1


def test_two_people_with_a_block_between_them_are_not_paired(store: GameStore) -> None:
    ann, bob, cy = _people(store, "Ann", "Bob", "Cy")
    block(store, ann, bob, now=T)
    assert ask_for_duel(store, ann, "fva", now=T).got.game is None
    # Bob is blocked by Ann: he waits behind her, told nothing of the block.
    assert ask_for_duel(store, bob, "fva", now=T).got.game is None
    assert queue_view(store, None).others == 2
    got = ask_for_duel(store, cy, "fva", now=T)
    assert got.got.opponent == "Ann"
    assert sorted(_seats(store, got.got.game or "").values()) == sorted([ann, cy])  # type: ignore[type-var]
    assert queue_view(store, bob).waiting is not None


def test_leaving_the_queue_and_the_limits(store: GameStore) -> None:
    ann, bob = _people(store, "Ann", "Bob")
    ask_for_duel(store, ann, "fva", now=T)
    assert str(leave_queue(store, ann, now=T)) == "You left the queue for a one-on-one game."
    assert str(leave_queue(store, ann, now=T)) == "You were not waiting for a one-on-one game."
    assert queue_view(store, ann).waiting is None
    # Bob now waits alone: nobody was left to pair him with.
    assert ask_for_duel(store, bob, "fva", now=T).got.game is None
    leave_queue(store, bob, now=T)
    with pytest.raises(GameError, match="no pairing 'fvr'; choose one of fva, any"):
        ask_for_duel(store, ann, "fvr", now=T)
    # At most MOST_RUNNING one-on-one games not finished.
    for i in range(MOST_RUNNING):
        (other,) = _people(store, f"O{i}")
        ask_for_duel(store, other, "fva", now=T)
        assert ask_for_duel(store, ann, "fva", now=T).got.game is not None
    assert queue_view(store, ann).running == MOST_RUNNING
    with pytest.raises(GameError, match=f"you play {MOST_RUNNING} one-on-one games not finished"):
        ask_for_duel(store, ann, "fva", now=T)


def test_two_requests_at_once_make_exactly_one_game(db_url: str) -> None:
    """Two people ask at the same moment from two stores (two connections; on PostgreSQL two sessions), in
    several rounds: every round makes exactly one game with both seated, and leaves nobody waiting."""
    rounds = 6
    main = GameStore(db_url)
    pairs = [_people(main, f"L{i}", f"R{i}") for i in range(rounds)]
    stores = [GameStore(db_url), GameStore(db_url)]
    errors: list[BaseException] = []
    try:
        for i, pair in enumerate(pairs):
            barrier = threading.Barrier(2)

            def work(s: GameStore, person: int, barrier: threading.Barrier = barrier) -> None:
                try:
                    barrier.wait()
                    ask_for_duel(s, person, "any", now=T)
                except BaseException as e:  # a failure in a thread is reported by the test
                    errors.append(e)

            threads = [threading.Thread(target=work, args=(s, p)) for s, p in zip(stores, pair, strict=True)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert errors == []
            games = _duel_games(main)
            assert len(games) == i + 1
            assert sorted(_seats(main, games[-1]).values()) == sorted(pair)  # type: ignore[type-var]
            assert queue_view(main, None).others == 0
        with main.session() as s:
            rows = list(s.scalars(sa.select(DuelWaitRow)))
        assert len(rows) == 2 * rounds and all(r.game is not None for r in rows)
    finally:
        for opened in (*stores, main):
            opened.close()


SPRING = {
    "France": "F bre - mao\nA par - pic\nA mar - spa",
    "Austria": "A bud - ser\nF tri - alb\nA vie - gal",
}
FALL = {
    "France": "F mao - por\nA pic - bel\nA spa H",
    "Austria": "A ser H\nF alb - gre\nA gal - bud",
}


def test_a_rated_one_on_one_game_played_to_its_end_is_rated_in_its_own_pool(store: GameStore) -> None:
    ann, bob = _people(store, "Ann", "Bob")
    ask_for_duel(store, ann, "fva", now=T)
    got = ask_for_duel(store, bob, "fva", now=T, rng=Random(1))
    game = got.got.game
    assert game is not None
    seats = _seats(store, game)
    # A year of scripted orders: France takes Spain, Portugal and Belgium (6), Austria Serbia and Greece (5).
    for turn, orders in enumerate((SPRING, FALL), start=1):
        for power, text in orders.items():
            store_submissions.submit(store, game, power, text, now=T + timedelta(hours=turn))
        store_processing.process(store, game, now=T + timedelta(hours=turn, minutes=30), force=True)
    store_processing.process(store, game, now=T + timedelta(hours=3), force=True)  # the builds waived
    # Both vote for a draw: the game ends, scored under sum of squares (6² and 5² of 61).
    for power in seats:
        store_votes.vote(store, game, power, True, now=T + timedelta(hours=4))
    assert store_status.status(store, game, now=T + timedelta(hours=4)).state == "finished"
    choose_scoring(store, game, "sos", now=T + timedelta(hours=4))

    assert one_on_one("duel") and not one_on_one("standard")
    update_ratings(store)
    assert check_ratings(store).differences == ()
    duel = {p.person_id: p for p in board(store, "duel", limit=10).places}
    france, austria = seats["France"], seats["Austria"]
    assert france is not None and austria is not None
    assert set(duel) == {france, austria}
    assert duel[france].rating > START > duel[austria].rating
    assert duel[france].rating + duel[austria].rating == pytest.approx(2 * START)
    # Not in the overall pool: a won duel is no result among seven.
    assert board(store, limit=10).places == ()
    assert "overall" not in {p for p in stored_ratings.pools(store) if stored_ratings.pools(store)[p].people}
    # Replayed from the ledger (as after a game taken in late), the pools are the same.
    before = {p.person_id: p.rating for p in board(store, "duel", limit=10).places}
    rewrite_ratings(store)
    assert check_ratings(store).differences == ()
    assert {p.person_id: p.rating for p in board(store, "duel", limit=10).places} == before
    assert board(store, limit=10).places == ()
    # Another scoring system chosen: the update replays every rated game from the ledger; still its own pool.
    choose_scoring(store, game, "centres", now=T + timedelta(hours=5))
    assert update_ratings(store).replayed
    assert check_ratings(store).differences == ()
    assert {p.person_id for p in board(store, "duel", limit=10).places} == {france, austria}
    assert board(store, limit=10).places == ()
    # The queue page counts the finished game as no longer running.
    assert queue_view(store, ann).running == 0


def test_a_persons_waits_are_in_their_data_and_go_with_it(store: GameStore) -> None:
    from dippouch.store.people.data import export_all, forget_all

    ann, bob = _people(store, "Ann", "Bob")
    ask_for_duel(store, ann, "fva", now=T)
    game = ask_for_duel(store, bob, "any", now=T).got.game
    ask_for_duel(store, ann, "any", now=T + timedelta(hours=1))
    waits = export_all(store, ann)["duels"]["duel_waits"]
    assert [(w["pairing"], w["game"]) for w in waits] == [("fva", game), ("any", None)]
    forget_all(store, ann, now=T + timedelta(hours=2))
    assert export_all(store, ann)["duels"] == {"duel_waits": []}
    assert queue_view(store, None).others == 0  # her wait in the queue went with her data
