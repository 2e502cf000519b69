"""Every problem in a file reported at once: a misspelt power's table is still checked.

A table under a misspelt power (``[powers.Frnace]`` beside France) was reported as the
slip it is, but everything written in it was then dropped unchecked: ``centers`` (for ``centres``) and a
fleet on a split coast without its coast came to light only after the author fixed the name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.errors import VariantError


def test_a_misspelt_powers_table_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(tmp_path))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    (tmp_path / "v1898.toml").write_text(
        '[variant]\nname = "v1898"\nextends = "standard"\n\n[powers.Frnace]\ncenters = ["tri"]\nletter = 5\n'
    )
    with pytest.raises(VariantError) as e:
        load_variant("v1898")
    text = str(e.value)
    assert "did you mean France" in text
    assert "unknown key 'centers' in [powers.Frnace]; did you mean 'centres'?" in text, text
    assert "powers.Frnace.letter" in text, text


@pytest.mark.parametrize("value", ["maybe", 1, 0, "true", None])
def test_an_on_off_option_takes_true_or_false_only(value: object) -> None:
    with pytest.raises(VariantError, match="write true or false"):
        load_variant("hundred3", {"judge_calendar": value})
    assert load_variant("hundred3", {"judge_calendar": True}).options["judge_calendar"] is True


def test_the_cli_and_the_contract_refuse_a_non_boolean_option() -> None:
    from typer.testing import CliRunner

    from dippouch.cli import app, register_commands
    from dippouch.contract import handle_line

    register_commands()
    r = CliRunner().invoke(app, ["new", "g", "-v", "hundred3", "-o", "judge_calendar=maybe", "--db", "sqlite://"])
    assert r.exit_code == 2 and "write true or false" in r.output, r.output
    answer = handle_line('{"variant": "hundred3", "options": {"judge_calendar": 1}, "orders": {}}')
    assert "error" in answer and "write true or false" in answer["error"], answer
