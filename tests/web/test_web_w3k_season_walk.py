"""A W3K season walked in a real browser by ten players and their coordinator.

The coordinator creates the game on /coordinate, seats all ten powers in one form and hands each link to
its own browser (desktops and phones). The players enter Summer 1642 the way people do: typed in the
rulebook's words, picked from the lists, clicked on the map, a proxy order for an ally's unit handed over,
Send clicked twice, and one player who comes back to a stale page after the phase was processed. The desk
processes Summer and Autumn 1642 and Winter 1643 (builds picked from the lists, a supply transfer) and the
game reaches Spring 1643. At each step what each player's page shows is the standing version in the store,
and the results report says what was ordered. (The variant begins in Summer 1642 and its first adjustments
are Winter 1643, as the rulebook has it.) Screenshots: test-artifacts/web/walk-*.png.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_browser import ARTIFACTS, PHONE, _context, _errors, browser, server
from test_web_entry_browser import DESKTOP, _box, _click_unit, _point_in, _tap

from browsersupport import picture
from dippouch.store import history as store_history

__all__ = ["browser", "server"]

GAME = "walk"
POWERS = [
    "Crown",
    "Cumberland",
    "Newcastle",
    "Manchester",
    "Protectorate",
    "Montrose",
    "Hamilton",
    "Argyll",
    "Ormond",
    "Irish Confederacy",
]
PHONES = {"Newcastle", "Montrose", "Hamilton", "Ormond", "Irish Confederacy"}


def _shot(page: Any, name: str, full: bool = True) -> None:
    picture(page, ARTIFACTS / f"walk-{name}.png", full_page=full)


def _shown(page: Any) -> list[str]:
    """The accepted orders the page shows under the box (the standing version's verdicts)."""
    return [c.strip() for c in page.locator("#checks li.ok code").all_inner_texts()]


def _send(page: Any, *, twice: bool = False) -> str:
    page.locator("#checks li").first.wait_for()
    if twice:
        page.dblclick("#send")
    else:
        page.click("#send")
    page.locator(".flash").wait_for()
    return str(page.locator(".flash").inner_text())


def _pick(page: Any, loc: str, text: str) -> None:
    page.locator("details.picks").evaluate("d => d.open = true")
    page.select_option(f"select[name='pick:{loc}']", text)


def _process(coord: Any, base: str, phase: str, *, first: bool = False, shot: str = "") -> None:
    """Process now from the desk (``shot``: the desk's screenshot before it): the confirmation page says what
    will happen, and only its button does it (checked the first time: the confirmation page is open, and
    nothing has happened; leaving it sends nothing, so it is not walked away from and back to)."""
    coord.goto(f"{base}/games/{GAME}/coordinate")
    if shot:
        _shot(coord, shot)
    coord.click("text=Process now")
    expect(coord.locator("main")).to_contain_text(phase)
    if first:
        assert _status(coord, base) == phase  # nothing happened before the second click
    coord.click("main >> text=Process now")
    assert f"Processed {phase}" in coord.locator(".flash").inner_text()


def _phase(page: Any) -> str:
    """The phase the player's page offers orders for (or says there is nothing to order in)."""
    return str(
        page.locator("aside.side-col .card h2").first.inner_text() + " " + page.locator(".game-head .sub").inner_text()
    )


def _status(page: Any, base: str) -> str:
    return str(page.request.get(f"{base}/api/games/{GAME}").json()["phase"])


def _report_orders(page: Any, base: str, power: str) -> str:
    """The lines of the game page's results report under ``power``."""
    page.goto(f"{base}/games/{GAME}")
    report: str = page.locator("pre.report").inner_text()
    return report


def _standing(server: dict[str, Any], phase: str, power: str) -> list[str]:
    """The accepted orders of the power's standing version in ``phase``, as the store keeps them."""
    rec = store_history.phase_record(server["web"].store, GAME, phase)
    subs = [s for s in rec["submissions"] if s["power"] == power and s.get("stands", True) and not s["late"]]
    assert subs, f"no standing version of {power} in {phase}"
    return [ln["order"] for ln in subs[-1]["lines"] if ln["order"] and not ln["error"]]


def _check_page_matches_store(server: dict[str, Any], pages: dict[str, Any], phase: str, powers: list[str]) -> None:
    """Each player's page, as the server drew it after their last send (or reload), shows exactly the orders of
    the power's standing version."""
    for power in powers:
        page = pages[power]
        assert phase in _phase(page), power
        assert sorted(_shown(page)) == sorted(_standing(server, phase, power)), power


@pytest.mark.slow
def test_a_w3k_season_walked_by_ten_players_and_their_coordinator(server: dict[str, Any], browser: Any) -> None:
    base = server["base"]
    store = server["web"].store

    # ------------------------------------------------------------------ the coordinator sets up the game
    coord = _context(browser, DESKTOP, workers="allow").new_page()  # a walk: the pages as people have them
    coord_errors = _errors(coord)
    coord.goto(f"{base}/k/{server['key']}")
    coord.fill("input[name=name]", GAME)
    coord.select_option("select[name=variant]", "w3k")
    coord.fill("input[name=movement]", "3d")
    coord.click("text=Create the game")
    assert coord.url.endswith(f"/games/{GAME}/coordinate"), coord.locator("main").inner_text()
    form = coord.locator("#seat-many")
    for i, power in enumerate(POWERS):
        form.locator(f"input[name='player:{power}']").fill(f"Player {i + 1}")
    _shot(coord, "desk-seat-many-desktop")
    form.locator("button", has_text="Seat these players").click()
    links = {p: coord.locator(f'input.secret[aria-label="{p}\'s link"]').input_value() for p in POWERS}
    assert all(re.fullmatch(rf"{re.escape(base)}/k/dp_[\w-]{{43}}", link) for link in links.values()), links
    _shot(coord, "desk-links-desktop")

    pages: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for power in POWERS:
        phone = power in PHONES
        page = _context(browser, PHONE if phone else DESKTOP, phone=phone, workers="allow").new_page()
        errors[power] = _errors(page)
        page.goto(links[power])
        assert page.url.endswith(f"/games/{GAME}/play/{power.replace(' ', '%20')}"), page.url
        assert "Summer 1642 Movement" in _phase(page)
        pages[power] = page

    # ------------------------------------------------------------------ Summer 1642
    crown = pages["Crown"]  # typed in the rulebook's words
    crown.fill("#orders", "Army Worcestershire moves to Staffordshire\nFleet Bristol holds")
    expect(crown.locator("#checks li.ok")).to_have_count(2)
    expect(crown.locator("#unordered")).to_be_visible()
    assert "Version 1 recorded" in _send(crown)

    cumberland = pages["Cumberland"]  # picked from the lists
    _pick(cumberland, "fur", "F fur - lan")
    _pick(cumberland, "den", "A den - che")
    assert _box(cumberland) == ["F fur - lan", "A den - che"]
    assert "Version 1 recorded" in _send(cumberland)

    newcastle = pages["Newcastle"]  # a phone: clicked on the map
    _click_unit(newcastle, "ntt", True)
    _tap(newcastle, _point_in(newcastle, "lin"), True)
    expect(newcastle.locator("#orders")).to_have_value("A ntt - lin")
    _shot(newcastle, "player-clicked-phone")
    assert "Version 1 recorded" in _send(newcastle)

    protectorate = pages["Protectorate"]  # hands Deptford's army over to Manchester
    protectorate.fill("#orders", "Army Deptford is under the orders of Manchester")
    _click_unit(protectorate, "enn", False)
    _tap(protectorate, _point_in(protectorate, "gwy"), False)
    expect(protectorate.locator("#orders")).to_have_value(re.compile("F enn - gwy"))
    assert "Version 1 recorded" in _send(protectorate)

    manchester = pages["Manchester"]  # orders its ally's army into London, and clicks Send twice
    manchester.fill("#orders", "Army Deptford moves to London\nA cam H")
    note = manchester.locator("#checks li.ok.noted .note")
    expect(note).to_have_count(1)
    assert "counts only if Protectorate hands the unit over to Manchester" in note.inner_text()
    _shot(manchester, "player-proxy-desktop")
    flash = _send(manchester, twice=True)
    assert "recorded" in flash, flash
    rec = store_history.phase_record(store, GAME, "Summer 1642 Movement")
    versions = [s for s in rec["submissions"] if s["power"] == "Manchester"]
    assert len(versions) == 1, [v["text"] for v in versions]

    montrose = pages["Montrose"]  # a phone: picks a hold
    _pick(montrose, "twd", "A twd H")
    assert "Version 1 recorded" in _send(montrose)
    _shot(montrose, "player-picked-phone")

    hamilton = pages["Hamilton"]
    _click_unit(hamilton, "elg", True)
    _tap(hamilton, _point_in(hamilton, "inv"), True)
    expect(hamilton.locator("#orders")).to_have_value("A elg - inv")
    assert "Version 1 recorded" in _send(hamilton)

    argyll = pages["Argyll"]
    _pick(argyll, "dry", "F dry - don")
    argyll.check("input[name=ready]")
    assert "recorded (ready)" in _send(argyll)

    ormond = pages["Ormond"]
    ormond.fill("#orders", "Army County Limerick moves to County Kerry")
    assert "Version 1 recorded" in _send(ormond)

    # The Irish Confederacy opened its page but sends nothing before the deadline.
    _check_page_matches_store(server, pages, "Summer 1642 Movement", [p for p in POWERS if p != "Irish Confederacy"])
    _shot(pages["Crown"], "player-sent-desktop")

    _process(coord, base, "Summer 1642 Movement", first=True, shot="desk-before-processing-desktop")
    report = _report_orders(coord, base, "Crown")
    for power, order in (
        ("Crown", "A Worcestershire - Staffordshire"),
        ("Crown", "F Bristol H"),
        ("Cumberland", "F Islands of Furness - Lancashire"),
        ("Cumberland", "A Denbighshire - Cheshire"),
        ("Newcastle", "A Nottinghamshire - Lincolnshire"),
        ("Manchester", "A Deptford - London"),
        ("Protectorate", "F Ennis - County Galway"),
        ("Protectorate", "A Deptford under orders of Manchester"),
        ("Montrose", "A Tweeddale H"),
        ("Hamilton", "A The Shire of Elgin - Inverness"),
        ("Argyll", "F Derry - County Donegal"),
        ("Ormond", "A County Limerick - County Kerry"),
        ("Irish Confederacy", "A Kilkenny H  (no order received)"),
    ):
        assert re.search(rf"^{re.escape(power)}: +{re.escape(order)}", report, re.M), (power, order, report)
    rec = store_history.phase_record(store, GAME, "Summer 1642 Movement")
    units = {(u["power"], u["unit"]) for u in rec["next_position"]["units"]}
    assert {("Crown", "A sta"), ("Protectorate", "A lon"), ("Ormond", "A ker"), ("Argyll", "F don")} <= units
    _shot(coord, "game-after-summer-desktop")

    # ------------------------------------------------------------------ the stale page
    irish = pages["Irish Confederacy"]  # still showing Summer: the send is refused, the text kept
    irish.fill("#orders", "A kkn - wex")
    irish.click("#send")
    refusal = irish.locator("#refusal")
    expect(refusal).to_be_visible()
    assert "Summer 1642" in refusal.inner_text()
    assert irish.locator("#orders").input_value().strip() == "A kkn - wex"
    _shot(irish, "player-stale-phone")
    irish.goto(links["Irish Confederacy"])
    assert "Autumn 1642 Movement" in _phase(irish)
    irish.fill("#orders", "Army Kilkenny moves to County Wexford")
    assert "Version 1 recorded" in _send(irish)

    # ------------------------------------------------------------------ Autumn 1642
    # A desktop comes back to the new phase (a phone did above, the Irish Confederacy's, and Cumberland's
    # stale phone page is reloaded into Autumn in test_season_walk_worker_browser.py).
    crown.reload()
    assert "Autumn 1642 Movement" in _phase(crown)
    crown.fill("#orders", "A sta H")
    assert "Version 1 recorded" in _send(crown)
    _check_page_matches_store(server, pages, "Autumn 1642 Movement", ["Crown", "Irish Confederacy"])
    _process(coord, base, "Autumn 1642 Movement")
    assert _status(coord, base) == "Winter 1643 Adjustments"
    report = _report_orders(coord, base, "Irish Confederacy")
    assert re.search(r"^Irish Confederacy: +A Kilkenny - County Wexford$", report, re.M), report
    assert re.search(r"^Crown: +A Staffordshire H$", report, re.M), report

    # ------------------------------------------------------------------ Winter 1643
    centres = store_history.phase_record(store, GAME, "Winter 1643 Adjustments")["position"]["supply_centers"]
    assert "sta" in centres["Crown"] and "lan" in centres["Cumberland"] and "che" in centres["Cumberland"]
    cumberland.reload()
    assert "Winter 1643 Adjustments" in _phase(cumberland)
    assert cumberland.locator("#adjust").inner_text().startswith("You may build 2 units this Winter")
    _pick(cumberland, "den", "Send 1 supply to Crown")
    _pick(cumberland, "fur", "Build F fur")
    _shot(cumberland, "player-winter-desktop")
    assert "Version 1 recorded" in _send(cumberland)
    crown.reload()
    _pick(crown, "wor", "Build A wor")
    assert "Version 1 recorded" in _send(crown)
    hamilton.reload()
    _pick(hamilton, "elg", "Build A elg")
    assert "Version 1 recorded" in _send(hamilton)
    _shot(hamilton, "player-winter-phone")
    _check_page_matches_store(server, pages, "Winter 1643 Adjustments", ["Cumberland", "Crown", "Hamilton"])
    # The supply sent and the build made use both of Cumberland's builds: nothing is said to be waived.
    expect(cumberland.locator("#unordered")).to_be_hidden()
    _process(coord, base, "Winter 1643 Adjustments")
    assert _status(coord, base) == "Spring 1643 Movement"
    rec = store_history.phase_record(store, GAME, "Winter 1643 Adjustments")
    units = {(u["power"], u["unit"]) for u in rec["next_position"]["units"]}
    assert {("Cumberland", "F fur"), ("Crown", "A wor"), ("Hamilton", "A elg")} <= units
    coord.goto(f"{base}/games/{GAME}")
    _shot(coord, "game-after-winter-desktop")
    # A phone reaches Spring 1643 (a desktop's page does in test_season_walk_worker_browser.py, Crown's).
    pages["Ormond"].reload()
    assert "Spring 1643 Movement" in _phase(pages["Ormond"])
    _shot(pages["Ormond"], "player-spring-1643-phone")
    assert coord_errors == [], coord_errors
    # The only console error: the browser's note of the refusal (400) answered to the stale page.
    errors["Irish Confederacy"].remove(
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    )
    assert {p: e for p, e in errors.items() if e} == {}
