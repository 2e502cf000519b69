"""The shelf: the built-in variants imported from DPjudge's map files (src/dippouch/variants/shelf).

One test file holds every shelf variant to what shipping it promises, quickly (a few seconds for all of them):
each loads, passes ``variants check``, has its drawing built for its map as it is now, names its source,
commit, licence and copyright, and is described in words of its own; the licence's text ships beside them.
The heavier tests that run over variants take dippouch's own six and one shelf variant each
(tests/test_shelf_sample.py), so CI time does not grow with the shelf.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from dippouch import catalog
from dippouch.authoring import check_file
from dippouch.catalog import SHELF_VARIANTS, builtin_names, load_variant, shelf_names, variant_files
from dippouch.core.variant import content_hash

COMMIT = "280e3666c1d9c8ebde73ccc444e2a56809f0c84e"
REPOSITORY = "https://github.com/serrasqueiro/dpjudge"
COPYRIGHT = "Copyright 2017 Manus Hand"
OWN = {"standard", "1897", "1000ad", "hundred", "hundred3", "w3k", "duel"}
SOURCES = json.loads((SHELF_VARIANTS / "sources.json").read_text(encoding="utf-8"))


def test_the_shelf_holds_at_least_thirty_variants_besides_dippouchs_own() -> None:
    shelf = shelf_names()
    assert len(shelf) >= 30, shelf
    assert not set(shelf) & OWN
    assert set(builtin_names()) == OWN | set(shelf)
    assert set(SOURCES) == set(shelf), "sources.json and the shelf's files disagree"
    where = {f.name: f for f in variant_files() if f.status == "used"}
    assert all(where[n].folder.builtin and where[n].path.parent == SHELF_VARIANTS for n in shelf)


def test_no_shelf_variant_is_a_duplicate_of_another() -> None:
    """The same facts twice (DPjudge's vassal.map imports as minorpower.map does) would only crowd the list."""
    seen: dict[str, str] = {}
    for name in shelf_names():
        data = dict(load_variant(name).data)
        data.pop("variant", None)
        digest = content_hash(data)
        assert digest not in seen, f"{name} has the same facts as {seen.get(digest)}"
        seen[digest] = name


@pytest.mark.parametrize("name", shelf_names())
def test_a_shelf_variant_names_its_source_and_licence_and_is_described_in_our_words(name: str) -> None:
    path = SHELF_VARIANTS / f"{name}.toml"
    text = path.read_text(encoding="utf-8")
    head = text.split("[variant]", 1)[0]
    assert f"# Source: DPjudge/maps/{name}.map" in head
    assert f"# Repository: {REPOSITORY}, commit {COMMIT}" in head
    assert f"# Licence: MIT. {COPYRIGHT}. The licence's full text is in NOTICE-DPjudge.txt" in head
    assert "Not carried over, or changed to fit:" in head or "Everything was carried over." in head
    entry = SOURCES[name]
    assert (entry["repository"], entry["commit"], entry["licence"], entry["copyright"]) == (
        REPOSITORY,
        COMMIT,
        "MIT",
        COPYRIGHT,
    )
    assert entry["file"] == f"DPjudge/maps/{name}.map"
    meta = tomllib.loads(text)["variant"]
    assert meta["name"] == name
    assert (meta["title"] and meta["title"] != name) or name[0].isdigit(), "a title of its own"
    description = meta["description"]
    assert 40 <= len(description) <= 300 and not description.startswith("Imported from"), description


def test_the_licence_text_ships_with_the_shelf() -> None:
    notice = (SHELF_VARIANTS / "NOTICE-DPjudge.txt").read_text(encoding="utf-8")
    assert COPYRIGHT in notice and COMMIT in notice
    assert "Permission is hereby granted, free of charge" in notice
    assert "The above copyright notice and this permission notice shall be included" in notice
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in notice


def test_every_shelf_variant_loads_and_passes_the_check() -> None:
    """One test for the whole shelf (the data and map checks, as `dippouch variants check` runs them)."""
    failed = {}
    for name in shelf_names():
        rep = check_file(SHELF_VARIANTS / f"{name}.toml")
        if rep.problems:
            failed[name] = rep.problems[:3]
    assert not failed, failed


def test_every_shelf_variant_has_its_drawing_built_for_its_map_as_it_is() -> None:
    """A drawing built for another version of the map would place units where the map has no province."""
    pytest.importorskip("shapely")
    from dippouch.render.geometry import GEOMETRY_DIR, load_geometry
    from dippouch.render.mapgen.build import map_hash

    stale = {}
    for name in shelf_names():
        v = load_variant(name)
        geometry = load_geometry(v)
        assert (GEOMETRY_DIR / f"{name}.json").is_file()
        if geometry.map_hash != map_hash(v):
            stale[name] = "rebuild with `dippouch mapgen " + name + "`"
        missing = {p.abbr for p in v.map.provinces} - set(geometry.provinces)
        assert not missing, (name, sorted(missing)[:5])
    assert not stale, stale


def test_every_shelf_variants_power_colours_stay_apart_for_colour_blind_players() -> None:
    """As tests/render/test_render.py holds dippouch's own variants (CIE76 >= 20, >= 15 as a deuteranope sees
    them; their land tints >= 14 and >= 10), for every shelf variant of up to 19 powers. Chaos and Void have
    34 and 36 powers, which no palette keeps that far apart: their units' letters tell them apart."""
    from dippouch.render.colours import closest_pairs, hex_colour, mix, parse_colour
    from dippouch.render.svg import TINT

    close = {}
    for name in shelf_names():
        v = load_variant(name)
        if len(v.powers) > 19:
            continue
        colours = {p.name: p.colour for p in v.powers}
        tints = {k: hex_colour(mix(parse_colour(c), (1.0, 1.0, 1.0), TINT)) for k, c in colours.items()}
        for cols, normal, deut in ((colours, 20.0, 15.0), (tints, 14.0, 10.0)):
            worst = closest_pairs(cols)[0]
            seen = closest_pairs(cols, simulate=True)[0]
            if worst[0] < normal or seen[0] < deut:
                close[name] = (worst, seen)
    assert not close, close


def test_a_users_file_named_like_a_shelf_variant_is_ignored_as_for_any_built_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "pure.toml").write_text('[variant]\nname = "pure"\ntitle = "Mine"\nextends = "standard"\n')
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    from dippouch import settings

    settings.reread()
    mine = next(f for f in variant_files() if f.path == folder / "pure.toml")
    assert mine.status.startswith("ignored: it would replace the built-in 'pure'")
    assert load_variant("pure").title == "Pure"


def test_a_shelf_variant_extending_a_built_in_finds_it_in_either_folder() -> None:
    """A built-in's ``extends`` means another built-in, wherever in the package it lies (the shelf's files
    extend nothing today; a revised shelf variant may extend its original)."""
    assert catalog._find_file("pure", builtin_only=True) == SHELF_VARIANTS / "pure.toml"
    assert catalog._find_file("standard", builtin_only=True) == catalog.PACKAGE_VARIANTS / "standard.toml"
