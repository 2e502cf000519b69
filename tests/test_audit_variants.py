"""Issue 16, "every problem in a file reported at once": a misspelt power's table is still checked.

The audit found that a table under a misspelt power (``[powers.Frnace]`` beside France) was reported as the
slip it is, but everything written in it was then dropped unchecked: ``centers`` (for ``centres``) and a
fleet on a split coast without its coast came to light only after the author fixed the name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.core.errors import VariantError
from dippouch.core.variant import load_variant


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
