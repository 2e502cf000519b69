"""axe-core (the copy axe-playwright-python ships, injected by Playwright into Debian's Chromium) over every kind of
page the site serves, at desktop and phone sizes, in light and dark colour schemes: no serious or critical
violation anywhere. Issue 41 found two serious rules failing on every page (muted grey text at 4.47:1 and links
told apart by colour only) and a few more on some; this is the check that keeps them fixed, for pages added
later too (add a page kind to ``_pages``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import dippouch.store.press as press
from browsersupport import ARTIFACTS, DESKTOP, PHONE, LiveSite, is_phone
from dippouch.game import Settings
from dippouch.store.openings import open_game
from dippouch.store.people import create_person

T0 = datetime.now(UTC)
GRAVE = ("serious", "critical")


def _seed(site: LiveSite) -> dict[str, str]:
    """A played standard game with orders, press and a finished phase; a W3K game; an open game; a person.
    Answers the addresses that need what was made (a phase's id)."""
    store = site.store
    store.create_game("classic", "standard", now=T0, settings=Settings(deadlines={"movement": "3d"}))
    for power in ("England", "France", "Germany"):
        store.assign("classic", power, f"{power} Player", now=T0)
    store.submit("classic", "France", "A Paris - Burgundy\nF Brest - Mid-Atlantic Ocean", now=T0)
    store.submit("classic", "Germany", "A Munich - Burgundy", now=T0)
    store.process("classic", now=T0, force=True)
    store.submit("classic", "France", "A Marseilles - Spain", now=T0)
    talk = press.send(store, "classic", "France", ["England"], "Keep the Channel empty?", now=T0)
    press.send(
        store,
        "classic",
        "England",
        ["England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"],
        "A public word to all.",
        now=T0,
    )
    press.announce(store, "classic", "The deadline holds.", now=T0)
    store.create_game("three-kingdoms", "w3k", now=T0)
    store.create_game("autumn-open", "standard", now=T0)
    open_game(store, "autumn-open", now=T0, press="Full press")
    return {"CHANNEL": f"/games/classic/play/France/press/{talk.channel_id}"}


def _pages(site: LiveSite, person: int) -> list[tuple[str, str]]:
    """(who, address) of each page kind; who is anyone, the coordinator, France's player or the person."""
    return [
        ("anyone", "/"),
        ("anyone", "/variants"),
        ("anyone", "/variants/standard"),
        ("anyone", "/variants/w3k"),
        ("anyone", "/variants/standard/moves?q=bur"),
        ("anyone", "/signin"),
        ("anyone", "/open"),
        ("anyone", "/games/autumn-open/opening"),
        ("anyone", "/games/classic"),
        ("anyone", "/games/three-kingdoms"),
        ("anyone", "PHASE"),
        ("anyone", "/games/classic/press"),
        ("anyone", f"/people/{person}"),
        ("anyone", "/api/docs"),
        ("anyone", "/games/no-such-game"),
        ("France", "/games/classic/play/France"),
        ("France", "CHANNEL"),
        ("person", "/me"),
        ("person", "/notifications"),
        ("coordinator", "/coordinate"),
        ("coordinator", "/games/classic/coordinate"),
        ("coordinator", "/games/classic/coordinate/press"),
        ("coordinator", "/games/classic/roster"),
        ("coordinator", "/coordinate/outbox"),
        ("coordinator", "/roster"),
    ]


def _violations(page: Any, where: str, phone: bool) -> list[str]:
    """axe's serious and critical findings on ``page``; on a phone also WCAG 2.2's target size (24 px, or 24 px
    apart), a rule axe leaves off unless asked."""
    from axe_playwright_python.sync_playwright import Axe

    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if phone:
        options["rules"] = {"target-size": {"enabled": True}}
    found = []
    for v in Axe().run(page, options=options).response["violations"]:
        if v["impact"] in GRAVE:
            for node in v["nodes"]:
                target = " ".join(str(t) for t in node["target"])
                found.append(f"{where}: {v['id']} ({v['impact']}) at {target}: {node['failureSummary'][:200]}")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_axe_violation_on_any_page_kind(live_site: LiveSite, size: dict[str, int], scheme: str) -> None:
    site = live_site
    made = _seed(site)
    person = create_person(site.store, "Françoise Dupont", now=T0, email="f@example.org")
    pages = {
        "anyone": site.context(size, color_scheme=scheme).new_page(),
        "coordinator": site.key_page(site.coordinator_key, size, color_scheme=scheme),
        "France": site.key_page(site.player_key("classic", "France"), size, color_scheme=scheme),
        "person": site.person(person, size, color_scheme=scheme).new_page(),
    }
    found: list[str] = []
    seen = 0
    try:
        seen = _visit_all(site, pages, person, made, found)
    finally:  # a player's page keeps its press stream open: closed here, before the server stops
        for page in pages.values():
            page.context.close()
    report = ARTIFACTS / "axe" / f"{'phone' if is_phone(size) else 'desktop'}-{scheme}.txt"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(found) + "\n", encoding="utf-8")
    assert seen == len(_pages(site, person))
    assert not found, f"{len(found)} serious or critical axe violations (also in {report}):\n" + "\n".join(found)


def _visit_all(site: LiveSite, pages: dict[str, Any], person: int, made: dict[str, str], found: list[str]) -> int:
    """axe on each page kind, its grave violations added to ``found``; answers how many pages were checked."""
    seen = 0
    for who, address in _pages(site, person):
        page = pages[who]
        if address == "PHASE":
            page.goto(f"{site.base}/games/classic")
            address = str(page.locator("ol.history a").first.get_attribute("href"))
        address = made.get(address, address)
        answer = page.goto(site.base + address)
        assert answer is not None and answer.status in (200, 404), f"{address} answered {answer and answer.status}"
        page.wait_for_load_state("networkidle")
        found.extend(_violations(page, f"{who} {address}", is_phone(page.viewport_size)))
        seen += 1
    return seen


MAIN_CONTROLS = {
    "header nav a": "the header's links",
    "header .account a, header .account button": "Sign in / Sign out",
    ".map-tools button": "the map's buttons",
    "ol.history a": "the history's phase links",
}


@pytest.mark.slow
def test_the_main_controls_are_44_px_on_a_phone(live_site: LiveSite) -> None:
    """The controls used on every visit, measured on a phone: at least 44 px high (WCAG 2.5.5's size; the map's
    buttons as wide too). They were 18-23 px high (issue 41)."""
    site = live_site
    _seed(site)
    ctx = site.context(PHONE)
    page = ctx.new_page()
    page.goto(f"{site.base}/k/{site.player_key('classic', 'France')}")
    small = []
    for address in ("/games/classic", "/games/classic/play/France"):
        page.goto(site.base + address)
        page.wait_for_load_state("networkidle")
        for selector, what in MAIN_CONTROLS.items():
            boxes = page.eval_on_selector_all(
                selector,
                "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim(), e.getBoundingClientRect().width,"
                " e.getBoundingClientRect().height])",
            )
            assert boxes or (selector == "ol.history a" and address.endswith("France")), f"{what} not on {address}"
            for text, width, height in boxes:
                wide_enough = width >= 44 or not selector.startswith(".map-tools")
                if height < 44 or not wide_enough:
                    small.append(f"{address}: {what} {text!r} is {width:.0f}x{height:.0f}")
    ctx.close()
    assert not small, "\n".join(small)
