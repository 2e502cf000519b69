"""The outbound queue against a real SMTP server (aiosmtpd): a server that is down or refuses delays mail
and loses none; a sender killed mid-batch loses nothing; several senders at once send each message once."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dbsupport import migrated_sqlite
from dippouch.mail.outbox import queue, send_due
from dippouch.mail.settings import ServerSettings
from dippouch.store import GameStore
from dippouch.store.mail.models import OutboxRow
from mailservers import SmtpServer, free_port

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def settings(port: int) -> ServerSettings:
    return ServerSettings("smtp", host="127.0.0.1", port=port, security="none", sender="orders@w3k.example", timeout=5)


def fill(store: GameStore, n: int) -> None:
    with store.session() as s, s.begin():
        for i in range(n):
            queue(
                s, key=f"t:{i}", to=f"p{i}@example.org", subject=f"message {i}", body=f"body {i}\n", kind="test", now=T0
            )


def states(store: GameStore) -> dict[str, int]:
    out: dict[str, int] = {}
    with store.session() as s:
        for r in s.query(OutboxRow):
            out[r.status] = out.get(r.status, 0) + 1
    return out


def test_queuing_twice_is_one_message(db_url: str) -> None:
    store = GameStore(db_url)
    fill(store, 3)
    fill(store, 3)
    assert states(store) == {"pending": 3}


def test_server_down_then_refusing_then_accepting(db_url: str, smtp: SmtpServer) -> None:
    store = GameStore(db_url)
    fill(store, 4)
    # Nothing listens on this port: every message waits, none is lost or failed.
    r = send_due(store, T0, settings(free_port()))
    assert r.sent == [] and r.server_down and states(store) == {"pending": 4}
    # The server answers 451 to the first two recipients: those wait for their back-off, the rest go.
    smtp.refuse = 2
    r = send_due(store, T0 + timedelta(minutes=2), settings(smtp.port))
    assert len(r.retry) == 2 and len(r.sent) == 2
    assert send_due(store, T0 + timedelta(minutes=2, seconds=30), settings(smtp.port)).sent == []  # backing off
    r = send_due(store, T0 + timedelta(minutes=10), settings(smtp.port))
    assert len(r.sent) == 2 and states(store) == {"sent": 4}
    assert sorted(str(m["Subject"]) for m in smtp.messages) == [f"message {i}" for i in range(4)]
    assert len(set(smtp.ids())) == 4


def _sender(db_url: str, port: int, now: datetime, crash: str | None) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; from datetime import datetime\n"
        "from dippouch.store import GameStore\n"
        "from dippouch.mail.outbox import send_due\n"
        "from dippouch.mail.settings import ServerSettings\n"
        f"s = ServerSettings('smtp', host='127.0.0.1', port={port}, security='none', sender='orders@w3k.example')\n"
        f"r = send_due(GameStore({db_url!r}), datetime.fromisoformat({now.isoformat()!r}), s)\n"
        "print(len(r.sent))\n"
    )
    env = {**os.environ}
    env.pop("DIPPOUCH_CRASH_AT", None)
    if crash:
        env["DIPPOUCH_CRASH_AT"] = crash
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_a_killed_sender_loses_nothing_and_sends_nothing_twice(db_url: str, smtp: SmtpServer) -> None:
    store = GameStore(db_url)
    fill(store, 8)
    # Killed right after claiming its first message, before talking to the server.
    dead = _sender(db_url, smtp.port, T0, "mail:after-claim")
    assert dead.returncode == 70 and smtp.messages == []
    # Killed after its third message was sent and recorded.
    dead = _sender(db_url, smtp.port, T0, "mail:after-sent:3")
    assert dead.returncode == 70 and len(smtp.messages) == 3
    # The next run takes the rest; the first one's claim runs out after its lease (5 minutes).
    done = _sender(db_url, smtp.port, T0 + timedelta(minutes=1), None)
    assert done.returncode == 0, done.stderr
    assert len(smtp.messages) == 7
    done = _sender(db_url, smtp.port, T0 + timedelta(minutes=6), None)
    assert done.returncode == 0, done.stderr
    assert states(store) == {"sent": 8}
    assert sorted(str(m["Subject"]) for m in smtp.messages) == sorted(f"message {i}" for i in range(8))


def test_several_senders_at_once_send_each_message_once(db_url: str, smtp: SmtpServer, tmp_path: Path) -> None:
    store = GameStore(db_url)
    fill(store, 30)
    code = (
        "from datetime import datetime\nfrom dippouch.store import GameStore\nfrom dippouch.mail.outbox import send_due\n"
        "from dippouch.mail.settings import ServerSettings\n"
        f"s = ServerSettings('smtp', host='127.0.0.1', port={smtp.port}, security='none', sender='orders@w3k.example')\n"
        f"print(len(send_due(GameStore({db_url!r}), datetime.fromisoformat({T0.isoformat()!r}), s).sent))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    counts = [int((p.communicate(timeout=120)[0] or "0").strip()) for p in procs]
    assert sum(counts) == 30
    assert len(smtp.messages) == 30 and len(set(smtp.ids())) == 30
    assert states(store) == {"sent": 30}


def test_subjects_arrive_as_written(tmp_path: Path) -> None:
    """A receipt's subject reaches the player exactly as written: Python's folding put a subject with a
    colon ("Receipt: ...") on a line of its own, which readers then show with a leading space."""
    import email
    import io
    from email import policy
    from email.generator import BytesGenerator

    from dippouch.mail.outbox import build_message

    store = GameStore(migrated_sqlite(tmp_path / "q.db"))
    subjects = [
        "Receipt: Powick Bridge 1644 - Montrose - Summer 1642 Movement - version 1",
        "Held for the coordinator: Powick Bridge - Argyll - Summer 1642 Movement - v1",
        "Results: Powick Bridge 1644 - Autumn 1644 Retreats and a good many more words to fold somewhere",
    ]
    with store.session() as s, s.begin():
        for i, subject in enumerate(subjects):
            queue(s, key=f"s:{i}", to="ann@example.org", subject=subject, body="line\n" * 3, kind="test", now=T0)
    with store.session() as s:
        for row in s.query(OutboxRow).order_by(OutboxRow.id):
            # Flattened as smtplib's send_message does: with the message's own policy, CRLF line ends.
            out = io.BytesIO()
            BytesGenerator(out).flatten(build_message(row, "orders@w3k.example", T0), linesep="\r\n")
            raw = out.getvalue()
            got = email.message_from_bytes(raw, policy=policy.default)
            assert got["Subject"] == row.subject, raw[:300]
            assert all(len(line) <= 998 for line in raw.split(b"\r\n")), raw[:300]
            assert got.get_content().replace("\r\n", "\n") == row.body
