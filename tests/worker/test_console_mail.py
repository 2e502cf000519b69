"""Until mail is set up, what would have been sent is written to the console of the process running the site
(as Django's console backend does): each message once, long ones cut with a pointer to the Outbox, per database;
once a server is set up nothing is written there."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from dippouch import settings
from dippouch.store import GameStore
from dippouch.store.mail.outbox import queue_mail
from dippouch.worker.service import CONSOLE_MAIL, ConsoleMail, mail_task

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def _queue(store: GameStore, n: int, body: str = "Open http://localhost:8000/signin/link/abc to sign in.") -> None:
    assert queue_mail(
        store, key=f"k{n}", to=f"p{n}@example.org", subject=f"Sign in {n}", body=body, kind="signin", now=T0
    )


def test_each_waiting_message_is_shown_once_and_a_long_one_cut(store: GameStore) -> None:
    out = io.StringIO()
    console = ConsoleMail(out)
    _queue(store, 1)
    _queue(store, 2, "\n".join(f"line {i}" for i in range(100)))
    console(store)
    console(store)  # nothing twice
    _queue(store, 3)
    console(store)
    text = out.getvalue()
    assert [text.count(f"-- mail #{i} not sent") for i in (1, 2, 3)] == [1, 1, 1]
    assert "To: p1@example.org\nSubject: Sign in 1\n\nOpen http://localhost:8000/signin/link/abc" in text
    assert "line 39\n[60 more lines: see the Outbox]" in text and "line 40" not in text


def test_the_mail_task_writes_to_the_console_while_mail_is_not_set_up(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_FROM", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    settings.reread()
    _queue(store, 1)
    mail_task(store, T0)
    # Not a terminal here (a log, a journal): the message is named, its words (a sign-in link) are not written.
    shown = capsys.readouterr().out
    assert "mail #1 not sent" in shown and "p1@example.org" in shown and "signin/link" not in shown
    mail_task(store, T0)
    assert capsys.readouterr().out == ""
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_SMTP_PORT", "9")
    monkeypatch.setenv("DIPPOUCH_SMTP_SECURITY", "none")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@example.org")
    settings.reread()
    _queue(store, 2)
    mail_task(store, T0)  # a server is named: the mail is tried there (and waits), not shown
    assert "To: p2@example.org" not in capsys.readouterr().out
    assert CONSOLE_MAIL.after  # remembered per database
