"""The lower layers' refusals in German and French (issue 41, point 4), made by the code that raises them.

96 refusals stayed English on German pages on 2026-11-25; the checks of an imported game file have their tests
in ``tests/store/test_game_file_said.py``. These make the others from the code that raises them (a time zone
misspelt, a day typed wrong, an unknown tournament, a sealed phase opened without a reason, the engine's words a
layer passes on) and say their message values as a page does (:func:`dippouch.saying.say` with the web's
wording of a command-line hint), so a message without its translation fails here. A sandbox's refused line is a
message value too (tests/play/test_sandbox.py, tests/web/test_sandbox_web.py).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.core.messages import Msg
from dippouch.game import GameError, GameSettings
from dippouch.people.dates import DateError, day_range, parse_day
from dippouch.saying import say
from dippouch.store.people.persons import create_person
from dippouch.store.repository import GameStore
from dippouch.store.rows import power_name
from dippouch.store.sealing import check_reason
from dippouch.store.tournaments.stored import tournament
from dippouch.web.http.inputs import WEB_HINTS  # noqa: F401 (imported, it words the layers' hints for the web)
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

V = load_variant("standard")
T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


def _refused(make: Callable[[], object]) -> Msg:
    try:
        make()
    except (GameError, DateError) as e:
        return e.msg
    raise AssertionError("expected a refusal")


def _page(refused: Msg, lang: str) -> str:
    return say(refused, lang, "web")


def _zone(name: str) -> Callable[[], object]:
    return lambda: GameSettings.from_data({"timezone": name})


CASES: list[tuple[str, Callable[[], object], str, str]] = [
    (
        "a time zone misspelt",
        _zone("Europe/Berlln"),
        "unbekannte Zeitzone 'Europe/Berlln'; meinten Sie 'Europe/Berlin'? Verwenden Sie einen IANA-Namen wie UTC, "
        "Europe/London oder America/Mexico_City",
        "fuseau horaire inconnu 'Europe/Berlln' ; vouliez-vous dire 'Europe/Berlin' ? Utilisez un nom IANA comme "
        "UTC, Europe/London ou America/Mexico_City",
    ),
    (
        "a time zone like none",
        _zone("Qqqqqqqqqqqq"),
        "unbekannte Zeitzone 'Qqqqqqqqqqqq'. Verwenden Sie einen IANA-Namen wie UTC, Europe/London oder "
        "America/Mexico_City",
        "fuseau horaire inconnu 'Qqqqqqqqqqqq'. Utilisez un nom IANA comme UTC, Europe/London ou America/Mexico_City",
    ),
    (
        "a day typed wrong",
        lambda: parse_day("31 Febuary 2027", "from"),
        "from: kein Monat 'Febuary' in '31 Febuary 2027'; meinten Sie February?",
        "from : pas de mois 'Febuary' dans '31 Febuary 2027' ; vouliez-vous dire February ?",
    ),
    (
        "a day that is not",
        lambda: parse_day("2027-02-31", "to"),
        "to: '2027-02-31' ist kein Tag: February 2027 hat 28 Tage (am nächsten: 2027-02-28)",
        "to : '2027-02-31' n'est pas un jour : February 2027 a 28 jours (le plus proche : 2027-02-28)",
    ),
    (
        "days the wrong way round",
        lambda: day_range("2027-03-10", "2027-03-01"),
        "to: 2027-03-01 liegt vor 'from' (2027-03-10); meinten Sie vom 2027-03-01 bis zum 2027-03-10?",
        "to : 2027-03-01 est avant 'from' (2027-03-10) ; vouliez-vous dire du 2027-03-01 au 2027-03-10 ?",
    ),
    (
        "a sealed phase opened without a reason, for a new key",
        lambda: check_reason("", "England"),
        "die Befehle der offenen Phase sind bis zu ihrer Frist versiegelt: ein neuer Schlüssel für den Spieler von "
        "England öffnet sie, und die Spieler erfahren, wer das tat, wann und warum; geben Sie den Grund an",
        "les ordres de la phase ouverte sont scellés jusqu'à son échéance : une nouvelle clé pour le joueur "
        "de England les ouvre, et les joueurs apprennent qui l'a fait, quand et pourquoi ; donnez la raison",
    ),
    (
        "a power misspelt (the engine's words, passed on)",
        lambda: power_name(V, "Englnd"),
        "keine Macht 'Englnd' in standard; meinten Sie England? Mächte: Austria, England, France, Germany, Italy, "
        "Russia, Turkey",
        "aucune puissance 'Englnd' dans standard ; vouliez-vous dire England ? Puissances : Austria, England, "
        "France, Germany, Italy, Russia, Turkey",
    ),
]


@pytest.mark.parametrize(("what", "refused", "de", "fr"), CASES, ids=[c[0] for c in CASES])
def test_a_layer_s_refusal_is_said_in_german_and_french(
    what: str, refused: Callable[[], object], de: str, fr: str
) -> None:
    m = _refused(refused)
    assert _page(m, "de") == de, str(m)
    assert _page(m, "fr") == fr, str(m)


@pytest.fixture
def store(tmp_path: Path) -> GameStore:
    return GameStore(migrated_sqlite(tmp_path / "g.db"))


def test_an_unknown_tournament_is_said_in_german_and_french(store: GameStore) -> None:
    m = _refused(lambda: tournament(store, "Nope"))
    assert str(m) == "no tournament 'Nope'. There are no tournaments yet."
    assert _page(m, "de") == "kein Turnier 'Nope'. Es gibt noch keine Turniere."
    assert _page(m, "fr") == "aucun tournoi 'Nope'. Il n'y a pas encore de tournoi."


# --------------------------------------------------------------------------------------------------
# The addresses and absences pages: a refusal prefixed with the record it concerns


def _person(site: Site, name: str) -> tuple[int, Any]:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return pid, c


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_a_refused_address_says_its_number_and_why_in_the_page_s_language(site: Site) -> None:
    """Checked on 2026-11-25: "address #1: you have no address #1" stayed English on a German page (no template
    reads the prefix). The prefix is the request's words now, the reason said in its turn."""
    _, ann = _person(site, "Ann")
    site.post_form(ann, "/me/addresses", {"address": "1 Powick Lane\nWorcester"})
    home = ann.get("/api/me/addresses").json()["addresses"][0]["id"]
    _, eve = _person(site, "Eve")
    said_as = {
        "de": f"Adresse #{home}: Sie haben keine Adresse #{home}",
        "fr": f"adresse n° {home} : vous n'avez pas d'adresse n° {home}",
        "en": f"address #{home}: you have no address #{home}",
    }
    for lang, words in said_as.items():
        r = site.post_form(eve, f"/me/addresses/{home}", {"address": "Eve was here"}, headers={"Accept-Language": lang})
        assert r.status_code == 400 and words in html.unescape(r.text), (lang, r.text[-1500:])


