"""The W3K coordinator's season by mail, against real servers: Dovecot (IMAP over TLS) for orders in,
aiosmtpd (STARTTLS with a login) for receipts, replies, reminders and results out.

Three powers write in: Montrose (first orders by post, a revision by e-mail with a typo in the subject and
one in an order), Argyll (from an address that is not the registered one), Ormond (after the deadline);
a stranger writes too. Before the deadline every coordinator view is sealed.
"""

from __future__ import annotations

import calendar
import email.utils
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.cli import app
from mailservers import ImapServer, SmtpServer, start_smtp, worker_mail_env


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


# In the past: Dovecot keeps an APPEND date (INTERNALDATE) only if it is not in the future.
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
GAME = "Powick Bridge"
ADDR = {"Montrose": "montrose@example.org", "Argyll": "argyll@example.org", "Ormond": "ormond@example.org"}
# Order-shaped: the game file also holds its variant (every province name), which is no secret.
SECRET_TOKENS = ("- nhb", "- fth", "twd - edinburg", "A tev H", "A arg - dnb", "A mea - dro", "tev -")


def at(days: float) -> str:
    return (T0 + timedelta(days=days)).isoformat()


def mail(sender: str, subject: str, body: str, *, attach: tuple[str, str, bytes] | None = None) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "orders@w3k.example"
    m["Subject"] = subject
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(T0)
    m.set_content(body)
    if attach:
        maintype, subtype = attach[1].split("/")
        m.add_attachment(attach[2], maintype=maintype, subtype=subtype, filename=attach[0])
    return m.as_bytes()


def epoch(days: float) -> float:
    return calendar.timegm((T0 + timedelta(days=days)).utctimetuple())


@pytest.fixture
def smtp_tls(tmp_path: Path) -> Iterator[SmtpServer]:
    server = start_smtp(tls_dir=tmp_path, user="dippouch", password="smtp-pass")
    yield server
    server.controller.stop()


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.output


