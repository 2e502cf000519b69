"""The player's page in the reader's language, down to the words the lower layers write in English (issue 41).

Checked on German and French pages on 2026-11-25, the season names were in the page's language ("Hiver 1901
Ajustements", "in dieser Phase (Winter)"), but much of what a player reads while ordering was English: the line
check's verdicts ("no province 'pruss'; did you mean ..."), what the orders leave out ("Army Paris: no order, it
holds"), the board in words ("Fleet Brest, Army Paris"), the last turn's results ("fails — bounced with A
Marseilles (1 vs 1)", on the phase page too) and the game's press rules ("White press: every message names its
sender."). They are now said in the page's language (the rules' messages by :func:`dippouch.saying.say`, the
rest through the catalogues); the JSON API keeps its English unless the page asks for its own
(``/check?lang=de``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from websupport import ACCEPT, Site

TEXT = "A par - pruss\nA mar - pie"
"""The orders France stands on in Fall 1901: a line that does not read, and one that does."""

SAID: dict[str, dict[str, str]] = {
    "refusal": {
        "en": "no province 'pruss'; did you mean Prussia (pru) or Paris (par)?",
        "de": "keine Provinz 'pruss'; meinten Sie Prussia (pru) oder Paris (par)?",
        "fr": "pas de province 'pruss' ; vouliez-vous dire Prussia (pru) ou Paris (par) ?",
    },
    "left out": {
        "en": "Army Paris, Fleet Picardy: no order, they hold",
        "de": "Armee Paris, Flotte Picardy: kein Befehl, sie halten",
        "fr": "Armée Paris, Flotte Picardy : pas d’ordre, elles tiennent",
    },
    "board": {
        "en": "Army Marseilles, Army Paris, Fleet Picardy",
        "de": "Armee Marseilles, Armee Paris, Flotte Picardy",
        "fr": "Armée Marseilles, Armée Paris, Flotte Picardy",
    },
    "result": {
        "en": 'fails <small class="muted">— bounced with A Marseilles (1 vs 1)</small>',
        "de": 'scheitert <small class="muted">— Patt mit A Marseilles (1 gegen 1)</small>',
        "fr": 'échoue <small class="muted">— rebondit avec A Marseilles (1 contre 1)</small>',
    },
    "press": {
        "en": "White press: every message names its sender.",
        "de": "Weiße Presse: jede Nachricht nennt ihren Absender.",
        "fr": "Presse blanche : chaque message nomme son expéditeur.",
    },
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A standard game after Spring 1901 (France and Germany bounced in Burgundy), France's orders of Fall 1901
    standing with a refused line; and a game at Winter 1901 where France builds."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('i18n-player') / 'web.db'}", limits={})
    s.new_game("g")
    store_submissions.submit(s.web.store, "g", "France", "A par - bur\nA mar - bur\nF bre - pic", now=s.clock())
    store_submissions.submit(s.web.store, "g", "Germany", "A mun - bur", now=s.clock())
    store_processing.process(s.web.store, "g", now=s.clock(), force=True)
    store_submissions.submit(s.web.store, "g", "France", TEXT, now=s.clock())
    store_games.create_game(
        s.web.store,
        "builds",
        "standard",
        now=s.clock(),
        position={
            "phase": "Winter 1901 Adjustments",
            "units": [{"power": "France", "unit": "A spa"}, {"power": "France", "unit": "F por"}],
            "supply_centers": {"France": ["par", "bre", "mar", "spa", "por"]},
        },
    )
    return s


@pytest.fixture(scope="module")
def france(site: Site) -> Any:
    return site.player("g", "France", "Françoise")


@pytest.fixture(scope="module")
def builder(site: Site) -> Any:
    return site.player("builds", "France")


def _page(c: Any, url: str, lang: str) -> str:
    r = c.get(url, headers={"Accept-Language": ACCEPT[lang]})
    assert r.status_code == 200, r.text
    return str(r.text).replace("&#39;", "'")


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_player_s_page_says_the_lower_layers_words_in_its_language(site: Site, france: Any, lang: str) -> None:
    text = _page(france, "/games/g/play/France", lang)
    for what, said in SAID.items():
        assert said[lang] in text, f"{what} in {lang}: {said[lang]!r} not on the page"
        if lang != "en":
            assert said["en"] not in text, f"{what} in {lang}: still in English"


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_phase_page_says_the_adjudicator_s_reasons_in_its_language(site: Site, lang: str) -> None:
    first = site.web.access.phases("g")[0]
    text = _page(site.browser(), f"/games/g/phases/{first.id}", lang)
    reason = re.sub(r".*— ", "", SAID["result"][lang]).removesuffix("</small>")
    assert reason in text, (lang, reason)


def test_the_line_check_answers_in_the_language_the_page_asks_for(site: Site, france: Any) -> None:
    """The page's script asks for its own language (the address in ``data-check-url``); the API without it, or
    with a language the site lacks, answers in English as before."""
    de = _page(france, "/games/g/play/France", "de")
    assert 'data-check-url="/api/games/g/powers/France/check?lang=de"' in de
    assert 'data-check-url="/api/games/g/powers/France/check"' in _page(france, "/games/g/play/France", "en")
    for query, lang in (("", "en"), ("?lang=de", "de"), ("?lang=fr", "fr"), ("?lang=es", "en")):
        r = site.api(france, f"/api/games/g/powers/France/check{query}", {"text": TEXT})
        assert r.status_code == 200, r.text
        got = r.json()
        assert got["lines"][0]["error"] == SAID["refusal"][lang], query
        assert got["unordered_notes"] == [SAID["left out"][lang]], query


def test_a_receipt_on_a_french_page_says_what_is_left_out_in_french(site: Site, france: Any) -> None:
    r = site.post_form(
        france, "/games/g/play/France/orders", {"orders": TEXT}, headers={"Accept-Language": ACCEPT["fr"]}
    )
    assert r.status_code == 303, r.text
    text = _page(france, str(r.headers["location"]), "fr")
    assert "Sans ordre : " + SAID["left out"]["fr"] in text
    # The API's receipt keeps its English.
    got = site.api(france, "/api/games/g/powers/France/orders", {"text": TEXT}).json()
    assert got["unordered_notes"] == [SAID["left out"]["en"]]
    assert got["lines"][0]["error"] == SAID["refusal"]["en"]


@pytest.mark.parametrize(
    ("lang", "season", "english"),
    [("de", "Sie dürfen in dieser Phase (Winter) 3 Einheiten aufbauen", None), ("fr", "Hiver", "Winter")],
)
def test_a_build_season_is_named_in_the_page_s_language(
    builder: Any, lang: str, season: str, english: str | None
) -> None:
    text = _page(builder, "/games/builds/play/France", lang)
    adjust = re.search(r'<p id="adjust">(.*?)</p>', text)
    assert adjust and season in adjust.group(1), adjust
    if english:
        assert english not in adjust.group(1)


@pytest.mark.slow
def test_the_live_line_check_speaks_the_page_s_language_in_a_browser(live_site: Any) -> None:
    """The script's line check, as a German player types: the verdict and what is left out in German."""
    from datetime import UTC, datetime

    from playwright.sync_api import expect

    from browsersupport import DESKTOP, watch_errors

    now = datetime.now(UTC)
    store_games.create_game(live_site.store, "g", "standard", now=now)
    store_games.assign(live_site.store, "g", "France", "Player", now=now)
    page = live_site.player("g", "France", DESKTOP, locale="de-DE")
    errors = watch_errors(page)
    page.locator("#orders").fill("A par - pruss")
    expect(page.locator("#checks")).to_contain_text(SAID["refusal"]["de"])
    expect(page.locator("#unordered")).to_contain_text(
        "Armee Marseilles, Armee Paris, Flotte Brest: kein Befehl, sie halten"
    )
    assert errors == [], errors
