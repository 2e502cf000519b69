"""Mail a coordinator downloaded: `dippouch mail fetch` reads an .eml file, a folder of them, an mbox and a
Maildir; the same message in two of them is taken once; a path that is not there, or a file that is not
mail, is one clear line, never a traceback."""

from __future__ import annotations

import email.utils
import mailbox
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dbsupport import migrated_sqlite
from dippouch.cli import app
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ADDR = {"France": "fr@example.org", "Germany": "de@example.org", "Italy": "it@example.org", "Russia": "ru@example.org"}


def mail(power: str, body: str, hours: int) -> EmailMessage:
    m = EmailMessage()
    m["From"] = ADDR[power]
    m["To"] = "orders@example.org"
    m["Subject"] = f"demo - {power} - Spring 1901 Movement - v1"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    when = email.utils.format_datetime(T0.replace(hour=9 + hours))
    m["Received"] = f"from mx.example.org by orders.example.org; {when}"
    m["Date"] = when
    m.set_content(body)
    return m


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (args, result.output)
    assert "Traceback" not in result.output
    return result.output


def test_eml_folder_mbox_and_maildir(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    now = "--now", "2026-12-01T18:00:00+00:00"
    run("new", "demo", "--db", db, "--now", T0.isoformat())
    for power, addr in ADDR.items():
        run("players", "assign", "demo", power, f"{power} player", "--email", addr, "--db", db, "--now", T0.isoformat())

    france = mail("France", "A par - bur\n", 1)
    one = tmp_path / "france.eml"
    one.write_bytes(france.as_bytes())
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "germany.eml").write_bytes(mail("Germany", "A mun - ruh\n", 2).as_bytes())
    (folder / "notes.txt").write_text("not mail, and not an .eml: skipped")
    box = mailbox.mbox(str(tmp_path / "inbox.mbox"))
    box.add(mail("Italy", "A ven - tyr\n", 3))
    box.add(france)  # the same message again: taken once
    box.flush()
    md = mailbox.Maildir(str(tmp_path / "Maildir"), create=True)
    md.add(mail("Russia", "A mos - ukr\n", 4))
    md.flush()

    out = run(
        "mail",
        "fetch",
        str(one),
        str(folder),
        str(tmp_path / "inbox.mbox"),
        str(tmp_path / "Maildir"),
        "--db",
        db,
        *now,
    )
    assert "4 accepted" in out, out
    for token in ("par - bur", "mun - ruh", "ven - tyr", "mos - ukr"):
        assert token not in out  # sealed: fetch never prints orders
    status = run("status", "demo", "--db", db, *now)
    for power in ADDR:
        assert any(power in line and "v1" in line for line in status.splitlines()), status
    again = run("mail", "fetch", str(one), str(tmp_path / "inbox.mbox"), "--db", db, *now)
    assert "accepted" not in re.split(r"messages? from", again)[-1], again

    # The received time of a downloaded message is the one its Received header gives, not the moment of fetch.
    listed = run("mail", "list", "--db", db)
    assert "10:00" in listed and "11:00" in listed, listed

    missing = run("mail", "fetch", str(tmp_path / "nowhere.mbox"), "--db", db, *now, code=2)
    assert "no file or folder" in missing
    junk = tmp_path / "junk.eml"
    junk.write_bytes(b"\x00\xff\xfe not a message at all \x00" * 50)
    out = run("mail", "fetch", str(junk), "--db", db, *now)
    assert "1 message from" in out


def test_orders_in_a_text_attachment_or_html_only(tmp_path: Path) -> None:
    """An empty body with the orders in a text file attached, and a mail program that sends HTML only: both
    become the power's orders, checked line by line, and the receipt says where they were read."""
    from dippouch.mail.intake import take_in
    from dippouch.store import GameStore
    from dippouch.store.mail.models import OutboxRow

    store = GameStore(migrated_sqlite(tmp_path / "a.db"))
    store_games.create_game(store, "demo", "standard", now=T0)
    store_games.assign(store, "demo", "France", "Fran", now=T0, email=ADDR["France"])
    store_games.assign(store, "demo", "Germany", "Gerd", now=T0, email=ADDR["Germany"])

    m = mail("France", "", 1)
    m.add_attachment(b"A par - bur\r\nF bre - mid\r\n", maintype="text", subtype="plain", filename="orders.txt")
    o = take_in(store, m.as_bytes(), now=T0.replace(hour=12))
    assert o.status == "accepted", o.line()
    h = EmailMessage()
    for k in ("From", "To", "Subject", "Message-ID", "Received"):
        h[k] = mail("Germany", "", 2)[k]
    h.set_content("<p>A mun - ruh<br>F kie - hol</p><p>-- <br>Gerd</p>", subtype="html")
    o = take_in(store, h.as_bytes(), now=T0.replace(hour=12))
    assert o.status == "accepted", o.line()

    rec = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    orders = {sub["power"]: [ln["order"] for ln in sub["lines"] if not ln.get("error")] for sub in rec["submissions"]}
    assert orders == {"France": ["A par - bur", "F bre - mao"], "Germany": ["A mun - ruh", "F kie - hol"]}
    with store.session() as s:
        receipts = {r.to_addr: r.body for r in s.query(OutboxRow) if r.kind == "receipt"}
    assert "orders read from the attachment orders.txt" in receipts[ADDR["France"]]
    assert "accepted  A Munich - Ruhr" in receipts[ADDR["Germany"]]


def test_orders_by_mail_for_a_phase_processed_meanwhile_are_refused_not_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The processing race, by mail: the phase is processed after the subject was read and before the orders
    are recorded. They must not slip into the next phase; the sender is told why."""
    from dippouch.store import GameStore

    db = f"sqlite:///{tmp_path / 'g.db'}"
    run("new", "demo", "--db", db, "--now", T0.isoformat())
    run("players", "assign", "demo", "France", "F", "--email", ADDR["France"], "--db", db, "--now", T0.isoformat())
    real_submit = store_submissions.submit

    def processed_meanwhile(self: GameStore, name: str, *args: Any, **kwargs: Any) -> Any:
        store_processing.process(self, name, now=T0.replace(hour=10), force=True)  # a worker got there first
        return real_submit(self, name, *args, **kwargs)

    monkeypatch.setattr(store_submissions, "submit", processed_meanwhile)
    eml = tmp_path / "france.eml"
    eml.write_bytes(mail("France", "A par - bur\n", 0).as_bytes())
    out = run("mail", "fetch", str(eml), "--db", db, "--now", "2026-12-01T11:00:00+00:00")
    assert "accepted" not in re.split(r"messages? from", out)[-1], out
    monkeypatch.setattr(store_submissions, "submit", real_submit)
    status = run("status", "demo", "--db", db, "--now", "2026-12-01T11:00:00+00:00")
    assert "Fall 1901" in status and not any("France" in ln and "v1" in ln for ln in status.splitlines()), status
    replies = run("mail", "list", "--db", db)
    assert "refused" in replies or "late" in replies, replies
