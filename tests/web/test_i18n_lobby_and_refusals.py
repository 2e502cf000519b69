"""The lobby's press rules in the page's language (issue 41, point 4).

Checked on German and French pages on 2026-11-25 (after the player's page learnt to say the lower layers'
words): the open games' list and a game's opening showed the game's press rules in English ("White press: every
message names its sender. ..."), and so did the press kinds ("white", "grey"). They are now described through
the reader's catalogue (:func:`dippouch.press.rules.describe`); the JSON API and the game file keep the English.
A finished game's open press page shows the rules that opened it, in its language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.store import press as store_press
from websupport import Site

ACCEPT = {"en": "en-GB,en;q=0.9", "de": "de-DE,de;q=0.9,en;q=0.5", "fr": "fr-FR,fr;q=0.9,en;q=0.5"}
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")

RULES = {
    "en": ["White press: every message names its sender.", "At most 5000 characters a message"],
    "de": ["Weiße Presse: jede Nachricht nennt ihren Absender.", "Höchstens 5000 Zeichen je Nachricht"],
    "fr": ["Presse blanche : chaque message nomme son expéditeur.", "Au plus 5000 caractères par message"],
}
"""A standard game's press rules (the variant's: white press), as the lobby describes them."""
KIND = {"en": ">white<", "de": ">weiß<", "fr": ">blanche<"}
"""The press kind in the list's column and filter."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _text(r: Any) -> str:
    return str(r.text).replace("&#39;", "'")


def _get(c: Any, url: str, lang: str, status: int = 200) -> str:
    r = c.get(url, headers={"Accept-Language": ACCEPT[lang]})
    assert r.status_code == status, r.text
    return _text(r)


def _opened(site: Site, name: str) -> None:
    site.new_game(name)
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": "preferences"})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_lobby_describes_the_press_rules_in_the_page_s_language(site: Site, lang: str) -> None:
    _opened(site, "lobby")
    visitor = site.browser()
    for url in ("/open", "/games/lobby/opening"):
        page = _get(visitor, url, lang)
        for words in RULES[lang]:
            assert words in page, (url, lang, words)
        if lang != "en":
            for english in RULES["en"]:
                assert english not in page, (url, lang, "still in English", english)
    listing = _get(visitor, "/open", lang)
    assert listing.count(KIND[lang]) >= 2, (lang, "the kind in the column and the filter")  # column and filter
    # The JSON API keeps the English, whatever the browser asks.
    got = visitor.get("/api/open", headers={"Accept-Language": ACCEPT[lang]}).json()["games"][0]
    assert got["press"].startswith(RULES["en"][0]) and got["press_kind"] == "white"


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_a_finished_game_s_open_press_page_shows_its_rules_in_the_page_s_language(site: Site, lang: str) -> None:
    site.new_game("done")
    en = site.player("done", "England", "Ann")
    r = site.api(en, "/api/games/done/powers/England/press", {"to": ["all"], "text": "To the world"})
    assert r.status_code == 200, r.text
    for p in POWERS:
        site.web.store.vote("done", p, True, now=site.clock())
    site.web.touched("done")
    page = _get(site.browser(), "/games/done/press", lang)
    assert "To the world" in page and 'id="press-rules"' in page
    assert RULES[lang][0] in page and RULES["en"][0] not in page
    # The game file carries the rules as the store keeps them: in English.
    carried = store_press.export_press(site.web.store, "done", coordinator=False)
    assert carried is not None and carried["rules_text"][0] == RULES["en"][0]
