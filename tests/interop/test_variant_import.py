"""Importers from DPjudge/MILA ``.map`` files and Diplicity's variant JSON.

Every input file is written by the test itself, in the documented format: the standard map is written out
from our own data (so the import must give back exactly the same borders and start), and small files
exercise each directive and what cannot be carried over.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.variant import Variant, build_variant
from dippouch.interop.diplicity import import_diplicity
from dippouch.interop.dpjudge import ImportError_, _calendar, import_dpjudge
from dippouch.interop.pictures import PALETTE
from dippouch.interop.variant_toml import dumps_variant

runner = CliRunner()
register_commands()


def _edges(v: Variant) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    m = v.map
    army = {(m.provinces[a].abbr, m.provinces[b].abbr) for a, s in enumerate(m.army_adj) for b in s}
    fleet = {(m.locations[a].abbr, m.locations[b].abbr) for a, s in enumerate(m.fleet_adj) for b in s}
    return army, fleet


def _start(v: Variant) -> dict[str, Any]:
    m = v.map
    return {
        p.name: (
            sorted(m.provinces[c].abbr for c in v.start.centres_of(p.name)),
            sorted(m.provinces[h].abbr for h in v.start.homes.get(p.name, ())),
            sorted(f"{u.kind} {m.locations[u.loc].abbr}" for u in v.start.units_of(p.name)),
        )
        for p in v.powers
    }


def _load(data: dict[str, Any], tmp_path: Path) -> Variant:
    """Through the TOML text, as an author gets it."""
    path = tmp_path / f"{data['variant']['name']}.toml"
    path.write_text(dumps_variant(data, ["test"]))
    assert tomllib.loads(path.read_text()) == data
    return load_variant(str(path))


# ------------------------------------------------------------------------------------------- DPjudge


def _dpjudge_files(v: Variant, folder: Path) -> Path:
    """Write ``v``'s map in DPjudge syntax: geography in one file, politics in another, a .map that USEs both."""
    m = v.map
    geo = ["# geography written by the test from dippouch's own data"]
    for p in m.provinces:
        geo.append(f"{p.name} = {p.abbr} {' '.join(a.replace(' ', '+') for a in p.aliases)}".rstrip())
        for c in p.coasts:
            loc = m.locations[c]
            geo.append(f"{loc.name} = {loc.abbr}")
    terrain = {
        ProvinceKind.LAND: "LAND",
        ProvinceKind.SEA: "WATER",
        ProvinceKind.COAST: "COAST",
        ProvinceKind.IMPASSABLE: "SHUT",
    }
    for p in m.provinces:
        for c in p.coasts:  # coast lines before the province's own line
            targets = sorted(m.locations[t].abbr.upper() for t in m.fleet_adj[c])
            geo.append(f"COAST {m.locations[c].abbr.upper()} ABUTS {' '.join(targets)}")
        entries: dict[str, str] = {}
        for q in m.army_adj[p.id]:
            entries[m.provinces[q].abbr] = "army"
        if not p.coasts and p.kind in (ProvinceKind.COAST, ProvinceKind.SEA):
            for t in m.fleet_adj[p.id]:
                abbr = m.locations[t].abbr
                entries[abbr] = "both" if entries.get(abbr) == "army" else "fleet"
        words = []
        for abbr, cls in sorted(entries.items()):
            target = m.provinces[m.province_of(m.loc(abbr))]
            fleet_could = target.kind in (ProvinceKind.COAST, ProvinceKind.SEA) and not (
                target.coasts and "/" not in abbr
            )
            if cls == "army" and fleet_could and p.kind == ProvinceKind.COAST and not p.coasts:
                words.append(abbr.lower())  # a fleet here could stand there but may not move there
            elif cls == "fleet" and target.kind != ProvinceKind.SEA:
                words.append(abbr[:1].upper() + abbr[1:].lower())  # an army may not move there
            else:
                words.append(abbr.upper())
        name = p.abbr.lower() if p.coasts else p.abbr.upper()
        geo.append(f"{terrain[p.kind]} {name} ABUTS {' '.join(words)}".rstrip())
    (folder / "test.geography").write_text("\n".join(geo) + "\n")
    pol = ["# politics"]
    for power in v.powers:
        homes = sorted(m.provinces[h].abbr.upper() for h in v.start.homes[power.name])
        pol.append(f"{power.name.upper()} ({power.adjective.upper()}:{power.letter}) {' '.join(homes)}")
        pol.extend(f"{u.kind} {m.locations[u.loc].abbr.upper()}" for u in v.start.units_of(power.name))
    neutral = sorted(m.provinces[c].abbr.upper() for c in m.supply_centres if c not in v.start.centres)
    pol.append(f"UNOWNED {' '.join(neutral)}")
    (folder / "test.politics").write_text("\n".join(pol) + "\n")
    main = folder / "roundtrip.map"
    main.write_text("USE test.geography\nUSES test.politics\nBEGIN SPRING 1901 MOVEMENT\nVICTORY 18\n")
    return main


@pytest.mark.parametrize("name", ["standard", "hundred3"])
def test_dpjudge_round_trip_of_our_own_maps(name: str, tmp_path: Path) -> None:
    ours = load_variant(name)
    got = import_dpjudge(_dpjudge_files(ours, tmp_path), "roundtrip")
    v = _load(got.data, tmp_path)
    assert _edges(v) == _edges(ours)
    if name == "standard":
        assert _start(v) == _start(ours)
    assert v.calendar.name(v.start.phase) == "Spring 1901 Movement"
    assert any("layout of its borders" in line for line in got.report)


