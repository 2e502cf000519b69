"""How long an absent player's deadline is extended: to the day they are back, within their budget."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from dippouch.people.absences import Away, away_on, back_on, extension

DEADLINE = datetime(2026, 8, 5, 18, 0, tzinfo=UTC)


def test_the_deadline_moves_to_the_same_hour_of_the_day_the_player_is_back() -> None:
    away = [Away(1, date(2026, 8, 3), date(2026, 8, 21))]
    assert extension(DEADLINE, away, budget_left=30) == timedelta(days=17)  # 22 Aug, 18:00
    assert extension(DEADLINE, away, budget_left=10) == timedelta(days=10)  # what the budget has left
    assert extension(DEADLINE, away, budget_left=0) is None
    assert extension(DEADLINE + timedelta(days=20), away, budget_left=30) is None  # back already


def test_holidays_that_touch_count_as_one() -> None:
    away = [Away(1, date(2026, 8, 3), date(2026, 8, 10)), Away(2, date(2026, 8, 11), date(2026, 8, 14))]
    assert back_on(away, date(2026, 8, 5)) == date(2026, 8, 15)
    assert away_on(away, date(2026, 8, 15)) is None


@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 10)), max_size=5),
    st.integers(0, 40),
    st.integers(0, 50),
)
def test_an_extension_ends_on_a_day_the_player_is_back_or_uses_the_whole_budget(
    spans: list[tuple[int, int]], offset: int, budget: int
) -> None:
    base = date(2026, 8, 1)
    away = [Away(i, base + timedelta(days=a), base + timedelta(days=a + n)) for i, (a, n) in enumerate(spans)]
    deadline = datetime.combine(base + timedelta(days=offset), datetime.min.time(), UTC) + timedelta(hours=18)
    got = extension(deadline, away, budget)
    if away_on(away, deadline.date()) is None or budget == 0:
        assert got is None
        return
    assert got is not None and timedelta(0) < got <= timedelta(days=budget)
    new = deadline + got
    assert away_on(away, new.date()) is None or got == timedelta(days=budget)
    # Never past the first day back.
    back = back_on(away, deadline.date())
    assert back is not None and new.date() <= back
