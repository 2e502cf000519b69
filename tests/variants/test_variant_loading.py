"""Variant files load, compile to the documented counts, and report every problem with its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.catalog import load_variant, variant_names
from dippouch.core.errors import UnknownVariantError, VariantError
from dippouch.core.mapdata import ProvinceKind

STANDARD = Path(__file__).resolve().parents[2] / "src/dippouch/variants/standard.toml"


def test_standard_counts() -> None:
    v = load_variant("standard")
    m = v.map
    passable = [p for p in m.provinces if p.kind != ProvinceKind.IMPASSABLE]
    assert len(passable) == 75
    assert len(m.supply_centres) == 34
    assert m.army_edge_count() == 111
    assert m.fleet_edge_count() == 141
    assert len(v.start.units) == 22
    assert v.calendar.name(v.start.phase) == "Spring 1901 Movement"


def test_every_shipped_variant_loads() -> None:
    for name in variant_names():
        assert load_variant(name).name == name


def test_split_coasts_compile() -> None:
    m = load_variant("standard").map
    stp = m.province("stp")
    assert [m.locations[c].abbr for c in stp.coasts] == ["stp/nc", "stp/sc"]
    assert m.loc("bar") in m.fleet_adj[m.loc("stp/nc")]
    assert m.loc("bar") not in m.fleet_adj[m.loc("stp/sc")]
    assert m.province("stp").id in m.fleet_reach[m.loc("bot")]


def _broken(tmp_path: Path, edit: str, replacement: str) -> VariantError:
    text = STANDARD.read_text()
    assert edit in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(edit, replacement, 1))
    with pytest.raises(VariantError) as info:
        load_variant(str(bad))
    return info.value


def test_reports_unknown_province_with_suggestion_and_line(tmp_path: Path) -> None:
    e = _broken(tmp_path, 'army = ["cly", "lvp", "yor"]', 'army = ["cly", "lvp", "yor", "burgandy"]')
    msgs = [str(p) for p in e.problems]
    assert any("unknown province 'burgandy'" in m and "burgundy" in m and "bad.toml:" in m for m in msgs)


def test_reports_one_way_and_duplicate_edges_together(tmp_path: Path) -> None:
    e = _broken(tmp_path, 'army = ["cly", "lvp", "yor"]', 'army = ["cly", "lvp", "yor", "yor", "lon"]')
    msgs = " | ".join(str(p) for p in e.problems)
    assert "duplicate edge to 'yor'" in msgs
    assert "one-way army edge: edi lists lon" in msgs


def test_reports_centre_on_sea_and_fleet_edge_to_land(tmp_path: Path) -> None:
    text = STANDARD.read_text()
    text = text.replace('name = "North Sea"\ntype = "sea"', 'name = "North Sea"\ntype = "sea"\nsc = true')
    text = text.replace(
        'fleet = ["aeg", "ank", "bla", "bul/ec", "bul/sc", "smy"]',
        'fleet = ["aeg", "ank", "bla", "bul/ec", "bul/sc", "smy", "bud"]',
    )
    bad = tmp_path / "bad2.toml"
    bad.write_text(text)
    with pytest.raises(VariantError) as info:
        load_variant(str(bad))
    msgs = " | ".join(str(p) for p in info.value.problems)
    assert "supply centre cannot be on a sea" in msgs
    assert "fleet edge to 'bud', a land province" in msgs


def test_reports_coast_problems_and_unreachable(tmp_path: Path) -> None:
    text = STANDARD.read_text()
    text = text.replace("F: bar nwy", "")
    text = text.replace('"bar", "nwy"] }', '"bar", "nwy", "spa"] }')  # split-coast target without coast
    bad = tmp_path / "bad3.toml"
    bad.write_text(text + '\n[provinces.xyz]\nname = "Nowhere"\ntype = "land"\n')
    with pytest.raises(VariantError) as info:
        load_variant(str(bad))
    msgs = " | ".join(str(p) for p in info.value.problems)
    assert "which has split coasts; name one: spa/nc, spa/sc" in msgs
    assert "xyz cannot be reached" in msgs


def test_unknown_variant_suggests() -> None:
    with pytest.raises(UnknownVariantError, match="did you mean 'standard'"):
        load_variant("stnadard")


def test_unknown_variant_without_suggestion_reads_as_a_sentence() -> None:
    with pytest.raises(UnknownVariantError) as info:
        load_variant("qqqqqq")
    assert str(info.value).startswith("no variant 'qqqqqq'. Known variants: ")
    assert "standard" in str(info.value)