SMALL_GEO = """# a five-province map in DPjudge syntax, with the case rules
North Land = nor the+north northland
Mid Land = mid
South Coast = sou southie?
South Coast (east coast) = sou/ec
South Coast (west coast) = sou/wc
Inner Sea = ins inner
Outer Sea = out
Dropped Place = drp

COAST NOR ABUTS INS mid Out
LAND MID ABUTS NOR SOU
COAST SOU/EC ABUTS INS
COAST SOU/WC ABUTS OUT
COAST sou ABUTS MID INS OUT
WATER INS ABUTS NOR SOU/EC OUT EN:DRP
WATER OUT ABUTS INS SOU/WC Nor
LAND DRP ABUTS MID
AMEND MID ABUTS -DRP
DROP DRP
"""

SMALL_MAP = """USE small.geography
NORTH (NORTHERN:N) NOR MID
A MID
F NOR
SOUTH (SOUTHERN) SOU
OWNS SOU MID
F SOU/WC
_EAST+ERS (EASTERN)
UNOWNED
BEGIN SPRING 1700 MOVEMENT
FLOW SPRING:MOVEMENT FALL:MOVEMENT,RETREATS WINTER:ADJUSTMENTS
RULE BUILD_ANY HIDE_BUILDS
UNPLAYED _EAST+ERS
DUMMY
"""


def test_dpjudge_directives_and_the_report(tmp_path: Path) -> None:
    (tmp_path / "small.geography").write_text(SMALL_GEO)
    (tmp_path / "small.map").write_text(SMALL_MAP)
    got = import_dpjudge(tmp_path / "small.map", "small")
    d = got.data
    prov = d["provinces"]
    assert set(prov) == {"nor", "mid", "sou", "ins", "out"}  # DROP removed drp
    assert prov["nor"]["aliases"] == ["the north", "northland"]  # '+' joins words
    assert prov["sou"]["coasts"] == {
        "ec": {"name": "east coast", "fleet": ["ins"]},
        "wc": {"name": "west coast", "fleet": ["out"]},
    }
    assert prov["nor"]["army"] == ["mid"] and prov["nor"]["fleet"] == ["ins", "out"]  # 'mid' is army-only
    assert "mid" not in prov["out"].get("army", [])
    assert prov["out"]["fleet"] == ["ins", "nor", "sou/wc"]  # 'Nor': fleets only
    assert prov["mid"]["army"] == ["nor", "sou"]  # AMEND removed drp
    assert d["powers"]["North"] == {
        "adjective": "Northern",
        "letter": "N",
        "home_centres": ["nor", "mid"],
        "colour": PALETTE[0],  # the source names no colour: a palette
        "units": ["A mid", "F nor"],
    }
    assert d["powers"]["South"].get("centres", ["sou"]) == ["sou"]  # mid is North's (reported)
    assert d["powers"]["South"]["letter"] == "S" and d["powers"]["South"]["units"] == ["F sou/wc"]
    assert "EastErs" not in d["powers"]  # "+": the next letter is a capital
    assert d["rules"] == {"build_sites": "owned"}
    assert d["calendar"]["phases"][0] == {"season": "Spring", "kind": "movement"}
    assert [p["kind"] for p in d["calendar"]["phases"]] == ["movement", "movement", "retreats", "adjustments"]
    report = "\n".join(got.report)
    assert "ambiguous alias 'southie'" in report
    assert "open only to some powers" in report and "ins-EN:DRP" in report
    assert "RULE HIDE_BUILDS has no equivalent" in report
    assert "UNPLAYED EastErs" in report
    assert "DUMMY" in report
    assert "mid is owned by North and by South at the start; kept North's" in report
    v = _load(d, tmp_path)
    assert v.calendar.name(v.start.phase) == "Spring 1700 Movement"


def test_dpjudge_flow_with_newyear_and_ifyeardiv() -> None:
    cal, notes = _calendar(
        ("A.D.", 1425, "MOVEMENT"), ["NEWYEAR:5", "A.D.:MOVEMENT,RETREATS", "IFYEARDIV:10", "A.D.:ADJUSTMENTS"]
    )
    assert not notes
    assert cal == {
        "start_year": 1425,
        "cycle_years": 10,
        "phases": [
            {"season": "A.D.", "kind": "movement"},
            {"season": "A.D.", "kind": "retreats"},
            {"season": "A.D.", "kind": "movement", "offset": 5},
            {"season": "A.D.", "kind": "retreats", "offset": 5},
            {"season": "A.D.", "kind": "adjustments", "offset": 5},
        ],
    }
    winter, _ = _calendar(("WINTER", 1898, "ADJUSTMENTS"), [])
    assert winter["start_step"] == 4 and winter["start_year"] == 1898
    data = {**load_variant("standard").data, "calendar": winter}
    v = build_variant(data, "t", None, {})
    assert v.calendar.name(v.start.phase) == "Winter 1898 Adjustments"
    assert v.calendar.name(v.calendar.next(v.start.phase)) == "Spring 1899 Movement"


def test_dpjudge_mobilize_and_newhomes(tmp_path: Path) -> None:
    ours = load_variant("standard")
    base = _dpjudge_files(ours, tmp_path)
    base.write_text(
        "USE test.geography\nUSE test.politics\nRULE MOBILIZE\nBEGIN WINTER 1897 ADJUSTMENTS\nNEWHOMES 1899\n"
    )
    got = import_dpjudge(base, "mob")
    rules = got.data["rules"]
    assert rules["adjustment_delta"] == "opening_builds" and rules["build_sites"] == "chosen_homes"
    assert rules["phase_end"] == ["opening_builds_own", "homes_from_owned"] and rules["homes_from_owned_year"] == 1899
    assert all(p["centres"] == [] for p in got.data["powers"].values())
    v = _load(got.data, tmp_path)
    assert v.calendar.name(v.start.phase) == "Winter 1897 Adjustments"


