"""``dippouch mapgen`` never ends in a traceback: shapes the geometry library cannot overlay are left as
fitted (found with a W3K shaping point in Brabant that crashed the clean-up pass with a GEOS
TopologyException), and any such failure left is one clear line naming the variant."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from shapely.errors import GEOSException
from typer.testing import CliRunner

import dippouch.render.mapgen.pipeline as build_module
from dippouch.cli import app, main, register_commands

runner = CliRunner()
register_commands()

W3K_BRABANT = """[variant]
name = "brabant"
title = "W3K with Brabant's north drawn"
extends = "w3k"

[provinces.brb]
shape = [[4.85, 51.5]]
"""


@pytest.mark.slow
def test_a_shaping_point_that_once_crashed_the_builder_builds(tmp_path: Path) -> None:
    path = tmp_path / "brabant.toml"
    path.write_text(W3K_BRABANT)
    got = runner.invoke(app, ["mapgen", str(path)])
    assert got.exit_code == 0, got.output
    assert (tmp_path / "geometry" / "brabant.json").is_file()


def test_a_geometry_library_failure_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails(*_: object, **__: object) -> None:
        raise GEOSException("TopologyException: found non-noded intersection at 1 2")

    monkeypatch.setattr(build_module, "build", fails)
    monkeypatch.setattr(sys, "argv", ["dippouch", "mapgen", "standard"])
    with pytest.raises(SystemExit) as stop:
        main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: building the map of 'standard' failed in the geometry library"), err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# A map with no geography (Pure: seven provinces, every one next to every other).
PURE = """[variant]
name = "{name}"
title = "Pure"

[calendar]
start_year = 1901
phases = [{{ season = "Spring", kind = "movement" }}, {{ season = "Fall", kind = "movement" }}, {{ season = "Winter", kind = "adjustments" }}]

[victory]
centres = 4
{powers}
{provinces}"""

_PURE_NAMES = ("ber", "con", "lon", "mos", "par", "rom", "vie")


def _pure(tmp_path: Path, name: str, points: dict[str, tuple[float, float]] | None = None) -> Path:
    powers = "".join(
        f'\n[powers.P{a.upper()}]\nletter = "{a[0].upper() if i < 6 else "X"}"\nhome_centres = ["{a}"]\nunits = ["A {a}"]\n'
        for i, a in enumerate(_PURE_NAMES)
    )
    provinces = ""
    for a in _PURE_NAMES:
        army = ", ".join(f'"{b}"' for b in _PURE_NAMES if b != a)
        point = f"point = [{points[a][0]}, {points[a][1]}]\n" if points else ""
        provinces += f'\n[provinces.{a}]\nname = "{a.title()}"\ntype = "land"\nsc = true\narmy = [{army}]\n{point}'
    path = tmp_path / f"{name}.toml"
    path.write_text(PURE.format(name=name, powers=powers, provinces=provinces), encoding="utf-8")
    return path


def test_mapgen_of_a_map_without_points_says_which_points_are_missing(tmp_path: Path) -> None:
    path = _pure(tmp_path, "pure")
    got = runner.invoke(app, ["mapgen", str(path)])
    assert got.exit_code != 0
    assert not isinstance(got.exception, ValueError), got.exception
    text = got.output + str(got.exception or "")
    assert "7 provinces have no point" in text and "ber con lon mos par rom vie" in text, text


def test_check_build_of_a_map_without_points_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    path = _pure(tmp_path, "pure")
    got = runner.invoke(app, ["variants", "check", "--build", str(path)])
    assert got.exception is None or isinstance(got.exception, SystemExit), got.exception
    assert got.exit_code == 1 and "have no point" in got.output, got.output


def test_the_map_command_names_the_file_to_build(tmp_path: Path) -> None:
    path = _pure(tmp_path, "pure")
    got = runner.invoke(app, ["map", str(path), "-o", str(tmp_path / "p.svg")])
    assert got.exit_code != 0
    assert f"dippouch mapgen {path}" in got.output + str(got.exception or ""), got.output


EAST_ASIA = {
    "ber": (135.0, 35.0),
    "con": (139.0, 36.0),
    "lon": (130.0, 33.0),
    "mos": (141.0, 40.0),
    "par": (133.0, 34.0),
    "rom": (137.0, 36.0),
    "vie": (132.0, 35.0),
}


def test_a_board_outside_the_coastline_clip_is_drawn_with_the_world_coastline_and_checked(tmp_path: Path) -> None:
    """East Asia lies outside the committed clip: the builder says so and draws it with the world
    coastline (never an all-sea board), and the check that follows runs instead of failing in the geometry
    library."""
    path = _pure(tmp_path, "pure", EAST_ASIA)
    got = runner.invoke(app, ["mapgen", "--plain", str(path)])
    assert got.exit_code == 0, got.output
    assert "coastline clip covers longitude -60..85" in got.output, got.output
    assert "the coasts come from the world coastline (Natural Earth 1:50m" in got.output, got.output
    from dippouch.catalog import load_variant
    from dippouch.render.geometry import load_geometry

    geo = load_geometry(load_variant(str(path)))
    assert all(shape.d for shape in geo.provinces.values()), "a province drawn empty (all sea)"
    checked = runner.invoke(app, ["variants", "check", "--no-picture", str(path)])
    assert checked.exception is None or isinstance(checked.exception, SystemExit), checked.exception
    checked = runner.invoke(app, ["variants", "check", str(path)])
    assert checked.exception is None or isinstance(checked.exception, SystemExit), checked.exception
    assert "Traceback" not in checked.output


def test_report_pdf_of_a_variant_without_a_map_writes_the_text_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game of a variant whose map was never built still gets its printable results."""
    import dippouch.cli.game  # noqa: F401 - registers the game commands

    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "undrawn.toml").write_text('[variant]\nname = "undrawn"\nextends = "standard"\ntitle = "Undrawn"\n')
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    db = f"sqlite:///{tmp_path / 'g.db'}"
    made = runner.invoke(app, ["new", "g", "--variant", "undrawn", "--db", db])
    assert made.exit_code == 0, made.output
    done = runner.invoke(app, ["process", "g", "--force", "--db", db])
    assert done.exit_code == 0, done.output
    pdf = tmp_path / "r.pdf"
    got = runner.invoke(app, ["report", "g", "--pdf", str(pdf), "--db", db])
    assert got.exit_code == 0, got.output
    assert "results text only" in got.output and pdf.read_bytes().startswith(b"%PDF")


