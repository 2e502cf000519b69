"""The address the installation's mail comes from reaches the notifications' e-mails from whoever runs the
queue: the notification package reads no mail settings itself (the mail side sits above it), so the worker
and ``dippouch notify`` pass it in, and a library caller that passes nothing gets the placeholder domain."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dippouch import notify
from dippouch.notify.events import save_preferences
from dippouch.notify.task import NotifyTask
from dippouch.store import GameStore
from dippouch.store.mail.outbox import outbox_entries
from dippouch.store.people.persons import create_person
from dippouch.worker.service import default_tasks, mail_sender

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
FACTS = {"game": "demo", "power": "France", "url": "/open/demo/claim/abc"}


def _one_email(store: GameStore) -> None:
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    save_preferences(
        store, pid, {(e, c): c == "email" for e in notify.EVENTS for c in notify.CHANNELS}, deadline_hours=None
    )
    notify.enqueue(store, pid, "seat_offered", key="opening:3", now=T0, facts=FACTS)


def test_the_sender_passed_in_names_the_mail_handed_to_the_outbox(store: GameStore) -> None:
    _one_email(store)
    assert len(notify.deliver_due(store, T0, sender=lambda: "dp@w3k.example").sent) == 1
    (entry,) = outbox_entries(store, include_sent=True)
    assert entry.header_id.endswith("@w3k.example>")


def test_nothing_passed_in_means_the_placeholder_domain_whatever_the_environment_says(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "dp@w3k.example")  # the mail side's setting: not read here
    _one_email(store)
    assert len(notify.deliver_due(store, T0).sent) == 1
    (entry,) = outbox_entries(store, include_sent=True)
    assert entry.header_id.endswith("@dippouch.invalid>")


def test_a_sender_that_cannot_be_read_does_not_stop_the_notification(store: GameStore) -> None:
    def broken() -> str | None:
        raise OSError("the mail settings file is unreadable")

    _one_email(store)
    assert len(notify.deliver_due(store, T0, sender=broken).sent) == 1
    (entry,) = outbox_entries(store, include_sent=True)
    assert entry.header_id.endswith("@dippouch.invalid>")


def test_the_worker_passes_the_installation_s_mail_sender(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "dp@w3k.example")
    (task,) = [t for t in default_tasks() if isinstance(t, NotifyTask)]
    assert task.sender is mail_sender
    assert mail_sender() == "dp@w3k.example"
