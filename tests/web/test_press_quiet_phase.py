"""A quiet phase (no press in it) says so where the compose box would be, in the reader's language, rather than
offering a box whose every message is refused after it was typed (the players' trial, issue 55); a message
refused there keeps its text in a box."""

from __future__ import annotations

from pathlib import Path

from dippouch.store.press import messages as press
from websupport import Site


def test_a_quiet_phase_offers_no_box_and_says_why(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("q")
    france = site.player("q", "France")
    page = france.get("/games/q/play/France").text
    assert 'id="press-compose"' in page and 'id="press-quiet"' not in page
    press.set_press_rules(site.web.store, "q", {"kind": "white", "quiet_phases": ["movement"]}, now=site.clock())
    page = france.get("/games/q/play/France").text
    assert 'id="press-compose"' not in page and 'class="press-reply' not in page
    assert "no press during movement phases in this game; write again when the next movement phase opens" in page
    german = france.get("/games/q/play/France", headers={"Accept-Language": "de"}).text
    assert 'id="press-quiet"' in german and "no press during movement phases" not in german
    # Another phase kind is quiet, not this one: the box is back.
    press.set_press_rules(site.web.store, "q", {"kind": "white", "quiet_phases": ["adjustments"]}, now=site.clock())
    assert 'id="press-compose"' in france.get("/games/q/play/France").text
