"""``dippouch variants``: the list a coordinator starts from, one variant's vital signs, clear errors."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from dippouch.cli import _register, app
from dippouch.core.variant import variant_names

runner = CliRunner()
_register()


def test_lists_every_variant_with_its_victory_condition() -> None:
    out = runner.invoke(app, ["variants"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    for name in variant_names():
        assert name in out.output
    assert "25 centres (British, Franks, Polotjans and Dregovites)" in out.output
    assert "31 centres (Byzantines)" in out.output
    assert "plus a capital of each kingdom" in out.output


def test_shows_one_variant() -> None:
    out = runner.invoke(app, ["variants", "standard"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    assert "75 provinces, 34 supply centres, 111 army and 141 fleet borders" in out.output
    assert "starts Spring 1901 Movement" in out.output


def test_unknown_variant_is_a_message_not_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "variants", "hundered"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "did you mean 'hundred'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_key_of_a_variant_lists_every_abbreviation_with_its_names() -> None:
    out = runner.invoke(app, ["variants", "w3k", "--key"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    rows = {line.split("│")[1].strip(): line for line in out.output.splitlines() if line.count("│") > 4}
    from dippouch.core.variant import load_variant

    w3k = load_variant("w3k")
    assert {loc.abbr for loc in w3k.map.locations} <= set(rows)
    assert "Hastings & Pevensey" in rows["hpv"] and "pevensey" in rows["hpv"]
    assert "Berwick-upon-Tweed" in rows["bwk"]
    assert "Caernarfonshire (North Coast)" in rows["cae/nc"]
    assert "oxon" in rows["oxf"]


def test_a_variant_lists_its_units_by_full_names_and_abbreviations_on_request() -> None:
    full = runner.invoke(app, ["variants", "standard"], env={"COLUMNS": "250"}).output
    assert "F St Petersburg (south coast)" in full and "F stp/sc" not in full
    short = runner.invoke(app, ["variants", "standard", "--abbrev"], env={"COLUMNS": "250"}).output
    assert "F stp/sc" in short
    refused = runner.invoke(app, ["variants", "--key"])
    assert refused.exit_code == 2 and "name the variant" in refused.output
