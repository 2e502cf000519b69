"""A name with a character a reader does not see as itself is refused, naming the character and where it is
(security review, finding 14): a zero-width space made ``ben-z2-0\u200b`` a second game that looked like
``ben-z2-0``, and a right-to-left override turned ``\u202eevil`` around. The web's doors (the desk's forms, a
person's new game, the JSON API) and the store's own check of a game's and its players' names refuse alike;
the web says it in the reader's language."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from dbsupport import migrated_sqlite
from dippouch.characters import hidden_character
from dippouch.game import GameError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import ACCEPT, START, Site

T = "ben-z2-0"
HIDDEN = [
    (T + "\u200b", "U+200B ZERO WIDTH SPACE at position 9"),
    ("\u202eevil", "U+202E RIGHT-TO-LEFT OVERRIDE at position 1"),
    ("ad\u2066min", "U+2066 LEFT-TO-RIGHT ISOLATE at position 3"),
    ("x\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE at position 2"),
    ("pri\ue000vate", "U+E000 at position 4"),
    ("two\u2028lines", "U+2028 LINE SEPARATOR at position 4"),
    ("c1\x85c2", "U+0085 at position 3"),
    ("tab\there", "U+0009 at position 4"),
]


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})
    s.new_game(T)
    return s


def _text(r: Any) -> str:
    if r.headers.get("content-type", "").startswith("application/json"):
        return str(r.json()["error"])
    return html.unescape(str(r.text))


def test_the_finder_names_the_first_hidden_character_and_passes_every_visible_one() -> None:
    assert hidden_character("Ünïcødé Über-Name 東京 ☃ 🐉 ça") is None
    assert hidden_character("a\u200bb\u202e") == (2, "U+200B ZERO WIDTH SPACE")
    assert hidden_character("\x07") == (1, "U+0007")


@pytest.mark.parametrize(("name", "said"), HIDDEN, ids=[repr(n) for n, _ in HIDDEN])
def test_a_game_named_with_a_hidden_character_is_refused_at_every_door(site: Site, name: str, said: str) -> None:
    r = site.post_form(site.coordinator, "/coordinate/new", {"name": name, "variant": "standard"})
    assert r.status_code == 400, r.text
    assert f"the game's name contains {said}: invisible and control characters are not allowed" in _text(r)
    r = site.api(site.coordinator, "/api/games", {"name": name, "variant": "standard"})
    assert r.status_code == 400 and said in _text(r), r.text
    pid = create_person(site.web.store, "Pat", now=site.clock())
    person = site.browser()
    person.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    person.get("/")  # the session's CSRF token
    r = site.api(person, "/api/games/new", {"template": "standard-1h-live", "name": name})
    assert r.status_code == 400 and said in _text(r), r.text
    # The store's own check; a line's control characters (below 32) keep their own words ("write it on one line").
    store_said = "a control character" if any(ord(c) < 32 for c in name) else f"{re.escape(said)}: invisible"
    with pytest.raises(GameError, match=f"a game's name .* contains {store_said}"):
        store_games.create_game(site.web.store, name, "standard", now=site.clock())
    assert [g[0] for g in store_games.games(site.web.store)] == [T]


def test_a_player_named_with_a_hidden_character_is_refused(site: Site) -> None:
    r = site.post_form(site.coordinator, f"/games/{T}/coordinate/assign", {"power": "France", "player": "Bo\u200bb"})
    assert r.status_code == 400
    assert "the player's name contains U+200B ZERO WIDTH SPACE at position 3" in _text(r)
    france = next(p for p in store_status.status(site.web.store, T, now=site.clock()).powers if p.power == "France")
    assert france.player is None


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("de", "enthält an Stelle 9 das Zeichen U+200B ZERO WIDTH SPACE: unsichtbare Zeichen und Steuerzeichen"),
        ("fr", "contient U+200B ZERO WIDTH SPACE en position 9 : les caractères invisibles et de contrôle"),
    ],
)
def test_the_refusal_is_said_in_the_readers_language(site: Site, lang: str, said: str) -> None:
    c = site.coordinator
    r = site.post_form(
        c, "/coordinate/new", {"name": T + "\u200b", "variant": "standard"}, headers={"Accept-Language": ACCEPT[lang]}
    )
    assert r.status_code == 400 and said in _text(r), _text(r)[-2000:]


def test_an_imported_game_file_with_a_hidden_character_in_a_players_name_is_refused(tmp_path: Path) -> None:
    """The store's own check: a game file is read by the store whatever door it came in by."""
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "base", "standard", now=START)
    store_games.assign(store, "base", "France", "Bruno", now=START)
    data = store_transfer.export_game(store, "base")
    data["game"]["name"] = "copy"
    data["players"][0]["name"] = "Bru\u2067no"
    with pytest.raises(GameError, match=r"contains U\+2067 RIGHT-TO-LEFT ISOLATE at position 4: invisible"):
        store_transfer.import_game(store, data)
    store.close()
