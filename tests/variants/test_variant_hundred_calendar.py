"""Hundred's five-year turns, with adjustments every second turn, and the Judge's labels as an option.

Also pins that the standard calendar's names and parsing are unchanged by the multi-year support.
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.calendar import Calendar, Phase, PhaseKind
from dippouch.core.errors import PhaseError


def sequence(calendar: Calendar, start: Phase, n: int) -> list[str]:
    out = []
    p = start
    for _ in range(n):
        out.append(calendar.name(p))
        p = calendar.next(p)
    return out


@pytest.mark.parametrize("name", ["hundred3", "hundred"])
def test_five_year_turns_with_adjustments_every_second_turn(name: str) -> None:
    v = load_variant(name)
    assert sequence(v.calendar, v.start.phase, 13) == [
        "1425 Movement",
        "1425 Retreats",
        "1430 Movement",
        "1430 Retreats",
        "1430 Adjustments",
        "1435 Movement",
        "1435 Retreats",
        "1440 Movement",
        "1440 Retreats",
        "1440 Adjustments",
        "1445 Movement",
        "1445 Retreats",
        "1450 Movement",
    ]


def test_judge_labels_for_the_same_sequence() -> None:
    plain = load_variant("hundred")
    judge = load_variant("hundred", {"judge_calendar": True})
    names = sequence(judge.calendar, judge.start.phase, 11)
    assert names == [
        "Spring 1425 Movement",
        "Spring 1425 Retreats",
        "Fall 1425 Movement",
        "Fall 1425 Retreats",
        "Winter 1425 Adjustments",
        "Spring 1426 Movement",
        "Spring 1426 Retreats",
        "Fall 1426 Movement",
        "Fall 1426 Retreats",
        "Winter 1426 Adjustments",
        "Spring 1427 Movement",
    ]
    # Same kinds in the same order: only the labels differ.
    p, q = plain.start.phase, judge.start.phase
    for _ in range(20):
        assert plain.calendar.kind(p) == judge.calendar.kind(q)
        p, q = plain.calendar.next(p), judge.calendar.next(q)
    assert judge.calendar.parse("W1425A") == Phase(1425, 4)
    assert judge.calendar.parse("fall 1426 movement") == Phase(1426, 2)


@pytest.mark.parametrize("name", ["hundred", "hundred3", "standard", "1897"])
@pytest.mark.parametrize("judge", [False, True])
def test_names_parse_back(name: str, judge: bool) -> None:
    opts = {"judge_calendar": True} if judge and name.startswith("hundred") else None
    v = load_variant(name, opts)
    p = v.start.phase
    for _ in range(25):
        assert v.calendar.parse(v.calendar.name(p)) == p
        assert v.calendar.parse(v.calendar.name(p).upper()) == p
        p = v.calendar.next(p)


def test_hundred_parse_picks_the_step_of_that_year() -> None:
    c = load_variant("hundred").calendar
    assert c.parse("1430 Movement") == Phase(1430, 2)
    assert c.parse("1435 Movement") == Phase(1435, 0)
    assert c.parse("1430") == Phase(1430, 2)
    assert c.parse("1430A") == Phase(1430, 4)
    assert c.parse("1445r") == Phase(1445, 1)
    assert c.kind(c.parse("1440 adjustments")) == PhaseKind.ADJUSTMENTS


@pytest.mark.parametrize("text", ["1425 Adjustments", "1435A", "1435 adjustments"])
def test_hundred_rejects_adjustments_in_an_odd_turn(text: str) -> None:
    c = load_variant("hundred").calendar
    with pytest.raises(PhaseError, match=r"only in 1430, 1440, 1450"):
        c.parse(text)


def test_hundred_rejects_seasons_it_does_not_have() -> None:
    with pytest.raises(PhaseError, match="seasons: none"):
        load_variant("hundred").calendar.parse("Spring 1425")


def test_standard_calendar_unchanged() -> None:
    v = load_variant("standard")
    c = v.calendar
    assert sequence(c, v.start.phase, 6) == [
        "Spring 1901 Movement",
        "Spring 1901 Retreats",
        "Fall 1901 Movement",
        "Fall 1901 Retreats",
        "Winter 1901 Adjustments",
        "Spring 1902 Movement",
    ]
    assert c.parse("S1901M") == Phase(1901, 0)
    assert c.parse("F1903R") == Phase(1903, 3)
    assert c.parse("winter 1905") == Phase(1905, 4)
    assert c.parse("Fall 1901") == Phase(1901, 2)
    with pytest.raises(PhaseError):
        c.parse("1901A")
    with pytest.raises(PhaseError):
        c.parse("Summer 1901")


def test_1897_starts_with_winter_adjustments() -> None:
    v = load_variant("1897")
    assert sequence(v.calendar, v.start.phase, 3) == [
        "Winter 1897 Adjustments",
        "Spring 1898 Movement",
        "Spring 1898 Retreats",
    ]
