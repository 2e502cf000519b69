"""``dippouch mapcheck`` counts unreadable boards (issue 42): the area spread (the largest province over the
median) and names under 9 px at the default view, judged on boards drawn without a picture."""

from __future__ import annotations

from pathlib import Path

from test_mapgen_layout import IMPORT_NOTE, _planar_map
from typer.testing import CliRunner

from dippouch.catalog import load_variant
from dippouch.cli import app, register_commands
from dippouch.mapcheck import READABLE_PX, SPREAD_LIMIT, Readability, check_readability

runner = CliRunner()
register_commands()


def test_a_laid_out_board_reads_and_the_same_board_at_crowded_points_does_not(tmp_path: Path) -> None:
    text = _planar_map(40, 3)
    path = tmp_path / "planar.toml"
    # At the crowded points the importer's force layout gave (the file without its note): built as drawn.
    path.write_text(text.replace(IMPORT_NOTE, ""), encoding="utf-8")
    assert runner.invoke(app, ["mapgen", "--plain", str(path)]).exit_code == 0
    crowded = check_readability(load_variant(str(path)))
    assert not crowded.laid_out and not crowded.unreadable  # measured, not judged
    assert crowded.spread > SPREAD_LIMIT or crowded.small_names, crowded.summary()
    # The same file marked as laid out, with that crowded geometry: counted unreadable, exit 1.
    path.write_text(text, encoding="utf-8")
    got = runner.invoke(app, ["mapcheck", "--boards", str(path)])
    assert got.exit_code == 1, got.output
    assert (
        "UNREADABLE" in got.output
        and "unreadable boards: 1 of 1 measured (1 drawn without a picture): planar" in got.output
    )
    # Built as a laid-out board: readable, exit 0.
    assert runner.invoke(app, ["mapgen", "--plain", str(path)]).exit_code == 0
    got = runner.invoke(app, ["mapcheck", "--boards", str(path)])
    assert got.exit_code == 0, got.output
    assert "unreadable boards: 0 of 1 measured (1 drawn without a picture)" in got.output, got.output
    rep = check_readability(load_variant(str(path)))
    assert rep.laid_out and rep.spread <= SPREAD_LIMIT and not rep.small_names, rep.summary()
    assert rep.names == 40 and not rep.unnamed
    assert rep.smallest >= READABLE_PX, rep.summary()


def test_a_board_not_built_is_counted_apart(tmp_path: Path) -> None:
    path = tmp_path / "planar.toml"
    path.write_text(_planar_map(12, 2), encoding="utf-8")
    got = runner.invoke(app, ["mapcheck", "--boards", str(path)])
    assert got.exit_code == 1 and "not built" in got.output and "not built: planar" in got.output, got.output


def test_several_variants_only_with_boards(tmp_path: Path) -> None:
    got = runner.invoke(app, ["mapcheck", "standard", "1897"])
    assert got.exit_code != 0 and "several only with --boards" in got.output, got.output


def test_the_verdict() -> None:
    ok = Readability("x", True, SPREAD_LIMIT, "a", 10, ())
    assert not ok.unreadable
    assert Readability("x", True, SPREAD_LIMIT + 0.1, "a", 10, ()).unreadable
    assert Readability("x", True, 1.0, "a", 10, ("b",)).unreadable
    assert not Readability("x", False, 30.0, "a", 10, ("b",)).unreadable
    assert f"names under {READABLE_PX:g} px 1 of 10: b" in Readability("x", True, 1.0, "a", 10, ("b",)).summary()
    # a province drawn with no name at all reads no better than one with a name too small
    nameless = Readability("x", True, 1.0, "a", 9, (), 9.5, ("c",))
    assert nameless.unreadable and "without a name 1: c" in nameless.summary()
    assert "smallest 9.5 px" in Readability("x", True, 1.0, "a", 10, (), 9.5).summary()
