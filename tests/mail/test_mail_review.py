"""Photographed revisions count when phases are processed automatically: the phase waits at its deadline for
the coordinator's review, against real servers (Dovecot for orders in, aiosmtpd for receipts and results out)
and tesseract reading an image drawn from text.

Two ways of running a W3K season: cron's ``mail fetch && process --all`` (the coordinator's clock given with
``--now``), and ``dippouch worker --once`` (the database's clock, a game whose deadline really passed). In both
the coordinator then does what the tool asks (review, confirm, release) and the photographed orders are what
the phase carried out.
"""

from __future__ import annotations

import email.utils
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.cli import app
from dippouch.store import GameStore
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from mailservers import ImapServer, SmtpServer, start_smtp, worker_mail_env
from photosupport import need_tesseract, photo


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


GAME = "Powick Bridge"
ADDR = {"Montrose": "montrose@example.org", "Argyll": "argyll@example.org", "Ormond": "ormond@example.org"}
# In the past: Dovecot keeps an APPEND date (INTERNALDATE) only if it is not in the future.
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
SHEET = ["James Graham", "Montrose", "Powick Bridge", "Summer 1642 Movement Orders", "Version 2"]
PHOTO_ORDERS = ["A tev - nhb", "F edi - fth"]
FULL = ["A Teviotdale & Liddesdale - Northumberland", "F Edinburgh - Forth"]


def at(days: float) -> str:
    return (T0 + timedelta(days=days)).isoformat()


def epoch(days: float, base: datetime = T0) -> float:
    return (base + timedelta(days=days)).timestamp()


def mail(
    sender: str, subject: str, body: str, *, image: bytes | None = None, ctype: str = "image/jpeg", name: str = "a.jpg"
) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@w3k.example", subject
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m["Date"] = email.utils.format_datetime(T0)
    m.set_content(body)
    if image is not None:
        maintype, subtype = ctype.split("/")
        m.add_attachment(image, maintype=maintype, subtype=subtype, filename=name)
    return m.as_bytes()


# The IMAP server, the SMTP server and the environment the commands run in.
Servers = tuple[ImapServer, SmtpServer, dict[str, str]]


