"""A finished game's seat records are read once and kept on the database (its phases, submissions and seats no
longer change), so a leaderboard of people with many games reads only what changed; kept records are those
computed afresh, and a game whose log moves on (a coordinator's rollback, say) is read again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import dippouch.store.people.reliability as reliability
from dippouch.people.reliability import score
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _finished(store: GameStore, name: str, people: list[int], when: datetime) -> None:
    store_games.create_game(store, name, "standard", now=when)
    for power, person in zip(POWERS, people, strict=True):
        store_games.assign(store, name, power, f"{name} {power}", now=when)
        seat_person(store, name, power, person, now=when)
    store_submissions.submit(store, name, "France", "A Par H", now=when + timedelta(hours=1))
    store_processing.process(store, name, now=when + timedelta(days=20), force=True)
    for power in POWERS:
        if store_status.status(store, name, now=when + timedelta(days=21)).state != "finished":
            store_votes.vote(store, name, power, True, now=when + timedelta(days=21))


def test_finished_games_are_read_once_and_agree_with_a_fresh_read(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    people = [create_person(store, f"P{i}", now=T0) for i in range(7)]
    for n in range(3):
        _finished(store, f"g{n}", people, T0 + timedelta(days=30 * n))
    fresh = {p: reliability.record_of(store, p) for p in people}  # fills the database's kept records
    reads: list[str] = []
    real = reliability._game_records

    def counted(s: Any, game: Any, *args: Any) -> Any:
        reads.append(game.name)
        return real(s, game, *args)

    monkeypatch.setattr(reliability, "_game_records", counted)
    assert reliability.reliabilities(store, people) == {p: score(rec) for p, rec in fresh.items()}
    assert reads == []  # every game finished: nothing read again
    kept = dict(store.finished_records)
    store.finished_records.clear()
    assert {p: reliability.record_of(store, p) for p in people} == fresh
    assert set(reads) == {"g0", "g1", "g2"}
    assert store.finished_records == kept
    # An event in one game (here a note in its log) names a new key: that game alone is read again.
    from dippouch.store.rows import game_row, log_event

    with store.session() as s, s.begin():
        log_event(s, game_row(s, "g1"), T0 + timedelta(days=200), "note", text="looked at again")
    reads.clear()
    reliability.reliabilities(store, people)
    assert reads == ["g1"]
