"""The web's own refusals are message values (issue 53): each family is said in the reader's language where it is
shown (a German page, the form sent back, the JSON API asked with ``?lang=de``), and the JSON API gives the
message's ``code`` (its English template) and ``params`` (its values) beside the words, whatever the language.

Before, these were English text formatted where they were raised (an f-string, or the reader's gettext with
``%``): the API's ``code`` was the whole sentence with its values in it, and the f-string ones were English on
every page. In process (TestClient), one site a test.
"""

from __future__ import annotations

import html
import pickle
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dippouch.saying import say
from dippouch.store.people.persons import create_person
from dippouch.store.tournaments.stored import Tournament
from dippouch.web.http.pool import JobFailed, _travels
from dippouch.web.http.security import NeedsKey, RateLimiter, TooMany, Viewer
from dippouch.web.routes import tournaments
from dippouch.web.views.answers.base import error_data
from websupport import Site

GERMAN = {"Accept-Language": "de"}


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _text(r: Any) -> str:
    return html.unescape(r.text)


def test_the_desk_s_checks_of_what_was_typed_are_german_on_the_page_and_values_in_the_api(site: Site) -> None:
    site.new_game("g")
    c = site.coordinator
    long = "1" * 21 + "d"
    r = site.post_form(c, "/games/g/coordinate/extend", {"by": long}, headers=GERMAN)
    assert r.status_code == 400
    assert "die Verlängerung muss 1 bis 20 Zeichen haben" in _text(r), _text(r)[-1500:]
    r = site.post_form(c, "/games/g/coordinate/revoke", {"key": "abc"}, headers=GERMAN)
    assert r.status_code == 400 and "welcher Schlüssel? (seine Nummer, nicht 'abc')" in _text(r)
    r = site.post_form(
        c, "/games/g/coordinate/seat-many", {"player:France": "Ann", "email:France": "nobody"}, headers=GERMAN
    )
    assert r.status_code == 400
    assert "die E-Mail-Adresse für France, 'nobody', ist keine Adresse (name@example.org)" in _text(r)

    r = site.api(c, "/api/games/g/actions?lang=de", {"action": "extend", "arg": long})
    assert r.status_code == 400
    got = r.json()
    assert got["error"] == "die Verlängerung muss 1 bis 20 Zeichen haben"
    assert got["code"] == "%(what)s must be 1 to %(most)s characters"
    assert got["params"] == {"what": {"msg": {"id": "the extension"}}, "most": 20}
    english = site.api(c, "/api/games/g/actions", {"action": "extend", "arg": long}).json()
    assert english["error"] == "the extension must be 1 to 20 characters"
    assert (english["code"], english["params"]) == (got["code"], got["params"])  # the same whatever the language


def test_a_refused_review_action_is_german(site: Site) -> None:
    site.new_game("g")
    r = site.post_form(site.coordinator, "/games/g/review/9", {"do": "check"}, headers=GERMAN)
    assert r.status_code == 404 and "kein Foto Nr. 9 in g" in _text(r), _text(r)[-1500:]
    r = site.post_form(site.coordinator, "/games/g/review/9", {"do": "check"}, headers={"Accept-Language": "fr"})
    assert "aucune photo nº 9 dans g" in _text(r)


def test_an_opening_that_is_not_there_is_german_with_its_code_and_values(site: Site) -> None:
    site.new_game("g")
    stranger = site.browser()
    r = stranger.get("/api/games/g/opening?lang=de")
    assert r.status_code == 404
    assert r.json() == {
        "error": "g ist nicht offen für Spieler",
        "status": 404,
        "code": "%(game)s is not open for players",
        "params": {"game": "g"},
    }
    r = stranger.get("/games/g/opening", headers=GERMAN)
    assert r.status_code == 404 and "g ist nicht offen für Spieler" in _text(r)


def test_the_roster_s_settings_and_the_api_s_days_are_german_with_the_api_s_field_names(site: Site) -> None:
    site.new_game("g")
    r = site.post_form(
        site.coordinator,
        "/games/g/roster/settings",
        {"absence_policy": "extend", "budget_days": "x"},
        headers=GERMAN,
    )
    assert r.status_code == 400
    assert "budget_days: 'x' ist keine ganze Zahl von Tagen; schreiben Sie z. B. 14" in _text(r), _text(r)[-1500:]

    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    ann = site.browser()
    ann.cookies.set("dp_session", token)
    ann.get("/")
    r = site.api(ann, "/api/me/absences?lang=de", {"first_day": "2026-08-10", "last_day": "2026-08-03"})
    assert r.status_code == 400
    got = r.json()
    assert got["error"] == (
        "last_day: 2026-08-03 liegt vor 'first_day' (2026-08-10); meinten Sie vom 2026-08-03 bis zum 2026-08-10?"
    )
    assert (
        got["code"] == "last_day: %(last)s is before 'first_day' (%(first)s); did you mean from %(last)s to %(first)s?"
    )
    assert got["params"] == {"last": "2026-08-03", "first": "2026-08-10"}
    r = site.api(ann, "/api/me/addresses?lang=de", {"address": "1 Main St", "first_day": "2026-08-10"})
    assert r.status_code == 400
    assert r.json()["error"] == (
        "last_day: geben Sie beide Tage einer Ausweichadresse an (oder keinen, für die Hauptadresse)"
    )
    assert r.json()["params"] == {"field": "last_day"}  # the form's "to" named as the API names it


