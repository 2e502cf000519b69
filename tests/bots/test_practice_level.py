"""A practice game offers the strongest bot level the machine can afford (issue 43): the search level when its
bots' budgets together fit in what a person waits for after marking orders ready, the machine has a second
processor and a probe decision is quick; the heuristic otherwise, and for variants with many bots."""

from __future__ import annotations

import os

import pytest

from dippouch.bots import practice as bots_practice
from dippouch.bots.practice import PRACTICE_WAIT, strongest_level
from dippouch.game import GameError
from dippouch.play import practice


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_practice, "_probe", lambda: 0.002)


@pytest.mark.usefixtures("quick")
def test_the_search_level_when_the_machine_can_afford_it() -> None:
    assert strongest_level(6, budget=0.5, cpus=2) == "search"
    assert strongest_level(6, budget=PRACTICE_WAIT / 6 + 0.01, cpus=2) == "heuristic"  # too long a wait
    assert strongest_level(9, budget=0.5, cpus=2) == "heuristic"  # W3K's nine bots
    assert strongest_level(6, budget=0.5, cpus=1) == "heuristic"  # nobody else served meanwhile


def test_a_slow_machine_gets_the_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_practice, "_probe", lambda: 0.2)
    assert strongest_level(6, budget=0.5, cpus=4) == "heuristic"


def test_the_probe_times_a_real_decision() -> None:
    assert 0 < bots_practice._probe() < 5


@pytest.mark.usefixtures("quick")
def test_a_practice_game_without_a_level_chosen_gets_the_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    """The heuristic answers at once (the players' trial: search bots by default made a person wait 2.1 s for the
    start, 1.4-3.4 s a phase); the search level is there to be chosen where the machine affords it."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert practice._choose("standard", "France", None, "ready")[3] == "heuristic"
    assert practice._choose("w3k", "any", None, "ready")[3] == "heuristic"
    assert practice._choose("standard", "France", "search", "ready")[3] == "search"  # chosen, and affordable
    assert practice._choose("standard", "France", "hold", "ready")[3] == "hold"  # a level chosen is kept
    assert practice.default_level() == "heuristic"
    assert practice.DEFAULT_LEVEL == "heuristic"  # what the home page's form offers
    with pytest.raises(AttributeError, match="no attribute 'NOTHING'"):
        practice.NOTHING  # noqa: B018


@pytest.mark.usefixtures("quick")
def test_a_level_stronger_than_the_machine_affords_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone may start a practice game, signed in or not, and each of their "ready"s waits for all its bots on
    the server: the search level for W3K's nine bots, or on one processor, is refused with what may be had."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert practice._choose("standard", "France", "search", "ready")[3] == "search"
    with pytest.raises(GameError) as refused:
        practice._choose("w3k", "any", "search", "ready")
    assert str(refused.value) == (
        "the search level is more than this site can afford for 9 bots (each time you mark your orders ready you "
        "would wait for them all); choose one of hold, random, heuristic"
    )
    assert practice._choose("w3k", "any", "heuristic", "ready")[3] == "heuristic"
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    with pytest.raises(GameError, match="more than this site can afford for 6 bots"):
        practice._choose("standard", "France", "search", "ready")
