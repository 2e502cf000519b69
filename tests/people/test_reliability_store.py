"""Reliability read from the games' own records, on SQLite and PostgreSQL: orders that stood by the deadline
count on time, orders only after it late, nothing missed; a seat whose power fell into civil disorder counts
as abandoned; the public profile says name, games and reliability."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.people.reliability import profile, record_of, reliabilities

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _game(store: GameStore, name: str) -> None:
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))


def _people(store: GameStore, *names: str) -> list[int]:
    return [create_person(store, n, now=T0) for n in names]


def test_reliability_counts_on_time_late_and_missed_phases_and_an_abandoned_seat(store: GameStore) -> None:
    ann, bo = _people(store, "Ann", "Bo")
    _game(store, "g1")
    store_games.assign(store, "g1", "France", "Ann", now=T0)
    seat_person(store, "g1", "France", ann, now=T0)
    store_games.assign(store, "g1", "Italy", "Bo", now=T0)
    seat_person(store, "g1", "Italy", bo, now=T0)
    # Spring: France sends (on time), Italy sends after the deadline (late; it counts as missed for the game).
    store_submissions.submit(store, "g1", "France", "A Par H", now=T0 + timedelta(hours=1))
    store_submissions.submit(store, "g1", "Italy", "A Rom H", now=T0 + timedelta(days=2, hours=1))
    store_processing.process(store, "g1", now=T0 + timedelta(days=2, hours=2))
    rec = record_of(store, ann)
    assert (rec.on_time, rec.late, rec.missed, rec.seats, rec.abandoned) == (1, 0, 0, 1, 0)
    rec = record_of(store, bo)
    assert (rec.on_time, rec.late, rec.missed) == (0, 1, 0)
    got = profile(store, bo)
    assert got is not None and got.reliability == 50 and got.games == 1
    # Fall: both miss; Italy has now missed two movement phases in a row: civil disorder, an abandoned seat.
    store_processing.process(store, "g1", now=T0 + timedelta(days=10), force=True)
    rec = record_of(store, bo)
    assert (rec.late, rec.missed, rec.abandoned) == (1, 1, 1)
    assert profile(store, bo).reliability == (50 // 7)  # type: ignore[union-attr]
    assert profile(store, 12345) is None


def test_a_seat_taken_back_in_time_is_not_abandoned_and_a_newcomer_has_no_score(store: GameStore) -> None:
    (ann, bo) = _people(store, "Ann", "Bo")
    _game(store, "g2")
    store_games.assign(store, "g2", "France", "Ann", now=T0)
    seat_person(store, "g2", "France", ann, now=T0)
    store_processing.process(store, "g2", now=T0 + timedelta(days=3), force=True)  # Spring missed
    store_submissions.submit(store, "g2", "France", "A Par H", now=T0 + timedelta(days=3, hours=1))
    store_processing.process(store, "g2", now=T0 + timedelta(days=6), force=True)  # Fall on time: the streak is broken
    rec = record_of(store, ann)
    assert (rec.on_time, rec.missed, rec.abandoned) == (1, 1, 0)
    assert reliabilities(store, [ann, bo]) == {ann: 50, bo: None}
