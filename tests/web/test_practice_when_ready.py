"""A practice game "when I'm ready" shows no countdown (the players' trial: "6d 23h 59m left" in a game that goes on
when the person marks orders ready); a paced one keeps its countdown; the setting survives its storage."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.game import GameSettings
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _start(site: Site, pace: str) -> str:
    visitor = site.browser()
    r = site.post_form(visitor, "/practice", {"variant": "standard", "power": "France", "pace": pace})
    assert r.status_code == 303, r.text
    page = visitor.get(r.headers["location"])
    assert page.status_code == 200
    return str(page.text)


def test_when_ready_shows_no_countdown(site: Site) -> None:
    page = _start(site, "ready")
    assert 'id="when-ready"' in page and "Goes on when you mark your orders ready" in page
    assert "data-deadline=" not in page


def test_a_paced_practice_keeps_its_countdown(site: Site) -> None:
    page = _start(site, "10m")
    assert 'id="when-ready"' not in page and "data-deadline=" in page


def test_the_setting_is_stored_and_read_back() -> None:
    s = GameSettings(when_ready=True)
    assert GameSettings.from_data(s.to_data()).when_ready
    assert "when_ready" not in GameSettings().to_data()  # games made before read as they were
    assert not GameSettings.from_data({}).when_ready
