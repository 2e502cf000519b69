"""Press privacy from an outsider's side: every press route of a private game answers as for a game that does not
exist (status and words, byte for byte but the name), before the end and after; what a game's end opens is its
rules': public press by default, private and group letters only where the game declares it."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the test client's own deprecation notice, as tests/websupport.py has it
    from fastapi.testclient import TestClient

import dippouch.store.press.messages as store_press
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from dippouch.web.routes import press as web_press
from websupport import Site

HUSH = "hushgame"
"""The private game."""
NONE = "nogame01"
"""A game that does not exist: a name as long as the private one's, so the answers can match byte for byte."""
OTHERS = ["Austria", "France", "Germany", "Italy", "Russia", "Turkey"]
LETTER = "Meet me in Burgundy"
SHOUT = "Peace to all powers"

FIELDS = {"to": ["France"], "text": "hello", "power": "France", "choice": "mute", "reason": "rude", "rules": {}}
"""One body every press call of the API reads (each model ignores the fields that are not its own), so each
call gets past the reading of its body to the question of the game."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game(HUSH, visibility="private")
    return s


def _press_routes() -> list[tuple[str, str]]:
    """(method, path) of every press route, the pages' and the API's (under /api), as the routers declare them."""
    out = [(m, r.path) for r in web_press.router.routes if isinstance(r, APIRoute) for m in r.methods or ()]
    return sorted(out)


def _path(template: str, game: str) -> str:
    return (
        template.replace("{name}", game)
        .replace("{power}", "England")
        .replace("{channel_id}", "1")
        .replace("{message_id}", "1")
        .replace("{after}", "0")
    )


def _ask(site: Site, c: TestClient, method: str, template: str, game: str) -> Any:
    url = _path(template, game)
    if method == "GET":
        return c.get(url, follow_redirects=False)
    if url.startswith("/api/"):
        return c.post(url, json=FIELDS, headers={"X-CSRF-Token": site.csrf(c)}, follow_redirects=False)
    form = {"csrf": site.csrf(c), "text": "hello", "to": "France", "other": "France", "choice": "mute"}
    return c.post(url, data=form, follow_redirects=False)


def _same(text: str, game: str) -> str:
    """An answer with what differs between any two requests taken out: the game's name, the page's CSRF pad."""
    text = re.sub(r'(name="csrf" (?:content|value))="[^"]*"', r"\1", text)
    return text.replace(game, "GAME")


def _outsiders(site: Site) -> dict[str, TestClient]:
    """An anonymous visitor, a person signed in who has no part in the game, a player of another game by key."""
    site.new_game("open")
    person = TestClient(site.app, raise_server_exceptions=False)
    pid = create_person(site.web.store, "Eve", now=site.clock())
    person.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    person.get("/")
    return {"visitor": site.browser(), "person": person, "player elsewhere": site.player("open", "England", "Eve")}


def _differences(site: Site, outsiders: dict[str, TestClient]) -> list[str]:
    routes = _press_routes()
    assert len(routes) >= 18, routes  # every press route is asked, pages and API
    out = []
    for who, c in outsiders.items():
        for method, template in routes:
            hushed, missing = _ask(site, c, method, template, HUSH), _ask(site, c, method, template, NONE)
            if hushed.status_code != missing.status_code or _same(hushed.text, HUSH) != _same(missing.text, NONE):
                out.append(f"{who} {method} {template}: {hushed.status_code} {hushed.text[:200]!r}")
            elif hushed.status_code == 200 or LETTER in hushed.text or SHOUT in hushed.text:
                out.append(f"{who} {method} {template}: answered {hushed.status_code}")
    return out


def _finish(site: Site, game: str) -> None:
    for p in ["England", *OTHERS]:
        store_votes.vote(site.web.store, game, p, True, now=site.clock())
    site.web.touched(game)


def test_every_press_route_of_a_private_game_answers_an_outsider_as_a_missing_game(site: Site) -> None:
    en = site.player(HUSH, "England", "Ann")
    assert (
        site.api(en, "/api/games/hushgame/powers/England/press", {"to": ["France"], "text": LETTER}).status_code == 200
    )
    assert site.api(en, "/api/games/hushgame/powers/England/press", {"to": ["all"], "text": SHOUT}).status_code == 200
    outsiders = _outsiders(site)
    # The page that told them apart: a missing game is not found, a private one was "not open to readers".
    assert outsiders["visitor"].get(f"/games/{HUSH}/press").status_code == 404
    assert _differences(site, outsiders) == []

    _finish(site, HUSH)
    assert store_status.status(site.web.store, HUSH, now=site.clock()).state == "finished"
    assert _differences(site, outsiders) == []  # after the end too: nothing of a private game is public
    # Those in the game read what its end opens: its public press, not the letters of others.
    de = site.player(HUSH, "Germany", "Bo")
    page = de.get(f"/games/{HUSH}/press")
    assert page.status_code == 200 and SHOUT in page.text and LETTER not in page.text


def test_a_finished_public_game_publishes_its_public_press_and_keeps_its_letters(site: Site) -> None:
    site.new_game("pub")
    en = site.player("pub", "England", "Ann")
    assert site.api(en, "/api/games/pub/powers/England/press", {"to": ["France"], "text": LETTER}).status_code == 200
    r = site.api(en, "/api/games/pub/powers/England/press", {"to": ["France", "Germany"], "text": "A group of three"})
    assert r.status_code == 200 and r.json()["kind"] == "group"
    assert site.api(en, "/api/games/pub/powers/England/press", {"to": ["all"], "text": SHOUT}).status_code == 200
    _finish(site, "pub")
    visitor = site.browser()
    for url in ("/games/pub/press", "/games/pub/export.json", "/api/games/pub/export"):
        got = visitor.get(url)
        assert got.status_code == 200 and SHOUT in got.text, url
        assert LETTER not in got.text and "A group of three" not in got.text, url
    # Nor do the end's open channels reach another power, or the coordinator (who does not read private press).
    assert LETTER not in site.player("pub", "Italy", "Cy").get("/api/games/pub/powers/Italy/press/since/0").text
    assert LETTER not in site.coordinator.get("/games/pub/press").text
    # The game's rules say so in words, as the players were shown them from the start.
    rules = en.get("/api/games/pub/powers/England/press").json()["rules_text"]
    assert "When the game ends, public press is open to everyone; private and group letters stay private." in rules
    # A game that declares it opens its letters too (explicitly: open_private_after_end).
    store_press.set_press_rules(site.web.store, "pub", {"open_private_after_end": True}, now=site.clock())
    page = visitor.get("/games/pub/press").text
    assert LETTER in page and "A group of three" in page and SHOUT in page


def test_a_letter_after_the_end_is_still_refused_and_says_what_may_be_sent(site: Site) -> None:
    site.new_game("pub")
    en = site.player("pub", "England", "Ann")
    _finish(site, "pub")
    r = site.api(en, "/api/games/pub/powers/England/press", {"to": ["France"], "text": LETTER})
    assert r.status_code == 400
    assert r.json()["error"] == "not sent (game over): the game is over: only messages to all powers are sent now"
