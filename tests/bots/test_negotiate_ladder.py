"""The negotiation ladder (benchmarks/bench_negotiation.py) runs at a tiny size, prints every figure it promises
and sends no illegal order; its team talks through the parser and the replies."""

from __future__ import annotations

from types import ModuleType

import pytest

from benchsupport import bench_script


def _load() -> ModuleType:
    return bench_script("bench_negotiation")


def test_a_tiny_ladder_prints_both_personalities_and_no_illegal_order(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--games", "2", "--years", "2", "--show"]) == 0
    out = capsys.readouterr().out
    assert "== standard, heuristic in every seat, 2 games a personality, 2 years" in out
    for personality in ("honest", "opportunist"):
        assert f"  {personality}: team centres a power " in out
    assert "the four silent powers:" in out and "illegal orders: 0;" in out
    assert "Yes: peace between us." in out  # the first game's talk, as the bots wrote it


def test_teams_rotate_so_every_power_negotiates_equally() -> None:
    bench = _load()
    powers = ("A", "B", "C", "D", "E", "F", "G")
    teams = [bench.team_for(powers, g) for g in range(7)]
    assert all(len(set(t)) == 3 for t in teams)
    assert {p: sum(p in t for t in teams) for p in powers} == dict.fromkeys(powers, 3)