def test_a_season_by_mail(
    tmp_path: Path, imap: ImapServer, smtp_tls: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'w3k.db'}"
    env = {"DIPPOUCH_DATABASE_URL": db, **worker_mail_env(imap, smtp_tls, tmp_path, "orders@w3k.example")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)

    run("new", GAME, "--variant", "w3k", "--movement", "12d", "--now", at(0))
    for power, addr in ADDR.items():
        run("players", "assign", GAME, power, f"{power} player", "--email", addr, "--now", at(0))
    run("mail", "setup", GAME, "--reminders", "48h,12h", "--now", at(0))

    # Montrose's first orders come by post: the coordinator types them in, with the day the letter came.
    letter = tmp_path / "montrose-letter.txt"
    letter.write_text("Version 1\nA tev H\nF edi H\nA twd H\n")
    out = run("submit", GAME, "Montrose", str(letter), "--source", "post", "--received", at(2), "--now", at(3))
    assert "post submission version 1 recorded, received 2025-01-08 09:00 UTC" in out

    # Mail arrives at the orders address.
    imap.append(
        mail(
            ADDR["Montrose"],
            "Re: Powik Bridge - Montrose - Sumer 1642 Movement - v2",
            "Montrose\nPowick Bridge\nSummer 1642 Movement Orders\nVersion 2\n\nA tev - nhb\nF edi - fth\n"
            "A twd - edinburg\n\n> A sky - old quoted line\n-- \nJames Graham\n",
        ),
        epoch(5),
    )
    imap.append(
        mail("argyll.holiday@example.net", "Powick Bridge - Argyll - Summer 1642 Movement - v1", "A arg - dnb\n"),
        epoch(5.5),
    )
    imap.append(mail("stranger@example.com", "hello there", "Is this the orders address?"), epoch(6))

    out = run("mail", "fetch", "--now", at(6))
    assert "3 messages from" in out and "1 accepted" in out and "1 held" in out and "1 refused" in out
    for token in SECRET_TOKENS:
        assert token not in out
    run("mail", "send", "--now", at(6))

    receipt = smtp_tls.to(ADDR["Montrose"])[-1]
    body = receipt.get_content()
    assert receipt["Subject"] == "Receipt: Powick Bridge - Montrose - Summer 1642 Movement - version 2"
    assert "recorded as version 2" in body
    assert "accepted  A Teviotdale & Liddesdale - Northumberland" in body and "accepted  F Edinburgh - Forth" in body
    assert "REJECTED  A twd - edinburg" in body and "did you mean" in body
    assert "Deadline: 2025-01-18 09:00 UTC" in body
    assert "read 'powik bridge' as the game Powick Bridge" in body and "read 'sumer' as Summer" in body
    assert "Powick Bridge - Montrose - Summer 1642 Movement - v3" in body
    assert "quoted line" in body  # the receipt says the quoted lines were ignored
    held = smtp_tls.to("argyll.holiday@example.net")[-1].get_content()
    assert "not the address registered for Argyll" in held and "nothing applied" in held
    assert "came from argyll.holiday@example.net" in smtp_tls.to(ADDR["Argyll"])[-1].get_content()
    stranger = smtp_tls.to("stranger@example.com")[-1].get_content()
    assert "names no game" in stranger and "Game Name - Power Name" in stranger
    assert "games:" not in stranger  # the games here are not listed to strangers

    # Sealed: every coordinator view before the deadline shows who and when, never what.
    views = [
        ("status", GAME, "--now", at(7)),
        ("show", GAME, "Summer 1642 Movement", "--now", at(7)),
        ("show", GAME, "Summer 1642 Movement", "--json", "--now", at(7)),
        ("history", GAME),
        ("report", GAME, "Summer 1642 Movement"),
        ("export", GAME, "--now", at(7)),
        ("games",),
        ("players", "list", GAME),
        ("mail", "list"),
        ("mail", "list", GAME, "--status", "held"),
        ("mail", "show", "1", "--now", at(7)),
        ("mail", "show", "2", "--now", at(7)),
        ("mail", "outbox", "--all"),
        ("calendar", GAME),
    ]
    for view in views:
        result = CliRunner().invoke(app, list(view))
        shown = result.output
        for token in SECRET_TOKENS:
            assert token not in shown, (view, token)
    shown = run("show", GAME, "Summer 1642 Movement", "--now", at(7))
    assert "Montrose v1" in shown and "Montrose v2" in shown and "sealed until the deadline" in shown

    # Reminders 12 hours before the deadline: to powers with no valid orders (Argyll's mail is held).
    run("mail", "send", "--now", at(11.6))
    reminded = {str(m["To"]) for m in smtp_tls.messages if "reminder" in str(m["Subject"])}
    assert reminded == {ADDR["Argyll"], ADDR["Ormond"]}
    run("mail", "send", "--now", at(11.7))  # nothing twice
    assert len([m for m in smtp_tls.messages if "reminder" in str(m["Subject"])]) == 2

    # Ormond writes after the deadline.
    imap.append(
        mail(ADDR["Ormond"], "Powick Bridge - Ormond - Summer 1642 Movement - v1", "A mea - dro\n"), epoch(12.5)
    )
    out = run("mail", "fetch", "--now", at(12.6))
    assert "1 late" in out
    # After the deadline the coordinator may read everything.
    shown = run("show", GAME, "Summer 1642 Movement", "--now", at(12.6))
    assert "A tev - nhb" in shown and "LATE" in shown
    # Argyll's held message waits for the coordinator: the phase is not processed until it is settled.
    out = run("process", GAME, "--now", at(12.7))
    assert "AWAITS REVIEW" in out and f"mail review {GAME}" in out
    out = run("mail", "review", GAME, "--now", at(12.7))
    assert "held message #2 from argyll.holiday@example.net for Argyll" in out and "mail dismiss 2" in out
    out = run("mail", "dismiss", "2")
    run("process", GAME, "--now", at(12.7))
    run("mail", "send", "--now", at(12.8))

    late = [m for m in smtp_tls.to(ADDR["Ormond"]) if "Receipt" in str(m["Subject"])][-1].get_content()
    assert "AFTER THE DEADLINE" in late
    results = [m for m in smtp_tls.messages if "results" in str(m["Subject"])]
    assert sorted(str(m["To"]) for m in results) == sorted(ADDR.values())
    text = results[0].get_content()
    assert "Summer 1642 Movement results" in text
    # Reports name places in full; the late order was not used.
    assert "A Teviotdale & Liddesdale - Northumberland" in text and "A County Meath - Drogheda" not in text
    # Each message once.
    ids = smtp_tls.ids()
    assert len(ids) == len(set(ids))


def test_password_is_never_an_option(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    for cmd in (["mail", "fetch"], ["mail", "send"]):
        result = CliRunner().invoke(app, [*cmd, "--password", "hunter2", "--db", db])
        assert result.exit_code == 2
        assert "passwords are never taken on the command line" in result.output
        assert "hunter2" not in result.output


def test_settings_file_may_not_hold_a_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "mail.toml"
    cfg.write_text('[smtp]\nhost = "127.0.0.1"\npassword = "hunter2"\n')
    result = CliRunner().invoke(app, ["mail", "send", "--config", str(cfg), "--db", f"sqlite:///{tmp_path / 'g.db'}"])
    assert result.exit_code == 2
    assert "a password is not kept in a settings file" in result.output


def test_plain_imap_is_refused_off_this_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_IMAP_PASSWORD", "x")
    result = CliRunner().invoke(
        app,
        ["mail", "fetch", "--host", "mail.example.org", "--user", "u", "--security", "none", "--db",
         f"sqlite:///{tmp_path / 'g.db'}"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "password in clear" in result.output


def test_plain_imap_on_this_machine_and_fetch_once(
    tmp_path: Path, imap: ImapServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain IMAP to localhost works; each message is taken once, however often fetch runs."""
    monkeypatch.setenv("DIPPOUCH_IMAP_PASSWORD", imap.password)
    db = f"sqlite:///{tmp_path / 'g.db'}"
    args = ["mail", "fetch", "--host", "127.0.0.1", "--port", str(imap.port), "--security", "none",
            "--user", imap.user, "--db", db, "--now", at(1)]  # fmt: skip
    first = run(*args)
    second = run(*args)
    assert "nothing new" in second
    assert re.search(r"\d+ messages? from", first), first
