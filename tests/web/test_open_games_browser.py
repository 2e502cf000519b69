"""Issue 40's walk for starting and finding games, in Debian's Chromium: a player starts a game from a template
on a desktop, two others find it on their phones with the filters and quick play, the last sign-up starts it
by itself, and each of the three sees it starting on /me. Screenshots in test-artifacts/web/open-*.png; no
page is wider than the phone."""

from __future__ import annotations

from typing import Any

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors, wider_than_window
from dippouch.store.people.persons import create_person, seats_of


def _wide(page: Any) -> int:
    return wider_than_window(page)


def test_start_find_quick_play_and_the_start_told_to_everyone(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    site, base = live_site, live_site.base
    ann = create_person(site.store, "Ann", now=site.now())
    host = site.person(ann, DESKTOP).new_page()
    errors = watch_errors(host)
    host.goto(f"{base}/new-game")
    host.check("input[name=template][value=variant-hundred3]")
    host.fill("input[name=name]", "evening")
    shoot(host, "web", "open-new-game-desktop")
    host.click("text=Start the game")
    expect(host.locator(".flash")).to_contain_text("Created evening")
    host.goto(f"{base}/games/evening/coordinate")
    expect(host.locator("h1")).to_contain_text("evening")  # the creator's desk

    phones = []
    for name in ("Bo", "Cy", "Di"):
        pid = create_person(site.store, name, now=site.now())
        page = site.person(pid, PHONE, is_mobile=True, has_touch=True).new_page()
        watch_errors(page, errors)
        phones.append((pid, page))
    bo = phones[0][1]
    bo.goto(f"{base}/open")
    bo.select_option("select[name=variant]", "hundred3")
    bo.select_option("select[name=length]", "2d")
    bo.click("text=Filter")
    expect(bo.locator("select[name=variant]")).to_have_value("hundred3")  # the chosen values stay
    expect(bo.locator("select[name=length]")).to_have_value("2d")
    expect(bo.locator("#open-games tr[data-game=evening] .seats")).to_contain_text("0 of 3 played")
    assert _wide(bo) <= 0, "the open games page is wider than the phone"
    shoot(bo, "web", "open-filtered-phone")
    for _, page in phones:
        page.goto(f"{base}/open?variant=hundred3")
        page.click("#quick-play button")
        expect(page.locator(".flash")).to_be_visible()
    shoot(phones[-1][1], "web", "open-quick-play-filled-phone")
    assert {s.power for pid, _ in phones for s in seats_of(site.store, pid)} == {"Burgundy", "England", "France"}
    for _, page in phones:
        page.goto(f"{base}/me")
        expect(page.locator(".game-starting[data-game=evening]")).to_be_visible()
        assert _wide(page) <= 0, "/me is wider than the phone"
    shoot(phones[0][1], "web", "open-me-starting-phone")
    assert errors == []