@pytest.fixture
def servers(tmp_path: Path, imap: ImapServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Servers]:
    smtp = start_smtp(tls_dir=tmp_path, user="dippouch", password="smtp-pass")
    env = {
        "DIPPOUCH_DATABASE_URL": f"sqlite:///{tmp_path / 'w3k.db'}",
        **worker_mail_env(imap, smtp, tmp_path, "orders@w3k.example"),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    yield imap, smtp, env
    smtp.controller.stop()


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return result.output


def refused(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2, (args, result.output)
    return result.output


def _attachment_id(review_text: str, power: str) -> str:
    line = next(ln for ln in review_text.splitlines() if ln.startswith("photograph #") and f"from {power}" in ln)
    return line.split("#")[1].split()[0]


def _montrose_orders(db: str) -> list[str]:
    store = GameStore(db)
    try:
        rec = store_history.phase_record(store, GAME, "Summer 1642 Movement")
        return list(rec["orders"].get("Montrose", []))
    finally:
        store.close()


def test_a_photographed_revision_counts_when_cron_fetches_then_processes(servers: Servers) -> None:
    need_tesseract()
    mailbox, smtp, env = servers
    run("new", GAME, "--variant", "w3k", "--movement", "12d", "--now", at(0))
    for power, addr in ADDR.items():
        run("players", "assign", GAME, power, f"{power} player", "--email", addr, "--now", at(0))
    run("mail", "setup", GAME, "--alias", "Montrose=James Graham", "--now", at(0))
    # First orders by post (the letter's Annexe 3 heading is taken off, not kept as rejected lines).
    letter = Path(env["DIPPOUCH_DATABASE_URL"].removeprefix("sqlite:///")).parent / "letter.txt"
    letter.write_text("James Graham\nMontrose\nPowick Bridge\nSummer 1642 Movement Orders\nA tev H\nF edi H\n")
    out = run("submit", GAME, "Montrose", str(letter), "--source", "post", "--received", at(2), "--now", at(3))
    assert "2 orders accepted, 0 rejected" in out

    # The revision: a photograph of a typed sheet, e-mailed before the deadline with a polite note.
    image = photo([*SHEET, *PHOTO_ORDERS], angle=-1.0, seed=5)
    mailbox.append(
        mail(
            ADDR["Montrose"],
            "Powick Bridge - Montrose - Summer 1642 Movement - v2",
            "Dear Coordinator,\nplease find my revised orders attached.\nYours, James\n",
            image=image,
        ),
        epoch(5),
    )
    out = run("mail", "fetch", "--now", at(6))
    assert "1 photo" in out
    run("mail", "send", "--now", at(6))
    receipt = smtp.to(ADDR["Montrose"])[-1].get_content()
    assert "not processed until the coordinator has reviewed it" in receipt
    assert "not a submission" in receipt  # the polite note is not a rejected version
    status = run("status", GAME, "--now", at(7))
    # Montrose's post stands; its photograph is on its way, and status says so.
    assert "Photographed orders to be reviewed by the coordinator after the deadline" in status
    assert "Montrose received 2025-01-11 09:00 UTC" in status

    # Reminders: Montrose sent a photograph and is not told "no orders"; the others are.
    run("mail", "send", "--now", at(11.6))
    reminded = {str(m["To"]) for m in smtp.messages if "reminder" in str(m["Subject"])}
    assert reminded == {ADDR["Argyll"], ADDR["Ormond"]}

    # At the deadline, cron fetches then processes: the phase waits for the coordinator.
    out = run("mail", "fetch", "--now", at(12.1))
    out = run("process", "--all", "--now", at(12.1))
    assert "Processed 0 phases" in out and "AWAITS REVIEW" in out and f"mail review {GAME}" in out
    status = run("status", GAME, "--now", at(12.2))
    assert "AWAITING REVIEW" in status and "Summer 1642 Movement" in status

    # The coordinator does what the tool asks: review, confirm.
    review = run("mail", "review", GAME, "--now", at(12.3))
    assert "WAITS FOR YOU" in review and "proposed transcription" in review
    for full in FULL:
        assert f"ok        {full}" in review, review
    assert "AWAITING REVIEW" in review and f"mail confirm {_attachment_id(review, 'Montrose')}" in review
    out = run("mail", "confirm", _attachment_id(review, "Montrose"), "--now", at(12.3))
    assert "recorded as Montrose version 2" in out and "Nothing waits for review any more" in out
    out = run("process", "--all", "--now", at(12.4))
    assert "Processed 1 phase " in out
    assert _montrose_orders(env["DIPPOUCH_DATABASE_URL"]) == PHOTO_ORDERS
    run("mail", "send", "--now", at(12.5))
    results = [m for m in smtp.to(ADDR["Montrose"]) if "results" in str(m["Subject"])][-1].get_content()
    assert FULL[0] in results and "not reviewed" not in results


def _dippouch(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from dippouch.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout + done.stderr


@pytest.mark.slow
def test_a_photographed_revision_counts_when_a_worker_processes_the_phase(servers: Servers) -> None:
    """``worker --once`` by the database's clock: it fetches the mail itself before the phase is due, the
    phase waits for review, and the coordinator's confirmation and release are what it then carries out."""
    need_tesseract()
    mailbox, smtp, env = servers
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    db = env["DIPPOUCH_DATABASE_URL"]
    run("new", GAME, "--variant", "w3k", "--movement", "1d", "--now", start.isoformat())
    for power, addr in ADDR.items():
        run("players", "assign", GAME, power, f"{power} player", "--email", addr, "--now", start.isoformat())
    run("mail", "setup", GAME, "--now", start.isoformat())
    # Before the deadline (a day after the start, a day ago): Montrose's photographed orders; Argyll's
    # photograph holds no orders (a blank page); both wait for the coordinator.
    image = photo(["Montrose", "Summer 1642 Movement Orders", *PHOTO_ORDERS], angle=0.8, seed=9)
    mailbox.append(
        mail(ADDR["Montrose"], f"{GAME} - Montrose - Summer 1642 Movement - v1", "", image=image), epoch(0.5, start)
    )
    blank = photo([" "], angle=0, noise=0)
    mailbox.append(mail(ADDR["Argyll"], f"{GAME} - Argyll - Summer 1642 Movement", "", image=blank), epoch(0.6, start))

    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "0 phases processed" in out
    store = GameStore(db)
    assert store_status.status(store, GAME, now=datetime.now(UTC)).phase == "Summer 1642 Movement"
    store.close()
    receipts = [m for m in smtp.to(ADDR["Montrose"]) if "Receipt" in str(m["Subject"])]
    assert receipts and "reviewed" in receipts[-1].get_content()  # the worker sent it

    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "0 phases processed" in out  # still waiting: nobody has reviewed

    review = run("mail", "review", GAME)
    montrose, argyll = _attachment_id(review, "Montrose"), _attachment_id(review, "Argyll")
    for full in FULL:
        assert f"ok        {full}" in review, review
    run("mail", "confirm", montrose)
    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "0 phases processed" in out  # Argyll's photograph still waits
    out = run("mail", "release", GAME)
    assert f"photograph #{argyll}" in out and "unreviewed, not used" in out
    out = _dippouch(env, "worker", "--once", "--nice", "0")
    assert "1 phase processed" in out
    assert _montrose_orders(db) == PHOTO_ORDERS
    store = GameStore(db)
    rec = store_history.phase_record(store, GAME, "Summer 1642 Movement")
    store.close()
    assert "Argyll" not in rec["missed"] and "Montrose" not in rec["missed"]  # they sent orders on time
    assert "Ormond" in rec["missed"]
    results = [m for m in smtp.to(ADDR["Argyll"]) if "results" in str(m["Subject"])][-1].get_content()
    assert f"photograph #{argyll}" in results and "not reviewed" in results
