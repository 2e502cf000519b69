"""The browser tests' pictures (tests/browsersupport.py): taken when ``DIPPOUCH_SCREENSHOTS`` asks for them,
of a whole page or one part of it, and not at all otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import browsersupport
from browsersupport import picture, shoot


def _page(chromium: Any) -> Any:
    page = chromium.new_context(viewport={"width": 400, "height": 300}).new_page()
    page.set_content("<p id='part' style='height:900px'>A page taller than its window</p>")
    return page


def test_pictures_are_saved_when_asked_for(chromium: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browsersupport, "SCREENSHOTS", True)
    monkeypatch.setattr(browsersupport, "ARTIFACTS", tmp_path)
    page = _page(chromium)
    whole = shoot(page, "pictures", "whole")
    part = picture(page.locator("#part"), tmp_path / "deeper" / "part.png")
    assert whole == tmp_path / "pictures" / "whole.png" and part == tmp_path / "deeper" / "part.png"
    for path in (whole, part):
        assert path.read_bytes().startswith(b"\x89PNG")
    page.context.close()


def test_no_picture_is_taken_unless_asked_for(chromium: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browsersupport, "SCREENSHOTS", False)
    monkeypatch.setattr(browsersupport, "ARTIFACTS", tmp_path)
    page = _page(chromium)
    assert shoot(page, "pictures", "whole") is None
    assert picture(page, tmp_path / "page.png", full_page=True) is None
    assert list(tmp_path.rglob("*")) == []
    page.context.close()
