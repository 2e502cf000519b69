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
