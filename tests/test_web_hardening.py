"""The web app against an attacker and a busy day: what is bounded, cached, compressed and kept private."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from websupport import START, Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


# --------------------------------------------------------------------------------------------------
# The calendar feed


def test_calendar_events_last_and_the_schedule_to_come_is_tentative(site: Site) -> None:
    """RFC 5545: an event whose end is its start has no duration; each deadline lasts half an hour. The feed
    also forecasts the phases to come from the game's deadline settings, marked tentative."""
    import icalendar

    site.new_game("cal", movement="2d", adjustments="1d")
    cal = icalendar.Calendar.from_ical(site.browser().get("/games/cal/calendar.ics").content)
    events = list(cal.walk("VEVENT"))
    for e in events:
        assert e.decoded("dtend") - e.decoded("dtstart") == timedelta(minutes=30), e["summary"]
    now, *later = events
    assert str(now["summary"]) == "cal: orders due, Spring 1901 Movement" and "status" not in now
    assert now.decoded("dtstart") == START + timedelta(days=2)
    assert [str(e["summary"]) for e in later[:3]] == [
        "cal: orders due, Fall 1901 Movement (expected)",
        "cal: orders due, Winter 1901 Adjustments (expected)",
        "cal: orders due, Spring 1902 Movement (expected)",
    ]
    assert all(str(e["status"]) == "TENTATIVE" for e in later)
    starts = [e.decoded("dtstart") for e in later[:3]]
    assert starts == [START + timedelta(days=4), START + timedelta(days=5), START + timedelta(days=7)]
    assert len({str(e["uid"]) for e in events}) == len(events)
    # A paused game promises nothing to come.
    site.post_form(site.coordinator, "/games/cal/coordinate/pause")
    paused = icalendar.Calendar.from_ical(site.browser().get("/games/cal/calendar.ics").content)
    assert not [e for e in paused.walk("VEVENT") if "status" in e]
