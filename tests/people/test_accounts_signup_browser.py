"""Sign up by a mailed link in Debian's Chromium, with the tests' real SMTP server: ask on /signin, the worker's
send delivers the mail, the link from it opened in the browser makes the account, and /me shows the seat added
from a player link. Screenshots at desktop and phone sizes go to test-artifacts/people/."""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from accounts_support import smtp_settings
from test_accounts_passkeys_browser import CHROMIUM_ARGS, _chromium

from dippouch.mail.outbox import send_due
from mailservers import SmtpServer

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts")) / "people"
DESKTOP: ViewportSize = {"width": 1366, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
LINK = re.compile(r"http://localhost:\d+(/signin/link/dl_[A-Za-z0-9_-]+)")


@pytest.fixture
def server(tmp_path: Any) -> Iterator[dict[str, Any]]:
    import uvicorn

    from dippouch.web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'signup.db'}", limits={})
    web = app.state.web
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield {"base": f"http://localhost:{port}", "web": web}
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_sign_up_by_a_mailed_link_in_the_browser(server: dict[str, Any], smtp: SmtpServer, size: ViewportSize) -> None:
    from playwright.sync_api import sync_playwright

    web = server["web"]
    now = datetime.now(UTC)
    web.store.create_game("demo", "standard", now=now)
    web.store.assign("demo", "France", "Ann", now=now)
    _, key = web.access.create_key("player", game="demo", power="France", now=now)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tag = "desktop" if size["width"] > 500 else "phone"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context(viewport=size, timezone_id="Europe/Paris", locale="en-GB")
        ctx.set_default_timeout(30_000)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(server["base"] + f"/k/{key}")  # a player's link first: the browser holds France by key
        page.goto(server["base"] + "/signin")
        page.screenshot(path=str(ARTIFACTS / f"signin-{tag}.png"), full_page=True)
        page.fill("input[name=email]", "ann@example.org")
        page.fill("#signin-mail input[name=name]", "Ann Lee")
        page.click("#signin-mail button")
        page.wait_for_selector("#signin-sent")
        page.screenshot(path=str(ARTIFACTS / f"signin-sent-{tag}.png"), full_page=True)
        report = send_due(web.store, datetime.now(UTC), smtp_settings(smtp))
        assert len(report.sent) == 1
        body = smtp.to("ann@example.org")[-1].get_body(preferencelist=("plain",))
        assert body is not None
        m = LINK.search(body.get_content())
        assert m, body.get_content()
        page.goto(server["base"] + m.group(1))
        page.screenshot(path=str(ARTIFACTS / f"signin-link-{tag}.png"), full_page=True)
        assert page.input_value("input[name=name]") == "Ann Lee"
        page.click("#signin-link-use")
        page.wait_for_url(server["base"] + "/me")
        page.click("text=Add this seat to my account")
        page.wait_for_selector("tr[data-power=France]")
        text = page.inner_text("tr[data-power=France]")
        assert "missing" in text and "UTC" not in text  # the deadline in the browser's own zone
        page.screenshot(path=str(ARTIFACTS / f"me-{tag}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"] + 1, f"/me is {width}px wide on a {size['width']}px screen"
        assert errors == []
        browser.close()
