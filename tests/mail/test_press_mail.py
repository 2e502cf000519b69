"""Press by mail through real local servers (aiosmtpd for what we send, Dovecot for what comes back): each
recipient with an address gets one copy carrying their own reply code, a reply lands in the same channel under
the same rules, and a spoofed reply (a made-up code, another power's code, a forged From) is refused."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

import dippouch.store.press as press
from dippouch.mail.intake import fetch_mailbox
from dippouch.mail.outbox import send_due
from dippouch.mail.settings import load_settings
from dippouch.store import GameStore
from mailservers import ImapServer, SmtpServer

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
ADDR = {"England": "england@example.org", "France": "france@example.org", "Germany": "germany@example.org"}


@pytest.fixture
def store(tmp_path: Path, smtp: SmtpServer, imap: ImapServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameStore]:
    pw = tmp_path / "imap-password"
    pw.write_text(imap.password + "\n")
    pw.chmod(0o600)
    env = {
        "DIPPOUCH_IMAP_HOST": "127.0.0.1",
        "DIPPOUCH_IMAP_PORT": str(imap.tls_port),
        "DIPPOUCH_IMAP_USER": imap.user,
        "DIPPOUCH_IMAP_PASSWORD_FILE": str(pw),
        "DIPPOUCH_IMAP_CA_FILE": str(imap.cert),
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "press@dippouch.example",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
    s.create_game("g", "standard", now=T0)
    for p in ("England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"):
        s.assign("g", p, f"{p} player", now=T0)
    for p, a in ADDR.items():
        s.set_email("g", p, a, now=T0)
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
