"""The worker's mail task against a real SMTP server (aiosmtpd): queued mail goes out after a look, once,
and is counted in the metrics; without SMTP settings it waits in the queue."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from dbsupport import migrated_sqlite
from dippouch.mail.outbox import queue
from dippouch.store import GameStore
from dippouch.store.mail.models import OutboxRow
from dippouch.worker.service import Worker, default_tasks, mail_task
from mailservers import SmtpServer


def _fill(store: GameStore, n: int) -> None:
    now = store.clock()
    with store.session() as s, s.begin():
        for i in range(n):
            queue(s, key=f"w:{i}", to=f"p{i}@example.org", subject=f"results {i}", body="text\n", kind="test", now=now)


def _statuses(store: GameStore) -> list[str]:
    with store.session() as s:
        return sorted(r.status for r in s.query(OutboxRow))


def _sent_metric() -> float:
    return REGISTRY.get_sample_value("dippouch_mail_sent_total") or 0.0


def _queued_metric() -> float | None:
    return REGISTRY.get_sample_value("dippouch_mail_queued")


def test_a_look_sends_the_queue_once(db_url: str, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_SMTP_PORT", str(smtp.port))
    monkeypatch.setenv("DIPPOUCH_SMTP_SECURITY", "none")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    store = GameStore(db_url)
    _fill(store, 3)
    assert mail_task in default_tasks()
    before = _sent_metric()
    w = Worker(store)
    w.run(once=True)
    assert _statuses(store) == ["sent", "sent", "sent"]
    assert sorted(m["To"] for m in smtp.messages) == ["p0@example.org", "p1@example.org", "p2@example.org"]
    assert _sent_metric() == before + 3
    assert _queued_metric() == 0  # the queue depth after the look: nothing left
    w.run(once=True)  # nothing sent twice
    assert len(smtp.messages) == 3
    assert w.health()[0] is True


def test_a_message_the_server_defers_is_counted_and_stays_queued(
    db_url: str,
    smtp: SmtpServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_SMTP_PORT", str(smtp.port))
    monkeypatch.setenv("DIPPOUCH_SMTP_SECURITY", "none")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    smtp.refuse = 1  # "451 try again later" to the first message
    store = GameStore(db_url)
    _fill(store, 2)
    retry = REGISTRY.get_sample_value("dippouch_mail_retry_total") or 0.0
    Worker(store).run(once=True)
    assert _statuses(store) == ["pending", "sent"]
    assert (REGISTRY.get_sample_value("dippouch_mail_retry_total") or 0.0) == retry + 1
    assert _queued_metric() == 1


def test_without_smtp_settings_mail_waits_in_the_queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_FROM", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    _fill(store, 2)
    Worker(store).run(once=True)
    assert _statuses(store) == ["pending", "pending"]
    assert _queued_metric() == 2  # the queue depth says so, for an alert


def test_mail_refused_for_good_and_a_server_that_is_down_are_counted_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What the SMTP side reports after a send reaches the metrics: refusals for good in
    dippouch_mail_failed_total, a server that is down in the log, and neither stops the look."""
    import dippouch.mail.outbox as outbox

    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "judge@example.org")
    monkeypatch.setattr(
        outbox,
        "send_due",
        lambda *a, **k: outbox.SendReport(failed=[(1, "550 no such user"), (2, "550 no such user")], server_down="421"),
    )
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    before = REGISTRY.get_sample_value("dippouch_mail_failed_total") or 0.0
    w = Worker(store)
    w.run(once=True)
    assert (REGISTRY.get_sample_value("dippouch_mail_failed_total") or 0.0) == before + 2
    assert "SMTP server not taking mail (421); the queue waits" in caplog.text
    assert w.health()[0] is True
