"""The notification queue against real receivers on this machine: chat webhooks in each service's format,
Web Push checked and decrypted as a push service and a browser do, e-mail through the outbox to a real SMTP
server; queued once, delivered once, failures kept and retried, nothing dropped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dippouch import notify
from dippouch.game import GameError, GameSettings
from dippouch.mail.outbox import send_due
from dippouch.mail.settings import ServerSettings
from dippouch.notify.events import preferences, save_preferences
from dippouch.notify.scan import scan
from dippouch.notify.targets import add_push, add_webhook
from dippouch.notify.task import run_once
from dippouch.notify.transports import vapid_public_key
from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.outbox import outbox_entries
from dippouch.store.notify.stored import deliveries, export_person, forget_person, targets
from dippouch.store.people import data as people_data
from dippouch.store.people.persons import create_person, seat_person
from mailservers import SmtpServer
from notifysupport import ChatReceiver, PushService, start_chat, start_push

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
FACTS = {"game": "demo", "power": "France", "url": "/open/demo/claim/abc"}


@pytest.fixture
def store(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")  # the receivers are on this machine
    s = GameStore(db_url)
    yield s
    s.close()


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


def only(store: GameStore, pid: int, *channels: str) -> None:
    """The person wants every event by ``channels`` and by nothing else."""
    save_preferences(
        store, pid, {(e, c): c in channels for e in notify.EVENTS for c in notify.CHANNELS}, deadline_hours=None
    )


def test_an_event_queued_twice_is_delivered_once_per_channel_and_target(store: GameStore, chat: ChatReceiver) -> None:
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    only(store, pid, "webhook")
    add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/secret", now=T0)
    add_webhook(store, pid, "slack", url=f"{chat.base}/slack/T/B/secret", now=T0)
    assert notify.enqueue(store, pid, "seat_offered", key="opening:1", now=T0, facts=FACTS) == 2
    assert notify.enqueue(store, pid, "seat_offered", key="opening:1", now=T0, facts=FACTS) == 0
    report = notify.deliver_due(store, T0)
    assert len(report.sent) == 2 and not report.retry and not report.failed
    assert notify.deliver_due(store, T0 + timedelta(hours=1)).sent == []
    bodies = {r.path.split("/")[1]: r.json for r in chat.received}
    # The link the text speaks of, at the installation's public address (the embedded default here).
    assert bodies["discord"] == {
        "content": "demo: a seat is offered to you\nFrance in demo needs a player. Open the link to take the seat."
        "\nhttp://localhost:8000/open/demo/claim/abc"
    }
    assert bodies["slack"]["text"].startswith("demo: a seat is offered to you\n")
    assert chat.refused == []


def test_matrix_gets_the_client_server_send_with_the_token_and_a_transaction_id(
    store: GameStore, chat: ChatReceiver
) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "webhook")
    add_webhook(store, pid, "matrix", url=chat.base, room="!room:example.org", token=chat.token, now=T0)
    notify.enqueue(
        store,
        pid,
        "message_received",
        key="m:1",
        now=T0,
        facts={"game": "demo", "sender": "England", "excerpt": "Shall we?"},
    )
    assert len(notify.deliver_due(store, T0).sent) == 1
    (got,) = chat.received
    assert got.path.startswith("/_matrix/client/v3/rooms/%21room%3Aexample.org/send/m.room.message/")
    assert got.json == {
        "msgtype": "m.text",
        "body": "demo: a message from England\nEngland wrote in demo: Shall we?\nhttp://localhost:8000/games/demo",
    }


def test_links_in_notifications_are_at_the_configured_public_address(
    store: GameStore, chat: ChatReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every link a notification carries is made from DIPPOUCH_PUBLIC_URL (security review, finding 1)."""
    from dippouch import settings

    monkeypatch.setenv("DIPPOUCH_PUBLIC_URL", "https://dip.example.org/")
    settings.reread()
    try:
        pid = create_person(store, "Ann", now=T0)
        only(store, pid, "webhook")
        add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/secret", now=T0)
        notify.enqueue(store, pid, "seat_offered", key="opening:1", now=T0, facts=FACTS)
        assert len(notify.deliver_due(store, T0).sent) == 1
        assert chat.received[0].json["content"].endswith("\nhttps://dip.example.org/open/demo/claim/abc")
    finally:
        monkeypatch.delenv("DIPPOUCH_PUBLIC_URL")
        settings.reread()


