"""Absences applied by a real deadline worker (``dippouch worker --once``, its own process, the database's
clock): an absent player's deadline is extended from their budget instead of the phase being processed, and
another game's absent player has their standing orders carried into the phase the worker processes."""

from __future__ import annotations

from datetime import timedelta

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.people import absences as B
from dippouch.store.people.persons import create_person, seat_person
from dippouch.worker.service import process_due
from workersupport import check_ledger, start_worker

DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def test_the_worker_extends_an_absent_players_deadline_and_carries_anothers_standing_orders(
    db_url: str, store: GameStore
) -> None:
    now = store.clock()
    settings = GameSettings(deadlines=DEADLINES)
    # "away": its deadline passed five minutes ago, while Ann is away (today and tomorrow).
    store_games.create_game(store, "away", "standard", now=now - timedelta(days=2, minutes=5), settings=settings)
    ann = create_person(store, "Ann", now=now)
    store_games.assign(store, "away", "Austria", "Ann", now=now)
    seat_person(store, "away", "Austria", ann, now=now)
    B.set_absence_policy(store, "away", "extend", budget_days=10, now=now)
    old = store_status.status(store, "away", now=now).deadline
    assert old is not None
    B.record_absence(store, ann, old.date(), old.date() + timedelta(days=1), now=now)

    # "standing": Bo sent Spring's orders and Spring was processed; Fall's deadline passed while Bo is away.
    store_games.create_game(store, "standing", "standard", now=now - timedelta(days=4, minutes=10), settings=settings)
    bo = create_person(store, "Bo", now=now)
    store_games.assign(store, "standing", "Austria", "Bo", now=now)
    seat_person(store, "standing", "Austria", bo, now=now)
    B.set_absence_policy(store, "standing", "standing", now=now)
    store_submissions.submit(
        store, "standing", "Austria", "A vie H\nA bud - ser\nF tri - alb", now=now - timedelta(days=4)
    )
    spring = process_due(store, now=now - timedelta(days=2, minutes=9))
    assert [(p.game, p.phase) for p in spring] == [("standing", "Spring 1901 Movement")]
    fall = store_status.status(store, "standing", now=now).deadline
    assert fall is not None and fall < now
    B.record_absence(store, bo, fall.date(), fall.date() + timedelta(days=2), now=now)

    w = start_worker(db_url, "--once")
    out, _ = w.communicate(timeout=120)
    assert w.returncode == 0, out
    assert "worker stopped: 1 phase processed" in out  # Bo's Fall; Ann's Spring was extended instead
    assert [(u.power, u.policy) for u in B.absence_uses(store, "away")] == [("Austria", "extend")]
    assert [(u.power, u.policy) for u in B.absence_uses(store, "standing")] == [("Austria", "standing")]

    # Ann's phase waits for her: the same hour on the day she is back.
    assert [r.name for r in store_history.history(store, "away") if r.status == "processed"] == []
    assert store_status.status(store, "away", now=now).deadline == old + timedelta(days=2)
    # Bo's Fall was processed with what of his Spring orders still fits.
    assert store_history.phase_record(store, "standing", "F1901M")["orders"]["Austria"] == ["A vie H"]
    assert not check_ledger(db_url).problems