def test_a_day_typed_wrong_on_the_absences_page_is_said_in_german(site: Site) -> None:
    _, ann = _person(site, "Ann")
    r = site.post_form(
        ann, "/me/absences", {"from": "2027-02-31", "to": "2027-03-02"}, headers={"Accept-Language": "de"}
    )
    assert r.status_code == 400
    assert "from: &#39;2027-02-31&#39; ist kein Tag: February 2027 hat 28 Tage" in r.text, r.text[-1500:]


# --------------------------------------------------------------------------------------------------
# The web's own refusals, marked now (the check: WEB_NOT_YET)


def test_the_web_s_own_refusals_are_in_the_page_s_language(site: Site) -> None:
    """Checked on 2026-11-25: a sandbox started from a phase that is not a number, a coordinator's draw with
    nobody waiting and a desk's extension out of range were refused in English on German and French pages."""
    site.new_game("g")
    de = {"Accept-Language": "de"}
    r = site.post_form(site.coordinator, "/sandbox", {"game": "g", "phase_id": "x"}, headers=de)
    assert r.status_code == 400 and "phase_id muss die Nummer einer Phase sein, nicht &#39;x&#39;" in r.text
    r = site.post_form(site.coordinator, "/sandbox", {}, headers={"Accept-Language": "fr"})
    assert r.status_code == 400 and "dites où le bac à sable commence" in html.unescape(r.text), r.text[-800:]
    r = site.api(site.coordinator, "/api/games/g/opening", {"mode": "preferences"})
    assert r.status_code == 200, r.text
    r = site.post_form(site.coordinator, "/games/g/opening/draw", headers=de)
    assert r.status_code == 400 and "in g wartet niemand auf eine Macht" in r.text, r.text[-800:]
    r = site.api(site.coordinator, "/api/games/g/opening/draw")
    assert r.status_code == 400 and r.json()["error"] == "nobody is waiting for a power in g"  # the API: English


def test_a_typed_value_the_desk_refuses_is_named_in_the_page_s_language(site: Site) -> None:
    """web.http.inputs' helpers (a name, a number, a duration) refuse in their caller's words, what they read named
    in them too: the desk's extension, the lobby's reliability; the JSON API's stay English."""
    site.new_game("g")
    r = site.post_form(
        site.coordinator, "/games/g/coordinate/extend", {"by": "x" * 30}, headers={"Accept-Language": "de"}
    )
    assert r.status_code == 400 and "die Verlängerung muss 1 bis 20 Zeichen haben" in r.text, r.text[-800:]
    r = site.post_form(
        site.coordinator, "/games/g/coordinate/extend", {"by": "x" * 30}, headers={"Accept-Language": "fr"}
    )
    assert r.status_code == 400 and "la prolongation doit compter de 1 à 20 caractères" in r.text, r.text[-800:]
    r = site.post_form(
        site.coordinator, "/games/g/opening/open", {"min_reliability": "lots"}, headers={"Accept-Language": "de"}
    )
    assert r.status_code == 400
    assert "die Mindestzuverlässigkeit muss eine ganze Zahl von 0 bis 100 sein, nicht &#39;lots&#39;" in r.text
    r = site.api(site.coordinator, "/api/games/g/actions", {"action": "extend", "arg": "x" * 30})
    assert r.status_code == 400 and r.json()["error"] == "the extension must be 1 to 20 characters", r.text
