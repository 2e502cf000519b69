"""benchmarks/bench_ratings.py runs end to end in its --quick mode (300 games of 60 people on SQLite, and on
PostgreSQL when a server is at hand): the figures in benchmarks/README.md come from a script that works, and
the stored ratings it measures equal their recomputation from scratch (the script checks it)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_ratings.py"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_ratings", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    return bench


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
