"""A practice game against bots in one click from the home page, in Debian's Chromium at desktop (1366x768)
and phone (390x844) sizes: the visitor lands on their player page among bots that have sent their orders,
sends orders marked ready and sees the next phase. Screenshots are saved in the folder the test prints."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_web_browser import ARTIFACTS

from browsersupport import picture, served
from dbsupport import migrated_sqlite
from dippouch.bots.seats import bot_seats
from dippouch.store import status as store_status


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from dippouch.web.app import create_app

    db = tmp_path_factory.mktemp("practice") / "practice.db"
    app = create_app(migrated_sqlite(db))
    with served(app) as port:
        yield {"base": f"http://127.0.0.1:{port}", "web": app.state.web}


def _top(locator: Any) -> float:
    """Where an element's top edge is on the page (not the viewport): it changes only if the layout moves it."""
    return float(locator.evaluate("el => el.getBoundingClientRect().top + window.scrollY"))


@pytest.mark.parametrize(
    ("label", "size", "phone"),
    [("desktop", {"width": 1366, "height": 768}, False), ("phone", {"width": 390, "height": 844}, True)],
)
def test_a_practice_game_starts_in_one_click_from_the_home_page(
    server: dict[str, Any], chromium: Any, label: str, size: dict[str, int], phone: bool
) -> None:
    from playwright.sync_api import expect

    browser: Any = chromium  # the shared one (browsersupport); the test closes its context
    ctx = browser.new_context(viewport=size, device_scale_factor=1, is_mobile=phone, has_touch=phone)
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server["base"] + "/")
    form = page.locator("#practice")
    form.scroll_into_view_if_needed()
    picture(page, ARTIFACTS / f"practice-home-{label}.png", full_page=False)
    # The defaults (standard, heuristic bots, "when I'm ready") and France, then the one click.
    form.locator("select[name=power]").select_option("France")
    form.get_by_role("button", name="Start a practice game").click()
    page.wait_for_url("**/play/**")
    assert "/games/practice-" in page.url
    game, power = page.url.split("/")[4], page.url.split("/")[6]
    expect(page.locator("#flash")).to_contain_text(f"you play {power}")
    picture(page, ARTIFACTS / f"practice-play-{label}.png", full_page=False)
    # The link to keep is one long word: on a phone it wraps inside the box rather than running past it. Its
    # key is random and a '-' in it lets the line break there, so the key is measured without them.
    inside, box = page.locator("#flash").evaluate(
        "el => { el.textContent = el.textContent.replaceAll('-', 'x'); return [el.scrollWidth, el.clientWidth]; }"
    )
    assert inside <= box, f"the practice link runs {inside - box} px past its box"
    web = server["web"]
    assert len(bot_seats(web.store, game)) == 6
    st = store_status.status(web.store, game, now=web.now())
    assert sum(1 for p in st.powers if p.version is not None) == 6  # the bots have sent their orders
    assert power == "France"
    # Orders marked ready move the game on at once: the bots are always ready.
    # The Send button stays where it is while the line check's verdicts arrive (they come after it), so a
    # finger on a phone does not land on the verdict list; Send is pressed once every verdict is in.
    send = page.locator("#send")
    send.scroll_into_view_if_needed()
    before = _top(send)
    page.locator("textarea[name=orders]").fill("A par - bur\nA mar - spa\nF bre - mao")
    page.locator("input[name=ready]").check()
    expect(page.locator("#checks li.ok")).to_have_count(3)
    expect(page.locator("#checks li.bad")).to_have_count(0)
    assert _top(send) == before, "the verdicts moved the Send button"
    picture(page, ARTIFACTS / f"practice-verdicts-{label}.png", full_page=False)
    send.click()
    page.wait_for_url("**/play/France")
    # The flash, not the screen reader's copy of it (written into the status region after load).
    expect(page.locator("#flash")).to_contain_text("Spring 1901 Movement has been processed")
    assert store_status.status(web.store, game, now=web.now()).phase == "Fall 1901 Movement"
    picture(page, ARTIFACTS / f"practice-after-ready-{label}.png", full_page=False)
    assert errors == []
    ctx.close()
