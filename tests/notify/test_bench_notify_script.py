"""benchmarks/bench_notify.py runs end to end (tiny: SQLite, one drainer): the figures in the README come
from a script that works, and it checks every delivery arrived once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_notify.py"


def test_bench_notify_runs_and_reports(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")  # the script sets it too; restored after the test
    spec = importlib.util.spec_from_file_location("bench_notify", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    assert bench.main(["--sqlite-only", "--people", "2", "--events", "3", "--workers", "1"]) == 0
    fields = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("sqlite ")).split()
    assert fields[:3] == ["sqlite", "1", "6"] and float(fields[4]) > 0