def test_dpjudge_refusals(tmp_path: Path) -> None:
    (tmp_path / "a.map").write_text("USE missing.geography\n")
    with pytest.raises(ImportError_, match=r"no file .*missing\.geography.*put the files it uses beside a\.map"):
        import_dpjudge(tmp_path / "a.map", "a")
    (tmp_path / "b.map").write_text("# nothing but a comment\nENGLAND (ENGLISH) LON\n")
    with pytest.raises(ImportError_, match="no terrain lines"):
        import_dpjudge(tmp_path / "b.map", "b")
    with pytest.raises(ImportError_, match="no file"):
        import_dpjudge(tmp_path / "nope.map", "c")


# ------------------------------------------------------------------------------------------ Diplicity


def _diplicity_json(v: Variant) -> dict[str, Any]:
    """``v`` in the shape of Diplicity's variant JSON (godip's graph: nodes, sub-nodes, flagged edges)."""
    m = v.map
    nodes: dict[str, Any] = {}
    home_of = {h: p for p, hs in v.start.homes.items() for h in hs}
    for p in m.provinces:
        if p.kind == ProvinceKind.IMPASSABLE:
            continue
        land = p.kind in (ProvinceKind.LAND, ProvinceKind.COAST)
        sea_here = p.kind == ProvinceKind.SEA or (p.kind == ProvinceKind.COAST and not p.coasts)
        flags = {**({"Land": True} if land else {}), **({"Sea": True} if sea_here else {})}
        edges: dict[str, Any] = {}
        for q in m.army_adj[p.id]:
            edges[m.provinces[q].abbr] = {"Flags": {"Land": True}}
        if sea_here:
            for t in m.fleet_adj[p.id]:
                e = edges.setdefault(m.locations[t].abbr, {"Flags": {}})
                e["Flags"]["Sea"] = True
        subs = {"": {"Name": "", "Edges": edges, "ReverseEdges": {}, "Flags": flags}}
        for c in p.coasts:
            loc = m.locations[c]
            subs[loc.coast or ""] = {
                "Name": loc.coast or "",
                "Edges": {m.locations[t].abbr: {"Flags": {"Sea": True}} for t in m.fleet_adj[c]},
                "ReverseEdges": {},
                "Flags": {"Sea": True},
            }
        sc = (home_of.get(p.id) or "Neutral") if p.supply_centre else None
        nodes[p.abbr] = {"Name": p.abbr, "Subs": subs, "SC": sc}
    return {
        "Name": v.title,
        "Nations": list(v.power_names),
        "NationColors": {p.name: p.colour for p in v.powers},
        "PhaseTypes": ["Movement", "Retreat", "Adjustment"],
        "Seasons": ["Spring", "Fall"],
        "UnitTypes": ["Army", "Fleet"],
        "ProvinceLongNames": {p.abbr: p.name for p in m.provinces} | {c.abbr: c.name for c in m.locations if c.coast},
        "Rules": "First to 18 supply centers wins.",
        "Start": {
            "Year": 1901,
            "Season": "Spring",
            "Type": "Movement",
            "SCs": {m.provinces[c].abbr: o for c, o in v.start.centres.items()},
            "Units": {
                m.locations[u.loc].abbr: {"Type": "Fleet" if u.kind == "F" else "Army", "Nation": u.power}
                for u in v.start.units.values()
            },
        },
        "Graph": {"Nodes": nodes},
    }


@pytest.mark.parametrize("envelope", [False, True])
def test_diplicity_round_trip_of_the_standard_map(envelope: bool, tmp_path: Path) -> None:
    ours = load_variant("standard")
    doc = _diplicity_json(ours)
    path = tmp_path / "classical.json"
    path.write_text(json.dumps({"Name": "Classical", "Properties": doc} if envelope else doc))
    got = import_diplicity(path, "classical")
    v = _load(got.data, tmp_path)
    assert _edges(v) == _edges(ours)
    assert _start(v) == _start(ours)
    assert v.calendar.name(v.start.phase) == "Spring 1901 Movement"
    assert [p.colour for p in v.powers] == [p.colour for p in ours.powers]
    assert v.map.province("stp").name == "St Petersburg" and v.map.loc("bul/ec") is not None
    assert v.victory["centres"] == 18  # stated in the Rules text: "First to 18 supply centers wins."
    assert not any("victory" in g for g in got.guesses), got.guesses
    assert any("build rule" in g for g in got.guesses) and any("year advances by 1" in g for g in got.guesses)


