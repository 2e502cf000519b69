"""One-click unsubscribe (RFC 8058) against a real SMTP server (aiosmtpd): a notification e-mail arrives with
``List-Unsubscribe`` and ``List-Unsubscribe-Post`` and the link in its text; a mail program's POST of
``List-Unsubscribe=One-Click`` to that address, with no sign-in, turns that mail off; opening the link changes
nothing until the button is pressed; a forged token, another person's id or a POST without the RFC's body
change nothing (issue 40: notifications on by default, one click to turn them off)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from dippouch import settings
from dippouch.mail.outbox import send_due, unsubscribe_token
from dippouch.mail.settings import ServerSettings, use_store
from dippouch.notify.events import EVENTS, preferences, save_preferences
from dippouch.store.mail.outbox import queue_in
from dippouch.store.people.persons import create_person
from dippouch.worker.service import default_tasks
from mailservers import SmtpServer
from websupport import Site

ONE_CLICK = {"List-Unsubscribe": "One-Click"}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    settings.reread()
    yield Site(f"sqlite:///{tmp_path / 'web.db'}")
    use_store(None)


def _server(smtp: SmtpServer) -> ServerSettings:
    return ServerSettings("smtp", host=smtp.host, port=smtp.port, security="none", sender="games@example.org")


def _mail(site: Site, smtp: SmtpServer, key: str, to: str, kind: str) -> EmailMessage:
    store = site.web.store
    with store.session() as s, s.begin():
        queue_in(s, key=key, to=to, subject=f"{kind} for you", body="Results are ready.\n", kind=kind, now=site.clock())
    report = send_due(store, site.clock(), _server(smtp))
    assert len(report.sent) == 1, report
    [got] = [m for m in smtp.messages if m["Subject"] == f"{kind} for you" and m["To"] == to][-1:]
    return got


def _path(msg: EmailMessage) -> str:
    header = str(msg["List-Unsubscribe"])
    m = re.fullmatch(r"<https?://[^/]+(/unsubscribe/[^>]+)>", header)
    assert m, header
    return m.group(1)


def _stranger(site: Site) -> TestClient:
    """A mail program's request: no cookie, no page, no form token."""
    return TestClient(site.app, raise_server_exceptions=False)


def _email_choices(site: Site, person: int) -> dict[str, bool]:
    got = preferences(site.web.store, person)
    return {event: got.wants(event, "email") for event in EVENTS}


def test_a_notification_mail_carries_the_headers_and_one_post_turns_it_off(site: Site, smtp: SmtpServer) -> None:
    store = site.web.store
    ann = create_person(store, "Ann", now=site.clock(), email="ann@example.org")
    # On by default: results and deadlines with orders missing, by e-mail; the worker runs the notifications.
    before = _email_choices(site, ann)
    assert before["phase_processed"] and before["deadline"]
    assert any(getattr(t, "__name__", "") == "notify_task" for t in default_tasks())

    msg = _mail(site, smtp, "n:1", "ann@example.org", "notify")
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    path = _path(msg)
    assert path == f"/unsubscribe/{unsubscribe_token(store, ann, 'notify')}"
    assert path in msg.get_content() and "To stop these e-mails with one click:" in msg.get_content()

    # Opening the link (as a mail scanner does) changes nothing: it asks, with a button.
    page = _stranger(site).get(path)
    assert page.status_code == 200 and 'id="unsubscribe-form"' in page.text
    assert 'name="List-Unsubscribe" value="One-Click"' in page.text
    assert _email_choices(site, ann) == before

    r = _stranger(site).post(path, data=ONE_CLICK)
    assert r.status_code == 200 and 'id="unsubscribed"' in r.text, r.text
    assert "no more notifications by e-mail" in r.text
    assert not any(_email_choices(site, ann).values())
    # Push and webhooks are other channels: still as they were.
    assert preferences(store, ann).wants("phase_processed", "push")


def test_one_events_mail_turns_off_only_that_event(site: Site, smtp: SmtpServer) -> None:
    bob = create_person(site.web.store, "Bob", now=site.clock(), email="bob@example.org")
    msg = _mail(site, smtp, "n:2", "bob@example.org", "notify:deadline")
    r = _stranger(site).post(_path(msg), data=ONE_CLICK)
    assert r.status_code == 200 and "Deadline near and your orders missing" in r.text
    choices = _email_choices(site, bob)
    assert choices["deadline"] is False and choices["phase_processed"] is True