def test_a_failing_receiver_is_retried_with_backoff_and_nothing_is_dropped(
    store: GameStore, chat: ChatReceiver
) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "webhook")
    add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/secret", now=T0)
    notify.enqueue(store, pid, "game_starting", key="g1", now=T0, facts=FACTS)
    chat.fail = [500, 503]
    first = notify.deliver_due(store, T0)
    assert first.sent == [] and len(first.retry) == 1 and "answered 500" in first.retry[0][1]
    assert notify.deliver_due(store, T0 + timedelta(seconds=10)).retry == []  # not due yet: backing off
    second = notify.deliver_due(store, T0 + timedelta(seconds=31))
    assert "answered 503" in second.retry[0][1]
    (d,) = deliveries(store)
    assert d.status == "pending" and d.attempts == 2 and d.last_error and "503" in d.last_error
    third = notify.deliver_due(store, T0 + timedelta(minutes=3))
    assert len(third.sent) == 1 and len(chat.received) == 1
    (d,) = deliveries(store)
    assert d.status == "sent" and d.attempts == 3


def test_a_receiver_refusing_for_good_marks_the_delivery_failed_and_keeps_it(
    store: GameStore, chat: ChatReceiver
) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "webhook")
    add_webhook(store, pid, "discord", url=f"{chat.base}/discord/1/secret", now=T0)
    notify.enqueue(store, pid, "game_starting", key="g1", now=T0, facts=FACTS)
    chat.fail = [404]
    report = notify.deliver_due(store, T0)
    assert len(report.failed) == 1 and "answered 404" in report.failed[0][1]
    (d,) = deliveries(store)
    assert d.status == "failed" and d.title == "demo is starting"
    assert notify.deliver_due(store, T0 + timedelta(days=1)).sent == []


def test_a_push_is_signed_by_the_installation_key_and_decrypts_to_the_text(store: GameStore, push: PushService) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "push")
    sub = push.subscribe()
    add_push(store, pid, sub.as_browser_sends_it(), now=T0)
    push.keys = {vapid_public_key(store, T0)}  # only the installation's key is accepted
    assert vapid_public_key(store, T0) == vapid_public_key(store, T0 + timedelta(days=3))  # made once, kept
    notify.enqueue(store, pid, "seat_offered", key="opening:7", now=T0, facts=FACTS)
    report = notify.deliver_due(store, T0)
    assert push.refused == [] and len(report.sent) == 1, (push.refused, report)
    (got,) = push.received
    assert got.json == {
        "title": "demo: a seat is offered to you",
        "body": "France in demo needs a player. Open the link to take the seat.",
        "url": "/open/demo/claim/abc",
    }


def test_an_oversized_message_still_fits_a_push(store: GameStore, push: PushService) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "push")
    add_push(store, pid, push.subscribe().as_browser_sends_it(), now=T0)
    huge = "é" * 1_000_000
    notify.enqueue(
        store, pid, "message_received", key="m:1", now=T0, facts={"game": "demo", "sender": huge, "excerpt": huge}
    )
    (d,) = deliveries(store)
    assert len(d.title) <= 200 and len(d.body) <= 2000
    assert len(notify.deliver_due(store, T0).sent) == 1 and push.refused == []
    assert push.received[0].json["body"].endswith("…")


def test_an_expired_push_subscription_fails_for_good(store: GameStore, push: PushService) -> None:
    pid = create_person(store, "Ann", now=T0)
    only(store, pid, "push")
    sub = push.subscribe()
    add_push(store, pid, sub.as_browser_sends_it(), now=T0)
    push.gone.add(sub.endpoint.rsplit("/", 1)[1])
    notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts=FACTS)
    report = notify.deliver_due(store, T0)
    assert len(report.failed) == 1 and "answered 410" in report.failed[0][1]


