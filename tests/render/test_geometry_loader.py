"""The geometry loader: reads a built file without the builder's dependencies, finds user variants' files
beside their TOML, and says clearly when no file was built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.variant import Variant
from dippouch.render import geometry as g

SMALL = {
    "format": "dippouch-geometry",
    "version": 1,
    "variant": "mini",
    "map_hash": "abc",
    "width": 100.0,
    "height": 80.0,
    "km_per_unit": 2.5,
    "projection": {"name": "laea", "lon0": 0.0, "lat0": 50.0},
    "background": {"land": "M0 0L1 0L1 1Z"},
    "provinces": {
        "aaa": {
            "kind": "coast",
            "d": "M0 0L50 0L50 80L0 80Z",
            "label": [25, 30],
            "label_size": 11.0,
            "unit": [25, 50],
            "dislodged": [30, 55],
            "sc": [20, 20],
            "nested": False,
            "area_km2": 25000.0,
        },
        "bbb": {
            "kind": "sea",
            "d": "M50 0L100 0L100 80L50 80Z",
            "label": [75, 30],
            "label_size": 9.5,
            "unit": [75, 50],
            "dislodged": [80, 55],
            "sc": None,
            "nested": False,
            "area_km2": 25000.0,
        },
    },
    "coasts": {"aaa/nc": {"unit": [40, 5]}},
    "connectors": [{"a": "aaa", "b": "bbb", "d": "M1 1L2 2"}],
    "sea_areas": {"dover": {"name": "Dover", "d": "M50 0L100 0L100 80Z", "label": [70, 10]}},
}


def _user_variant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Variant:
    (tmp_path / "mini.toml").write_text('[variant]\nname = "mini"\nextends = "standard"\n', encoding="utf-8")
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(tmp_path))
    return load_variant("mini")


def test_loads_a_small_file_beside_a_user_variant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = _user_variant(tmp_path, monkeypatch)
    path = g.geometry_path(variant)
    assert path == tmp_path / "geometry" / "mini.json"
    path.parent.mkdir()
    path.write_text(json.dumps(SMALL), encoding="utf-8")
    geo = g.load_geometry(variant)
    assert geo.variant == "mini" and geo.width == 100.0 and geo.height == 80.0 and geo.km_per_unit == 2.5
    assert geo.background_land == "M0 0L1 0L1 1Z"
    a = geo.provinces["aaa"]
    assert (a.kind, a.label, a.unit, a.dislodged, a.sc, a.nested) == (
        "coast",
        (25.0, 30.0),
        (25.0, 50.0),
        (30.0, 55.0),
        (20.0, 20.0),
        False,
    )
    assert geo.provinces["bbb"].sc is None and geo.provinces["bbb"].label_size == 9.5
    assert geo.coasts == {"aaa/nc": (40.0, 5.0)}
    assert geo.connectors == (g.Connector("aaa", "bbb", "M1 1L2 2"),)
    assert geo.sea_areas["dover"].name == "Dover"
    # cached: the same object while the file is unchanged, a new one after it changes
    assert g.load_geometry(variant) is geo
    changed = dict(SMALL, map_hash="changed-and-longer")
    path.write_text(json.dumps(changed), encoding="utf-8")
    assert g.load_geometry(variant).map_hash == "changed-and-longer"


def test_missing_file_says_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = _user_variant(tmp_path, monkeypatch)
    with pytest.raises(FileNotFoundError) as e:
        g.load_geometry(variant)
    assert "dippouch mapgen mini" in str(e.value) and "mini.json" in str(e.value)


def test_wrong_format_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = _user_variant(tmp_path, monkeypatch)
    path = g.geometry_path(variant)
    path.parent.mkdir()
    path.write_text(json.dumps(dict(SMALL, version=99)), encoding="utf-8")
    with pytest.raises(ValueError, match="version 1"):
        g.load_geometry(variant)


def test_builtin_variants_use_the_package_folder() -> None:
    assert g.geometry_path(load_variant("standard")) == g.GEOMETRY_DIR / "standard.json"
    assert g.geometry_path(load_variant("1897")) == g.GEOMETRY_DIR / "1897.json"


def test_loader_imports_no_builder_dependencies() -> None:
    code = (
        "import sys; import dippouch.render.geometry; "
        "bad = [m for m in ('shapely', 'numpy', 'scipy') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_path_rings_read_steps_as_the_points_they_reach() -> None:
    absolute = "M10 20L13 16L18.1 22ZM0 0L5 0L5 5Z"
    assert g.path_rings("M10 20l3-4 5.1 6zM0 0l5 0 0 5z") == g.path_rings(absolute)
    # After z the pen is back at the ring's start: a relative move is taken from there.
    assert g.path_rings("M10 20l3-4 5.1 6zm-10-20l5 0 0 5z") == g.path_rings(absolute)
    assert g.path_rings("M1 1 2 2 3 1Z") == [[(1.0, 1.0), (2.0, 2.0), (3.0, 1.0)]]  # points after M are lines


def test_a_long_walk_of_tenths_ends_on_the_corner_written_absolutely() -> None:
    # 0.1 has no exact float: a thousand steps of it drift, and a corner two provinces share (one reached by
    # steps, one written absolutely) must still be one point for the checks.
    d = "M0.3 0.7l" + " ".join(["0.1 0.1"] * 1000) + "z"
    end = g.path_rings(d)[0][-1]
    assert end == (100.3, 100.7)


def test_the_builders_steps_give_back_its_points() -> None:
    from shapely.geometry import Polygon

    from dippouch.render.mapgen.build import path_d

    outer = [(0.0, 0.0), (40.25, 0.0), (40.3, 30.04), (-7.1, 29.9)]
    hole = [(10.0, 10.0), (20.0, 10.0), (20.0, 20.0)]
    d = path_d(Polygon(outer, [hole]))
    assert "L" not in d and "l" in d, d  # steps, not absolute points
    rings = g.path_rings(d)
    assert sorted(rings) == sorted(
        [
            [(0.0, 0.0), (40.2, 0.0), (40.3, 30.0), (-7.1, 29.9)],  # rounded to tenths, as before
            [(10.0, 10.0), (20.0, 10.0), (20.0, 20.0)],
        ]
    ), rings
