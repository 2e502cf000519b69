"""The results report on a phone and a desktop (issue 41, the audit's defect 6): the plain-text report keeps the
Judge's columns, one line a line (it wrapped inside its 360 px card: the "=====" rule broke in two and the
orders' columns fell under each other), and it is a named region a keyboard reaches and scrolls sideways."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, is_phone, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

T0 = datetime.now(UTC)

LINES = """r => { const s = getComputedStyle(r), lh = parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.2;
  const lines = r.textContent.replace(/\\n$/, '').split('\\n').length;
  const drawn = r.scrollHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
  return [lines, Math.round(drawn / lh)]; }"""
"""(lines of text, lines drawn) of a report: equal when no line wraps."""


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_report_keeps_its_columns_and_scrolls_by_keyboard(live_site: LiveSite, size: dict[str, int]) -> None:
    store = live_site.store
    store_games.create_game(store, "classic", "standard", now=T0)
    for power in ("England", "France", "Germany"):
        store_games.assign(store, "classic", power, f"{power} Player", now=T0)
    store_submissions.submit(
        store,
        "classic",
        "France",
        "A Paris - Burgundy\nF Brest - Mid-Atlantic Ocean\nA Marseilles S A Paris - Burgundy",
        now=T0,
    )
    store_submissions.submit(store, "classic", "Germany", "A Munich - Burgundy\nF Kiel - Denmark", now=T0)
    store_processing.process(store, "classic", now=T0, force=True)
    page = live_site.context(size).new_page()
    errors = watch_errors(page)
    page.goto(f"{live_site.base}/games/classic")
    report = page.get_by_role("region", name="Results report")
    assert report.count() == 1
    lines, drawn = report.evaluate(LINES)
    assert lines >= 10 and drawn == lines, f"{lines} lines of report drawn as {drawn}"
    report.focus()
    assert report.evaluate("r => r === document.activeElement")
    if is_phone(size):
        assert report.evaluate("r => r.scrollWidth > r.clientWidth"), "the report's columns fit a phone?"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(300)
        assert report.evaluate("r => r.scrollLeft") > 0, "the arrow keys do not scroll the report"
    report.scroll_into_view_if_needed()
    shoot(page, "web", f"report-{'phone' if is_phone(size) else 'desktop'}", full_page=False)
    assert errors == [], errors