def test_email_goes_through_the_outbox_to_the_smtp_server(store: GameStore, smtp: SmtpServer) -> None:
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    only(store, pid, "email")
    notify.enqueue(store, pid, "seat_offered", key="opening:3", now=T0, facts=FACTS)
    assert len(notify.deliver_due(store, T0).sent) == 1
    assert len(notify.deliver_due(store, T0).sent) == 0
    settings = ServerSettings(
        "smtp", host=smtp.host, port=smtp.port, security="none", sender="dp@w3k.example", timeout=5
    )
    assert len(send_due(store, T0, settings).sent) == 1
    (msg,) = smtp.to("ann@example.org")
    assert msg["Subject"] == "demo: a seat is offered to you"
    assert "France in demo needs a player." in msg.get_content()


def test_deleting_my_data_takes_my_unsent_notification_mail_out_of_the_outbox(
    store: GameStore, smtp: SmtpServer
) -> None:
    ann = create_person(store, "Ann", now=T0, email="ann@example.org")
    bo = create_person(store, "Bo", now=T0, email="bo@example.org")
    for pid in (ann, bo):
        only(store, pid, "email")
    settings = ServerSettings(
        "smtp", host=smtp.host, port=smtp.port, security="none", sender="dp@w3k.example", timeout=5
    )
    notify.enqueue(store, ann, "seat_offered", key="sent", now=T0, facts=FACTS)
    notify.deliver_due(store, T0)
    assert len(send_due(store, T0, settings).sent) == 1  # one went out before the deletion
    for pid in (ann, bo):
        notify.enqueue(store, pid, "game_starting", key="waiting", now=T0, facts=FACTS)
    assert len(notify.deliver_due(store, T0).sent) == 2  # handed to the outbox, not yet sent

    people_data.forget_all(store, ann, now=T0 + timedelta(minutes=1))
    left = outbox_entries(store, include_sent=True)
    assert "ann@example.org" not in {e.to_addr for e in left}
    assert not any("ann" in e.body.lower() or ("starting" in e.subject and e.to_addr != "bo@example.org") for e in left)
    assert [(e.to_addr, e.status) for e in left if e.status != "sent"] == [("bo@example.org", "pending")]
    assert len(send_due(store, T0 + timedelta(minutes=2), settings).sent) == 1
    assert len(smtp.to("ann@example.org")) == 1  # only the one sent before
    assert len(smtp.to("bo@example.org")) == 1


def test_a_person_without_an_address_gets_no_email_and_the_reason_is_kept(store: GameStore) -> None:
    pid = create_person(store, "Bo", now=T0)
    only(store, pid, "email")
    notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts=FACTS)
    report = notify.deliver_due(store, T0)
    assert report.failed and "no e-mail address" in report.failed[0][1]


def _game(store: GameStore, *people: tuple[str, int]) -> None:
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(deadlines=deadlines))
    for power, pid in people:
        store_games.assign(store, "demo", power, f"p{pid}", now=T0)
        seat_person(store, "demo", power, pid, now=T0)


def test_the_scan_finds_a_game_starting_a_deadline_with_orders_missing_and_results(
    store: GameStore, chat: ChatReceiver
) -> None:
    ann = create_person(store, "Ann", now=T0)
    bo = create_person(store, "Bo", now=T0)
    other = create_person(store, "Not seated", now=T0)
    for pid in (ann, bo, other):
        only(store, pid, "webhook")
        add_webhook(store, pid, "slack", url=f"{chat.base}/slack/{pid}", now=T0)
    save_preferences(store, bo, {}, deadline_hours=30)
    _game(store, ("France", ann), ("England", bo))
    found = scan(store, T0 + timedelta(minutes=1))
    assert (found.starting, found.deadline, found.processed) == (2, 0, 0)
    assert scan(store, T0 + timedelta(minutes=2)).queued == 0  # once

    # Ann orders; Bo (a 30 h lead) is reminded once a quarter of the 2-day phase is left, 12 hours before the
    # deadline (a lead longer than that would come near the phase's start); Ann (orders in) never.
    store_submissions.submit(store, "demo", "France", "A par - bur", now=T0 + timedelta(hours=1))
    assert scan(store, T0 + timedelta(hours=19)).deadline == 0
    assert scan(store, T0 + timedelta(hours=35, minutes=55)).deadline == 0
    assert scan(store, T0 + timedelta(hours=36, minutes=1)).deadline == 1
    assert scan(store, T0 + timedelta(hours=40)).deadline == 0
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    assert scan(store, T0 + timedelta(days=2, minutes=2)).processed == 2
    assert scan(store, T0 + timedelta(days=2, minutes=3)).processed == 0
    notify.deliver_due(store, T0 + timedelta(days=2, minutes=3))
    by_person: dict[str, list[str]] = {}
    for r in chat.received:
        by_person.setdefault(r.path.rsplit("/", 1)[1], []).append(r.json["text"].split("\n")[0])
    assert by_person == {
        str(ann): ["demo is starting", "demo: Spring 1901 Movement processed"],
        str(bo): ["demo is starting", "demo: orders for England missing", "demo: Spring 1901 Movement processed"],
    }


