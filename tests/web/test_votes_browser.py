"""The table's proposals in a real browser (Chromium through Playwright, a real server): seven players of a game
its players run (its creator plays France) and whose proposals pass by a majority; a pause proposed and refused,
an extension voted, a draw voted under the game's rule, each from the players' own pages (one of them at phone
size). Screenshots of the proposals at desktop and phone sizes in test-artifacts/votes/."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from browsersupport import ARTIFACTS, DESKTOP, PHONE, LiveSite, picture, shoot, watch_errors
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store import status as store_status
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime.now(UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _table(site: LiveSite) -> dict[str, Any]:
    """Game 'walk', majority rule, its creator seated as France; each power's page open (Italy's on a phone)."""
    store = site.store
    store_games.create_game(store, "walk", "standard", now=T0, settings=GameSettings(vote_rule="majority"))
    for power in POWERS:
        store_games.assign(store, "walk", power, f"{power} Player", now=T0)
    pid = create_person(store, "Creator", now=T0, email="creator@example.org")
    store_openings.open_game(store, "walk", now=T0, creator_id=pid)
    seat_person(store, "walk", "France", pid, now=T0)
    pages: dict[str, Any] = {}
    for power in POWERS:
        if power == "France":
            page = site.person(pid).new_page()
            page.goto(f"{site.base}/games/walk/play/France")
        else:
            page = site.player("walk", power, PHONE if power == "Italy" else DESKTOP)
        pages[power] = page
    return pages


def _shoot(page: Any, name: str) -> None:
    """The whole page, and the proposals part alone (where the eye goes)."""
    shoot(page, "votes", name)
    picture(page.locator("#proposals"), ARTIFACTS / "votes" / f"{name}-proposals.png")


def _axe(page: Any, phone: bool) -> list[str]:
    """axe's serious and critical findings in the proposals part (on a phone with WCAG 2.2's 24 px targets)."""
    from axe_playwright_python.sync_playwright import Axe

    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if phone:
        options["rules"] = {"target-size": {"enabled": True}}
    found = []
    for v in Axe().run(page, context="#proposals", options=options).response["violations"]:
        if v["impact"] in ("serious", "critical"):
            found += [f"{v['id']} at {' '.join(map(str, n['target']))}" for n in v["nodes"]]
    return found


def _propose(page: Any, kind: str, hours: str = "") -> None:
    page.locator("#propose summary").click()
    form = page.locator("#propose form")
    form.locator("select[name=kind]").select_option(kind)
    if hours:
        form.locator("input[name=hours]").fill(hours)
    form.get_by_role("button", name="Propose").click()
    page.wait_for_load_state()


def _vote(page: Any, proposal: int, yes: bool) -> None:
    page.reload()
    label = f"Vote {'yes' if yes else 'no'} on proposal {proposal}"
    page.get_by_role("button", name=label).click()
    page.wait_for_load_state()


def _draw(page: Any) -> None:
    page.reload()
    page.locator("#draw").get_by_role("button", name="Vote for a draw").click()
    page.wait_for_load_state()


@pytest.mark.slow
def test_seven_players_vote_a_pause_down_an_extension_through_and_a_draw_by_majority(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    pages = _table(live_site)
    errors: list[str] = []
    for page in pages.values():
        watch_errors(page, errors)
    france, italy = pages["France"], pages["Italy"]
    expect(france.locator("#proposals")).to_contain_text("more than half of the voting powers")
    # The creator's page offers the player-run game's own kinds too.
    expect(france.locator("select[name=kind] option[value=rollback]")).to_have_count(1)

    # A pause of 48 hours: four say no, and it is refused (a majority of seven can no longer be reached).
    _propose(france, "pause", "48")
    expect(france.locator("#proposal-1")).to_contain_text("open")
    for power in ("England", "Germany", "Russia", "Turkey"):
        _vote(pages[power], 1, False)
    italy.reload()
    expect(italy.locator("#proposal-1")).to_contain_text("refused")
    expect(italy.locator("#proposal-1")).to_contain_text("No: England, Germany, Russia, Turkey.")
    assert store_status.status(live_site.store, "walk", now=live_site.now()).state != "paused"
    _shoot(italy, "pause-refused-phone")

    # An extension of 24 hours: France, Italy, Austria and England say yes: passed, the deadline moved.
    before = store_status.status(live_site.store, "walk", now=live_site.now()).deadline
    _propose(france, "extend", "24")
    _vote(italy, 2, True)
    _vote(pages["Austria"], 2, True)
    _shoot(pages["Austria"], "extension-open-desktop")
    pages["Austria"].locator("#propose summary").click()  # the form open too
    assert _axe(pages["Austria"], phone=False) == []
    italy.emulate_media(color_scheme="dark")
    italy.reload()
    italy.locator("#propose summary").click()
    assert _axe(italy, phone=True) == []
    _shoot(italy, "extension-open-phone-dark")
    _vote(pages["England"], 2, True)
    expect(pages["England"].locator("#proposal-2")).to_contain_text("passed")
    after = store_status.status(live_site.store, "walk", now=live_site.now()).deadline
    assert before is not None and after is not None and (after - before).total_seconds() == 24 * 3600

    # A draw of every survivor under the majority rule, by the page's one draw control (its button proposes it,
    # the next ones are ballots on it, not listed again among the proposals): four yes end the game.
    _draw(pages["Germany"])
    italy.reload()
    expect(italy.locator("#draw")).to_contain_text("3 more yes votes needed")
    expect(italy.locator("#proposal-3")).to_have_count(0)
    expect(italy.locator("#draw button")).to_have_count(2)  # for, and against
    shoot(italy, "votes", "draw-open-phone")
    picture(italy.locator("#draw"), ARTIFACTS / "votes" / "draw-open-phone-box.png")
    for power in ("Russia", "Turkey", "Austria"):
        _draw(pages[power])
    st = store_status.status(live_site.store, "walk", now=live_site.now())
    assert st.state == "finished" and st.ending is not None and st.ending.kind == "draw"
    france.reload()
    italy.reload()
    # The game over, no phase is open: the page does not say France has no units while the map shows three.
    expect(france.locator("body")).not_to_contain_text("No units on the board")
    shoot(france, "votes", "draw-voted-desktop")
    shoot(italy, "votes", "draw-voted-phone")
    assert errors == []