def _japan(tmp_path: Path) -> Path:
    """Kyushu, Honshu and Korea round the Sea of Japan: real places, east of the clip."""
    lands = {"kyu": (130.7, 32.8), "hon": (138.5, 36.0), "kor": (127.5, 37.0)}
    text = PURE.format(name="japan", powers="", provinces="").replace("centres = 4", "centres = 2")
    text += '\n[powers.East]\nletter = "E"\nhome_centres = ["hon"]\nunits = ["A hon"]\n'
    text += '\n[powers.West]\nletter = "W"\nhome_centres = ["kor"]\nunits = ["A kor"]\n'
    for a, (lon, lat) in lands.items():
        others = ", ".join(f'"{b}"' for b in lands if b != a)
        text += (
            f'\n[provinces.{a}]\ntype = "coast"\nsc = true\narmy = [{others}]\nfleet = ["soj", {others}]\n'
            f"point = [{lon}, {lat}]\n"
        )
    text += (
        '\n[provinces.soj]\nname = "Sea of Japan"\ntype = "sea"\nfleet = ["kyu", "hon", "kor"]\npoint = [134.0, 40.0]\n'
    )
    path = tmp_path / "japan.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_east_asian_board_has_real_coasts(tmp_path: Path) -> None:
    """The Korea Strait is sea and the middle of Honshu land, as on the globe: land and sea come from the
    world coastline, not from the provinces' points (whose cells would make the strait Kyushu's land)."""
    from shapely.geometry import Point

    from dippouch.catalog import load_variant
    from dippouch.render.geometry import load_geometry, project
    from dippouch.render.mapgen.build import make_board

    path = _japan(tmp_path)
    b = make_board(load_variant(str(path)))
    for (lon, lat), land in [
        ((129.3, 34.6), False),
        ((137.5, 36.0), True),
        ((131.2, 33.3), True),
        ((134.5, 39.0), False),
    ]:
        assert b.land.contains(Point(b.proj.point(lon, lat))) is land, (lon, lat)
    got = runner.invoke(app, ["mapgen", "--plain", str(path)])
    assert got.exit_code == 0, got.output
    geo = load_geometry(load_variant(str(path)))
    assert project(geo, 137.5, 36.0) is not None
    assert all(shape.d for shape in geo.provinces.values())


def test_without_the_world_coastline_the_land_is_drawn_plainly_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the world coastline be missing, the board is still drawn (land from the provinces' points)
    and the builder warns that its coasts are not real."""
    import dippouch.render.mapgen.coastline as coastline

    monkeypatch.setattr(coastline, "WORLD", tmp_path / "missing.json.gz")
    coastline.load_world.cache_clear()
    try:
        assert coastline.load_world() == ()
        path = _japan(tmp_path)
        got = runner.invoke(app, ["mapgen", "--plain", str(path)])
        assert got.exit_code == 0, got.output
        assert "WARNING: the world coastline (render/data/world.json.gz) is missing" in got.output, got.output
        from dippouch.catalog import load_variant
        from dippouch.render.geometry import load_geometry

        assert all(shape.d for shape in load_geometry(load_variant(str(path))).provinces.values())
    finally:
        coastline.load_world.cache_clear()


def test_a_drawn_shape_with_a_flat_ring_is_read_back_as_a_polygon() -> None:
    """A shape with a ring of no area (a spike out and back along a line, as a picture's outline can leave)
    is read as its polygon alone: the geometric checks measure its outline instead of failing on a
    collection of polygons and lines."""
    from dippouch.render.mapgen.checks import parse_path

    got = parse_path("M0 0L10 0L10 10L0 10ZM20 20L21 21L22 22L21 21Z")
    assert got.geom_type == "Polygon" and got.boundary is not None
    assert got.area == 100.0


def test_an_overlay_that_leaves_a_line_keeps_a_boundary() -> None:
    """A union or difference that leaves a line or point beside the area is a GeometryCollection, whose boundary
    shapely 2 gives as None: the clean-up pass measured borders on it and ended in "'NoneType' object has no
    attribute 'intersection'" for maps imported without a picture. It keeps the area alone."""
    from shapely.geometry import GeometryCollection, LineString, Point, Polygon

    from dippouch.render.mapgen.fit import polygonal

    square = Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    left = GeometryCollection([square, LineString([(2, 2), (3, 3)]), Point(5, 5)])
    assert left.boundary is None  # what the pass met
    kept = polygonal(left)
    assert kept.boundary is not None and kept.equals(square)
    two = polygonal(GeometryCollection([square, Polygon([(5, 5), (6, 5), (6, 6)]), LineString([(9, 9), (8, 8)])]))
    assert two.geom_type == "MultiPolygon" and two.boundary.length > 0
    assert polygonal(GeometryCollection([LineString([(0, 0), (1, 1)])])).is_empty
    assert polygonal(square) is square