def test_diplicity_refusals(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(ImportError_, match="is not JSON"):
        import_diplicity(bad, "x")
    bad.write_text(json.dumps({"Name": "x"}))
    with pytest.raises(ImportError_, match=r"no Graph\.Nodes"):
        import_diplicity(bad, "x")
    # What diplicity-react keeps of a variant: names and nations, no borders.
    bad.write_text(json.dumps({"Name": "Classical", "Nations": ["Austria"], "ProvinceLongNames": {"adr": "Adriatic"}}))
    with pytest.raises(ImportError_, match=r"without its borders .*diplicity-react.*Diplicity's variant service"):
        import_diplicity(bad, "x")
    bad.write_text(json.dumps({"id": "classical", "provinces": [], "nations": []}))
    with pytest.raises(ImportError_, match=r"diplicity-react's own JSON format"):
        import_diplicity(bad, "x")
    bad.write_text(json.dumps({"Properties": [{"Name": "Classical"}, {"Name": "Hundred"}]}))
    with pytest.raises(ImportError_, match="lists 2 variants \\(Classical, Hundred\\)"):
        import_diplicity(bad, "x")


# ------------------------------------------------------------------------------------------------ CLI


def test_cli_import_writes_a_loadable_file_with_the_report_on_top(tmp_path: Path) -> None:
    main = _dpjudge_files(load_variant("standard"), tmp_path)
    target = tmp_path / "mystd.toml"
    got = runner.invoke(app, ["variants", "import", str(main), "--to", str(target)], env={"COLUMNS": "300"})
    assert got.exit_code == 0, got.output
    text = target.read_text()
    assert text.startswith("# mystd: imported by `dippouch variants import` from roundtrip.map (dpjudge).")
    assert "#   - the map's points come from a layout of its borders" in text
    assert "have no point" not in got.output
    assert load_variant(str(target)).name == "mystd"
    again = runner.invoke(app, ["variants", "import", str(main), "--to", str(target)])
    assert again.exit_code == 2 and "already exists" in again.output
    wrong = runner.invoke(app, ["variants", "import", str(main), "--to", str(tmp_path / "a.toml"), "--name", "b"])
    assert wrong.exit_code == 2 and "the file name must be the variant's name" in wrong.output
    js = tmp_path / "classical.json"
    js.write_text(json.dumps(_diplicity_json(load_variant("standard"))))
    got = runner.invoke(app, ["variants", "import", str(js), "--to", str(tmp_path / "classical.toml")])
    assert got.exit_code == 0, got.output
    assert load_variant(str(tmp_path / "classical.toml")).title == "Standard Diplomacy"


# --------------------------------------------------------------------------- power names alike, both real

ALIKE = """[variant]
name = "alike"
title = "Russia and Prussia"
extends = "standard"

[powers.Prussia]
letter = "P"
home_centres = ["ber", "kie"]
units = ["A ber", "F kie"]

[powers.Germany]
home_centres = ["mun"]
units = ["A mun"]
"""


def test_two_declared_powers_with_names_alike_are_both_kept_and_the_check_warns(tmp_path: Path) -> None:
    """Russia and Prussia (or East and West, North and South Vietnam) are real powers when each table says
    where the power starts: both load, and `variants check` points the likeness out instead of refusing."""
    path = tmp_path / "alike.toml"
    path.write_text(ALIKE, encoding="utf-8")
    v = load_variant(str(path))
    assert {"Russia", "Prussia"} <= set(v.power_names)
    out = runner.invoke(app, ["variants", "check", "--no-picture", str(path)], env={"COLUMNS": "250"})
    assert "Prussia and Russia have names alike" in out.output or "Russia and Prussia have names alike" in out.output
    assert "did you mean" not in out.output, out.output


def test_a_table_that_only_changes_a_value_beside_a_near_namesake_is_still_a_slip(tmp_path: Path) -> None:
    path = tmp_path / "slip.toml"
    path.write_text('[variant]\nname = "slip"\nextends = "standard"\n\n[powers.Frnace]\ncentres = ["bel"]\n')
    out = runner.invoke(app, ["variants", "check", "--no-picture", str(path)], env={"COLUMNS": "250"})
    assert out.exit_code == 1 and "did you mean France" in out.output, out.output


# ------------------------------------------------------------------ real files from other judges (samples)

SAMPLES = Path(__file__).parents[1] / "data" / "import"


def _import_and_load(tmp_path: Path, src: Path, name: str) -> tuple[Variant, list[str]]:
    """Import, write, and load the written file with our own loader: the importer never writes a file the
    loader refuses."""
    got = import_dpjudge(src, name)
    path = tmp_path / f"{name}.toml"
    path.write_text(dumps_variant(got.data, got.report), encoding="utf-8")
    return load_variant(str(path)), got.report


def test_mila_unplayed_with_commas_removes_every_name(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "mila" / "france_austria.map", "fa")
    assert set(v.power_names) == {"Austria", "France"}
    assert any("UNPLAYED England, Germany, Italy, Russia, Turkey: removed" in line for line in report), report


def test_dpjudge_notify_is_not_a_power_and_east_west_are(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "sailho.map", "sailho")
    assert set(v.power_names) == {"North", "South", "East", "West"}
    assert not any("@" in p.abbr for p in v.map.provinces)
    assert any("NOTIFY" in line for line in report), report


def test_dpjudge_renames_keep_the_references_made_before_them(tmp_path: Path) -> None:
    """Renaissance lists its powers' homes (BUL, SPA, EDI...) before renaming those provinces (Sofia,
    Madrid, Scotland): every home and neutral centre follows the rename."""
    v, _ = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "renaissance.map", "renaissance")
    assert len(v.map.supply_centres) == 35  # the standard 34 and Switzerland
    for power in v.powers:
        assert v.start.homes.get(power.name), f"{power.name} has no home centres"
        assert v.start.units_of(power.name), f"{power.name} has no units"
    homes = {v.map.provinces[p].abbr for p in v.start.homes["OttomanTurk"]}
    assert homes == {"sof", "smy", "con", "ank"}, homes
    assert "sco" in {v.map.provinces[p].abbr for p in v.map.supply_centres}


def test_dpjudge_years_before_christ_count_as_negative_years(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "classical.map", "classical")
    assert v.start.phase.year == -273
    assert v.calendar.name(v.start.phase) == "B.C. -273 Movement"
    assert any("count down (B.C.)" in line for line in report), report


def test_dpjudge_letters_that_are_not_letters_get_free_ones(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "void.map", "void")
    letters = [p.letter for p in v.powers]
    assert len(set(letters)) == len(letters) and all(ch.isalnum() for ch in letters)
    assert any("letter '+' is not a letter or digit" in line for line in report), report


def test_dpjudge_self_borders_are_left_out_and_reported(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "empire.map", "empire")
    assert "B.C." in v.power_names
    assert any("borders of a province with itself left out" in line for line in report), report


def test_dpjudge_one_power_written_two_ways_is_one_power(tmp_path: Path) -> None:
    """DPjudge's Imperial names the Union `U+S+A` on its power line and `USA` where it lists its units."""
    src = tmp_path / "usa.map"
    src.write_text(
        "LAND WAS ABUTS NYO\nLAND NYO ABUTS WAS\nWashington = was\nNew+York = nyo\n\n"
        "U+S+A (Union) WAS NYO\n\nUSA\nA WAS\nA NYO\n",
        encoding="utf-8",
    )
    v, _ = _import_and_load(tmp_path, src, "usa")
    assert v.power_names == ("USA",) or list(v.power_names) == ["USA"]
    assert len(v.start.units_of("USA")) == 2


