"""A map's own words (the heading's phase, the legend) in the reader's language: a German or French page's map
said "Spring 1901 Movement" in English. The picture a page carries is in its reader's language; the picture's own
address names its language, so each language's picture is kept for good under an address (and an ETag) of its
own; another language gets English."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from dippouch.store import processing as store_processing
from websupport import Site

PHASE = {"en": "Spring 1901 Movement", "de": "Frühjahr 1901 Bewegung", "fr": "Printemps 1901 Mouvements"}
AFTER = {"en": "Fall 1901 Movement", "de": "Herbst 1901 Bewegung", "fr": "Automne 1901 Mouvements"}


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo", movement="2d")
    return s


def _map_in(page: str) -> str:
    """The map drawn inline in a page (the player's page carries its own)."""
    found = re.search(r'<svg[^>]*class="dippouch-map".*?</svg>', page, re.S)
    assert found, "no map in the page"
    return html.unescape(found.group(0))


def _heading(svg: str) -> str:
    found = re.search(r'<g class="heading">(.*?)</g>', svg, re.S)
    assert found, "no heading on the map"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_the_game_pages_map_is_in_the_readers_language_under_an_address_of_its_own(site: Site) -> None:
    tags = {}
    for lang, phase in PHASE.items():
        c = site.browser()
        page = c.get("/games/demo", headers={"Accept-Language": lang}).text
        assert phase in _heading(_map_in(page)), (lang, _heading(_map_in(page)))  # the picture the page carries
        # The picture's own address names its language (the JSON API's address is the English one).
        src = c.get("/api/games/demo").json()["map_url"] + ("" if lang == "en" else f"?lang={lang}")
        r = c.get(src)
        assert r.status_code == 200 and phase in _heading(r.text), (lang, _heading(r.text))
        tags[lang] = r.headers["etag"]
        assert c.get(src, headers={"If-None-Match": tags[lang]}).status_code == 304
    assert len(set(tags.values())) == 3, "each language's picture is kept under its own tag"
    # A language the site does not speak (or anything else) gets the English picture, under the English tag.
    plain = src.split("?")[0]
    for odd in ("xx", "de-DE", "", "../en"):
        r = site.browser().get(plain, params={"lang": odd})
        assert r.status_code == 200 and PHASE["en"] in _heading(r.text) and r.headers["etag"] == tags["en"], odd


def test_a_players_page_and_a_phases_page_draw_their_map_in_the_readers_language(site: Site) -> None:
    france = site.player("demo", "France", "Fran")
    for lang, phase in PHASE.items():
        page = france.get("/games/demo/play/France", headers={"Accept-Language": lang}).text
        assert phase in _heading(_map_in(page)), lang
    first = site.web.access.phase_between("demo", 1)
    assert first is not None
    store_processing.process(site.web.store, "demo", now=site.clock(), force=True)
    for lang in PHASE:
        page = site.browser().get(f"/games/demo/phases/{first[0].id}", headers={"Accept-Language": lang}).text
        assert PHASE[lang] in _heading(_map_in(page)), lang
        page = france.get("/games/demo/play/France", headers={"Accept-Language": lang}).text
        assert AFTER[lang] in _heading(_map_in(page)), lang


def test_the_map_files_linked_from_a_page_are_in_its_language(site: Site) -> None:
    tags = {}
    for lang, phase in PHASE.items():
        c = site.browser()
        page = c.get("/games/demo", headers={"Accept-Language": lang}).text
        said = "" if lang == "en" else f"?lang={lang}"
        assert f'href="/games/demo/map.svg{said}"' in page and f'href="/games/demo/map.pdf{said}"' in page, lang
        r = c.get(f"/games/demo/map.svg{said}")
        assert r.status_code == 200 and phase in _heading(r.text), lang
        tags[lang] = r.headers["etag"]
        assert c.get(f"/games/demo/map.svg{said}", headers={"If-None-Match": tags[lang]}).status_code == 304
    assert len(set(tags.values())) == 3
    r = site.browser().get("/games/demo/map.svg?lang=xx")
    assert PHASE["en"] in _heading(r.text) and r.headers["etag"] == tags["en"]
