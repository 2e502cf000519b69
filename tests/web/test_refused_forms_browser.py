"""Refused forms in a real browser (Debian's Chromium): what was typed, picked and ticked is there again on
the page that says what to change, at desktop and phone sizes. Screenshots go to the artifacts folder."""

from __future__ import annotations

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store.people.persons import create_person


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_refused_webhook_comes_back_as_typed(live_site: LiveSite, size: str) -> None:
    from playwright.sync_api import expect

    pid = create_person(live_site.web.store, "Ann", now=live_site.now(), email="ann@example.org")
    ctx = live_site.person(pid, PHONE if size == "phone" else DESKTOP)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/notifications")
    page.get_by_label("Service").select_option("slack")
    page.get_by_label("Webhook address").fill("http://hooks.example/T0/B0/abc")
    page.get_by_label("Matrix access token").fill("do-not-keep")
    page.get_by_label("Name for it").fill("Our alliance")
    page.get_by_role("button", name="Add webhook").click()
    expect(page.locator(".flash-error")).to_contain_text("must start with https://")
    assert page.url == f"{live_site.base}/notifications"
    # Drawn as a refusal, not in the success box's green (the players' trial: every refusal looked like a
    # success), and said to screen readers as an alert once the page has loaded (the page's copy is no live
    # region: it would be read twice).
    flash = page.locator("#flash")
    expect(page.locator("#announce-alert")).to_contain_text("must start with https://")
    colours = flash.evaluate("e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]")
    ok = page.evaluate(
        """() => { const d = document.createElement('div'); d.className = 'flash'; document.body.append(d);
        const c = [getComputedStyle(d).backgroundColor, getComputedStyle(d).color]; d.remove(); return c; }"""
    )
    assert colours[0] != ok[0] and colours[1] != ok[1], (colours, ok)
    red, green, _ = (int(x) for x in colours[1].removeprefix("rgb(").rstrip(")").split(",")[:3])
    assert red > green + 60, colours  # the refusal's words are red
    expect(page.get_by_label("Service")).to_have_value("slack")
    expect(page.get_by_label("Webhook address")).to_have_value("http://hooks.example/T0/B0/abc")
    expect(page.get_by_label("Name for it")).to_have_value("Our alliance")
    expect(page.get_by_label("Matrix access token")).to_have_value("")
    shoot(page, "web", f"refused-webhook-{size}")
    page.reload()  # shown once: a reload is the page as it is
    expect(page.get_by_label("Name for it")).to_have_value("")
    assert errors == []
    ctx.close()


def test_a_refused_new_game_keeps_its_picks_ticks_and_words(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    page = live_site.key_page(live_site.coordinator_key)
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/coordinate")
    form = page.locator("form[action='/coordinate/new']")
    form.get_by_label("Name", exact=True).fill("league/3")
    form.get_by_label("Variant").select_option("hundred3")
    form.get_by_label("Movement", exact=True).fill("3d")
    form.get_by_label("Anonymous", exact=False).check()
    form.get_by_label("Draws allowed").uncheck()
    form.get_by_label("Visibility").select_option("unlisted")
    form.get_by_role("button", name="Create the game").click()
    expect(page.locator(".flash-error")).to_contain_text("cannot contain '/'")
    form = page.locator("form[action='/coordinate/new']")
    expect(form.get_by_label("Name", exact=True)).to_have_value("league/3")
    expect(form.get_by_label("Variant")).to_have_value("hundred3")
    expect(form.get_by_label("Movement", exact=True)).to_have_value("3d")
    expect(form.get_by_label("Anonymous", exact=False)).to_be_checked()
    expect(form.get_by_label("Draws allowed")).not_to_be_checked()
    expect(form.get_by_label("Visibility")).to_have_value("unlisted")
    shoot(page, "web", "refused-new-game-desktop")
    assert errors == []