def test_many_powers_without_letters_get_distinct_ones(tmp_path: Path) -> None:
    """Nations whose names' letters are all taken (A, B, AB, BA) were all given X."""
    nations = ["A", "B", "AB", "BA"]
    others = ["aaa", "bbb", "ccc", "ddd"]
    nodes = {
        p: {
            "Subs": {"": {"Flags": {"Land": True}, "Edges": {q: {"Flags": {"Land": True}} for q in others if q != p}}},
            "SC": n,
        }
        for p, n in zip(others, nations, strict=True)
    }
    doc = {"Name": "Four", "Nations": nations, "Graph": {"Nodes": nodes}, "Start": {"Year": 1901}}
    src = tmp_path / "twox.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    got = import_diplicity(src, "twox")
    path = tmp_path / "twox.toml"
    path.write_text(dumps_variant(got.data, got.report), encoding="utf-8")
    v = load_variant(str(path))
    assert len({p.letter for p in v.powers}) == 4


# ------------------------------------------------------------------ Diplicity: what the Rules text states


def _small_diplicity(rules: str) -> dict[str, Any]:
    nodes = {
        p: {
            "Subs": {"": {"Flags": {"Land": True}, "Edges": {q: {"Flags": {"Land": True}} for q in "abcd" if q != p}}},
            "SC": n,
        }
        for p, n in zip("abcd", ["East", "West", "Neutral", "Neutral"], strict=True)
    }
    return {
        "Name": "Four Corners",
        "Nations": ["East", "West"],
        "Seasons": ["Spring", "Fall"],
        "PhaseTypes": ["Movement", "Retreat", "Adjustment"],
        "Rules": rules,
        "Graph": {"Nodes": nodes},
        "Start": {"Year": 1425, "Season": "Spring", "Type": "Movement", "SCs": {"a": "East", "b": "West"}, "Units": {}},
    }


def test_diplicity_victory_build_rule_and_turn_length_come_from_the_rules_text(tmp_path: Path) -> None:
    """godip's Hundred builds anywhere owned with five-year turns, Cold War's solo is 17 of 32: where the
    Rules text states these, they are taken from it; nothing is guessed."""
    src = tmp_path / "four.json"
    src.write_text(
        json.dumps(
            _small_diplicity(
                "The first to 3 supply centers wins. Players may build in any owned supply center. "
                "Each turn is five years."
            )
        )
    )
    got = import_diplicity(src, "four")
    v = _load(got.data, tmp_path)
    assert v.victory["centres"] == 3
    assert got.data["rules"]["build_sites"] == "owned"
    assert v.calendar.cycle_years == 5
    assert got.guesses == []
    assert "Each turn is five years." in v.description


def test_diplicity_solo_stated_as_so_many_of_the_centres_and_home_builds_in_own_words() -> None:
    """godip's 1908 says "18 of 40 supply centers are required for victory" and "Units can only be built
    on your own starting supply centers": the target is 18 (not the map's 40), builds are at home."""
    from dippouch.interop.diplicity import stated_build_rule, stated_solo

    rules = (
        "Units can only be built on your own starting supply centers.\n"
        "18 of 40 supply centers are required for victory. If the two leading players are tied then the game "
        "will continue for another year."
    )
    assert stated_solo(rules) == 18
    assert stated_solo("A player wins with 25 out of the 50 SCs.") == 25
    assert stated_build_rule(rules) == "home"
    assert stated_build_rule("Players may build in any owned supply center.") == "owned"


def test_diplicity_what_the_rules_text_does_not_state_is_listed_as_a_guess(tmp_path: Path) -> None:
    src = tmp_path / "four.json"
    src.write_text(json.dumps(_small_diplicity("Armies may cross the river.")))
    got = import_diplicity(src, "four")
    guesses = "\n".join(got.guesses)
    assert "[victory] centres = 3" in guesses and "build rule" in guesses and "year advances by 1" in guesses


def test_cli_import_of_a_long_file_name_shortens_the_name_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    src = tmp_path / ("Youngstown Redux with Variable Centres and Extra Seas" + ".json")
    src.write_text(json.dumps(_small_diplicity("The first to 3 supply centers wins.")))
    out = runner.invoke(app, ["variants", "import", str(src)], env={"COLUMNS": "250"})
    name = "youngstown-redux-with-variable-centres-a"
    assert (tmp_path / f"{name}.toml").is_file(), out.output
    assert "longer than 40 characters" in out.output, out.output


# ---------------------------------------------------------------------------- the source's picture


def test_dpjudge_points_and_colours_come_from_the_ps_picture(tmp_path: Path) -> None:
    v, report = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "standard.map", "dpstd")
    assert all(p.point is not None for p in v.map.provinces), [p.abbr for p in v.map.provinces if p.point is None]
    assert v.data["drawing"]["coastline"] == "provinces"
    m = v.map
    # The picture's layout is kept: London west of Berlin, Tunis south of Naples.
    assert m.province("lon").point[0] < m.province("ber").point[0]  # type: ignore[index]
    assert m.province("tun").point[1] < m.province("nap").point[1]  # type: ignore[index]
    assert v.power("Austria").colour == "#ff0000" and v.power("England").colour == "#0000ff"
    assert any("spots of standard.ps" in line for line in report), report


def test_a_map_without_a_picture_is_laid_out_from_its_borders_and_coloured(tmp_path: Path) -> None:
    src = tmp_path / "pure.map"
    src.write_text((SAMPLES / "dpjudge" / "pure.map").read_text(encoding="utf-8"), encoding="utf-8")
    v, report = _import_and_load(tmp_path, src, "pure")
    assert all(p.point is not None for p in v.map.provinces)
    assert len({p.colour for p in v.powers}) == len(v.powers)
    assert any("layout of its borders" in line for line in report), report


