"""benchmarks/bench_web_pace.py runs end to end (tiny: 30 games, a few requests of each kind at one slow rate and
flat out): the figures in benchmarks/README.md come from a script that works, and a wrong answer fails it."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

import dippouch
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


def test_too_few_games_for_the_rounds_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _bench().main(["--postgres", "postgresql://unused/x", "--games", "20", "--requests", "5"])
    assert "--games must be at least 30" in capsys.readouterr().err


def test_bench_web_pace_runs_and_reports_each_kind_at_each_rate_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every kind at a slow rate and flat out, with ``--beside``: a web process of another checkout's code (here
    this one's own src, as another would be named) asked the same requests; a line per kind, rate and process."""
    src = str(Path(dippouch.__file__).resolve().parents[1])
    args = ["--postgres", _admin(), "--games", "30", "--requests", "5", "--rates", "50,0"]
    code = _bench().main([*args, "--beside", src])
    out = capsys.readouterr().out
    assert code == 0, out
    beside = "/".join(Path(src).parts[-2:])[-18:]
    for kind in ("kept", "memory", "not found", "health", "static"):
        for pace in ("50/s", "flat out"):
            for who in ("this checkout", beside):
                line = re.search(rf"^{kind} +{re.escape(pace)} +{re.escape(who)} +([\d.]+) +[\d.]+$", out, re.M)
                # A request that cost nothing was not measured.
                assert line and float(line.group(1)) > 0, f"{kind}, {pace}, {who}:\n{out}"
    assert "over the rounds" not in out  # one round: nothing to sum up


def test_the_rounds_are_summed_up_by_code_kind_and_rate() -> None:
    ran = {(None, "kept", 25.0): [1.5, 2.5, 2.0], ("/x/before/src", "kept", 25.0): [3.0], (None, "memory", 0.0): [0.5]}
    lines = _bench().summary(ran, named=True)
    assert lines[1].split() == ["kept", "25/s", "this", "checkout", "2.00", "(1.50-2.50)"]
    assert lines[2].split() == ["kept", "25/s", "before/src", "3.00", "(3.00-3.00)"]
    assert lines[3].split() == ["memory", "flat", "out", "this", "checkout", "0.50", "(0.50-0.50)"]
    assert _bench().summary(ran, named=False)[1].split() == ["kept", "25/s", "2.00", "(1.50-2.50)"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--beside", "/nowhere/src"], "--beside takes a checkout's src directory"),
        (["--kinds", "kept,nope"], "--kinds: unknown 'nope'"),
    ],
)
def test_a_wrong_tree_or_kind_is_refused_by_name(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _bench().main(["--postgres", "postgresql://unused/x", *args])
    assert said in capsys.readouterr().err
