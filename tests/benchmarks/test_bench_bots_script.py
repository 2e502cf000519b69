"""The bots benchmark runs at a tiny size and prints every figure it promises."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from benchsupport import bench_script


def _load() -> ModuleType:
    return bench_script("bench_bots")


def test_a_tiny_run_prints_centres_solos_times_goals_and_a_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    code = bench.main(["--games", "2", "--years", "1", "--variants", "hundred3,w3k", "--budget", "0.02", "--markdown"])
    out = capsys.readouterr().out
    assert code == 0  # no illegal order in any game
    assert "== hundred3: 6 games, illegal orders: 0" in out and "== w3k: 6 games, illegal orders: 0" in out
    for level in ("hold", "random", "heuristic", "search"):
        assert f"\n  {level} " in out
    assert "heuristic v random:" in out and "search v heuristic:" in out
    assert "W3K heuristic move: worst" in out and "W3K search move: worst" in out
    assert "| level | Elo | pairwise results |" in out and "| `random` | 1000 |" in out


def test_the_ladder_ranks_a_level_that_always_wins_above_one_that_always_loses() -> None:
    bench = _load()
    results = [("a", "b", 1.0)] * 20 + [("b", "c", 1.0)] * 20
    ratings = bench.elo(results, anchor="b")
    assert ratings["a"] > ratings["b"] == 1000 > ratings["c"]


def test_the_ladder_is_on_elos_scale() -> None:
    """Three wins in four is about 190 Elo points (400 * log10(3)); nine in ten about 380 (the virtual draw
    of the prior pulls each a little towards even)."""
    bench = _load()
    ratings = bench.elo(
        [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25 + [("b", "c", 1.0)] * 90 + [("b", "c", 0.0)] * 10, anchor="b"
    )
    assert 180 <= ratings["a"] - 1000 <= 192
    assert 365 <= 1000 - ratings["c"] <= 382


def test_saved_results_of_separate_runs_make_one_ladder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    saved = tmp_path / "hundred3.json"
    args = ["--games", "2", "--years", "1", "--variants", "hundred3", "--budget", "0.02", "--save", str(saved)]
    assert bench.main(args) == 0
    capsys.readouterr()
    assert bench.main(["--ladder-from", str(saved), str(saved), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "from 2 file(s)" in out and "| `random` | 1000 |" in out


def test_bad_arguments_are_refused_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    with pytest.raises(SystemExit):
        bench.main(["--variants", "standrd"])
    assert "unknown variant(s) standrd; choose from standard, hundred3" in capsys.readouterr().err
