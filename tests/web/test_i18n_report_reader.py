"""The results report on the game and phase pages in the reader's language (issue 41): a game whose mail is in
German shows its report to an English reader in English and to a French one in French, while the mail (and the
JSON API, which answers as the mail does) keeps the game's own language."""

from __future__ import annotations

import html

import pytest

from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from websupport import ACCEPT, Site

# The report's first line, in each language (the game is German: "de" is the report as mailed).
HEAD = {
    "en": "Spring 1901 Movement results, game g (Standard Diplomacy)",
    "de": "Ergebnisse Frühjahr 1901 Bewegung, Partie g (Standard Diplomacy)",
    "fr": "Résultats Printemps 1901 Mouvements, partie g (Standard Diplomacy)",
}
HOLD = {"en": "(no order received)", "de": "(kein Befehl erhalten)", "fr": "(aucun ordre reçu)"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A standard game in German with its first movement phase processed."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('report') / 'web.db'}", limits={})
    s.new_game("g", language="de")
    store_submissions.submit(s.web.store, "g", "France", "A par - bur", now=s.clock())
    assert store_processing.process(s.web.store, "g", now=s.clock(), force=True) == ["Spring 1901 Movement"]
    return s


def _report(page: str) -> str:
    start = page.index('<pre class="report"')
    return html.unescape(page[page.index(">", start) + 1 : page.index("</pre>", start)])


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@pytest.mark.parametrize("signed_in", [False, True])
def test_the_game_page_shows_the_report_in_the_readers_language(site: Site, lang: str, signed_in: bool) -> None:
    client = site.coordinator if signed_in else site.browser()
    for _ in range(2):  # the second from the page kept in memory (anonymous) or the report kept (signed in)
        report = _report(client.get("/games/g", headers={"Accept-Language": ACCEPT[lang]}).text)
        assert report.startswith(HEAD[lang]), report
        assert HOLD[lang] in report


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_phase_page_shows_the_report_in_the_readers_language(site: Site, lang: str) -> None:
    first = site.web.access.phases("g")[0]
    page = site.browser().get(f"/games/g/phases/{first.id}", headers={"Accept-Language": ACCEPT[lang]}).text
    report = _report(page)
    assert report.startswith(HEAD[lang]), report
    assert HOLD[lang] in report


def test_the_json_api_keeps_the_games_language(site: Site) -> None:
    """Programs read the report as the players were mailed it: in the game's language, whatever the caller's."""
    c = site.browser()
    game = c.get("/api/games/g", headers={"Accept-Language": ACCEPT["fr"]}).json()
    assert game["last_report"].startswith(HEAD["de"])
    first = site.web.access.phases("g")[0]
    phase = c.get(f"/api/games/g/phases/{first.id}", headers={"Accept-Language": ACCEPT["en"]}).json()
    assert phase["report"].startswith(HEAD["de"])


# The board in words and the phases' names, on the game and phase pages, in the reader's language.
PAGE_WORDS = {
    "en": ["Fall 1901 Movement", "Army Burgundy", "Fleet Brest", "Spring 1901 Movement"],
    "de": ["Herbst 1901 Bewegung", "Armee Burgundy", "Flotte Brest", "Frühjahr 1901 Bewegung"],
    "fr": ["Automne 1901 Mouvements", "Armée Burgundy", "Flotte Brest", "Printemps 1901 Mouvements"],
}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_the_board_and_the_phases_are_named_in_the_readers_language(site: Site, lang: str) -> None:
    page = html.unescape(site.browser().get("/games/g", headers={"Accept-Language": ACCEPT[lang]}).text)
    for words in PAGE_WORDS[lang]:
        assert words in page, words
    for english in ("Army Burgundy", "Fleet Brest", "Fall 1901 Movement"):
        assert english not in page, english
    first = site.web.access.phases("g")[0]
    phase = html.unescape(
        site.browser().get(f"/games/g/phases/{first.id}", headers={"Accept-Language": ACCEPT[lang]}).text
    )
    assert f"<h1>{PAGE_WORDS[lang][3]}</h1>" in phase


def test_english_pages_and_the_json_api_keep_the_calendars_words(site: Site) -> None:
    page = html.unescape(site.browser().get("/games/g", headers={"Accept-Language": ACCEPT["en"]}).text)
    for words in PAGE_WORDS["en"]:
        assert words in page, words
    game = site.browser().get("/api/games/g", headers={"Accept-Language": ACCEPT["de"]}).json()
    assert game["phase"] == "Fall 1901 Movement"
    assert "Army Burgundy" in next(b["units"] for b in game["board"] if b["power"] == "France")
