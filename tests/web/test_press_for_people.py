"""A letter as a person reads it (the players' trial: bots' replies showed "[dippouch] NO SUP F nwg - nth" to
the person): the structured lines bots write for programs are left out of the page where a sentence says the
same; a letter of structured lines alone is shown whole; the letter is kept as sent."""

from __future__ import annotations

from pathlib import Path

from dippouch.web.app import for_people
from websupport import Site

REPLY = "No, I will not support your fleet into the North Sea.\n[dippouch] NO SUP F nwg - nth"


def test_the_structured_lines_are_left_out_for_people() -> None:
    assert for_people(REPLY) == "No, I will not support your fleet into the North Sea."
    assert for_people("[dippouch] PEACE") == "[dippouch] PEACE"  # nothing else to show
    assert for_people("peace?\n  [dippouch] PEACE\nand DMZ Burgundy") == "peace?\nand DMZ Burgundy"


def test_the_page_shows_the_sentence_and_the_api_the_letter(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g", press="white")
    france, england = site.player("g", "France"), site.player("g", "England")
    r = site.api(england, "/api/games/g/powers/England/press", {"to": ["France"], "text": REPLY})
    assert r.status_code == 200, r.text
    page = france.get("/games/g/play/France").text
    assert "No, I will not support your fleet" in page and "[dippouch] NO SUP" not in page
    import dippouch.store.press.messages as store_press

    kept = store_press.overview(site.web.read, "g", "France", recent=5)
    assert any("[dippouch] NO SUP" in m.text for ms in kept.recent.values() for m in ms)  # stored as sent
