"""Press by mail through real local servers (aiosmtpd for what we send, Dovecot for what comes back): in a game
whose mail takes replies, each recipient who takes press by e-mail gets one copy carrying their own reply code,
a reply lands in the same channel under the same rules, and a spoofed reply (a made-up code, another power's
code, a forged From) is refused; nobody gets two e-mails for one message."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

import dippouch.store.press.messages as press
from dbsupport import migrated_sqlite
from dippouch import notify
from dippouch.mail.intake import fetch_mailbox
from dippouch.mail.notices import setup as mail_setup
from dippouch.mail.outbox import send_due
from dippouch.mail.settings import load_settings
from dippouch.notify.events import save_preferences
from dippouch.notify.scan import scan
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.people.persons import create_person, seat_person
from mailservers import ImapServer, SmtpServer, worker_mail_env

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
ADDR = {"England": "england@example.org", "France": "france@example.org", "Germany": "germany@example.org"}


@pytest.fixture
def store(tmp_path: Path, smtp: SmtpServer, imap: ImapServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    env = worker_mail_env(imap, smtp, tmp_path, "press@dippouch.example")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(s, "g", "standard", now=T0)
    for p in ("England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"):
        store_games.assign(s, "g", p, f"{p} player", now=T0)
    for p, a in ADDR.items():
        store_games.set_email(s, "g", p, a, now=T0)
    mail_setup(s, "g", now=T0, changes={})  # the game's mail takes replies: copies go
    yield s
    s.close()


def _reply(copy: EmailMessage, sender: str, text: str, subject: str | None = None) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = str(copy["From"])
    m["Subject"] = subject if subject is not None else "Re: " + str(copy["Subject"])
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["In-Reply-To"] = str(copy["Message-ID"])
    m["Date"] = email.utils.format_datetime(T0)
    quoted = "\n".join("> " + ln for ln in str(copy.get_content()).splitlines())
    m.set_content(f"{text}\n\nOn Mon, someone wrote:\n{quoted}\n")
    return m.as_bytes()


def _send(store: GameStore, now: datetime) -> None:
    report = send_due(store, now, load_settings("smtp"))
    assert report.server_down is None and not report.failed


def test_copies_go_out_once_and_a_reply_lands_in_the_same_channel(
    store: GameStore, smtp: SmtpServer, imap: ImapServer
) -> None:
    sent = press.send(store, "g", "England", ["France", "Germany"], "Shall we share Belgium?", now=T0)
    assert sent.mailed == 2
    _send(store, T0)
    _send(store, T0 + timedelta(minutes=1))  # nothing sent twice
    to_france, to_germany = smtp.to(ADDR["France"]), smtp.to(ADDR["Germany"])
    assert len(to_france) == 1 and len(to_germany) == 1 and smtp.to(ADDR["England"]) == []
    assert "Shall we share Belgium?" in to_france[0].get_content()
    assert to_france[0]["Subject"] != to_germany[0]["Subject"]  # each recipient's own code

    imap.append(_reply(to_france[0], ADDR["France"], "Yes, if Holland is mine."))
    outcomes = fetch_mailbox(store, load_settings("imap"), now=T0 + timedelta(minutes=5))
    assert [o.status for o in outcomes] == ["accepted"], [o.line() for o in outcomes]
    page = press.channel_page(store, "g", sent.channel_id, power="Germany")
    assert [(m.sender, m.text) for m in page.messages] == [
        ("England", "Shall we share Belgium?"),
        ("France", "Yes, if Holland is mine."),
    ]
    _send(store, T0 + timedelta(minutes=6))
    # The reply goes on by mail to the channel's other members, and France gets word it was passed on.
    assert "Yes, if Holland is mine." in smtp.to(ADDR["Germany"])[-1].get_content()
    assert smtp.to(ADDR["France"])[-1]["Subject"].startswith("Sent: ")


def test_spoofed_replies_are_refused_and_nothing_lands(store: GameStore, smtp: SmtpServer, imap: ImapServer) -> None:
    sent = press.send(store, "g", "England", ["France", "Germany"], "Plans", now=T0)
    _send(store, T0)
    to_france = smtp.to(ADDR["France"])[-1]
    # A forged From with France's address but a code we never sent.
    forged = str(to_france["Subject"]).rsplit("[press ", 1)[0] + "[press pr-aaaaaaaaaaaa]"
    imap.append(_reply(to_france, ADDR["France"], "forged one", subject="Re: " + forged))
    # Germany's player answering with France's copy (another power's code).
    imap.append(_reply(to_france, ADDR["Germany"], "as France"))
    # Someone else with France's copy (a From that is not the code's address).
    imap.append(_reply(to_france, "mallory@evil.example", "I am France"))
    outcomes = fetch_mailbox(store, load_settings("imap"), now=T0 + timedelta(minutes=5))
    mine = [o for o in outcomes if o.status in ("accepted", "refused")]
    assert [o.status for o in mine][-3:] == ["refused", "refused", "refused"], [o.line() for o in outcomes]
    assert "not one we sent" in mine[-3].reason
    assert "not sent to this address" in mine[-2].reason and "not sent to this address" in mine[-1].reason
    texts = [m.text for m in press.channel_page(store, "g", sent.channel_id, power="England").messages]
    assert texts == ["Plans"]


def test_a_reply_by_mail_obeys_the_press_rules(store: GameStore, smtp: SmtpServer, imap: ImapServer) -> None:
    sent = press.send(store, "g", "England", ["France"], "Private word", now=T0)
    _send(store, T0)
    press.set_press_rules(store, "g", {"kind": "public"}, now=T0)
    imap.append(_reply(smtp.to(ADDR["France"])[-1], ADDR["France"], "Private answer"))
    outcomes = fetch_mailbox(store, load_settings("imap"), now=T0 + timedelta(minutes=5))
    assert outcomes[-1].status == "refused" and "public press only" in outcomes[-1].reason
    assert [m.text for m in press.channel_page(store, "g", sent.channel_id, power="England").messages] == [
        "Private word"
    ]
    _send(store, T0 + timedelta(minutes=6))
    assert "public press only" in smtp.to(ADDR["France"])[-1].get_content()


def _press_by_mail(store: GameStore, pid: int, on: bool) -> None:
    choices = {(e, c): c == "email" and (e != "message_received" or on) for e in notify.EVENTS for c in notify.CHANNELS}
    save_preferences(store, pid, choices, deadline_hours=None)


def _mails_for(smtp: SmtpServer, address: str, text: str) -> list[EmailMessage]:
    return [m for m in smtp.to(address) if text in str(m.get_content())]


def test_one_email_per_message_the_copy_where_mail_takes_replies_else_the_notification(
    store: GameStore, smtp: SmtpServer
) -> None:
    scan(store, T0)  # notifications start here (the game's start is told and out of the way)
    # Germany's seat is a person's who chose press by e-mail; Italy's a person's who did not (the default).
    gerd = create_person(store, "Gerd", now=T0, email=ADDR["Germany"])
    seat_person(store, "g", "Germany", gerd, now=T0)
    _press_by_mail(store, gerd, True)
    ida = create_person(store, "Ida", now=T0, email="ida@example.org")
    store_games.set_email(store, "g", "Italy", "ida@example.org", now=T0)
    seat_person(store, "g", "Italy", ida, now=T0)

    sent = press.send(store, "g", "England", ["France", "Germany", "Italy"], "Three of us", now=T0)
    assert sent.mailed == 2  # France (an address, no person: mail is their way in) and Germany (chose it)
    scan(store, T0 + timedelta(minutes=1))
    notify.deliver_due(store, T0 + timedelta(minutes=1))
    _send(store, T0 + timedelta(minutes=1))
    to_germany = _mails_for(smtp, ADDR["Germany"], "Three of us")
    assert len(to_germany) == 1 and "[press pr-" in str(to_germany[0]["Subject"])  # the copy, not a notification too
    assert len(_mails_for(smtp, ADDR["France"], "Three of us")) == 1
    assert _mails_for(smtp, "ida@example.org", "Three of us") == []  # Ida chose no press by e-mail

    # A game whose mail is not set up: no copy (a reply would not be read); the notification is the e-mail.
    store_games.create_game(store, "h", "standard", now=T0)
    for p in ("England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"):
        store_games.assign(store, "h", p, f"{p} player", now=T0)
    store_games.set_email(store, "h", "France", ADDR["France"], now=T0)
    store_games.set_email(store, "h", "Germany", ADDR["Germany"], now=T0)
    seat_person(store, "h", "Germany", gerd, now=T0)
    t = T0 + timedelta(minutes=10)
    later = press.send(store, "h", "England", ["France", "Germany"], "Not by reply", now=t)
    assert later.mailed == 0
    scan(store, t + timedelta(minutes=1))
    notify.deliver_due(store, t + timedelta(minutes=1))
    _send(store, t + timedelta(minutes=1))
    to_germany = _mails_for(smtp, ADDR["Germany"], "Not by reply")
    assert len(to_germany) == 1 and "[press pr-" not in str(to_germany[0]["Subject"])
    assert "a message from England" in str(to_germany[0]["Subject"])
    assert _mails_for(smtp, ADDR["France"], "Not by reply") == []  # no person, no choice: the page tells them

    # Germany changes their mind: no press by e-mail, neither copy nor notification.
    _press_by_mail(store, gerd, False)
    t2 = t + timedelta(minutes=10)
    press.send(store, "g", "England", ["Germany"], "Quiet now", now=t2)
    press.send(store, "h", "England", ["Germany"], "Quiet here too", now=t2)
    scan(store, t2 + timedelta(minutes=1))
    notify.deliver_due(store, t2 + timedelta(minutes=1))
    _send(store, t2 + timedelta(minutes=1))
    assert _mails_for(smtp, ADDR["Germany"], "Quiet") == []


def test_a_refused_reply_is_answered_in_the_games_language(
    store: GameStore, smtp: SmtpServer, imap: ImapServer
) -> None:
    """The refusal is a message value: the mail log keeps it in English (the coordinator's tools read it), the
    answer says it in the game's language (a German game's answer said it in English inside German text)."""
    from dippouch.game import GameSettings

    store_games.create_game(store, "h", "standard", now=T0, settings=GameSettings(language="de"))
    for p in ("England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"):
        store_games.assign(store, "h", p, f"{p} player", now=T0)
    for p, a in ADDR.items():
        store_games.set_email(store, "h", p, a, now=T0)
    mail_setup(store, "h", now=T0, changes={})
    press.send(store, "h", "England", ["France"], "Pläne", now=T0)
    _send(store, T0)
    imap.append(_reply(smtp.to(ADDR["France"])[-1], ADDR["Germany"], "als Frankreich"))
    outcomes = fetch_mailbox(store, load_settings("imap"), now=T0 + timedelta(minutes=5))
    assert outcomes[-1].status == "refused" and "not sent to this address" in outcomes[-1].reason
    _send(store, T0 + timedelta(minutes=6))
    answer = smtp.to(ADDR["Germany"])[-1].get_content()
    assert "der Pressecode im Betreff wurde nicht an diese Adresse geschickt" in answer, answer
    assert "press code" not in answer
