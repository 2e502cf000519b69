"""Dates and times as each language writes them (dippouch.i18n.format_date / format_datetime), and the
templates' ``date`` and ``datetime`` filters: the reader's time zone if they chose one, else the zone the
template names (a game's), else UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.requests import Request

from dippouch.i18n import format_date, format_datetime
from dippouch.store.people.persons import Preferences
from dippouch.web.app import _templates

NINE = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("lang", "zone", "day", "moment"),
    [
        ("en", None, "Dec 1, 2026", "Dec 1, 2026, 9:00\u202fAM UTC"),
        ("de", None, "01.12.2026", "01.12.2026, 09:00 UTC"),
        ("fr", None, "1 déc. 2026", "1 déc. 2026, 09:00 UTC"),
        ("de", "Europe/Berlin", "01.12.2026", "01.12.2026, 10:00 MEZ"),
        ("fr", "Europe/Paris", "1 déc. 2026", "1 déc. 2026, 10:00 UTC+01:00"),
        ("en", "America/New_York", "Dec 1, 2026", "Dec 1, 2026, 4:00\u202fAM EST"),
        ("en", "Pacific/Kiritimati", "Dec 1, 2026", "Dec 1, 2026, 11:00\u202fPM UTC+14:00"),
    ],
)
def test_a_moment_as_each_language_writes_it(lang: str, zone: str | None, day: str, moment: str) -> None:
    assert format_date(NINE, lang, zone) == day
    assert format_datetime(NINE, lang, zone).replace(" ", " ") == moment.replace(" ", " ")


def test_the_day_is_the_zones_day() -> None:
    late = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)
    assert format_date(late, "de") == "31.12.2026"
    assert format_date(late, "de", "Europe/Berlin") == "01.01.2027"


def test_stored_naive_times_are_utc_and_empty_is_nothing() -> None:
    assert format_datetime(NINE.replace(tzinfo=None), "de") == "01.12.2026, 09:00 UTC"
    assert format_datetime("2026-12-01T09:00:00+00:00", "de") == "01.12.2026, 09:00 UTC"
    assert format_date(date(2026, 12, 1), "fr", form="long") == "1 décembre 2026"
    assert format_date(None, "en") == format_datetime(None, "en") == ""


def test_an_unknown_zone_or_form_never_fails_a_page() -> None:
    assert format_datetime(NINE, "de", "Mars/Olympus") == "01.12.2026, 09:00 UTC"
    assert format_date(NINE, "de", form="galactic") == "01.12.2026"


def _request(zone: str | None) -> Request:
    """A request whose reader is known (the filters ask for a signed-in person's choices through it)."""
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "query_string": b""})
    request.state.viewer = SimpleNamespace(person_id=1 if zone else None)
    web = SimpleNamespace(kept=lambda room, make: {1: (float("inf"), Preferences("de", zone))})
    request.scope["app"] = SimpleNamespace(state=SimpleNamespace(web=web))
    return request


def _render(lang: str, source: str, **ctx: Any) -> str:
    return _templates(lang).env.from_string(source).render(**ctx)


def test_the_filters_use_the_readers_zone_else_the_games_else_utc() -> None:
    page = "{{ t|datetime }} / {{ t|datetime(zone=z) }} / {{ t|date(form='long') }}"
    assert _render("de", page, t=NINE, z="America/New_York") == (
        "01.12.2026, 09:00 UTC / 01.12.2026, 04:00 UTC-05:00 / 1. Dezember 2026"
    )
    # A reader who chose Berlin sees Berlin's time, whatever the game's zone.
    seen = _render("de", page, t=NINE, z="America/New_York", request=_request("Europe/Berlin"))
    assert seen == "01.12.2026, 10:00 MEZ / 01.12.2026, 10:00 MEZ / 1. Dezember 2026"
    assert _render("fr", "{{ t|date }}", t=NINE, request=_request(None)) == "1 déc. 2026"
