"""Two accounts from one browser (issue 56), in Debian's Chromium: Ann signs in by her mailed link and signs up
to a game; in the same browser her second account signs in by its own link and is refused into that game
(the device cookie the first sign-in set is the second's too), told so in the page's refusal, its choice kept.
A third person on their own phone joins the same game. Then the installation's coordinator sees the shared
device on the review page. Screenshots in test-artifacts/web/moderation-*.png at both sizes."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors, wider_than_window
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store.people import accounts as store_accounts
from dippouch.store.people.persons import create_person, person_by_email


def _link(site: LiveSite, email: str, name: str | None) -> str:
    """The path of the sign-in link the site mails ``email`` (only the mail's delivery is left out)."""
    tokens: list[str] = []

    def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
        tokens.append(token)
        return "sign in", token

    store_accounts.create_signin_link(site.store, email, now=site.now(), compose=compose, name=name)
    return f"/signin/link/{tokens[0]}"


def _sign_in(site: LiveSite, page: Any, email: str, name: str) -> None:
    from playwright.sync_api import expect

    page.goto(site.base + _link(site, email, name))
    page.click("#signin-link-use")
    expect(page.locator(".flash")).to_contain_text("Signed in as")


def test_two_accounts_from_one_browser_are_refused_into_one_game(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    site, base = live_site, live_site.base
    host = create_person(site.store, "Dee", now=site.now())
    from dippouch.play import openings as play_openings

    play_openings.create_from_template(
        site.store, host, play_openings.TemplateChoices("standard-1d-full", name="evening"), now=site.now()
    )
    ctx = site.context(DESKTOP)
    page = ctx.new_page()
    errors = watch_errors(page)
    _sign_in(site, page, "ann@example.org", "Ann")
    page.goto(f"{base}/games/evening/opening")
    page.click("form[action$='/opening/signup'] button.primary")
    expect(page.locator(".flash")).to_contain_text("You signed up to evening")
    _sign_in(site, page, "ann.two@example.org", "Annette")
    page.goto(f"{base}/games/evening/opening")
    page.select_option("select[name=wish1]", "France")
    page.click("form[action$='/opening/signup'] button.primary")
    flash = page.locator(".flash")
    expect(flash).to_contain_text("another account signed in on this device is in this game already")
    expect(page.locator("select[name=wish1]")).to_have_value("France")  # the refused form keeps the choice
    shoot(page, "web", "moderation-second-account-desktop")
    ann = person_by_email(site.store, "ann@example.org")
    two = person_by_email(site.store, "ann.two@example.org")
    assert ann and two
    opening = store_openings.opening(site.store, "evening")
    assert opening is not None and [s.person_id for s in opening.signups] == [ann.id]
    # Another person, on a phone of their own, joins the same game.
    phone = site.context(PHONE).new_page()
    watch_errors(phone, errors)
    _sign_in(site, phone, "cy@example.org", "Cy")
    phone.goto(f"{base}/games/evening/opening")
    phone.click("form[action$='/opening/signup'] button.primary")
    expect(phone.locator(".flash")).to_contain_text("You signed up to evening")
    # The same refusal on a phone-sized second account of the phone's browser.
    _sign_in(site, phone, "cy.two@example.org", "Cyril")
    phone.goto(f"{base}/games/evening/opening")
    phone.click("form[action$='/opening/signup'] button.primary")
    expect(phone.locator(".flash")).to_contain_text("another account signed in on this device")
    wide = wider_than_window(phone)
    assert wide <= 0, "the opening with its refusal is wider than the phone"
    shoot(phone, "web", "moderation-second-account-phone")
    # The installation's coordinator sees the two devices' pairs; nobody else reaches the page.
    desk = site.context(DESKTOP).new_page()
    desk.goto(f"{base}/k/{site.coordinator_key}")
    desk.goto(f"{base}/desk/review/accounts")
    expect(desk.locator("#signals li[data-kind=device]")).to_have_count(2)
    shoot(desk, "web", "moderation-review-desktop")
    assert errors == []
    assert page.goto(f"{base}/desk/review/accounts").status == 404  # (a console error of its own, expected)


@pytest.mark.slow
def test_the_moderation_pages_pass_axe_at_both_sizes(live_site: LiveSite) -> None:
    """The blocks on a profile, the account page and the opening (its warning), a player's press with its block
    and report, the report form, the review of accounts and the queue with a report in it: no serious axe
    finding on a desktop or a phone, in light and dark (each page seeded and loaded once: every rule in light,
    the colour rules once it is dark, test_axe_pages' way), and no page wider than the phone."""
    from test_axe_pages import _in_both_schemes, _Traffic

    from dippouch.play import blocks
    from dippouch.play.moderation import report_person
    from dippouch.play.press import send_press
    from dippouch.play.seats import seat

    site, base = live_site, live_site.base
    now = site.now()
    ann = create_person(site.store, "Ann", now=now, email="ann@example.org")
    bob = create_person(site.store, "Bob", now=now, email="bob@example.org")
    store_games.create_game(site.store, "demo", "standard", now=now)
    for power, who in (("England", "ann"), ("France", "bob")):
        seat(site.store, "demo", power, who.title(), now=now, email=f"{who}@example.org")
    sent = send_press(site.store, "demo", "France", "Shall we?", to=["England"], now=now, via="web")
    from dippouch.play import openings as play_openings

    play_openings.create_from_template(
        site.store, bob, play_openings.TemplateChoices("standard-1d-full", name="lobby"), now=now
    )
    play_openings.sign_up(site.store, "lobby", bob, ["any"], now=now)
    blocks.block(site.store, ann, bob, now=now)
    report_person(site.store, ann, bob, "rude", now=now)
    found: list[str] = []
    for size in (DESKTOP, PHONE):
        phone = size is PHONE
        mine = site.person(ann, size).new_page()
        desk = site.key_page(site.coordinator_key, size)
        traffic = {id(mine): _Traffic(mine), id(desk): _Traffic(desk)}
        for page, path in (
            (mine, f"/people/{bob}"),
            (mine, "/me"),
            (mine, "/games/lobby/opening"),
            (mine, f"/games/demo/play/England/press/{sent.channel}"),
            (mine, f"/report?kind=person&person={bob}"),
            (desk, "/desk/review/accounts"),
            (desk, "/desk/review/reports"),
        ):
            assert page.goto(base + path).status == 200, path
            traffic[id(page)].settle()
            found += _in_both_schemes(page, f"{'phone' if phone else 'desktop'} {path}", phone)
            if phone:
                wide = wider_than_window(page)
                if wide > 0:
                    found.append(f"{path}: {wide} px wider than the phone")
        mine.emulate_media(color_scheme="dark")
        shoot(mine, "web", f"moderation-press-{'phone' if phone else 'desktop'}-dark")
        mine.context.close()
        desk.context.close()
    assert not found, "\n".join(found)
