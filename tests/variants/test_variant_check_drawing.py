"""``dippouch variants check FILE`` also checks the drawn map and writes a picture beside the file.

A variant on a built-in map takes that map's geometry at once; a changed map is built on request
(``--build``) or gets a note saying how; geometry and picture go beside the author's file, never into the
package, whatever folder the file is named from.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch.cli import app, register_commands
from dippouch.render.geometry import GEOMETRY_DIR
from dippouch.store import games as store_games
from dippouch.store import variant_copy as variant_copy

runner = CliRunner()
register_commands()
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def here(tmp_path: Path) -> Iterator[Path]:
    """Work in a fresh folder, as an author does, naming files relative to it."""
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def _new(name: str, extends: str = "standard") -> Path:
    got = runner.invoke(app, ["variants", "new", name, "--extends", extends])
    assert got.exit_code == 0, got.output
    return Path(f"{name}.toml")


def _package_geometry() -> set[str]:
    return {p.name for p in GEOMETRY_DIR.iterdir()}


def test_a_variant_on_an_unchanged_map_gets_its_picture_at_once(here: Path) -> None:
    before = _package_geometry()
    path = _new("v1898")
    got = runner.invoke(app, ["variants", "check", str(path)])
    assert got.exit_code == 0, got.output
    assert "standard's unchanged" in got.output
    assert "every declared border is drawn and no other" in got.output
    assert (here / "v1898.png").read_bytes().startswith(PNG)
    assert (here / "geometry" / "v1898.json").is_file()
    assert _package_geometry() == before, "an author's geometry was written into the package"


def test_no_picture_means_none_is_written(here: Path) -> None:
    path = _new("quiet")
    got = runner.invoke(app, ["variants", "check", str(path), "--no-picture"])
    assert got.exit_code == 0, got.output
    assert not (here / "quiet.png").exists() and not (here / "geometry").exists()


def test_a_changed_map_is_built_on_request_and_explained_otherwise(here: Path) -> None:
    # On Pure's seven provinces: building the standard map's takes a minute or two, and says nothing more.
    path = _new("moved", extends="pure")
    with path.open("a") as f:
        f.write("\n[provinces.par]\npoint = [-9.0, -2.5]\n")
    told = runner.invoke(app, ["variants", "check", str(path)])
    assert told.exit_code == 0, told.output
    flat = " ".join(told.output.split())
    assert "was never built" in flat and "--build" in flat and f"dippouch mapgen {path}" in flat
    assert not (here / "moved.png").exists()
    built = runner.invoke(app, ["variants", "check", str(path), "--build"])
    assert built.exit_code == 0, built.output
    assert "map geometry built from moved.toml" in built.output
    assert (here / "moved.png").read_bytes().startswith(PNG)
    again = runner.invoke(app, ["variants", "check", str(path)])  # now up to date: nothing rebuilt
    assert again.exit_code == 0 and "built from" not in again.output and "picture of the map" in again.output


def test_a_file_with_mistakes_gets_no_picture(here: Path) -> None:
    path = _new("typo")
    with path.open("a") as f:
        f.write("\n[victroy]\ncentres = 18\n")
    got = runner.invoke(app, ["variants", "check", str(path)])
    assert got.exit_code == 1 and "victroy" in got.output
    assert not (here / "typo.png").exists()


def test_a_game_of_a_user_variant_is_drawn_from_the_geometry_beside_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game keeps its own copy of the variant, which names no file; its map still comes from the geometry
    built beside the variant's file (found by name), so its players see the board."""
    from datetime import UTC, datetime

    from dippouch.render import render_svg
    from dippouch.render.geometry import geometry_path, load_geometry
    from dippouch.store import GameStore

    folder = tmp_path / "variants"
    folder.mkdir()
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    assert (
        runner.invoke(app, ["variants", "new", "v1898", "--extends", "standard", "--dir", str(folder)]).exit_code == 0
    )
    checked = runner.invoke(app, ["variants", "check", str(folder / "v1898.toml")])
    assert checked.exit_code == 0, checked.output
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    try:
        store_games.create_game(store, "g", "v1898", now=datetime(2026, 3, 1, tzinfo=UTC))
        v = variant_copy.variant_of(store, "g")
        assert geometry_path(v) == folder / "geometry" / "v1898.json"
        assert load_geometry(v).variant == "v1898"
        svg = render_svg(v, v.start)
        assert 'id="r-par"' in svg and 'id="unit-par"' in svg
    finally:
        store.close()
