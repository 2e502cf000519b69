"""`dippouch mapcheck`: the vital signs of a map, pinned on the standard map and on small broken maps."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.mapcheck import check_map, edge_key, format_report, great_circle_km


def test_great_circle_known_distance() -> None:
    # London to Paris is about 344 km.
    assert 335 < great_circle_km((-0.13, 51.51), (2.35, 48.86)) < 350
    assert edge_key("Sar", "cor") == "cor-sar"


def test_standard_vital_signs() -> None:
    rep = check_map(load_variant("standard"))
    assert rep.counts["provinces"] == 75
    assert (rep.counts["land"], rep.counts["coast"], rep.counts["sea"]) == (14, 42, 19)
    assert rep.counts["centres"] == 34
    assert rep.counts["home_centres"] == 22
    assert rep.counts["neutral_centres"] == 12
    assert rep.counts["army_edges"] == 111
    assert rep.counts["fleet_edges"] == 141
    assert rep.counts["components"] == 1
    assert rep.counts["land_masses"] == 3  # the continent, Britain, North Africa + ... joined by land
    assert rep.problems == []
    assert {edge_key(e.a, e.b) for e in rep.long_edges} == {"eas-ion", "apu-ven", "alb-tri"}
    assert all(e.justification for e in rep.long_edges)  # standard.toml explains all three


def _write(tmp_path: Path, body: str) -> str:
    f = tmp_path / "tiny.toml"
    f.write_text(
        '[variant]\nname = "tiny"\n[calendar]\nphases = [{ season = "Spring", kind = "movement" }]\n'
        '[powers.Red]\nhome_centres = ["aaa"]\nunits = ["A aaa"]\nhomeland = ["aaa", "bbb"]\n' + body
    )
    return str(f)


TINY = """
[provinces.aaa]
name = "Aaa"
type = "coast"
sc = true
point = [0.0, 0.0]
army = ["bbb"]
fleet = ["sss"]
[provinces.bbb]
name = "Bbb"
type = "coast"
point = [1.0, 0.0]
army = ["aaa", "ccc"]
[provinces.ccc]
name = "Ccc"
type = "land"
point = [9.0, 0.0]
army = ["bbb", "ddd"]
[provinces.ddd]
name = "Ddd"
type = "land"
point = [9.0, 1.0]
army = ["ccc"]
[provinces.sss]
name = "Sss"
type = "sea"
point = [0.0, -1.0]
fleet = ["aaa"]
"""


def test_flags_coast_without_sea_and_long_edge(tmp_path: Path) -> None:
    rep = check_map(load_variant(_write(tmp_path, TINY)))
    assert any("coastal bbb" in p and "no sea neighbour" in p for p in rep.problems)
    assert [edge_key(e.a, e.b) for e in rep.long_edges] == ["bbb-ccc"]
    assert rep.long_edges[0].justification is None
    text = format_report(rep)
    assert "bbb-ccc [army]" in text and "UNEXPLAINED" in text


def test_justified_long_edges_and_stale_justifications(tmp_path: Path) -> None:
    body = TINY + '\n[mapcheck.long_edges]\n"ccc-bbb" = "a mountain pass"\n"aaa-ccc" = "not an edge"\n'
    rep = check_map(load_variant(_write(tmp_path, body)))
    assert rep.long_edges[0].justification == "a mountain pass"
    assert rep.unexplained == []
    assert any("justifies aaa-ccc, which is not an edge" in p for p in rep.problems)


def test_home_centre_outside_homeland_and_missing_point(tmp_path: Path) -> None:
    body = TINY.replace("point = [9.0, 0.0]\n", "")
    path = _write(tmp_path, body)
    Path(path).write_text(Path(path).read_text().replace('homeland = ["aaa", "bbb"]', 'homeland = ["bbb"]'))
    rep = check_map(load_variant(path))
    assert any("home centres outside the homeland: aaa" in p for p in rep.problems)
    assert any("ccc (Ccc) has no point" in p for p in rep.problems)


def test_cli_exit_codes(tmp_path: Path) -> None:
    register_commands()
    runner = CliRunner()
    ok = runner.invoke(app, ["mapcheck", "standard"])
    assert ok.exit_code == 0, ok.output
    assert "provinces 75" in ok.output and "problems (0)" in ok.output
    strict = runner.invoke(app, ["mapcheck", "standard", "--strict"])
    assert strict.exit_code == 0, strict.output  # every long edge of standard is explained
    text = (Path(__file__).resolve().parents[2] / "src/dippouch/variants/standard.toml").read_text()
    unexplained = tmp_path / "standard_bare.toml"
    head, _, rest = text.partition("[mapcheck.long_edges]")
    rest = rest[rest.index("\n\n") :]  # drop the justifications
    unexplained.write_text((head + rest).replace('name = "standard"', 'name = "standard_bare"'))
    lax = runner.invoke(app, ["mapcheck", str(unexplained)])
    assert lax.exit_code == 0, lax.output
    strict_bare = runner.invoke(app, ["mapcheck", str(unexplained), "--strict"])
    assert strict_bare.exit_code == 1
    assert "UNEXPLAINED" in strict_bare.output
    bad = runner.invoke(app, ["mapcheck", _write(tmp_path, TINY), "--json"])
    assert bad.exit_code == 1
    assert '"unexplained": 1' in bad.output


def test_towns_for_unknown_provinces_and_non_centres_are_reported(tmp_path: Path) -> None:
    rep = check_map(load_variant(_write(tmp_path, TINY + "\n[drawing.towns]\naab = [0.1, 0.1]\nbbb = [1.0, 0.1]\n")))
    assert "[drawing.towns] names an unknown province: aab (did you mean aaa?)" in rep.problems
    assert "[drawing.towns] bbb is not a supply centre: no marker is drawn for its town" in rep.notes
    clean = check_map(load_variant(_write(tmp_path, TINY + "\n[drawing.towns]\naaa = [0.1, 0.1]\n")))
    assert not [p for p in clean.problems if "towns" in p]
