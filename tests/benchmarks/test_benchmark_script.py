"""The benchmark script's dippouch side runs on its own (MILA is only installed in the benchmark's venv)."""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

from benchsupport import bench_script


def _load() -> ModuleType:
    return bench_script("bench_random_games")


def test_dippouch_games_are_played_and_reported(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--engine", "dippouch", "--games", "2", "--end-year", "1903"]) == 0
    out = capsys.readouterr().out
    assert "dippouch: 2 games" in out
    assert "(a) adjudication" in out and "(b) legal-order generation" in out


def test_recorded_phases_replay_to_the_same_positions() -> None:
    """The recorded (position, orders) pairs are what was adjudicated: replaying one gives the next position."""
    bench = _load()
    from dippouch.core.adjudicator import adjudicate

    recorded: list[tuple[Any, Any]] = []
    timings = bench.play_dippouch([7], 1902, record=recorded)
    assert timings.phases == len(recorded) >= 5
    variant = bench._VARIANTS["standard"]
    for (position, orders), (after, _) in itertools.pairwise(recorded):
        assert adjudicate(variant, position, orders).next == after


def test_repeat_needs_both_engines(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    with pytest.raises(SystemExit):
        bench.main(["--engine", "dippouch", "--repeat", "2"])
    assert "needs --engine both" in capsys.readouterr().err


def _forget_fast(bench: ModuleType) -> None:
    """Drop the standard map's fast-path tables (kept on the map), so the run builds them afresh."""
    from dippouch.catalog import load_variant

    assert "standard" not in bench._VARIANTS  # the run loads it: the same object, held by the loader's cache
    load_variant("standard").map.derived.pop("legal.fast", None)


def test_lazy_tables_are_said_and_leave_the_map_tables_to_the_timed_calls(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    _forget_fast(bench)
    assert bench.main(["--engine", "dippouch", "--games", "1", "--end-year", "1901", "--lazy-tables"]) == 0
    assert "tables built in the timed calls" in capsys.readouterr().out
    fast = bench._VARIANTS["standard"].map.derived["legal.fast"]
    assert any(fast.units[c] is None for c, ok in enumerate(fast.plausible) if ok)  # only units met were built


def test_map_tables_are_built_before_timing_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    _forget_fast(bench)
    assert bench.main(["--engine", "dippouch", "--games", "1", "--end-year", "1901"]) == 0
    assert "tables built before timing" in capsys.readouterr().out
    fast = bench._VARIANTS["standard"].map.derived["legal.fast"]
    assert all(fast.units[c] is not None for c, ok in enumerate(fast.plausible) if ok)
