"""The header's nav on a phone (390x844, Debian's Chromium): a signed-in person's links stay on
one line, with "Sign out" on the brand's line (it wrapped alone under the links), also for a person who holds
the installation's coordinator key (the longest nav). Screenshots go to test-artifacts/people/."""

from __future__ import annotations

from typing import Any

import pytest

from browsersupport import LiveSite, shoot
from dippouch.store.people.persons import create_person

PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


def _rows(page: Any, selector: str) -> list[float]:
    """The distinct tops of the elements ``selector`` finds (one value: they sit on one line)."""
    tops = page.eval_on_selector_all(selector, "els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    return sorted(set(tops))


@pytest.mark.parametrize("size", PHONES, ids=["390", "360"])
@pytest.mark.parametrize("coordinator", [False, True], ids=["person", "person-and-coordinator"])
def test_a_signed_in_persons_nav_stays_on_one_line_on_a_phone(
    live_site: LiveSite, size: dict[str, int], coordinator: bool
) -> None:
    site = live_site
    now = site.now()
    pid = create_person(site.store, "Ann", now=now, email="ann@example.org")
    keys = [site.web.access.create_key("coordinator", label="t", now=now)[0]] if coordinator else []
    token = site.web.access.start_session(keys, now=now, person_id=pid)
    tag = f"nav-{'coordinator' if coordinator else 'person'}-{size['width']}"
    ctx = site.context(size)
    ctx.add_cookies([{"name": "dp_session", "value": token, "url": site.base}])
    page = ctx.new_page()
    page.goto(site.base + "/me")
    shoot(page, "people", tag, full_page=False)
    texts = page.eval_on_selector_all("header nav > a", "els => els.map(e => e.textContent.trim())")
    assert "My games" in texts and ("Coordinate" in texts) == coordinator
    rows = _rows(page, "header nav > a")
    # A person's links fit on one line; a coordinator's longer nav may take two, each link whole.
    assert len(rows) == 1 or (coordinator and len(rows) == 2), f"the nav wraps on a {size['width']}px phone: {texts}"
    # Sign out sits on the brand's line, at the right, in full view (not wrapped below the links).
    out = page.locator("header button", has_text="Sign out").bounding_box()
    brand = page.locator("header .brand").bounding_box()
    links = page.locator("header nav").bounding_box()
    assert out is not None and brand is not None and links is not None
    assert out["y"] < links["y"] and abs((out["y"] + out["height"] / 2) - (brand["y"] + brand["height"] / 2)) < 6
    assert out["x"] > brand["x"] + brand["width"] and out["x"] + out["width"] <= size["width"]
    right = page.eval_on_selector_all("header nav > a", "els => els.map(e => e.getBoundingClientRect().right)")
    assert max(right) <= size["width"], f"a link is cut off on a {size['width']}px phone"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], f"the page is {width}px wide on a {size['width']}px screen"
    ctx.close()
