"""The Notifications page in a real browser (Debian's Chromium through Playwright, a real server): a
signed-in person changes a choice, adds a webhook (shown by its host only), and asks for push in this
browser: the packaged service worker is registered, and a push carrying what the queue sends (decrypted by
the test's push service from a real Web Push request) is shown by it as a notification. Desktop and phone
screenshots go to the artifacts folder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch import notify
from dippouch.notify.events import preferences, save_preferences
from dippouch.notify.targets import add_push
from dippouch.store.people.persons import create_person
from notifysupport import ChatReceiver, PushService, start_chat, start_push


@pytest.fixture
def site(live_site: LiveSite, monkeypatch: pytest.MonkeyPatch) -> LiveSite:
    """The site, allowed to post to the receivers on this machine."""
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    return live_site


@pytest.fixture
def chat() -> Iterator[ChatReceiver]:
    r = start_chat()
    yield r
    r.stop()


@pytest.fixture
def push() -> Iterator[PushService]:
    r = start_push()
    yield r
    r.stop()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_person_sets_up_notifications_in_the_browser(site: LiveSite, chat: ChatReceiver, size: str) -> None:
    from playwright.sync_api import expect

    base = site.base
    pid = create_person(site.web.store, "Ann", now=site.now(), email="ann@example.org")
    ctx = site.person(
        pid,
        PHONE if size == "phone" else DESKTOP,
        device_scale_factor=1,
        timezone_id="Europe/Paris",
        service_workers="allow",
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{base}/")
    page.get_by_role("link", name="My games").click()
    page.get_by_role("link", name="Notifications").click()
    expect(page.get_by_role("heading", name="Notifications")).to_be_visible()
    shoot(page, "web", f"notifications-{size}")

    page.get_by_label("A message (press) for you: E-mail").check()
    page.get_by_label("Remind me this many hours").fill("24")
    page.get_by_role("button", name="Save choices").click()
    expect(page.locator(".flash")).to_contain_text("choices are saved")
    p = preferences(site.web.store, pid)
    assert p.wants("message_received", "email") and p.deadline_hours == 24

    page.get_by_label("Service").select_option("slack")
    page.get_by_label("Webhook address").fill(f"{chat.base}/slack/T0/B0/secret-part")
    page.get_by_label("Name for it").fill("Our alliance")
    page.get_by_role("button", name="Add webhook").click()
    expect(page.locator(".notify-targets")).to_contain_text("Our alliance")
    assert "secret-part" not in page.content()
    shoot(page, "web", f"notifications-webhook-{size}")
    assert errors == []
    ctx.close()


def test_the_service_worker_registers_and_shows_what_the_queue_pushes(
    site: LiveSite, push: PushService, full_chromium: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Headless Chromium has no push service of its own (it would use Google's), so the subscription the
    button asks for is refused (headless Chromium denies push), and the page says so. The service worker it registered is real: it is
    handed (through the DevTools protocol) exactly the text our push service decrypted from a real Web Push
    request of the queue, and shows it. In the full browser: the headless shell the other browser tests use
    never shows a worker's notifications."""
    from playwright.sync_api import expect

    monkeypatch.setattr(site, "chromium", full_chromium)
    base = site.base
    store = site.web.store
    pid = create_person(store, "Ann", now=site.now())
    ctx = site.person(pid, DESKTOP, device_scale_factor=1, timezone_id="Europe/Paris", service_workers="allow")
    ctx.grant_permissions(["notifications"], origin=base)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    registrations: list[str] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(r["registrationId"] for r in e["registrations"] if not r.get("isDeleted")),
    )
    cdp.send("ServiceWorker.enable")
    page.goto(f"{base}/notifications")
    page.get_by_role("button", name="Get notifications in this browser").click()
    expect(page.locator("#notify-push-status")).to_contain_text("Not subscribed", timeout=30_000)
    # One worker for the whole site (/sw.js: push, the offline page, the static files), so its scope is the root.
    # `ready` waits for the worker to be active (installing takes a while on a loaded machine).
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.active && r.scope)")
    assert scope == f"{base}/"
    assert registrations

    # What the queue sends, as a push service receives and a browser decrypts it.
    save_preferences(store, pid, {(e, c): c == "push" for e in notify.EVENTS for c in notify.CHANNELS}, None)
    add_push(store, pid, push.subscribe().as_browser_sends_it(), now=site.now())
    notify.enqueue(store, pid, "seat_offered", key="o1", now=site.now(), facts={"game": "demo", "power": "France"})
    assert len(notify.deliver_due(store, site.now()).sent) == 1
    (got,) = push.received
    assert got.text is not None
    # page.evaluate awaits the promise (wait_for_function does not: a promise is already "truthy"), so the
    # page itself polls for the notification. On a loaded machine Chromium may drop a message handed
    # to a worker it is still waking, so the message is handed again every 10 s, for up to a minute,
    # and the same notification shown twice counts once.
    shown: list[list[str]] = []
    for _ in range(6):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": registrations[-1], "data": got.text},
        )
        shown = page.evaluate(
            """async () => {
                const reg = await navigator.serviceWorker.getRegistration('/');
                for (let i = 0; i < 100; i++) {
                    const ns = await reg.getNotifications();
                    if (ns.length) return ns.map(n => [n.title, n.body, n.data.url]);
                    await new Promise(done => setTimeout(done, 100));
                }
                return [];
            }"""
        )
        if shown:
            break
    assert {tuple(n) for n in shown} == {
        (
            "demo: a seat is offered to you",
            "France in demo needs a player. Open the link to take the seat.",
            "/games/demo",
        )
    }
    ctx.close()
