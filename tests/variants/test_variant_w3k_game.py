"""W3K through the game API (a stored game on SQLite): proxies, conversion and the Winter of 1643."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dbsupport import migrated_sqlite
from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path) -> Iterator[GameStore]:  # type: ignore[no-untyped-def]
    s = GameStore(migrated_sqlite(tmp_path / "w3k.db"))
    yield s
    s.close()


def test_a_w3k_game_plays_from_summer_1642_to_spring_1643(store: GameStore) -> None:
    deadlines = {"movement": "12d", "retreats": "2d", "adjustments": "2d"}
    store_games.create_game(store, "powick", "w3k", now=T0, settings=GameSettings(deadlines=deadlines))
    now = T0 + timedelta(hours=1)
    r = store_submissions.submit(
        store, "powick", "Protectorate", "Army Deptford is under the orders of Manchester", now=now
    )
    assert all(line.accepted for line in r.lines)
    r = store_submissions.submit(store, "powick", "Manchester", "Army Deptford moves to London", now=now)
    assert all(line.accepted for line in r.lines)
    store_submissions.submit(store, "powick", "Crown", "Fleet Bristol converts", now=now)
    done = store_processing.process(store, "powick", now=T0 + timedelta(days=13))
    assert done == ["Summer 1642 Movement"]
    rec = store_history.phase_record(store, "powick", "Summer 1642 Movement")
    units = {(u["power"], u["unit"]) for u in rec["next_position"]["units"]}
    assert ("Protectorate", "A lon") in units
    store_submissions.submit(store, "powick", "Crown", "F bri convert", now=T0 + timedelta(days=14))
    # Autumn: London is the Protectorate's to keep; Winter 1643 follows.
    done = store_processing.process(store, "powick", now=T0 + timedelta(days=30))
    assert done[0] == "Autumn 1642 Movement"
    rec = store_history.phase_record(store, "powick", "Autumn 1642 Movement")
    units = {(u["power"], u["unit"]) for u in rec["next_position"]["units"]}
    assert ("Crown", "A bri") in units
    assert rec["next_position"]["phase"] == "Winter 1643 Adjustments"
    status = store_status.status(store, "powick", now=T0 + timedelta(days=30))
    assert status.phase == "Winter 1643 Adjustments"
