"""Powers from preferences: everyone gets exactly one power, no power twice, wishes best met (squared ranks),
ties broken by the recorded seed alone."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from dippouch.people.assign import ANY, assign_powers, rank_of

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


@st.composite
def sign_ups(draw: st.DrawFn) -> tuple[list[str], dict[int, list[str]]]:
    powers = POWERS[: draw(st.integers(1, len(POWERS)))]
    people = draw(st.integers(0, len(powers)))
    prefs = {}
    for person in range(100, 100 + people):
        wished = draw(st.lists(st.sampled_from(powers), unique=True, max_size=len(powers)))
        if draw(st.booleans()):
            wished = [*wished, ANY]
        prefs[person] = wished
    return powers, prefs


def _cost(powers: list[str], prefs: dict[int, list[str]], given_: dict[int, str]) -> int:
    return sum(rank_of(prefs[p], given_[p], len(powers)) ** 2 for p in prefs)


@settings(max_examples=150, deadline=None)
@given(sign_ups(), st.integers(0, 2**32))
def test_everyone_gets_exactly_one_power_and_no_power_twice(
    case: tuple[list[str], dict[int, list[str]]], seed: int
) -> None:
    powers, prefs = case
    got = assign_powers(powers, prefs, seed)
    assert set(got.powers) == set(prefs)
    assert len(set(got.powers.values())) == len(prefs)
    assert set(got.powers.values()) <= set(powers)


@settings(max_examples=80, deadline=None)
@given(sign_ups(), st.integers(0, 2**32))
def test_no_other_assignment_meets_the_wishes_better(case: tuple[list[str], dict[int, list[str]]], seed: int) -> None:
    powers, prefs = case
    people = sorted(prefs)
    if len(powers) > 6:
        powers = powers[:6]
        prefs = {p: [w for w in prefs[p] if w in powers or w == ANY] for p in people[:6]}
        people = sorted(prefs)
    got = assign_powers(powers, prefs, seed)
    best = min(
        _cost(powers, prefs, dict(zip(people, choice, strict=True)))
        for choice in itertools.permutations(powers, len(people))
    )
    assert _cost(powers, prefs, got.powers) == best


@settings(max_examples=60, deadline=None)
@given(sign_ups(), st.integers(0, 2**32))
def test_the_same_seed_draws_the_same_assignment(case: tuple[list[str], dict[int, list[str]]], seed: int) -> None:
    powers, prefs = case
    assert assign_powers(powers, prefs, seed) == assign_powers(powers, prefs, seed)


def test_distinct_first_choices_are_all_granted() -> None:
    prefs = {1: ["France", "England"], 2: ["England"], 3: ["Turkey", ANY]}
    got = assign_powers(POWERS, prefs, seed=7)
    assert got.powers == {1: "France", 2: "England", 3: "Turkey"}
    assert got.ranks == {1: 1, 2: 1, 3: 1}


def test_two_second_choices_beat_a_first_and_a_third() -> None:
    """Squared ranks: ranks 1, 2, 2 beat 1, 3, 1, which counting ranks alone sees as a tie (both sum to 5)."""
    prefs = {1: ["France", "Germany", "Italy"], 2: ["France", "Germany", "Italy"], 3: ["Germany", "Italy", "France"]}
    for seed in range(20):
        got = assign_powers(["France", "Germany", "Italy"], prefs, seed)
        assert sorted(got.ranks.values()) == [1, 2, 2], (seed, got)


def test_ties_fall_by_the_seed_to_each_side() -> None:
    """Two people who both want only France: each seed gives it to one of them, and over seeds both win."""
    prefs = {1: ["France"], 2: ["France"]}
    winners = {
        next(p for p, w in assign_powers(["France", "Italy"], prefs, s).powers.items() if w == "France")
        for s in range(40)
    }
    assert winners == {1, 2}


def test_any_ranks_the_unnamed_powers_just_after_the_named() -> None:
    assert rank_of(["France", ANY], "Italy", 7) == 2
    assert rank_of(["France"], "Italy", 7) == 8
    assert rank_of([ANY], "Italy", 7) == 1
    assert rank_of(["France", "Italy", ANY], "Italy", 7) == 2


def test_more_people_than_powers_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="3 people for 2 powers"):
        assign_powers(["France", "Italy"], {1: [], 2: [], 3: []}, seed=0)
