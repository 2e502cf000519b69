"""One refusal, every door (issue 53): a game created under a name already taken is refused by the store with a
message value (``a game named %(game)s already exists; ...``), and the web page, the JSON API and the command
line each say it from that value in their reader's language: for a German reader the same German sentence at
every door, and the JSON API's answer carries the message's code and values besides.

The name holds "; ", which the English read back by regular expressions (the deleted dippouch.said) split in two
and left in English: a door that says the refusal by reading its English fails here, one that says its value
does not.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.core.messages import msg
from dippouch.saying import say
from websupport import ACCEPT, Site, page_words

NAME = "Nord; Süd"
REFUSAL = msg("a game named %(game)s already exists; choose another name", game=repr(NAME))


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game(NAME)
    return s


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _said(site: Site, door: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What ``door`` tells a German reader who creates the game ``NAME`` again."""
    if door == "cli":
        monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
        register_commands()
        got = CliRunner().invoke(app, ["new", NAME, "--db", f"sqlite:///{tmp_path / 'g.db'}"])
        assert got.exit_code == 2, got.output
        return _one_line(got.output.removeprefix("error:"))
    c = site.coordinator
    if door == "api":
        r = c.post(
            "/api/games?lang=de", json={"name": NAME, "variant": "standard"}, headers={"X-CSRF-Token": site.csrf(c)}
        )
        assert r.status_code == 400, r.text
        answer = r.json()
        assert answer["code"] == REFUSAL.id
        assert answer["params"] == {"game": repr(NAME)}
        return _one_line(answer["error"])
    r = site.post_form(
        c, "/coordinate/new", {"name": NAME, "variant": "standard"}, headers={"Accept-Language": ACCEPT["de"]}
    )
    assert r.status_code == 400, r.text
    return _one_line(html.unescape(page_words(r.text)))


@pytest.mark.parametrize("door", ["web", "api", "cli"])
def test_a_refusal_says_the_same_german_sentence_at_every_door(
    door: str, site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    german = say(REFUSAL, "de")
    assert german.startswith("eine Partie namens 'Nord; Süd' ")  # the catalogue's German, the name as it was typed
    assert german in _said(site, door, tmp_path, monkeypatch)


def test_the_api_speaks_english_unless_asked_and_keeps_its_error_field(site: Site) -> None:
    c = site.coordinator
    r = c.post("/api/games", json={"name": NAME, "variant": "standard"}, headers={"X-CSRF-Token": site.csrf(c)})
    assert r.status_code == 400
    assert r.json() == {"error": str(REFUSAL), "status": 400, "code": REFUSAL.id, "params": {"game": repr(NAME)}}
