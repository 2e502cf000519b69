"""Passkeys end to end in Debian's Chromium (Playwright) with a virtual authenticator (the DevTools protocol's
WebAuthn domain): a signed-in person adds a passkey on /me, signs out, and signs in again with it; the same
answer replayed is refused (its challenge is spent)."""

from __future__ import annotations

from typing import Any

from browsersupport import LiveSite
from dippouch.store.people.persons import create_person


def test_add_a_passkey_then_sign_in_with_it(live_site: LiveSite) -> None:
    site = live_site
    web = site.web
    pid = create_person(web.store, "Ann", now=site.now(), email="ann@example.org")
    ctx = site.person(pid)
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
    page.goto(site.base + "/me")
    assert "Signed in as" in page.content()
    page.click("#passkey-add")
    page.wait_for_selector("#passkeys li")
    page.wait_for_load_state("load")  # the page the script went to, whole, before signing out from it
    # A connection closed at once: on SQLite every transaction takes the write lock at its start, and a
    # connection left to the garbage collector would keep the server's sign-out waiting for it.
    with web.access.store.engine.connect() as conn:
        assert len(conn.exec_driver_sql("select id from passkeys").all()) == 1
    page.click("header form button")  # sign out
    page.wait_for_url(site.base + "/")
    page.goto(site.base + "/signin")
    captured: list[Any] = []
    page.on(
        "request",
        lambda r: captured.append(r.post_data) if r.url.endswith("/api/signin/passkey") else None,
    )
    page.click("#passkey-signin")
    page.wait_for_url(site.base + "/me")
    assert "Ann" in page.content() and errors == []
    # The same signed answer sent again: its challenge was used.
    assert captured
    csrf = page.locator('meta[name="csrf"]').get_attribute("content")
    again = page.request.post(
        site.base + "/api/signin/passkey",
        data=captured[0],
        headers={"Content-Type": "application/json", "X-CSRF-Token": csrf or ""},
    )
    assert again.status == 400 and "used already" in again.json()["error"]
