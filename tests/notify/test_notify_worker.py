"""Notifications delivered by the real commands: ``dippouch worker`` finds a game starting and delivers by
every channel (the chat webhook, the push service, e-mail through the outbox to the SMTP server) in one
look; two ``dippouch notify`` processes draining one queue at once deliver each notification once."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dippouch import notify
from dippouch.game import GameSettings
from dippouch.notify.events import save_preferences
from dippouch.notify.targets import add_push, add_webhook
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.notify.stored import deliveries
from dippouch.store.people.persons import create_person, seat_person
from mailservers import SmtpServer
from notifysupport import ChatReceiver, PushService, start_chat, start_push
from workersupport import dippouch_command


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


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DIPPOUCH_SMTP", "DIPPOUCH_IMAP", "DIPPOUCH_MAIL"))}
    return {**env, "DIPPOUCH_NOTIFY_ALLOW_PRIVATE": "1", **extra}


def test_the_worker_finds_a_game_starting_and_delivers_by_every_channel(
    db_url: str, chat: ChatReceiver, push: PushService, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    store = GameStore(db_url)
    now = store.clock()
    ann = create_person(store, "Ann", now=now, email="ann@example.org")
    save_preferences(store, ann, {("game_starting", c): True for c in notify.CHANNELS}, None)
    add_webhook(store, ann, "discord", url=f"{chat.base}/discord/1/secret", now=now)
    sub = push.subscribe()
    add_push(store, ann, sub.as_browser_sends_it(), now=now)
    store_games.create_game(store, "demo", "standard", now=now, settings=GameSettings(deadlines={"movement": "2d"}))
    store_games.assign(store, "demo", "France", "Ann", now=now)
    seat_person(store, "demo", "France", ann, now=now)
    store.close()

    env = _env(DIPPOUCH_SMTP_HOST=smtp.host, DIPPOUCH_SMTP_PORT=str(smtp.port), DIPPOUCH_SMTP_SECURITY="none")
    env["DIPPOUCH_MAIL_FROM"] = "dp@w3k.example"
    done = subprocess.run(
        [*dippouch_command(), "worker", "--db", db_url, "--once", "--nice", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r.json["content"].split("\n")[0] for r in chat.received] == ["demo is starting"]
    assert push.refused == [] and [r.json["title"] for r in push.received] == ["demo is starting"]
    assert "you play France" in push.received[0].json["body"]
    (mail,) = smtp.to("ann@example.org")
    assert mail["Subject"] == "demo is starting"
    store = GameStore(db_url)
    assert Counter(d.status for d in deliveries(store)) == {"sent": 3}
    store.close()


def test_two_drainers_at_once_deliver_each_notification_once(
    db_url: str, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    store = GameStore(db_url)
    now = store.clock() - timedelta(minutes=1)
    people = []
    for i in range(4):
        pid = create_person(store, f"P{i}", now=now)
        save_preferences(store, pid, {(e, c): c == "webhook" for e in notify.EVENTS for c in notify.CHANNELS}, None)
        add_webhook(store, pid, "discord", url=f"{chat.base}/discord/{pid}/secret", now=now)
        people.append(pid)
    n = 0
    for i in range(40):
        for pid in people:
            n += notify.enqueue(
                store, pid, "seat_offered", key=f"o{i}", now=now, facts={"game": f"g{i}", "power": "France"}
            )
    store.close()
    assert n == 160
    chat.delay = 0.005  # each post takes a moment, so the two drainers interleave
    procs = [
        subprocess.Popen([*dippouch_command(), "notify", "--db", db_url], env=_env(), stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    delivered = [int(o.split(" delivered")[0].rsplit(", ", 1)[1]) for o in outs]
    assert sum(delivered) == 160, outs
    posts = Counter((r.path, r.json["content"]) for r in chat.received)
    assert len(posts) == 160 and set(posts.values()) == {1}  # every one, none twice
    store = GameStore(db_url)
    assert Counter(d.status for d in deliveries(store)) == {"sent": 160}
    store.close()
    if db_url.startswith("postgresql"):
        assert min(delivered) > 0, f"one drainer did all the work ({delivered}): they did not run at once"


def test_a_queue_kept_while_the_receiver_is_down_is_delivered_when_it_is_back(
    db_url: str, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    store = GameStore(db_url)
    t0 = datetime(2026, 12, 1, 9, tzinfo=UTC)
    pid = create_person(store, "Ann", now=t0)
    save_preferences(store, pid, {(e, c): c == "webhook" for e in notify.EVENTS for c in notify.CHANNELS}, None)
    url = chat.base
    chat.stop()  # down: connections refused
    add_webhook(store, pid, "slack", url=f"{url}/slack/x", now=t0)
    notify.enqueue(store, pid, "seat_offered", key="o", now=t0, facts={"game": "demo", "power": "Italy"})
    tries = [notify.deliver_due(store, t0 + timedelta(hours=h)) for h in range(0, 30, 3)]
    assert all(not t.sent and not t.failed for t in tries) and sum(len(t.retry) for t in tries) >= 5
    (d,) = deliveries(store)
    assert d.status == "pending" and "could not be reached" in (d.last_error or "")
    store.close()


def test_the_notify_command_lists_the_queue_without_secrets_and_refuses_a_bad_limit(
    db_url: str, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")
    store = GameStore(db_url)
    now = store.clock()
    pid = create_person(store, "Ann", now=now)
    save_preferences(store, pid, {(e, c): c == "webhook" for e in notify.EVENTS for c in notify.CHANNELS}, None)
    add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/very-secret", now=now)
    notify.enqueue(store, pid, "seat_offered", key="o", now=now, facts={"game": "demo", "power": "Italy"})
    store.close()
    listed = subprocess.run(
        [*dippouch_command(), "notify", "--db", db_url, "--list"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert f"#1 pending seat_offered by webhook to person {pid}, tried 0" in listed.stdout
    assert "very-secret" not in listed.stdout + listed.stderr and chat.received == []
    bad = subprocess.run(
        [*dippouch_command(), "notify", "--db", db_url, "--limit", "0"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode != 0 and "--limit must be at least 1 (got 0); try 500" in bad.stdout + bad.stderr
