"""The new game page's template titles, the roster's own confirmations and the store's refusals on the roster
pages, in the page's language (issue 41, point 4).

Seen on German pages on 2026-11-25: the new game page listed "Standard, 1 day, full press", adding an address
said "Address added." and an empty one was refused with "address: write the address, one line per line of the
envelope"; a press setting refused ("unknown press kind 'loud'; did you mean 'load'?") was English too. The
titles are message ids said through the catalogue (``{{ t.title|said }}``), the confirmations marked in
dippouch.web.routes.roster, and the refusals are message values said in the reader's language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.core.errors import DippouchError
from dippouch.press.rules import PressRules
from dippouch.saying import say
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import ACCEPT, Site

TITLE = {
    "en": "Standard, 1 day, full press",
    "de": "Standard, 1 Tag, volle Presse",
    "fr": "Standard, 1 jour, presse complète",
}
ADDED = {"en": "Address added.", "de": "Adresse hinzugefügt.", "fr": "Adresse ajoutée."}
EMPTY = {
    "en": "address: write the address, one line per line of the envelope",
    "de": "Adresse: schreiben Sie die Adresse, eine Zeile pro Zeile des Umschlags",
    "fr": "adresse : écrivez l'adresse, une ligne par ligne de l'enveloppe",
}


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _person(site: Site, lang: str) -> Any:
    pid = create_person(site.web.store, "Anna", now=site.clock())
    c = site.browser()
    c.headers["Accept-Language"] = ACCEPT[lang]
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def _text(r: Any) -> str:
    return str(r.text).replace("&#39;", "'")


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_new_game_page_s_template_titles_are_in_the_page_s_language(site: Site, lang: str) -> None:
    r = _person(site, lang).get("/new-game")
    assert r.status_code == 200, r.text
    assert TITLE[lang] in _text(r)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_an_address_added_or_refused_is_said_in_the_page_s_language(site: Site, lang: str) -> None:
    c = _person(site, lang)
    r = site.post_form(c, "/me/addresses", {"address": ""})
    assert r.status_code == 400
    assert EMPTY[lang] in _text(r)
    r = site.post_form(c, "/me/addresses", {"address": "1 Rue de la Paix\nParis"})
    assert r.status_code == 303, r.text
    assert ADDED[lang] in _text(c.get(r.headers["location"]))


@pytest.mark.parametrize(
    ("lang", "said_here"),
    [
        ("de", "unbekannte Presseart 'loud'; wählen Sie eines von: none, white"),
        ("fr", "type de presse inconnu 'loud' ; choisissez parmi : none, white"),
    ],
)
def test_a_press_setting_refused_is_said_in_the_readers_language(lang: str, said_here: str) -> None:
    with pytest.raises(DippouchError) as refused:
        PressRules.from_data({"kind": "loud"})
    assert say(refused.value.msg, lang).startswith(said_here)


@pytest.mark.parametrize(
    ("query", "said_here"),
    [
        ("", "not sent (empty): the message is empty: write something to send"),
        ("?lang=de", "nicht gesendet (leer): die Nachricht ist leer: schreiben Sie etwas, um sie zu senden"),
        ("?lang=xx", "not sent (empty): the message is empty: write something to send"),
    ],
)
def test_the_json_api_says_a_refusal_in_the_language_the_page_s_script_asks_for(
    site: Site, query: str, said_here: str
) -> None:
    # press.js sends a message through the JSON API with ?lang=<the page's language>; programs get the English.
    site.new_game("g")
    en = site.player("g", "England")
    r = site.api(en, "/api/games/g/powers/England/press" + query, {"to": ["France"], "text": "  "})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == said_here
