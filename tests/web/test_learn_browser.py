"""The guided first game in Debian's Chromium on a phone (390x844): a new visitor follows the home page's offer,
passes every lesson by typing its orders, reads each lesson's explanation back from the page (it must be the
engine's, as :func:`dippouch.play.lessons.attempt` tells it), sees a wrong answer explained, and starts the short
game against the gentlest bots. Axe finds no serious violation on the lesson pages, light or dark. Screenshots in
test-artifacts/web/learn-*.png, at phone and desktop size."""

from __future__ import annotations

from typing import Any

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors, wider_than_window
from dippouch.bots.seats import bot_seats
from dippouch.play import lessons as use
from dippouch.store.bots import open_practice_games


def _wide(page: Any) -> int:
    return wider_than_window(page)


def test_a_new_person_completes_the_guided_game_on_a_phone(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    page = live_site.context(PHONE).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/")
    page.click("#learn-link")
    expect(page.locator("h1")).to_have_text("Learn to play")
    page.click("#learn-next")
    for n, le in enumerate(use.LESSONS, start=1):
        expect(page.locator("#goal")).to_have_text(str(le.task))
        if le.slug == "cut":  # one wrong answer first: told why, in the engine's terms
            page.fill("#orders-box", "A sil S A mun")
            page.click("#play")
            expect(page.locator("#result h2")).to_contain_text("Not yet")
            expect(page.locator("#explanation")).to_contain_text(
                "The support of A Silesia was cut because A Galicia attacked Silesia"
            )
            shoot(page, "web", "learn-wrong-phone")
        page.fill("#orders-box", le.answer)
        page.click("#play")
        expect(page.locator("#result h2")).to_contain_text("Goal reached")
        told = [t.strip() for t in page.locator("#explanation li").all_inner_texts()]
        assert told == [str(s.text) for s in use.attempt(le, le.answer).said], le.slug
        assert _wide(page) <= 0, f"lesson {le.slug} is wider than the phone"
        if n in (1, 4):
            shoot(page, "web", f"learn-{le.slug}-phone")
        page.click("#next-lesson")
    expect(page.locator("#learn-all-done")).to_be_visible()
    assert page.locator("#lessons .tag").count() == len(use.LESSONS)
    shoot(page, "web", "learn-done-phone")
    before = set(open_practice_games(live_site.store))
    page.click("#learn-start-game")
    expect(page.locator(".flash")).to_contain_text("Practice game")
    [game] = set(open_practice_games(live_site.store)) - before
    assert set(bot_seats(live_site.store, game).values()) == {use.GAME_LEVEL}
    assert errors == []


def test_a_lesson_on_a_desktop_with_a_refused_line(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    page = live_site.context(DESKTOP).new_page()
    page.goto(f"{live_site.base}/learn/convoy")
    shoot(page, "web", "learn-convoy-desktop")
    page.fill("#orders-box", "A yor - nwy\nF nth C A yor - nwz")
    page.click("#play")
    expect(page.locator("#refused")).to_contain_text("nothing was played")
    expect(page.locator("#orders-box")).to_have_value("A yor - nwy\nF nth C A yor - nwz")
    page.fill("#orders-box", "A yor - nwy\nF nth C A yor - nwy")
    page.click("#play")
    expect(page.locator("#explanation")).to_contain_text(
        "The convoy of F North Sea was disrupted: F Helgoland Bight dislodged the fleet"
    )
    shoot(page, "web", "learn-convoy-result-desktop")


def test_no_serious_axe_violation_on_the_lesson_pages(live_site: LiveSite) -> None:
    """Each lesson page at both sizes: every axe rule in light, and the colour rules once the same page is dark
    (test_axe_pages: the dark scheme changes colours only)."""
    from test_axe_pages import _in_both_schemes

    base = live_site.base
    found: list[str] = []
    for size in (PHONE, DESKTOP):
        page = live_site.context(size).new_page()
        for where in ("/learn", "/learn/retreats", "/learn/cut?orders=A%20sil%20S%20A%20mun", "/learn/moves?orders=x"):
            page.goto(base + where)
            found += _in_both_schemes(page, where, size is PHONE)
    assert found == []