def test_an_imported_map_is_drawn(tmp_path: Path) -> None:
    """Imported Pure with its picture's spots builds (plain shapes, quick) into a drawing where every
    province has a shape, and the picture is written."""
    src = SAMPLES / "dpjudge" / "pure.map"
    got = import_dpjudge(src, "pure")
    path = tmp_path / "pure.toml"
    path.write_text(dumps_variant(got.data, got.report), encoding="utf-8")
    out = runner.invoke(app, ["mapgen", "--plain", str(path)])
    assert out.exit_code == 0, out.output
    assert "coastline clip covers" not in out.output  # the file says coastline = "provinces" itself
    from dippouch.render.geometry import load_geometry

    geo = load_geometry(load_variant(str(path)))
    assert set(geo.provinces) == {p.abbr for p in load_variant(str(path)).map.provinces}
    assert all(s.d for s in geo.provinces.values())
    checked = runner.invoke(app, ["variants", "check", str(path)])
    assert (tmp_path / "pure.png").is_file(), checked.output


# ---------------------------------------------------------------------------- the report: losses and guesses


def test_no_draw_is_carried_over_and_a_missing_victory_line_is_a_guess(tmp_path: Path) -> None:
    src = tmp_path / "nodraw.map"
    src.write_text(
        "LAND AAA ABUTS BBB\nLAND BBB ABUTS AAA\nAlpha = aaa\nBeta = bbb\nRULE NO_DRAW\n\nONE (First) AAA\nA AAA\n",
        encoding="utf-8",
    )
    got = import_dpjudge(src, "nodraw")
    assert got.data["victory"]["draws"] is False
    assert not any("NO_DRAW" in line for line in got.report), got.report
    assert any("no VICTORY line" in g for g in got.guesses), got.guesses


def test_renames_are_not_listed_as_losses(tmp_path: Path) -> None:
    got = import_dpjudge(SAMPLES / "dpjudge" / "renaissance.map", "renaissance")
    assert not any("renamed" in line for line in got.report), got.report


def test_cli_import_of_a_file_named_like_a_built_in_is_not_shadowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = runner.invoke(app, ["variants", "import", str(SAMPLES / "dpjudge" / "standard.map")], env={"COLUMNS": "250"})
    assert (tmp_path / "standard-imported.toml").is_file(), out.output
    assert not (tmp_path / "standard.toml").exists()
    assert "is a built-in variant's" in out.output


def test_a_river_coast_is_a_note_not_a_problem(tmp_path: Path) -> None:
    """Empire's Arkansas is a coast on the Mississippi: fleets reach it from other coasts, never from a
    sea, as DPjudge, MILA and godip all have it. The map check notes it instead of failing the map."""
    from dippouch.mapcheck import check_map

    v, _ = _import_and_load(tmp_path, SAMPLES / "dpjudge" / "empire.map", "empire")
    rep = check_map(v)
    assert not any("no sea neighbour" in p for p in rep.problems), rep.problems
    assert any("coastal ark" in n and "only coasts" in n for n in rep.notes), rep.notes


# ------------------------------------------------------- done when: imports, checks, draws and plays a year


def _play_a_year(v: Variant) -> None:
    import random

    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.orders import Order
    from dippouch.core.results import Outcome

    rng = random.Random(1)
    pos = v.start
    for _ in range(len(v.calendar.steps)):
        kind = v.calendar.kind(pos.phase)
        orders: dict[str, list[Order]] = {}
        for power in v.power_names:
            for choices in legal_orders(v, pos, power).values():
                orders.setdefault(power, []).append(rng.choice(choices))
            if kind == PhaseKind.ADJUSTMENTS and orders.get(power):
                orders[power] = [rng.choice(orders[power])]
        res = adjudicate(v, pos, orders, rng=random.Random(1))
        assert not [r for r in res.results if r.result == Outcome.ILLEGAL]
        pos = res.next


@pytest.mark.parametrize(
    "sample",
    ["dpjudge/pure.map", "dpjudge/sailho.map", "dpjudge/classical.map", "mila/france_austria.map", "diplicity"],
)
def test_a_sample_of_each_format_imports_checks_draws_and_plays_a_year(sample: str, tmp_path: Path) -> None:
    from dippouch.authoring import check_drawing, check_file
    from dippouch.render.mapgen.build import dumps
    from dippouch.render.mapgen.pipeline import build

    name = re.sub(r"[^a-z0-9]+", "-", sample.lower()).strip("-")
    if sample == "diplicity":
        src = tmp_path / "classical.json"
        src.write_text(json.dumps(_diplicity_json(load_variant("standard"))), encoding="utf-8")
        got = import_diplicity(src, name)
    else:
        got = import_dpjudge(SAMPLES / sample, name)
    path = tmp_path / f"{name}.toml"
    path.write_text(dumps_variant(got.data, [*got.report, *got.guesses]), encoding="utf-8")
    rep = check_file(path)
    assert rep.problems == [], rep.problems
    v = load_variant(str(path))
    doc = build(v, fit=False)  # the quick build; `variants check --build` fits the shapes too
    doc["variant"] = v.name
    (tmp_path / "geometry").mkdir()
    (tmp_path / "geometry" / f"{name}.json").write_text(dumps(doc), encoding="utf-8")
    drawn = check_file(path)
    check_drawing(v, path, drawn, build=False)
    assert path.with_suffix(".png").stat().st_size > 10_000, drawn.notes
    _play_a_year(v)


