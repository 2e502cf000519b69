"""The address in force on a day, from a primary address and dated alternates (the rulebook's player list),
and the days typed into the forms that give them."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dippouch.core.messages import Days, english_days, msg
from dippouch.people.addresses import PostalAddress, address_in_force, changes_ahead
from dippouch.people.dates import DateError, day_range, parse_day
from dippouch.saying import say

BASE = date(2026, 8, 1)

HOME = PostalAddress(1, "1 High Street, Oxford")


def _alt(i: int, first: int, days: int) -> PostalAddress:
    return PostalAddress(i, f"alternate {i}", BASE + timedelta(days=first), BASE + timedelta(days=first + days))


alternates = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 15)), max_size=6).map(
    lambda spans: [_alt(i + 2, a, n) for i, (a, n) in enumerate(spans)]
)


def test_the_primary_applies_outside_every_alternate_and_the_alternate_on_its_days() -> None:
    trip = PostalAddress(2, "Hotel du Port, Brest", date(2026, 8, 3), date(2026, 8, 21))
    both = [HOME, trip]
    assert address_in_force(both, date(2026, 8, 2)) == HOME
    assert address_in_force(both, date(2026, 8, 3)) == trip
    assert address_in_force(both, date(2026, 8, 21)) == trip
    assert address_in_force(both, date(2026, 8, 22)) == HOME
    assert address_in_force([trip], date(2026, 8, 22)) is None
    assert changes_ahead(both, date(2026, 8, 1)) == [(date(2026, 8, 3), trip), (date(2026, 8, 22), HOME)]


def test_adjacent_alternates_hand_over_at_midnight() -> None:
    first = PostalAddress(2, "Brest", date(2026, 8, 3), date(2026, 8, 10))
    second = PostalAddress(3, "Nantes", date(2026, 8, 11), date(2026, 8, 20))
    both = [HOME, first, second]
    assert address_in_force(both, date(2026, 8, 10)) == first
    assert address_in_force(both, date(2026, 8, 11)) == second
    assert changes_ahead(both, date(2026, 8, 1)) == [
        (date(2026, 8, 3), first),
        (date(2026, 8, 11), second),
        (date(2026, 8, 21), HOME),
    ]


def test_a_trip_inside_a_longer_stay_wins_on_its_days() -> None:
    stay = PostalAddress(2, "Summer house", date(2026, 7, 1), date(2026, 8, 31))
    trip = PostalAddress(3, "Edinburgh", date(2026, 8, 10), date(2026, 8, 12))
    both = [HOME, trip, stay]
    assert address_in_force(both, date(2026, 8, 9)) == stay
    assert address_in_force(both, date(2026, 8, 10)) == trip
    assert address_in_force(both, date(2026, 8, 13)) == stay


@given(alternates, st.integers(-5, 60), st.booleans())
def test_the_address_in_force_covers_the_day_or_is_the_primary(
    alts: list[PostalAddress], offset: int, home: bool
) -> None:
    addresses = [HOME, *alts] if home else alts
    day = BASE + timedelta(days=offset)
    got = address_in_force(addresses, day)
    covering = [a for a in alts if a.first_day and a.last_day and a.first_day <= day <= a.last_day]
    if covering:
        assert got in covering
        # The one that began last wins: no covering alternate began after it.
        assert got is not None and got.first_day is not None
        assert all(a.first_day is not None and a.first_day <= got.first_day for a in covering)
    else:
        assert got == (HOME if home else None)
    # The order the addresses are listed in changes nothing.
    assert address_in_force(list(reversed(addresses)), day) == got


@given(alternates, st.integers(-5, 40))
def test_changes_ahead_agree_with_the_address_in_force_day_by_day(alts: list[PostalAddress], offset: int) -> None:
    addresses = [HOME, *alts]
    today = BASE + timedelta(days=offset)
    changes = dict(changes_ahead(addresses, today))
    current = address_in_force(addresses, today)
    for n in range(1, 70):
        day = today + timedelta(days=n)
        now = address_in_force(addresses, day)
        if now != current:
            assert changes.pop(day) == now
            current = now
        else:
            assert day not in changes
    assert changes == {}


def test_days_are_read_in_the_forms_people_write_them() -> None:
    assert parse_day("2026-08-03", "from") == date(2026, 8, 3)
    assert parse_day(" 3 August 2026 ", "from") == date(2026, 8, 3)
    assert parse_day("21 Aug 2026", "to") == date(2026, 8, 21)
    assert parse_day("3rd Sept 2026", "to") == date(2026, 9, 3)
    assert day_range("2026-08-03", "2026-08-21") == (date(2026, 8, 3), date(2026, 8, 21))


@pytest.mark.parametrize(
    ("first", "last", "message"),
    [
        ("", "2026-08-21", "from: a day is needed"),
        (
            "2026-02-30",
            "2026-03-02",
            r"from: '2026-02-30' is not a day: February 2026 has 28 days \(closest: 2026-02-28\)",
        ),
        ("3 Agust 2026", "2026-08-21", "from: no month 'Agust' in '3 Agust 2026'; did you mean August"),
        ("3/8/2026", "2026-08-21", "from: '3/8/2026' could be read day-first or month-first"),
        ("soon", "2026-08-21", "from: 'soon' is not a day this form reads; write it as 2026-08-03"),
        ("2026-13-01", "2026-08-21", "from: '2026-13-01' has month 13"),
        (
            "2026-08-21",
            "2026-08-03",
            r"to: 2026-08-03 is before 'from' \(2026-08-21\); did you mean from 2026-08-03 to 2026-08-21",
        ),
    ],
)
def test_a_day_that_cannot_be_read_says_which_field_and_a_form_that_works(first: str, last: str, message: str) -> None:
    with pytest.raises(DateError, match=message):
        day_range(first, last)


def test_a_range_reads_as_short_as_it_can() -> None:
    assert english_days("2026-08-03", "2026-08-21") == "3\u201321 Aug"
    assert english_days("2026-07-28", "2026-08-04") == "28 Jul\u20134 Aug"
    assert english_days("2026-12-30", "2027-01-02") == "30 Dec 2026\u20132 Jan 2027"
    assert english_days("2026-08-03", "2026-08-03") == "3 Aug"


def test_a_range_is_said_as_the_readers_language_writes_dates_and_kept_as_a_value() -> None:
    away = msg("away %(days)s", days=Days("2026-08-03", "2026-08-21"))
    assert say(away, "en") == "away 3\u201321 Aug"
    assert say(away, "de") == "abwesend 3.\u201321. Aug."
    assert say(away, "fr") == "absent 3\u201321 ao\u00fbt"
    crossing = msg("away %(days)s", days=Days("2026-12-30", "2027-01-02"))
    assert "2026" in say(crossing, "de") and "2027" in say(crossing, "de") and "Dez." in say(crossing, "de")
    assert type(away).from_data(away.to_data()) == away  # stored and read back whole, the days as dates
