"""Reliability as arithmetic: on time counts whole, late half, missed nothing, an abandoned seat as five
missed phases, an excused phase not at all; a seat is abandoned once whatever the reasons; a newcomer has no
score, and a minimum other than 0 needs a record."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dippouch.people.reliability import Mark, Record, abandoned, meets, score, tally


def test_a_clean_record_is_100_and_a_newcomer_has_none() -> None:
    assert score(Record(on_time=12, seats=1)) == 100
    assert score(Record()) is None
    assert score(Record(seats=1)) is None


def test_late_counts_half_and_missed_nothing() -> None:
    assert score(Record(on_time=1, late=1, missed=0, seats=1)) == 75
    assert score(Record(on_time=1, late=0, missed=1, seats=1)) == 50
    assert score(Record(on_time=0, late=0, missed=3, seats=1)) == 0


def test_an_abandoned_seat_weighs_as_five_missed_phases() -> None:
    assert score(Record(on_time=5, missed=0, seats=1, abandoned=1)) == 50
    assert score(Record(abandoned=1, seats=1)) == 0


def test_tally_counts_each_phase_once() -> None:
    marks = [Mark(True, False), Mark(False, True), Mark(False, False), Mark(True, True)]
    assert tally(marks, abandoned=True) == Record(on_time=2, late=1, missed=1, seats=1, abandoned=1)


def test_an_excused_phase_counts_neither_for_nor_against() -> None:
    marks = [Mark(True, False), Mark(True, False, excused=True), Mark(False, False, excused=True)]
    rec = tally(marks)
    assert rec == Record(on_time=1, seats=1, excused=2)
    assert (rec.phases, score(rec)) == (1, 100)
    assert score(tally([Mark(False, False, excused=True)])) is None  # only excused phases: no record yet
    assert tally(marks) + tally([Mark(False, False)]) == Record(on_time=1, missed=1, seats=2, excused=2)


def test_a_seat_is_abandoned_once_for_any_of_its_reasons() -> None:
    assert not abandoned(False, disorder=False, freed=False, handed_over=True)  # handed over after orders came
    assert not abandoned(True, disorder=False, freed=False, handed_over=False)  # still theirs, one miss
    assert abandoned(True, disorder=False, freed=False, handed_over=True)
    assert abandoned(False, disorder=True, freed=False, handed_over=False)
    assert abandoned(False, disorder=False, freed=True, handed_over=False)
    every = abandoned(True, disorder=True, freed=True, handed_over=True)
    assert tally([Mark(False, False)], abandoned=every).abandoned == 1
    assert Mark(False, False).missed and not Mark(False, True).missed and not Mark(True, False).missed


def test_minimum_zero_lets_everyone_in_and_any_other_needs_a_record() -> None:
    assert meets(None, 0)
    assert not meets(None, 1)
    assert meets(80, 80)
    assert not meets(79, 80)


@given(st.integers(0, 500), st.integers(0, 500), st.integers(0, 500), st.integers(0, 20))
def test_the_score_is_a_percentage_that_never_rises_with_a_miss(on: int, late: int, missed: int, gone: int) -> None:
    r = Record(on, late, missed, gone + 1, gone)
    s = score(r)
    if s is None:
        assert r.phases == 0 and gone == 0
        return
    assert 0 <= s <= 100
    worse = score(Record(on, late, missed + 1, gone + 1, gone))
    assert worse is not None and worse <= s
