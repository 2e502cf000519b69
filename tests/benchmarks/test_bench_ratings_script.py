"""benchmarks/bench_ratings.py runs end to end in its --quick mode (300 games of 60 people on SQLite, and on
PostgreSQL when a server is at hand): the figures in benchmarks/README.md come from a script that works, and
the stored ratings it measures equal their recomputation from scratch (the script checks it)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from benchsupport import bench_script


def _bench() -> Any:
    return bench_script("bench_ratings")


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_bench_ratings_quick_runs_and_reports(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    if db == "postgres" and not os.environ.get("DIPPOUCH_TEST_POSTGRES_URL"):
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    assert _bench().main(["--quick", "--db", db, "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| What | Figure |" in out
    for line in (
        "seeding 60 people and 300 finished games",
        "first update (every game read, scored and taken in)",
        "an update with nothing new",
        "one more finished game taken in (continued)",
        "a game ending before the last rated one (replayed from the ledger)",
        "recomputation from scratch and exact comparison",
        "the ratings page (overall, six variants, hall of fame) `/ratings`",
        "a rated person's page",
    ):
        assert f"| {db}: {line}" in out, line
    assert "pages of the overall leaderboard, each asked once" in out
    assert "; equal (" in out and "DIFFERENCES" not in out
