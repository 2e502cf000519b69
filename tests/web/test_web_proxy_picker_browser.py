"""Proxy orders picked, not only typed (W3K): once a unit's owner has handed it to an ally, the ally's page
offers the unit in its pick lists (and to click entry, which reads the same lists) with the orders its owner
could give it, and the order picked is the one the store records."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from test_web_browser import ARTIFACTS, browser, server
from test_web_entry_browser import DESKTOP, _game, _open, _pick, _sent_exactly

from browsersupport import picture
from dippouch.store import submissions as store_submissions

__all__ = ["browser", "server"]


@pytest.mark.slow
def test_a_unit_handed_over_is_offered_in_the_allys_pick_list_and_the_picked_order_is_stored(
    server: dict[str, Any], browser: Any
) -> None:
    from playwright.sync_api import expect

    game, secret = _game(server, "w3k", "Manchester")
    page = _open(browser, server, secret, DESKTOP, False)
    # Before the Protectorate hands Deptford's army over, Manchester has no list for it.
    expect(page.locator("select[name='pick:cam']")).to_have_count(1)
    expect(page.locator("select[name='pick:dep']")).to_have_count(0)

    store_submissions.submit(
        server["web"].store,
        game,
        "Protectorate",
        "Army Deptford is under the orders of Manchester",
        now=datetime.now(UTC),
        source="web",
    )
    page.reload()
    page.locator("details.picks").evaluate("d => d.open = true")
    label = page.locator("label.pick", has=page.locator("select[name='pick:dep']"))
    expect(label).to_contain_text("Army Deptford (Protectorate's, handed to Manchester this season)")
    _pick(page, "dep", "A dep - lon")
    _pick(page, "cam", "A cam H")
    note = page.locator("#checks li.ok.noted .note")
    expect(note).to_have_count(1)
    assert "counts only if Protectorate hands the unit over to Manchester" in note.inner_text()
    picture(page, ARTIFACTS / "proxy-picked-desktop.png", full_page=True)
    _sent_exactly(page, server, game, "Manchester", ["A dep - lon", "A cam H"])
