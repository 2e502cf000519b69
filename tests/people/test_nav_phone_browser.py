"""The header's nav on a phone (390x844, Debian's Chromium): a signed-in person's links stay on
one line, with "Sign out" on the brand's line (it wrapped alone under the links), also for a person who holds
the installation's coordinator key (the longest nav). Screenshots go to test-artifacts/people/."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_accounts_passkeys_browser import CHROMIUM_ARGS, _chromium

from dippouch.store.people import create_person

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts")) / "people"
PHONES: list[ViewportSize] = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


@pytest.fixture
def server(tmp_path: Any) -> Iterator[dict[str, Any]]:
    import uvicorn

    from dippouch.web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'nav.db'}", limits={})
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
    yield {"base": f"http://localhost:{port}", "web": app.state.web, "port": port}
    srv.should_exit = True
    thread.join(timeout=10)


def _rows(page: Any, selector: str) -> list[float]:
    """The distinct tops of the elements ``selector`` finds (one value: they sit on one line)."""
    tops = page.eval_on_selector_all(selector, "els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    return sorted(set(tops))


@pytest.mark.parametrize("size", PHONES, ids=["390", "360"])
@pytest.mark.parametrize("coordinator", [False, True], ids=["person", "person-and-coordinator"])
def test_a_signed_in_persons_nav_stays_on_one_line_on_a_phone(
    server: dict[str, Any], size: ViewportSize, coordinator: bool
) -> None:
    from playwright.sync_api import sync_playwright

    web = server["web"]
    now = datetime.now(UTC)
    pid = create_person(web.store, "Ann", now=now, email="ann@example.org")
    keys = [web.access.create_key("coordinator", label="t", now=now)[0]] if coordinator else []
    token = web.access.start_session(keys, now=now, person_id=pid)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tag = f"nav-{'coordinator' if coordinator else 'person'}-{size['width']}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context(viewport=size, locale="en-GB")
        ctx.add_cookies([{"name": "dp_session", "value": token, "url": server["base"]}])
        page = ctx.new_page()
        page.goto(server["base"] + "/me")
        page.screenshot(path=str(ARTIFACTS / f"{tag}.png"))
        texts = page.eval_on_selector_all("header nav > a", "els => els.map(e => e.textContent.trim())")
        assert "My games" in texts and ("Coordinate" in texts) == coordinator
        rows = _rows(page, "header nav > a")
        # A person's links fit on one line; a coordinator's longer nav may take two, each link whole.
        assert len(rows) == 1 or (coordinator and len(rows) == 2), (
            f"the nav wraps on a {size['width']}px phone: {texts}"
        )
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
        browser.close()
