"""Open games end to end in Debian's Chromium against a real server: the coordinator opens a game, two people
sign up with their wishes, the game fills and draws their powers, one stops sending orders and falls into civil
disorder, and a third person claims the seat from the replacement pool and plays it. Screenshots of every
page are saved beside the web app's (test-artifacts/web/openings-*.png)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from browsersupport import LiveSite, shoot, watch_errors
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store.people.persons import create_person, seats_of

SIZE = {"width": 1200, "height": 900}


def _shoot(page: Any, name: str) -> None:
    shoot(page, "web", f"openings-{name}")


def _person(site: LiveSite, name: str) -> tuple[int, Any, list[str]]:
    """A person and a page signed in as them (the cookie the mailed sign-in link leaves behind)."""
    pid = create_person(site.store, name, now=datetime.now(UTC))
    page = site.person(pid, SIZE).new_page()
    return pid, page, watch_errors(page)


def _hold_everything(page: Any, base: str, power: str) -> None:
    """Send a hold for every unit of ``power`` through its orders page, as a player types them."""
    from playwright.sync_api import expect

    units = page.context.request.get(f"{base}/api/games/pool/powers/{power}").json()["units"]
    page.goto(f"{base}/games/pool/play/{power}")
    page.fill("#orders", "\n".join(f"{u['unit']} H" for u in units))
    expect(page.locator("#checks li.ok")).to_have_count(len(units))
    page.click("#send")
    assert (
        f"{len(units)} {'order' if len(units) == 1 else 'orders'} accepted, 0 rejected"
        in page.locator(".flash").inner_text()
    )


def _movement(web: Any) -> bool:
    return "movement" in (store_status.status(web.store, "pool", now=datetime.now(UTC)).kind or "")


def test_sign_up_fill_drop_and_replace_in_the_browser(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    site = live_site
    base, web = site.base, site.web
    deadlines = {"movement": "3d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(
        web.store, "pool", "hundred3", now=datetime.now(UTC), settings=GameSettings(deadlines=deadlines)
    )
    store_games.assign(
        web.store, "pool", "England", "Eve", now=datetime.now(UTC)
    )  # seated by the coordinator, with a key
    coord = site.key_page(site.coordinator_key, SIZE)
    coord.goto(f"{base}/games/pool/opening")
    coord.select_option("#opening-press select[name=kind]", "grey")  # the game's own press rules
    coord.select_option("select[name=mode]", "preferences")
    coord.click("text=Open for players")
    assert "pool is open for players" in coord.locator(".flash").inner_text()
    _shoot(coord, "desk-opened")

    ann, a, a_errors = _person(site, "Ann")
    bo, b, b_errors = _person(site, "Bo")
    a.goto(f"{base}/open")
    row = a.locator("#open-games tr", has_text="pool")
    expect(row).to_contain_text("Grey press: senders are not shown to readers until the game ends.")
    expect(row).to_contain_text("1 of 3 played · 0 signed up · 2 empty")  # seats apart from sign-ups
    _shoot(a, "list")
    row.get_by_role("link", name="pool").click()
    a.select_option("select[name=wish1]", "France")
    a.get_by_role("button", name="Sign up").click()
    expect(a.locator("#signed-up")).to_contain_text("wishes: France")
    _shoot(a, "signed-up")
    a.set_viewport_size({"width": 390, "height": 844})
    _shoot(a, "signed-up-phone")
    a.set_viewport_size({"width": 1200, "height": 900})
    coord.goto(f"{base}/games/pool/opening")
    expect(coord.locator("#signups")).to_contain_text("Ann")
    expect(coord.locator("#signups")).to_contain_text("no record")
    _shoot(coord, "desk-signups")

    b.goto(f"{base}/games/pool/opening")
    b.select_option("select[name=wish1]", "France")
    b.select_option("select[name=wish2]", "any")
    b.get_by_role("button", name="Sign up").click()
    # The sign-up that filled the game drew the powers: Ann's only wish, Bo's "any" after France.
    assert "you play Burgundy" in b.locator(".flash").inner_text()
    assert [s.power for s in seats_of(web.store, ann)] == ["France"]
    assert [s.power for s in seats_of(web.store, bo)] == ["Burgundy"]
    a.goto(f"{base}/open")
    expect(a.locator("#open-games")).to_have_count(0)

    # Ann plays; Bo never sends orders: two movement phases missed put Burgundy in civil disorder.
    movements = 0
    while movements < 2:
        if _movement(web):
            _hold_everything(a, base, "France")
            movements += 1
        store_processing.process(web.store, "pool", now=datetime.now(UTC), force=True)
        web.touched("pool")
    cy, c, c_errors = _person(site, "Cy")
    c.goto(f"{base}/open")
    wanted = c.locator("#replacements tr", has_text="Burgundy")
    expect(wanted).to_contain_text("civil disorder")
    _shoot(c, "replacement-wanted")
    c.set_viewport_size({"width": 390, "height": 844})
    _shoot(c, "replacement-wanted-phone")
    wanted.get_by_role("button", name="Claim Burgundy in pool").click()
    assert c.url.endswith("/games/pool/play/Burgundy")
    assert "You play Burgundy now" in c.locator(".flash").inner_text()
    while not _movement(web):
        store_processing.process(web.store, "pool", now=datetime.now(UTC), force=True)
        web.touched("pool")
    _hold_everything(c, base, "Burgundy")
    _shoot(c, "replacement-plays")
    assert [s.power for s in seats_of(web.store, cy)] == ["Burgundy"]
    assert seats_of(web.store, bo) == []
    assert b_errors == []
    # Bo's old link (his mail from before) leads to his games, saying the seat is Cy's now, not to a refusal.
    b.goto(f"{base}/games/pool/play/Burgundy")
    assert b.url.endswith("/me")
    assert "You do not play Burgundy in pool now" in b.locator(".flash").inner_text()
    history = {p: hist for p, _, hist in store_games.players(web.store, "pool")}["Burgundy"]
    assert [h[0] for h in history] == ["Bo", "Cy"]
    c.goto(f"{base}/people/{bo}")
    expect(c.locator("#reliability")).to_have_text("0%")
    _shoot(c, "person-dropped")
    assert a_errors == [] and c_errors == []
