"""Dark mode in Debian's Chromium (issue 41): the system's preference turns the site dark through app.css's colour
variables; the footer's choice overrides it either way and is kept in the browser across pages; the map keeps
its own board colours in both; and the colours chosen in the page (not only by the system) pass axe's contrast
and link rules."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games

LIGHT_BG = "rgb(244, 241, 234)"  # app.css --bg


def _colours(page: Any) -> dict[str, str]:
    return dict(
        page.evaluate(
            """() => {
              const b = getComputedStyle(document.body), c = document.querySelector('.card');
              return {bg: b.backgroundColor, ink: b.color, scheme: getComputedStyle(document.documentElement).colorScheme,
                      card: c ? getComputedStyle(c).backgroundColor : ''};
            }"""
        )
    )


def _sea(page: Any) -> list[str]:
    """The fills of the map's first provinces, as drawn: the board's own colours (the page draws its provinces
    over the board's file, each a ``<use>`` of its shape with the phase's colour)."""
    page.locator(".map svg .region").first.wait_for()
    return list(
        page.eval_on_selector_all(".map svg .region", "ps => ps.slice(0, 40).map(p => getComputedStyle(p).fill)")
    )


@pytest.fixture
def game(live_site: LiveSite) -> LiveSite:
    store_games.create_game(live_site.store, "dusk", "standard", now=live_site.now())
    return live_site


@pytest.mark.slow
def test_the_systems_dark_preference_darkens_the_site_and_the_map_keeps_its_board(game: LiveSite) -> None:
    seen: dict[str, dict[str, str]] = {}
    seas: dict[str, list[str]] = {}
    for scheme in ("light", "dark"):
        ctx = game.context(DESKTOP, color_scheme=scheme)
        page = ctx.new_page()
        errors = watch_errors(page)
        page.goto(f"{game.base}/games/dusk")
        seen[scheme] = _colours(page)
        seas[scheme] = _sea(page)
        shoot(page, "web", f"dark-mode-game-{scheme}", full_page=False)
        assert not errors
        ctx.close()
    assert seen["light"]["bg"] == LIGHT_BG and seen["light"]["scheme"] == "light"
    assert seen["dark"]["scheme"] == "dark"
    for part in ("bg", "ink", "card"):
        assert seen["light"][part] != seen["dark"][part], part
    assert _luminance(seen["dark"]["bg"]) < 0.05 < 0.6 < _luminance(seen["dark"]["ink"])
    # The board is drawn in its own colours (sea, land, names with their white haloes), the same in both.
    assert seas["light"] == seas["dark"] and len(seas["dark"]) == 40


@pytest.mark.slow
def test_the_footer_choice_overrides_the_system_and_is_kept_across_pages(game: LiveSite) -> None:
    from playwright.sync_api import expect

    ctx = game.context(PHONE, color_scheme="dark")
    page = ctx.new_page()
    page.goto(f"{game.base}/games/dusk")
    choice = page.locator("#theme-choice")
    expect(choice).to_have_text("Colours: automatic")
    assert _colours(page)["scheme"] == "dark"
    box = choice.bounding_box()
    assert box is not None and box["height"] >= 24  # a phone's target
    choice.click()
    expect(choice).to_have_text("Colours: dark")
    choice.click()
    expect(choice).to_have_text("Colours: light")
    assert _colours(page)["bg"] == LIGHT_BG  # light, though the system asks for dark
    page.goto(f"{game.base}/variants")  # another page: the choice was kept, and applied before drawing
    expect(page.locator("#theme-choice")).to_have_text("Colours: light")
    assert _colours(page)["bg"] == LIGHT_BG and page.evaluate("document.documentElement.dataset.theme") == "light"
    page.locator("#theme-choice").click()
    expect(page.locator("#theme-choice")).to_have_text("Colours: automatic")
    assert _colours(page)["scheme"] == "dark"  # back to the system's
    ctx.close()


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_dark_chosen_on_a_light_system_passes_axe(game: LiveSite, size: dict[str, int]) -> None:
    from axe_playwright_python.sync_playwright import Axe

    ctx = game.context(size, color_scheme="light")
    page = ctx.new_page()
    page.goto(f"{game.base}/")
    page.evaluate("localStorage.setItem('dippouch-colours', 'dark')")
    problems = []
    for address in ("/", "/games/dusk", "/variants/standard", "/signin"):
        page.goto(game.base + address)
        assert _colours(page)["scheme"] == "dark", address
        for v in Axe().run(page).response["violations"]:
            if v["impact"] in ("serious", "critical"):
                problems += [f"{address}: {v['id']} at {n['target']}" for n in v["nodes"]]
    assert not problems, "\n".join(problems)
    ctx.close()


def _luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed ``rgb(r, g, b)`` colour."""
    parts = [int(x) / 255 for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in parts]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