def test_a_first_phase_processed_before_the_scan_looked_is_told_as_the_games_start_then_its_results(
    store: GameStore, chat: ChatReceiver
) -> None:
    ann = create_person(store, "Ann", now=T0)
    only(store, ann, "webhook")
    add_webhook(store, ann, "slack", url=f"{chat.base}/slack/{ann}", now=T0)
    assert scan(store, T0 - timedelta(days=1)).queued == 0  # notifications were on before the game began
    _game(store, ("France", ann))
    # No look found the first phase open (the worker was down, or runs now and then with --once): the worker's
    # claim processes it at the deadline, then its notification task looks, as in one look of `dippouch worker`.
    at = T0 + timedelta(days=2, minutes=1)
    done = store_claims.process_next_due(store, now=at)
    assert done is not None and done.game == "demo"
    found, _ = run_once(store, at)
    assert (found.starting, found.processed) == (1, 1)
    assert scan(store, at + timedelta(minutes=1)).queued == 0  # once
    assert [r.json["text"].split("\n")[0] for r in chat.received] == [
        "demo is starting",
        "demo: Spring 1901 Movement processed",
    ]
    assert "Orders are due" not in chat.received[0].json["text"]  # the first deadline has passed


def test_choices_are_kept_per_event_and_channel_and_checked(store: GameStore) -> None:
    pid = create_person(store, "Ann", now=T0)
    assert preferences(store, pid).wants("deadline", "push")
    assert not preferences(store, pid).wants("message_received", "email")  # the one default off
    save_preferences(store, pid, {("deadline", "push"): False}, deadline_hours=6)
    p = preferences(store, pid)
    assert not p.wants("deadline", "push") and p.wants("deadline", "email") and p.deadline_hours == 6
    with pytest.raises(GameError, match="no event 'deadlines'"):
        save_preferences(store, pid, {("deadlines", "push"): True}, None)
    with pytest.raises(GameError, match="no channel 'sms'"):
        save_preferences(store, pid, {("deadline", "sms"): True}, None)
    with pytest.raises(GameError, match="from 1 to 168 hours"):
        save_preferences(store, pid, {}, deadline_hours=0)
    with pytest.raises(GameError, match="no event 'nonsense'"):
        notify.enqueue(store, pid, "nonsense", key="x", now=T0)


def test_a_person_downloads_and_deletes_their_notification_data(store: GameStore, chat: ChatReceiver) -> None:
    ann = create_person(store, "Ann", now=T0)
    bo = create_person(store, "Bo", now=T0)
    for pid in (ann, bo):
        only(store, pid, "webhook")
        add_webhook(store, pid, "discord", url=f"{chat.base}/discord/{pid}/secret", now=T0)
        notify.enqueue(store, pid, "seat_offered", key="o", now=T0, facts=FACTS)
    mine = export_person(store, ann)
    assert [t["config"]["url"] for t in mine["targets"]] == [f"{chat.base}/discord/{ann}/secret"]
    assert len(mine["deliveries"]) == 1 and mine["deliveries"][0]["status"] == "pending"
    assert {(p["event"], p["channel"]) for p in mine["preferences"] if p["enabled"]} == {
        (e, "webhook") for e in notify.EVENTS
    }
    json.dumps(mine)  # it is data a browser can download
    forget_person(store, ann, now=T0)
    assert export_person(store, ann) == {"preferences": [], "deadline_hours": None, "targets": [], "deliveries": []}
    assert len(targets(store, bo)) == 1 and len(deliveries(store, person_id=bo)) == 1
    assert len(notify.deliver_due(store, T0).sent) == 1  # only Bo's is left to send
