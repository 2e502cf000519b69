"""Sign up by a mailed link in Debian's Chromium, with the tests' real SMTP server: ask on /signin, the worker's
send delivers the mail, the link from it opened in the browser makes the account, and /me shows the seat added
from a player link. Screenshots at desktop and phone sizes go to test-artifacts/people/."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from accounts_support import smtp_settings

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.mail.outbox import send_due
from dippouch.store import games as store_games
from mailservers import SmtpServer

LINK = re.compile(r"http://localhost:\d+(/signin/link/dl_[A-Za-z0-9_-]+)")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_sign_up_by_a_mailed_link_in_the_browser(live_site: LiveSite, smtp: SmtpServer, size: dict[str, int]) -> None:
    site = live_site
    web = site.web
    now = datetime.now(UTC)
    store_games.create_game(web.store, "demo", "standard", now=now)
    store_games.assign(web.store, "demo", "France", "Ann", now=now)
    _, key = web.access.create_key("player", game="demo", power="France", now=now)
    tag = "desktop" if size["width"] > 500 else "phone"
    page = site.context(size, timezone_id="Europe/Paris").new_page()
    errors = watch_errors(page)
    page.goto(site.base + f"/k/{key}")  # a player's link first: the browser holds France by key
    page.goto(site.base + "/signin")
    shoot(page, "people", f"signin-{tag}")
    page.fill("input[name=email]", "ann@example.org")
    page.fill("#signin-mail input[name=name]", "Ann Lee")
    page.click("#signin-mail button")
    page.wait_for_selector("#signin-sent")
    shoot(page, "people", f"signin-sent-{tag}")
    report = send_due(web.store, datetime.now(UTC), smtp_settings(smtp))
    assert len(report.sent) == 1
    body = smtp.to("ann@example.org")[-1].get_body(preferencelist=("plain",))
    assert body is not None
    m = LINK.search(body.get_content())
    assert m, body.get_content()
    page.goto(site.base + m.group(1))
    shoot(page, "people", f"signin-link-{tag}")
    assert page.input_value("input[name=name]") == "Ann Lee"
    page.click("#signin-link-use")
    page.wait_for_url(site.base + "/me")
    page.click("text=Add this seat to my account")
    page.wait_for_selector("tr[data-power=France]")
    text = page.inner_text("tr[data-power=France]")
    assert "missing" in text and "UTC" not in text  # the deadline in the browser's own zone
    shoot(page, "people", f"me-{tag}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"] + 1, f"/me is {width}px wide on a {size['width']}px screen"
    assert errors == []
