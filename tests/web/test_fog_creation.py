"""Fog of war is chosen when a game is made, the same from every door (issue 58): the desk's form, ``POST
/api/games``, a template's new game (form and JSON) and ``dippouch new --fog``; off unless asked, for any
variant, and kept in the game's settings (its file too)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

register_commands()


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}", limits={})


def _fog(site: Site, game: str) -> bool:
    return bool(store_status.status(site.web.store, game, now=site.clock()).settings.fog)


def _person(site: Site, name: str) -> Any:
    pid = create_person(site.web.store, name, now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


def test_the_desk_and_the_api_make_a_fog_game_of_any_variant(site: Site) -> None:
    site.new_game("desk", "hundred3", fog="on")
    site.new_game("plain", "hundred3")
    assert _fog(site, "desk") and not _fog(site, "plain")
    r = site.api(site.coordinator, "/api/games", {"name": "api", "variant": "standard", "fog": True})
    assert r.status_code == 200, r.text
    assert _fog(site, "api")
    settings = store_transfer.game_file(site.web.store, "desk", view="coordinator", now=site.clock())["game"][
        "settings"
    ]
    assert settings["fog"] is True
    # The game's JSON says the reader is in the fog (a visitor) while it runs.
    assert site.browser().get("/api/games/desk").json()["fog"] is True
    assert site.browser().get("/api/games/plain").json().get("fog") is None


def test_a_template_game_is_in_fog_only_when_its_creator_asks(site: Site) -> None:
    ann = _person(site, "Ann")
    r = site.api(ann, "/api/games/new", {"template": "variant-hundred3", "name": "foggy", "fog": True})
    assert r.status_code == 200, r.text
    r = site.api(ann, "/api/games/new", {"template": "variant-hundred3", "name": "clear"})
    assert r.status_code == 200, r.text
    r = site.post_form(ann, "/new-game", {"template": "variant-hundred3", "name": "formfog", "fog": "yes"})
    assert r.status_code == 303, r.text
    assert _fog(site, "foggy") and _fog(site, "formfog") and not _fog(site, "clear")
    page = ann.get("/new-game").text
    assert 'name="fog"' in page


def test_the_command_line_makes_a_fog_game(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    r = CliRunner().invoke(app, ["new", "foggy", "--variant", "standard", "--fog", "--db", db])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["new", "clear", "--variant", "standard", "--db", db])
    assert r.exit_code == 0, r.output
    store = GameStore(db)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert store_status.status(store, "foggy", now=now).settings.fog is True
    assert store_status.status(store, "clear", now=now).settings.fog is False
