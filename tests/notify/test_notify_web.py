"""The notifications page and its JSON API, from the person's side and the attacker's: only one's own
choices and targets, CSRF on every change, webhook addresses never shown nor exported, addresses inside the
network refused (server-side request forgery), oversized input refused with a message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from dippouch import notify, settings
from dippouch.game import GameError
from dippouch.notify.events import preferences
from dippouch.notify.safety import check_url
from dippouch.notify.targets import add_push, add_webhook
from dippouch.store import games as store_games
from dippouch.store import transfer as store_transfer
from dippouch.store.notify.stored import deliveries, targets
from dippouch.store.people.persons import create_person, seat_person
from notifysupport import ChatReceiver, PushService, start_chat, start_push
from websupport import Site

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


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


def signed_in(site: Site, name: str) -> tuple[TestClient, int]:
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set("dp_session", token)
    c.get("/")  # the session's CSRF token
    return c, pid


def test_a_person_chooses_on_the_page_and_the_choices_are_kept(site: Site) -> None:
    c, pid = signed_in(site, "Ann")
    page = c.get("/notifications")
    assert page.status_code == 200
    assert 'name="c:deadline:push" aria-label' in page.text
    assert 'href="/notifications"' in c.get("/me").text  # found from the person's own page
    assert 'src="/static/notify.js?v=' in page.text and "<script>" not in page.text  # no inline script (CSP)
    form = {f"c:{e}:email": "on" for e in notify.EVENTS} | {"deadline_hours": "30"}
    r = site.post_form(c, "/notifications/preferences", form)
    assert r.status_code == 303
    p = preferences(site.web.store, pid)
    assert p.deadline_hours == 30 and p.wants("message_received", "email") and not p.wants("deadline", "push")
    bad = site.post_form(c, "/notifications/preferences", {"deadline_hours": "soon"})
    assert bad.status_code == 400 and "whole number of hours" in bad.text


def test_changes_need_the_pages_csrf_token(site: Site) -> None:
    c, pid = signed_in(site, "Ann")
    r = c.post("/notifications/preferences", data={"deadline_hours": "5"}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    r = c.post("/api/notify/settings", json={"deadline_hours": 5})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = c.post(
        "/api/notify/settings",
        json={"deadline_hours": 5},
        headers={"X-CSRF-Token": site.csrf(c), "Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and "another site" in r.json()["error"]
    assert preferences(site.web.store, pid).deadline_hours == 12


def test_the_api_reads_and_changes_ones_own_choices(site: Site) -> None:
    c, _ = signed_in(site, "Ann")
    got = c.get("/api/notify/settings").json()
    assert [e["event"] for e in got["events"]] == list(notify.EVENTS)
    assert got["deadline_hours"] == 12 and len(got["vapid_public_key"]) == 87 and got["targets"] == []
    r = site.api(
        c,
        "/api/notify/settings",
        {"choices": [{"event": "deadline", "channel": "push", "enabled": False}], "deadline_hours": 3},
    )
    assert r.status_code == 200
    assert r.json()["deadline_hours"] == 3
    assert {e["event"]: e["channels"]["push"] for e in r.json()["events"]}["deadline"] is False
    r = site.api(c, "/api/notify/settings", {"choices": [{"event": "results", "channel": "push", "enabled": True}]})
    assert r.status_code == 400 and "no event 'results'; events: phase_processed" in r.json()["error"]


def test_nobody_but_a_signed_in_person_has_notifications(site: Site) -> None:
    visitor = site.browser()
    assert visitor.get("/notifications").status_code == 403
    assert "sign in" in visitor.get("/api/notify/settings").json()["error"]
    site.new_game("demo")
    player = site.player("demo", "France")  # a game's key: a seat, not a person
    assert player.get("/api/notify/settings").status_code == 403
    bearer = site.browser()
    r = bearer.get("/api/notify/settings", headers={"Authorization": f"Bearer {site.coordinator_key}"})
    assert r.status_code == 403


def test_another_persons_targets_can_be_neither_seen_nor_removed(
    site: Site, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    ann, ann_id = signed_in(site, "Ann")
    bo, _ = signed_in(site, "Bo")
    secret = f"{chat.base}/discord/123/very-secret-token"
    r = site.api(ann, "/api/notify/webhooks", {"kind": "discord", "url": secret, "label": "our room"})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert r.json()["where"] == "discord at 127.0.0.1" and "very-secret" not in r.text
    assert "very-secret" not in ann.get("/notifications").text  # not even its owner sees it again
    assert bo.get("/api/notify/settings").json()["targets"] == []
    assert "our room" not in bo.get("/notifications").text
    r = bo.delete(f"/api/notify/targets/{tid}", headers={"X-CSRF-Token": site.csrf(bo)})
    assert r.status_code == 400 and r.json()["error"] == f"you have no push subscription or webhook #{tid}"
    r = site.post_form(bo, f"/notifications/targets/{tid}/remove")
    assert r.status_code == 400
    assert [t.id for t in targets(site.web.store, ann_id)] == [tid]
    r = ann.delete(f"/api/notify/targets/{tid}", headers={"X-CSRF-Token": site.csrf(ann)})
    assert r.json() == {"removed": tid} and targets(site.web.store, ann_id) == []


def test_webhook_addresses_are_never_in_a_game_export(
    site: Site, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    store = site.web.store
    site.new_game("demo")
    _, pid = signed_in(site, "Ann")
    store_games.assign(store, "demo", "France", "Ann", now=site.clock())
    seat_person(store, "demo", "France", pid, now=site.clock())
    add_webhook(store, pid, "slack", url=f"{chat.base}/slack/secret-hook", now=site.clock())
    add_webhook(store, pid, "matrix", url=chat.base, room="!r:example.org", token="secret-token", now=site.clock())
    notify.enqueue(store, pid, "game_starting", key="1", now=site.clock(), facts={"game": "demo"})
    exported = json.dumps(store_transfer.export_game(store, "demo"))
    assert "secret-hook" not in exported and "secret-token" not in exported
    coordinator_file = site.coordinator.get("/api/games/demo/export")
    assert "secret" not in coordinator_file.text


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://hooks.example.org/x", "must start with https://"),
        ("https://127.0.0.1/hook", "private, local or reserved"),
        ("https://localhost:8080/hook", "private, local or reserved"),
        ("https://[::1]/hook", "private, local or reserved"),
        ("https://10.1.2.3/hook", "private, local or reserved"),
        ("https://192.168.0.10/hook", "private, local or reserved"),
        ("https://169.254.169.254/latest/meta-data", "private, local or reserved"),
        ("https://0.0.0.0/hook", "private, local or reserved"),
        ("https://user:pw@8.8.8.8/hook", "user name or password"),
        ("file:///etc/passwd", "must start with https://"),
        ("https://", "names no host"),
    ],
)
def test_addresses_inside_the_network_are_refused(url: str, why: str) -> None:
    with pytest.raises(GameError, match=why):
        check_url(url, "webhook address", private=False)


def test_the_api_refuses_an_internal_webhook_or_push_endpoint_by_default(site: Site) -> None:
    c, pid = signed_in(site, "Ann")
    r = site.api(c, "/api/notify/webhooks", {"kind": "slack", "url": "https://127.0.0.1:5432/x"})
    assert r.status_code == 400 and "private, local or reserved" in r.json()["error"]
    sub = {"endpoint": "https://localhost/push/1", "keys": {"p256dh": "A" * 87, "auth": "A" * 22}}
    r = site.api(c, "/api/notify/push", sub)
    assert r.status_code == 400 and "private, local or reserved" in r.json()["error"]
    assert targets(site.web.store, pid) == []


def test_a_target_made_internal_later_is_refused_when_delivering(
    site: Site, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    _, pid = signed_in(site, "Ann")
    store = site.web.store
    add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/x", now=site.clock())
    notify.enqueue(store, pid, "seat_offered", key="o", now=site.clock(), facts={"game": "demo"})
    monkeypatch.delenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE")
    settings.reread()  # read once per process: as a worker restarted without the setting would
    report = notify.deliver_due(store, site.clock())
    assert len(report.failed) == 1 and chat.received == []
    (hook,) = [d for d in deliveries(store) if d.channel == "webhook"]
    assert hook.status == "failed" and "must start with https://" in (hook.last_error or "")


def test_oversized_or_malformed_subscriptions_are_refused_with_a_message(
    site: Site, push: PushService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    c, pid = signed_in(site, "Ann")
    good = push.subscribe().as_browser_sends_it()
    r = site.api(c, "/api/notify/push", {**good, "endpoint": good["endpoint"] + "x" * 3000})
    assert r.status_code == 422
    r = site.api(c, "/api/notify/push", {**good, "keys": {"p256dh": "A" * 87, "auth": good["keys"]["auth"]}})
    assert r.status_code == 400 and "not a P-256 public key" in r.json()["error"]
    r = site.api(c, "/api/notify/push", {**good, "keys": {"p256dh": good["keys"]["p256dh"], "auth": "AAAA"}})
    assert r.status_code == 400 and "auth secret is 3 bytes" in r.json()["error"]
    r = site.api(c, "/api/notify/webhooks", {"kind": "discord", "url": "https://x.example/" + "a" * 5000})
    assert r.status_code == 422
    r = site.api(c, "/api/notify/webhooks", {"kind": "teams", "url": push.base})
    assert r.status_code == 400 and "no webhook kind 'teams'; choose discord, slack, matrix" in r.json()["error"]
    r = site.api(c, "/api/notify/webhooks", {"kind": "matrix", "url": push.base, "room": "general", "token": "t"})
    assert r.status_code == 400 and "room id looks like !abc123:example.org" in r.json()["error"]
    r = c.post(
        "/api/notify/push",
        content=b"{" + b" " * 3_000_000,
        headers={"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"},
    )
    assert r.status_code == 413
    assert targets(site.web.store, pid) == []
    r = site.api(c, "/api/notify/push", good)
    assert r.status_code == 200 and r.json()["channel"] == "push"
    assert site.api(c, "/api/notify/push", good).json()["id"] == r.json()["id"]  # the same browser again: one target
    for _ in range(19):
        add_push(site.web.store, pid, push.subscribe().as_browser_sends_it(), now=site.clock())
    r = site.api(c, "/api/notify/push", push.subscribe().as_browser_sends_it())
    assert r.status_code == 400 and "the most one person may keep" in r.json()["error"]


def test_the_service_worker_and_page_script_ship_in_the_package(site: Site) -> None:
    c = site.browser()
    sw = c.get("/sw.js")  # the site's one service worker shows the pushes (a second, push-only copy is gone)
    assert sw.status_code == 200 and "showNotification" in sw.text and "javascript" in sw.headers["content-type"]
    assert c.get("/static/notify-sw.js").status_code == 404
    page_js = c.get("/static/notify.js")
    assert "pushManager.subscribe" in page_js.text and "/api/notify/push" in page_js.text
    assert "http" not in page_js.text.replace("https://", "")  # nothing fetched from elsewhere
