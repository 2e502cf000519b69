"""Games of Hundred and 1897 over time (SQLite store): reports and status use the game's own calendar."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    s = GameStore(migrated_sqlite(tmp_path / "games.db"))
    yield s
    s.close()


@pytest.mark.parametrize(
    ("options", "names"),
    [
        (None, ["1425 Movement", "1430 Movement", "1430 Adjustments", "1435 Movement"]),
        (
            {"judge_calendar": True},
            ["Spring 1425 Movement", "Fall 1425 Movement", "Winter 1425 Adjustments", "Spring 1426 Movement"],
        ),
    ],
)
def test_hundred_game_follows_the_chosen_calendar(
    store: GameStore, options: dict[str, bool] | None, names: list[str]
) -> None:
    store_games.create_game(store, "h", "hundred", now=T0, options=options)
    assert store_status.status(store, "h", now=T0).phase == names[0]
    assert store_processing.process(store, "h", now=T0, force=True) == [names[0]]
    assert store_status.status(store, "h", now=T0).phase == names[1]
    assert store_processing.process(store, "h", now=T0, force=True) == [names[1]]
    status = store_status.status(store, "h", now=T0)
    assert status.phase == names[2]
    # The mercenary: only France has something to do in the first adjustment phase.
    assert [p.power for p in status.powers if p.must_act] == ["France"]
    store_submissions.submit(store, "h", "France", "Remove A par", now=T0)
    assert store_processing.process(store, "h", now=T0, force=True) == [names[2]]
    assert store_status.status(store, "h", now=T0).phase == names[3]
    report = stored_report(store, "h", names[2])
    assert report.startswith(f"{names[2]} results, game h (Hundred)")
    assert "Remove A Paris" in report


def test_1897_game_opens_with_winter_builds(store: GameStore) -> None:
    store_games.create_game(store, "g", "1897", now=T0)
    status = store_status.status(store, "g", now=T0)
    assert status.phase == "Winter 1897 Adjustments"
    assert all(p.must_act for p in status.powers)
    check = store_submissions.submit(store, "g", "Russia", "Build A StP", now=T0)
    assert check.lines[0].error is not None  # refused at submission, with the reason
    store_submissions.submit(store, "g", "Russia", "Build F Sev", now=T0)
    store_submissions.submit(store, "g", "England", "Build F Lon", now=T0)
    assert store_processing.process(store, "g", now=T0, force=True) == ["Winter 1897 Adjustments"]
    status = store_status.status(store, "g", now=T0)
    assert status.phase == "Spring 1898 Movement"
    centres = {p.power: p.centres for p in status.powers}
    assert centres["Russia"] == 1 and centres["England"] == 1 and centres["France"] == 0
    assert stored_report(store, "g", "Winter 1897 Adjustments").startswith("Winter 1897 Adjustments results")
