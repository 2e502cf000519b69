"""benchmarks/bench_web_pace.py runs end to end (tiny: 30 games, a few requests of each kind at one slow rate and
flat out): the figures in benchmarks/README.md come from a script that works, and a wrong answer fails it."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from benchsupport import bench_script
from conftest import in_ci


def _bench() -> Any:
    return bench_script("bench_web_pace")


def _admin() -> str:
    admin = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not admin:
        if in_ci():
            pytest.fail("DIPPOUCH_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL tests")
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    return admin


def test_bench_web_pace_runs_and_reports_each_kind_at_each_rate(capsys: pytest.CaptureFixture[str]) -> None:
    code = _bench().main(["--postgres", _admin(), "--games", "30", "--requests", "5", "--rates", "50,0"])
    out = capsys.readouterr().out
    assert code == 0, out
    for kind in ("kept", "memory", "not found", "health", "static"):
        for pace in ("50/s", "flat out"):
            line = re.search(rf"^{kind} +{re.escape(pace)} +([\d.]+) +([\d.]+)$", out, re.M)
            assert line, f"{kind} at {pace}:\n{out}"
            assert float(line.group(1)) > 0, out  # a request that cost nothing was not measured


def test_too_few_games_for_the_rounds_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _bench().main(["--postgres", "postgresql://unused/x", "--games", "20", "--requests", "5"])
    assert "--games must be at least 30" in capsys.readouterr().err