def test_diplicity_points_come_from_the_godip_map_svg(tmp_path: Path) -> None:
    """godip draws each province as a path or polygon whose id is its abbreviation (relative path commands,
    translated groups): their middles give the points, in the picture's layout (y downwards)."""
    src = tmp_path / "four.json"
    src.write_text(json.dumps(_small_diplicity("The first to 3 supply centers wins.")))
    svg = tmp_path / "fourmap.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><g id="provinces">'
        '<path id="a" d="m 0,0 10,0 0,10 -10,0 z"/>'
        '<polygon id="b" points="100,0 110,0 110,10 100,10"/>'
        '<path id="c" transform="translate(0,100)" d="M 0,0 L 10,0 L 10,10 Z"/>'
        '<path id="d" d="M 100,100 h 10 v 10 h -10 z"/></g></svg>',
        encoding="utf-8",
    )
    got = import_diplicity(src, "four")  # the SVG beside the JSON, named NAMEmap.svg, is found
    p = {k: got.data["provinces"][k]["point"] for k in "abcd"}
    assert p["a"][0] < p["b"][0] and p["c"][0] < p["d"][0]  # west to east
    assert p["a"][1] > p["c"][1] and p["b"][1] > p["d"][1]  # the picture's top is north
    assert any("spots of fourmap.svg" in line for line in got.report), got.report
    out = runner.invoke(
        app,
        ["variants", "import", str(src), "--to", str(tmp_path / "four.toml"), "--picture", str(svg)],
        env={"COLUMNS": "250"},
    )
    assert out.exit_code == 0 and "spots of fourmap.svg" in out.output, out.output


# ------------------------------------------------------------------ province outlines from the picture

_PURE = ["vie", "lon", "par", "ber", "rom", "mos", "con"]


def _wedges() -> dict[str, list[tuple[float, float]]]:
    """Seven wedges of a disc of radius 400 about (500, 500), as MILA's picture of Pure has them, with a
    thin gap between neighbours (at most 1.2 pixels), as a picture's stroked seams leave."""
    import math

    out = {}
    for i, abbr in enumerate(_PURE):
        a0, a1 = 2 * math.pi * i / 7 + 0.0015, 2 * math.pi * (i + 1) / 7 - 0.0015
        arc = [
            (500 + 400 * math.cos(a0 + (a1 - a0) * t / 8), 500 + 400 * math.sin(a0 + (a1 - a0) * t / 8))
            for t in range(9)
        ]
        out[abbr] = [(500.0, 500.0), *arc]
    return out


def _mila_pure_svg(folder: Path) -> None:
    """A MILA-style picture: the shapes in the ``MapLayer`` group (ids ``_vie``..., the layer translated),
    the unit spots in ``jdipNS:PROVINCE`` elements in the picture's own frame."""
    import math

    shapes = "".join(
        f'<polygon id="_{a}" points="{" ".join(f"{x + 50:.1f},{y + 30:.1f}" for x, y in ring)}"/>'
        for a, ring in _wedges().items()
    )
    spots = "".join(
        f'<jdipNS:PROVINCE name="{a}"><jdipNS:UNIT x="{500 + 250 * math.cos(2 * math.pi * (i + 0.5) / 7):.1f}" '
        f'y="{500 + 250 * math.sin(2 * math.pi * (i + 0.5) / 7):.1f}"/></jdipNS:PROVINCE>'
        for i, a in enumerate(_PURE)
    )
    (folder / "svg").mkdir()
    (folder / "svg" / "pure.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:jdipNS="svg.dtd"><jdipNS:DISPLAY>'
        f"<jdipNS:PROVINCE_DATA>{spots}</jdipNS:PROVINCE_DATA></jdipNS:DISPLAY>"
        f'<g id="MapLayer" transform="translate(-50 -30)">{shapes}</g>'
        '<g id="MouseLayer"><polygon id="vie" points="0,0 1,0 1,1"/></g></svg>',
        encoding="utf-8",
    )


def test_mila_province_outlines_become_the_drawn_shapes(tmp_path: Path) -> None:
    """A MILA picture's province shapes (its MapLayer, with the layer's transform) are carried into
    ``[drawing] outlines`` in the points' plane, and the built map draws each province as that shape."""
    import math

    from shapely.geometry import Polygon

    from dippouch.interop.pictures import path_rings
    from dippouch.render.mapgen.pipeline import build

    (tmp_path / "pure.map").write_text((SAMPLES / "dpjudge" / "pure.map").read_text(encoding="utf-8"))
    _mila_pure_svg(tmp_path)
    got = import_dpjudge(tmp_path / "pure.map", "pure")
    outlines = got.data["drawing"]["outlines"]
    assert sorted(outlines) == sorted(_PURE)
    assert any("province outlines taken from pure.svg for 7 of 7" in line for line in got.report), got.report
    v = _load(got.data, tmp_path)
    doc = build(v, fit=False)
    shapes = {a: Polygon(max(path_rings(doc["provinces"][a]["d"]), key=len)) for a in _PURE}
    areas = {a: g.area for a, g in shapes.items()}
    # The seven shapes together are the source's disc, not the board's rectangle (as cells round the
    # points would be), and the seven are equal, as the wedges are.
    whole = sum(areas.values())
    x0 = min(g.bounds[0] for g in shapes.values())
    x1 = max(g.bounds[2] for g in shapes.values())
    assert abs(whole / (math.pi * ((x1 - x0) / 2) ** 2) - 1) < 0.03, whole
    # the seams are closed: each wedge shares its whole straight side with the next
    for a, b in itertools.pairwise([*_PURE, _PURE[0]]):
        assert shapes[a].boundary.intersection(shapes[b].buffer(0.3)).length > 0.3 * (x1 - x0), (a, b)
    # seven equal wedges, equal areas
    assert max(areas.values()) / min(areas.values()) < 1.05, areas  # the projection of a 20° patch