def test_a_press_copy_turns_off_press_by_mail(site: Site, smtp: SmtpServer) -> None:
    cy = create_person(site.web.store, "Cy", now=site.clock(), email="cy@example.org")
    save_preferences(site.web.store, cy, {("message_received", "email"): True}, None)
    msg = _mail(site, smtp, "p:1", "cy@example.org", "press")
    r = _stranger(site).post(_path(msg), data=ONE_CLICK)
    assert r.status_code == 200 and "copies of press" in r.text
    choices = _email_choices(site, cy)
    assert choices["message_received"] is False and choices["phase_processed"] is True


def test_mail_a_person_asked_for_has_no_unsubscribe(site: Site, smtp: SmtpServer) -> None:
    create_person(site.web.store, "Dee", now=site.clock(), email="dee@example.org")
    msg = _mail(site, smtp, "s:1", "dee@example.org", "signin")
    assert msg["List-Unsubscribe"] is None and "To stop these e-mails" not in msg.get_content()
    # Nor a notification to an address no person has (a power's address in a game run by mail).
    msg = _mail(site, smtp, "n:3", "nobody@example.org", "notify")
    assert msg["List-Unsubscribe"] is None


def test_a_forged_or_borrowed_token_changes_nothing(site: Site, smtp: SmtpServer) -> None:
    store = site.web.store
    ann = create_person(store, "Ann", now=site.clock(), email="ann@example.org")
    eve = create_person(store, "Eve", now=site.clock(), email="eve@example.org")
    before = _email_choices(site, ann)
    eves = unsubscribe_token(store, eve, "notify")
    signature = eves.rsplit(".", 1)[1]
    forged = [
        f"{ann}.notify.{signature}",  # Eve's signature on Ann's id: another person
        f"{ann}.notify:deadline.{signature}",  # ... or on another kind
        f"{ann}.notify.{'A' * len(signature)}",  # a made-up signature
        f"{ann}.notify",  # none
        f"{ann}.signin.{unsubscribe_token(store, ann, 'signin').rsplit('.', 1)[1]}",  # a kind one cannot turn off
        "x.notify.abc",
    ]
    for token in forged:
        for r in (
            _stranger(site).get(f"/unsubscribe/{token}"),
            _stranger(site).post(f"/unsubscribe/{token}", data=ONE_CLICK),
        ):
            assert r.status_code == 404 and "This unsubscribe link is not valid" in r.text, token
    assert _email_choices(site, ann) == before

    # The right token, but a POST without RFC 8058's body: refused, nothing changed.
    own = unsubscribe_token(store, ann, "notify")
    r = _stranger(site).post(f"/unsubscribe/{own}", data={"List-Unsubscribe": "yes"})
    assert r.status_code == 400 and "List-Unsubscribe=One-Click" in r.text
    assert _email_choices(site, ann) == before
    # Eve's own token turns off Eve's mail, not Ann's.
    assert _stranger(site).post(f"/unsubscribe/{eves}", data=ONE_CLICK).status_code == 200
    assert not any(_email_choices(site, eve).values()) and _email_choices(site, ann) == before


@pytest.mark.parametrize(
    "head",
    [
        "%C2%B2",  # '²': str.isdigit() says yes, int() refuses (the review's 500)
        "%C2%B9%C2%B2%C2%B3",  # '¹²³'
        "%D9%A1%D9%A2",  # '١٢': Arabic-Indic digits, which int() would read as 12
        "1_2",
        "%201",
        "-1",
        "0",
        "9" * 19,
        "9" * 4400,  # past Python's own limit for int() of a string
    ],
)
def test_a_typed_number_in_the_token_is_an_invalid_link_never_an_error(site: Site, head: str) -> None:
    """Security review of issue 52, finding 7: ``/unsubscribe/%C2%B2.press.x`` answered 500 to anyone (GET, and the
    one-click POST). The person's id is read by the project's number reader (ASCII digits, bounded)."""
    create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    for what in ("press", "notify", "notify:deadline", "notify:%D9%A1"):
        path = f"/unsubscribe/{head}.{what}.x"
        for r in (_stranger(site).get(path), _stranger(site).post(path, data=ONE_CLICK)):
            assert r.status_code == 404 and "This unsubscribe link is not valid" in r.text, (path, r.status_code)
