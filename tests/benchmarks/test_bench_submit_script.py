"""The submission benchmark runs and prints one figure per size (a smoke test: no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_submit.py"


def test_bench_submit_prints_a_figure_per_size() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "3,9", "--repeat", "2"], capture_output=True, text=True, check=True
    ).stdout
    lines = [ln for ln in out.splitlines() if "ms CPU per submission" in ln]
    assert len(lines) == 2 and lines[0].split()[0] == "3" and lines[1].split()[0] == "9", out
