"""The order box's example orders go each somewhere of its own (the players' trial: England's placeholder sent
Edinburgh's fleet and Liverpool's army both to Clyde, where they would bounce)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from websupport import Site


@pytest.mark.parametrize(("variant", "power"), [("standard", "England"), ("standard", "Russia"), ("w3k", "Crown")])
def test_each_example_order_goes_to_a_province_of_its_own(tmp_path: Path, variant: str, power: str) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g", variant=variant)
    page = site.player("g", power).get(f"/games/g/play/{power}").text
    example = html.unescape(re.search(r'placeholder="([^"]*)"', page, re.S).group(1))  # type: ignore[union-attr]
    lines = [ln for ln in example.splitlines() if ln.strip()]
    assert lines, page
    targets = [ln.split(" - ", 1)[1].split(" (")[0] for ln in lines if " - " in ln]
    assert len(targets) == len(set(targets)), lines
    if (variant, power) == ("standard", "England"):
        assert sum("Clyde" in t for t in targets) <= 1, lines