def test_godip_province_outlines_come_through_with_their_groups_transforms(tmp_path: Path) -> None:
    """godip's provinces group: each path's outline (relative moves, curves cut into pieces, a translated
    and scaled group) is carried into ``[drawing] outlines``, and the built map draws it: the triangle
    ``c`` is half the size of the square ``a``."""
    from shapely.geometry import Polygon

    from dippouch.interop.pictures import path_rings
    from dippouch.render.mapgen.pipeline import build

    src = tmp_path / "four.json"
    src.write_text(json.dumps(_small_diplicity("The first to 3 supply centers wins.")))
    svg = tmp_path / "fourmap.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><path id="a" d="M 900,900 h 5 v 5 z"/>'
        '<g id="provinces" transform="translate(10,10)">'
        '<path id="a" d="m 0,0 100,0 0,100 -100,0 z"/>'
        '<g transform="scale(2)"><polygon id="b" points="50,0 100,0 100,50 50,50"/></g>'
        '<path id="c" d="M 0,100 L 100,100 L 0,200 Z"/>'
        '<path id="d" d="M 100,100 C 150,100 200,100 200,100 L 200,200 L 100,200 Z"/></g></svg>',
        encoding="utf-8",
    )
    got = import_diplicity(src, "four")
    outlines = got.data["drawing"]["outlines"]
    assert sorted(outlines) == ["a", "b", "c", "d"]
    assert len(outlines["a"]) == 1  # the square outside the provinces group is not a province's
    doc = build(_load(got.data, tmp_path), fit=False)
    area = {k: Polygon(max(path_rings(doc["provinces"][k]["d"]), key=len)).area for k in "abcd"}
    assert abs(area["c"] / area["a"] - 0.5) < 0.03, area
    assert abs(area["b"] / area["a"] - 1.0) < 0.03, area  # 50 x 50 drawn twice as large
    assert abs(area["d"] / area["a"] - 1.0) < 0.03, area  # a straight "curve"
    assert any("province outlines taken from fourmap.svg for 4 of 4" in line for line in got.report)


def test_path_rings_reads_subpaths_and_curves() -> None:
    from dippouch.interop.pictures import path_rings

    rings = path_rings("M0 0 L10 0 L10 10 Z m 20,0 h 10 v 10 h -10 z M 0 50 Q 5 40 10 50 T 20 50 L 10 60 Z")
    assert len(rings) == 3
    assert rings[1][0] == (20.0, 0.0) and (30.0, 10.0) in rings[1]
    quad = rings[2]
    assert quad[0] == (0.0, 50.0) and (10.0, 50.0) in quad and (20.0, 50.0) in quad
    # Q bulges up (to y 45 at its middle), T mirrors its control point: the second arc bulges down
    assert min(y for _, y in quad[:5]) == 45.0 and max(y for _, y in quad[5:9]) == 55.0


def test_a_province_the_godip_picture_leaves_out_is_grown_and_reported(tmp_path: Path) -> None:
    src = tmp_path / "four.json"
    src.write_text(json.dumps(_small_diplicity("The first to 3 supply centers wins.")))
    (tmp_path / "fourmap.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><g id="provinces">'
        '<path id="a" d="M 0,0 H 100 V 100 H 0 Z"/><path id="b" d="M 100,0 H 200 V 100 H 100 Z"/>'
        '<path id="c" d="M 0,100 H 100 V 200 H 0 Z"/></g></svg>',
        encoding="utf-8",
    )
    got = import_diplicity(src, "four")
    assert sorted(got.data["drawing"]["outlines"]) == ["a", "b", "c"]
    line = next(x for x in got.report if "province outlines taken from" in x)
    assert "for 3 of 4 provinces" in line and "1 without one are drawn round their points: d" in line, line
    from dippouch.render.mapgen.pipeline import build

    doc = build(_load(got.data, tmp_path), fit=False)
    assert doc["provinces"]["d"]["d"], "the province without an outline has a shape"


def test_an_unreadable_picture_is_refused_or_reported(tmp_path: Path) -> None:
    """A godip SVG that is not XML is refused with the file's name; a MILA SVG whose spots can be read but
    whose XML is broken keeps its spots and says its outlines were not taken."""
    src = tmp_path / "four.json"
    src.write_text(json.dumps(_small_diplicity("The first to 3 supply centers wins.")))
    (tmp_path / "fourmap.svg").write_text("<svg><g id='provinces'><path id='a' d='M 0 0'></svg>", encoding="utf-8")
    with pytest.raises(ImportError_, match=r"cannot read the picture .*fourmap\.svg: fourmap\.svg is not readable SVG"):
        import_diplicity(src, "four")
    (tmp_path / "pure.map").write_text((SAMPLES / "dpjudge" / "pure.map").read_text(encoding="utf-8"))
    _mila_pure_svg(tmp_path)
    svg = tmp_path / "svg" / "pure.svg"
    svg.write_text(svg.read_text(encoding="utf-8").replace("</svg>", ""), encoding="utf-8")
    got = import_dpjudge(tmp_path / "pure.map", "pure")
    assert "outlines" not in got.data["drawing"]
    assert any("spots of pure.svg" in x for x in got.report), got.report
    assert any("pure.svg is not readable SVG" in x and "no province outlines taken" in x for x in got.report)


def test_godip_provinces_drawn_as_circles_are_outlined(tmp_path: Path) -> None:
    """godip's Pure draws each province as a circle in its provinces group."""
    import math

    from dippouch.interop.pictures import read_godip_svg

    svg = tmp_path / "puremap.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><g id="provinces"><circle id="ber" cx="100" cy="50" r="20"/>'
        '<ellipse id="lon" cx="10" cy="10" rx="5" ry="3"/><rect id="par" x="0" y="100" width="10" height="20"/>'
        "</g></svg>",
        encoding="utf-8",
    )
    spots, outlines = read_godip_svg(svg)
    assert sorted(outlines) == ["ber", "lon", "par"]
    assert all(math.isclose(math.dist(p, (100, 50)), 20) for p in outlines["ber"][0])
    assert spots["ber"] == (100.0, 50.0) and spots["par"] == (5.0, 110.0)
