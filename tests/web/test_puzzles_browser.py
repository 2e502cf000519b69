"""A puzzle solved in Debian's Chromium: a visitor opens the list, a puzzle that needs a support, sends the move
alone and is answered with the reply that beats it (the text kept in the box), then the whole answer and is told
it is solved; the daily puzzle opens; on a phone the page fits and the map and box are there; axe finds no
serious violation, light or dark. Screenshots in test-artifacts/web/puzzle-*.png."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors, wider_than_window
from dippouch.play.puzzles import Puzzle
from dippouch.store.learning.puzzles import add_puzzles, puzzles

DATA = Path(__file__).parents[1] / "data" / "puzzles"
STORED = json.loads((DATA / "puzzles.json").read_text(encoding="utf-8"))


def _stored(live_site: LiveSite) -> tuple[int, Puzzle]:
    add_puzzles(live_site.store, STORED[:8], now=datetime.now(UTC))
    for sp in puzzles(live_site.store):
        p = Puzzle.from_json(sp.data)
        if "support" in p.skills:
            return sp.id, p
    raise AssertionError("no puzzle with a support among the first eight")


def _wide(page: Any) -> int:
    return wider_than_window(page)


def test_a_wrong_answer_is_beaten_then_the_right_one_solves_it(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    pid, p = _stored(live_site)
    page = live_site.context(DESKTOP).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/puzzles")
    page.click(f"a[href='/puzzles/{pid}']")
    expect(page.locator("h1")).to_contain_text(f"{p.power} to play")
    expect(page.locator("#goal")).to_contain_text("must stand in it after the moves")
    expect(page.locator("[data-map] svg")).to_have_count(1)
    move = "\n".join(o for o in p.answer if " S " not in o)
    page.fill("#orders", move)
    page.click("#answer button[type=submit]")
    expect(page.locator("#verdict")).to_contain_text("this reply beats your orders")
    expect(page.locator("#reply li").first).to_be_visible()
    expect(page.locator("#verdict .results")).to_contain_text("fails")
    expect(page.locator("#orders")).to_have_value(move)
    shoot(page, "web", "puzzle-beaten-desktop")
    page.fill("#orders", "\n".join(p.answer))
    page.click("#answer button[type=submit]")
    expect(page.locator("#verdict")).to_contain_text("Solved!")
    expect(page.locator("#skills")).to_contain_text("a support")
    shoot(page, "web", "puzzle-solved-desktop")
    page.goto(f"{live_site.base}/puzzles/daily")
    expect(page.locator("h1")).to_contain_text("Puzzle of the day")
    assert errors == []


def test_the_puzzle_fits_a_phone_and_passes_axe(live_site: LiveSite) -> None:
    """On a phone: the puzzle, its beaten answer and the list fit the screen and pass every axe rule in light and
    the colour rules once the same page is dark (test_axe_pages: the dark scheme changes colours only)."""
    from playwright.sync_api import expect
    from test_axe_pages import _in_both_schemes

    pid, p = _stored(live_site)
    found: list[str] = []
    page = live_site.context(PHONE).new_page()
    page.goto(f"{live_site.base}/puzzles/{pid}")
    expect(page.locator("#orders")).to_be_visible()
    assert _wide(page) <= 0, "the puzzle page is wider than the phone"
    found += _in_both_schemes(page, "a puzzle", True)
    page.fill("#orders", "\n".join(o for o in p.answer if " S " not in o))
    page.click("#answer button[type=submit]")
    expect(page.locator("#verdict")).to_contain_text("this reply beats your orders")
    assert _wide(page) <= 0, "the beaten answer's page is wider than the phone"
    found += _in_both_schemes(page, "a beaten answer", True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        shoot(page, "web", f"puzzle-beaten-phone-{scheme}")
    page.emulate_media(color_scheme="light")
    page.goto(f"{live_site.base}/puzzles")
    found += _in_both_schemes(page, "the list", True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        shoot(page, "web", f"puzzle-list-phone-{scheme}")
    assert found == []
