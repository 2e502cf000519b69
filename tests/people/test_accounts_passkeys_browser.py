"""Passkeys end to end in Debian's Chromium (Playwright) with a virtual authenticator (the DevTools protocol's
WebAuthn domain): a signed-in person adds a passkey on /me, signs out, and signs in again with it; the same
answer replayed is refused (its challenge is spent)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from dippouch.store.people import create_person

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def _chromium() -> str:
    path = os.environ.get("DIPPOUCH_CHROMIUM") or shutil.which("chromium") or ""
    if not path:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("Chromium is not installed: CI must run the browser tests (source scripts/chromium)")
        pytest.skip("Debian's chromium is not installed (scripts/test installs it)")
    return path


@pytest.fixture
def server(tmp_path: Any) -> Iterator[dict[str, Any]]:
    import uvicorn

    from dippouch.web.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'passkeys.db'}", limits={})
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
    # localhost, not 127.0.0.1: a passkey's relying party is a domain name, never an address.
    yield {"base": f"http://localhost:{port}", "web": app.state.web}
    srv.should_exit = True
    thread.join(timeout=10)


def test_add_a_passkey_then_sign_in_with_it(server: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    web = server["web"]
    pid = create_person(web.store, "Ann", now=datetime.now(UTC), email="ann@example.org")
    token = web.access.start_session([], now=datetime.now(UTC), person_id=pid)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context()
        ctx.set_default_timeout(30_000)
        ctx.add_cookies([{"name": "dp_session", "value": token, "url": server["base"]}])
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        cdp = ctx.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                    "automaticPresenceSimulation": True,
                }
            },
        )
        page.goto(server["base"] + "/me")
        assert "Signed in as" in page.content()
        page.click("#passkey-add")
        page.wait_for_selector("#passkeys li")
        page.wait_for_load_state("load")  # the page the script went to, whole, before signing out from it
        # A connection closed at once: on SQLite every transaction takes the write lock at its start, and a
        # connection left to the garbage collector would keep the server's sign-out waiting for it.
        with web.access.store.engine.connect() as conn:
            assert len(conn.exec_driver_sql("select id from passkeys").all()) == 1
        page.click("header form button")  # sign out
        page.wait_for_url(server["base"] + "/")
        page.goto(server["base"] + "/signin")
        captured: list[Any] = []
        page.on(
            "request",
            lambda r: captured.append(r.post_data) if r.url.endswith("/api/signin/passkey") else None,
        )
        page.click("#passkey-signin")
        page.wait_for_url(server["base"] + "/me")
        assert "Ann" in page.content() and errors == []
        # The same signed answer sent again: its challenge was used.
        assert captured
        csrf = page.locator('meta[name="csrf"]').get_attribute("content")
        again = page.request.post(
            server["base"] + "/api/signin/passkey",
            data=captured[0],
            headers={"Content-Type": "application/json", "X-CSRF-Token": csrf or ""},
        )
        assert again.status == 400 and "used already" in again.json()["error"]
        browser.close()
