"""One way to make a game, every door (issue 54): the desk's form, ``POST /api/games`` and ``dippouch new`` create
through :func:`dippouch.play.games.create` with the same options (visibility and secret ballot included: the
command line had neither), and the desk's upload, ``POST /api/games/import`` and ``dippouch import`` import
through :func:`dippouch.play.games.import_file`. Each is checked for the same game made, and the same refusal.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import transfer as store_transfer
from websupport import Site

DOORS = ("desk", "api", "cli")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})


def _cli(site: Site, *args: str) -> tuple[int, str]:
    register_commands()
    db = str(site.web.store.engine.url)
    got = CliRunner().invoke(app, [*args, "--db", db, "--now", site.clock().isoformat()])
    return got.exit_code, str(got.output)


def create(site: Site, door: str, name: str, visibility: str) -> tuple[int, str]:
    """Game ``name`` with a secret ballot, no draws, 3-day movement phases, seen as ``visibility``."""
    if door == "cli":
        return _cli(site, "new", name, "--secret-ballot", "--no-draws", "--movement", "3d", "--visibility", visibility)
    form = {"name": name, "variant": "standard", "secret_ballot": "on", "draws": "off", "movement": "3d"}
    form["visibility"] = visibility
    if door == "api":
        r = site.api(site.coordinator, "/api/games", form)
        return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)
    r = site.post_form(site.coordinator, "/coordinate/new", form, headers={"Accept": "text/html"})
    return (0 if r.status_code == 303 else r.status_code), html.unescape(r.text)


@pytest.mark.parametrize("door", DOORS)
def test_a_game_is_created_with_the_same_options_through_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    code, said = create(site, door, "g", "unlisted")
    assert code == 0, said
    st = store_status.status(store, "g", now=site.clock())
    assert st.settings.secret_ballot and not st.settings.draws, door
    assert st.settings.deadlines["movement"] == "3d", door
    assert site.web.access.visibility("g") == "unlisted", door
    code, said = create(site, door, "h", "secret")
    assert code != 0 and "visibility must be one of public, unlisted, private" in said, (door, said)
    assert [name for name, *_ in store_games.games(store)] == ["g"], door  # the refusal left nothing behind


@pytest.mark.parametrize("door", DOORS)
def test_a_game_file_is_imported_through_every_door(site: Site, door: str, tmp_path: Path) -> None:
    store: GameStore = site.web.store
    site.new_game("src")
    data = store_transfer.export_game(store, "src")
    if door == "cli":
        path = tmp_path / "src.json"
        path.write_text(json.dumps(data))
        code, said = _cli(site, "import", str(path), "--name", "copy")
    elif door == "api":
        r = site.api(site.coordinator, "/api/games/import?name=copy", data)
        code, said = (0 if r.status_code == 200 else r.status_code), r.text
    else:
        files = {"file": ("src.json", json.dumps(data).encode(), "application/json")}
        r = site.coordinator.post(
            "/coordinate/import",
            data={"csrf": site.csrf(site.coordinator), "name": "copy"},
            files=files,
            follow_redirects=False,
        )
        code, said = (0 if r.status_code == 303 else r.status_code), r.text
    assert code == 0, said
    assert (
        store_status.status(store, "copy", now=site.clock()).phase
        == store_status.status(store, "src", now=site.clock()).phase
    ), door
