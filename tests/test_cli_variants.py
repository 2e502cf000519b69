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
