"""Press by mail with the automation on: players write on the web, a real ``dippouch worker --once`` (the
database's clock) mails the copies through a real SMTP server, fetches the answers from a real IMAP server
(Dovecot) and processes the phase whose deadline passed; postal press then reaches its reader with the results.

The pieces are tested apart in test_press_mail.py (copies, replies, spoofed replies) and in the press store's
tests (postal press held and released); here nobody calls them by hand.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_mail_review import Servers, _dippouch, run, servers  # noqa: F401 - the servers fixture

import dippouch.store.press.messages as store_press
from dippouch.store import GameStore
from dippouch.store.access import AccessStore
from dippouch.web.app import create_app
from websupport import TEST_SITE

ANN, BEA = "ann@example.org", "bea@example.org"


@pytest.fixture
def web(servers: Servers) -> Iterator[tuple[TestClient, GameStore]]:  # noqa: F811 - the imported fixture
    _, _, env = servers
    app = create_app(env["DIPPOUCH_DATABASE_URL"], limits={}, site=TEST_SITE)
    with TestClient(app) as client:
        yield client, app.state.web.store


def _game(store: GameStore, name: str, start: datetime) -> dict[str, str]:
    """A standard game begun at ``start`` (a day to move) with England and France by web and mail: their keys."""
    run("new", name, "--variant", "standard", "--movement", "1d", "--now", start.isoformat())
    run("players", "assign", name, "England", "Ann", "--email", ANN, "--now", start.isoformat())
    run("players", "assign", name, "France", "Bea", "--email", BEA, "--now", start.isoformat())
    run("mail", "setup", name, "--now", start.isoformat())
    access = AccessStore(store)
    return {p: access.create_key("player", game=name, power=p, now=start)[1] for p in ("England", "France")}


def _api(client: TestClient, key: str, method: str, path: str, body: Any = None) -> Any:
    r = client.request(method, path, json=body, headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200, (path, r.status_code, r.text)
    return r.json()


def _answer(copy: EmailMessage, text: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"] = BEA, str(copy["From"])
    m["Subject"] = "Re: " + str(copy["Subject"])
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["In-Reply-To"] = str(copy["Message-ID"])
    m["Date"] = email.utils.format_datetime(datetime.now(UTC) - timedelta(minutes=1))
    m.set_content(f"{text}\n\n> {copy.get_content().strip().splitlines()[0]}\n")
    return m.as_bytes()


def test_a_worker_mails_the_copy_and_brings_the_answer_into_the_channel(
    servers: Servers,  # noqa: F811 - the imported fixture
    web: tuple[TestClient, GameStore],
) -> None:
    mailbox, smtp, env = servers
    client, store = web
    keys = _game(store, "talk", datetime.now(UTC) - timedelta(hours=12))  # the deadline is 12 hours away
    sent = _api(
        client,
        keys["England"],
        "POST",
        "/api/games/talk/powers/England/press",
        {"to": ["France"], "text": "Shall we share the Channel?"},
    )
    assert sent["held"] is False and sent["mailed"] == 1
    assert smtp.to(BEA) == []  # queued, not sent: the worker sends it

    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "0 phases processed" in out
    (copy,) = [m for m in smtp.to(BEA) if "Shall we share the Channel?" in m.get_content()]
    assert [m for m in smtp.to(ANN) if "Shall we share" in m.get_content()] == []  # no copy of one's own words

    mailbox.append(_answer(copy, "Only if Belgium is mine."))
    _dippouch(env, "worker", "--once", "--nice", "0")
    channel = _api(client, keys["England"], "GET", f"/api/games/talk/powers/England/press/channels/{sent['channel']}")
    texts = [(m["sender"], m["text"]) for m in channel["messages"]]
    assert texts == [("England", "Shall we share the Channel?"), ("France", "Only if Belgium is mine.")]
    panel = _api(client, keys["England"], "GET", "/api/games/talk/powers/England/press")
    assert {t["id"]: t["unread"] for t in panel["threads"]}[sent["channel"]] == 1
    # The answer came by mail and goes to the web reader only: nobody is mailed their own words back.
    _dippouch(env, "worker", "--once", "--nice", "0")
    assert [m for m in smtp.to(BEA) if "Only if Belgium" in m.get_content()] == []


def test_postal_press_reaches_its_reader_with_the_results_the_worker_makes(
    servers: Servers,  # noqa: F811 - the imported fixture
    web: tuple[TestClient, GameStore],
) -> None:
    _, smtp, env = servers
    client, store = web
    keys = _game(store, "letters", datetime.now(UTC) - timedelta(days=2))  # the deadline passed a day ago
    store_press.set_press_rules(store, "letters", {"kind": "postal"}, now=datetime.now(UTC))
    sent = _api(
        client,
        keys["England"],
        "POST",
        "/api/games/letters/powers/England/press",
        {"to": ["France"], "text": "Sealed and sent by the evening post."},
    )
    assert sent["held"] is True and sent["mailed"] == 0
    assert _api(client, keys["France"], "GET", "/api/games/letters/powers/France/press/since/0")["messages"] == []

    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "1 phase processed" in out
    got = _api(client, keys["France"], "GET", "/api/games/letters/powers/France/press/since/0")["messages"]
    assert [(m["sender"], m["text"], m["held"]) for m in got] == [
        ("England", "Sealed and sent by the evening post.", False)
    ]
    _dippouch(env, "worker", "--once", "--nice", "0")  # the copy, if the first run had not sent it yet
    letters = [m for m in smtp.to(BEA) if "Sealed and sent by the evening post." in m.get_content()]
    assert len(letters) == 1
    results = [m for m in smtp.to(BEA) if "results" in str(m["Subject"]).lower()]
    assert results, [str(m["Subject"]) for m in smtp.to(BEA)]
