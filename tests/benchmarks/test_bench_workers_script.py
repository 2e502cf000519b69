"""benchmarks/bench_workers.py runs end to end (tiny: SQLite, one worker, a few games): the figures in the
README come from a script that works."""

from __future__ import annotations

import pytest

from benchsupport import bench_script


def test_bench_workers_runs_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    bench = bench_script("bench_workers")
    assert (
        bench.main(["--sqlite-only", "--games", "3", "--rounds", "2", "--workers", "1", "--variants", "standard"]) == 0
    )
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("sqlite "))
    fields = line.split()
    assert fields[:3] == ["sqlite", "standard", "1"]
    assert float(fields[3]) > 0  # phases a second, median of the two rounds