def test_a_rate_limit_and_another_site_s_post_are_german_with_what_they_count() -> None:
    limiter = RateLimiter({"signin": (1, 60.0)}, clock=lambda: 100.0)
    limiter.hit("signin", "1.2.3.4", "failed sign-ins")
    with pytest.raises(TooMany) as refused:
        limiter.hit("signin", "1.2.3.4", "failed sign-ins")
    data = error_data(refused.value.msg, "de", 429)
    assert data["error"] == (
        "zu viele fehlgeschlagene Anmeldungen von Ihnen: höchstens 1 in 60 Sekunden; versuchen Sie es in 61 s erneut"
    )
    assert data["code"] == (
        "too many %(counted)s from you: at most %(count)s in %(seconds)s seconds; try again in %(wait)s s"
    )
    assert data["params"] == {"counted": {"msg": {"id": "failed sign-ins"}}, "count": 1, "seconds": 60, "wait": 61}


def test_a_post_from_another_site_is_refused_in_german(site: Site) -> None:
    site.new_game("g")
    r = site.post_form(
        site.coordinator,
        "/games/g/coordinate/pause",
        headers={**GERMAN, "Origin": "https://evil.example"},
    )
    assert r.status_code == 403
    assert (
        "diese Anfrage kam von einer anderen Website (Origin 'https://evil.example', Host 'testserver'); sie wurde "
        "abgelehnt"
    ) in _text(r), _text(r)[-1500:]


def test_a_tournament_s_refusal_is_a_message_of_its_name() -> None:
    t = Tournament(1, "t", "draw-size", None, 7, datetime(2026, 11, 26, tzinfo=UTC), ())
    with pytest.raises(NeedsKey) as refused:
        tournaments.require_run(Viewer(), t)
    assert say(refused.value.msg, "de", "web") == (
        "melden Sie sich zuerst an: das Turnier 't' leitet die Person, die es angelegt hat"
    )
    assert refused.value.msg.to_data() == {
        "id": "sign in first: tournament %(name)s is run by the person who created it",
        "args": {"name": "'t'"},
    }


def test_a_replay_format_a_language_and_a_variant_that_are_not_there_are_german(site: Site) -> None:
    site.new_game("g")
    c = site.browser()
    r = c.get("/games/g/replay.bmp", headers=GERMAN)
    assert r.status_code == 404
    assert "keine Wiederholung als 'bmp'; sie wird als replay.gif oder replay.webp erstellt" in _text(r)
    r = c.get("/games/g/replay.bmp", headers={**GERMAN, "Accept": "application/json"})
    assert r.json()["code"] == "no replay as %(format)s; it is made as %(options)s"
    assert r.json()["params"] == {"format": "'bmp'", "options": {"choices": ["replay.gif", "replay.webp"]}}

    r = site.post_form(c, "/language", {"lang": "xx"}, headers=GERMAN)
    assert r.status_code == 400
    assert "Die Sprache 'xx' gibt es hier nicht: Wählen Sie eine von English (en), Deutsch (de)" in _text(r)

    r = c.get("/api/variants/standrd?lang=de")
    assert r.status_code == 404
    assert r.json()["error"].startswith("keine Variante 'standrd'; meinten Sie 'standard'? Varianten: ")
    assert r.json()["code"] == "no variant %(name)s; did you mean %(close)s? Variants: %(all)s"
    assert r.json()["params"]["close"] == "'standard'"


def test_a_sandbox_from_a_phase_that_is_not_there_is_german(site: Site) -> None:
    site.new_game("g")
    r = site.api(site.coordinator, "/api/sandbox?lang=de", {"game": "g", "phase_id": 999})
    assert r.status_code == 404, r.text
    assert r.json()["error"] == "die Partie 'g' hat keine Phase 999"
    assert r.json()["code"] == "game %(game)s has no phase %(id)s"
    assert r.json()["params"] == {"game": "'g'", "id": 999}
    r = site.post_form(site.coordinator, "/sandbox", {"game": "g", "phase_id": "x"}, headers=GERMAN)
    assert r.status_code == 400, _text(r)[-1500:]
    assert "phase_id muss die Nummer einer Phase sein, nicht 'x'" in _text(r)


class _Stubborn(Exception):
    """An exception whose class cannot be built again from its message alone (it does not travel back)."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a} and {b}")


def test_a_job_s_failure_that_cannot_travel_is_kept_with_its_type_and_text_and_travels_itself() -> None:
    got = _travels(_Stubborn(1, 2))
    assert isinstance(got, JobFailed)
    assert str(got) == f"{__name__}._Stubborn: 1 and 2"
    back = pickle.loads(pickle.dumps(got))
    assert isinstance(back, JobFailed) and str(back) == str(got)
