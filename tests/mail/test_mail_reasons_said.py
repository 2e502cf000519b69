"""What became of a message taken in is a message value (issue 53): the mail log keeps its id and values beside
the English, so the review page says it in a German coordinator's language, the command line in its locale's,
and a game file carries the value to another installation; a file written before reasons were values still
imports, its text shown as it is."""

from __future__ import annotations

import email.utils
import json
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.mail.intake import take_in
from dippouch.store import GameStore
from dippouch.store.mail.inbox import messages
from websupport import Site

FRANCE = "france@example.org"
HOLIDAY = "france.holiday@example.net"


@pytest.fixture(autouse=True)
def _english_unless_told(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registered address proves its sender here (proof is tested in test_mail_proof.py); each test starts
    and ends in an English locale, read again as a new process would."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")
    monkeypatch.setenv("LC_ALL", "C")
    settings.reread()
    yield
    monkeypatch.setenv("LC_ALL", "C")
    settings.reread()


def _mail(body: str, sender: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@dip.example", "g - France - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content(body)
    return m.as_bytes()


@pytest.fixture
def site(db_url: str) -> Site:
    s = Site(db_url)
    s.new_game("g")
    r = s.api(s.coordinator, "/api/games/g/players", {"power": "France", "player": "Fran", "email": FRANCE})
    assert r.status_code == 200, r.text
    return s


def _cli(*args: str, locale: str = "C", monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LC_ALL", locale)
    settings.reread()  # the locale is read once a process
    register_commands()
    got = CliRunner().invoke(app, list(args))
    assert got.exit_code == 0, (args, got.output)
    return " ".join(got.output.split())


def test_a_german_coordinator_reads_the_applied_message_in_german(site: Site) -> None:
    held = take_in(site.web.store, _mail("A par - bur\n", HOLIDAY), now=site.clock())
    assert held.status == "held"
    site.clock.advance(days=13)
    site.coordinator.cookies.set("lang", "de")
    r = site.post_form(site.coordinator, f"/games/g/review/held/{held.mail_id}", {"do": "apply"})
    assert r.status_code == 303
    flash = unquote(r.headers.get("set-cookie", ""))
    # The sentence and the reason inside it both German (the reason was English inside a German sentence).
    assert f"Nachricht Nr. {held.mail_id} angewendet: France Version 1." in flash, flash
    # The log keeps the English for its readers, and the value the doors say.
    (info,) = [m for m in messages(site.web.store) if m.id == held.mail_id]
    assert info.reason == "applied on the coordinator's word as France version 1"
    assert info.why is not None and info.why.id == "applied on %(by)s's word as %(power)s version %(version)d"


def test_the_command_line_says_the_mail_log_in_its_locale(
    site: Site, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = db_url
    held = take_in(site.web.store, _mail("A par - bur\n", HOLIDAY), now=site.clock())
    shown = _cli("mail", "show", str(held.mail_id), "--db", db, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert (
        f"{HOLIDAY} ist nicht die für France in g eingetragene Adresse; für den Spielleiter zurückgehalten, "
        "nichts angewendet" in shown
    ), shown
    assert "not the address registered" not in shown
    english = _cli("mail", "show", str(held.mail_id), "--db", db, monkeypatch=monkeypatch)
    assert f"{HOLIDAY} is not the address registered for France in g; held for the coordinator" in english
    applied = _cli("mail", "apply", str(held.mail_id), "--db", db, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert f"Nachricht Nr. {held.mail_id} angewendet: France Version 1." in applied, applied  # the whole line German
    shown = _cli("mail", "show", str(held.mail_id), "--db", db, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert "als France Version 1 angewendet (veranlasst: Spielleiter)" in shown, shown


def test_a_game_file_keeps_the_reason_as_a_value_and_an_old_file_its_text(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = site.web.store
    take_in(store, _mail("A par - bur\n", FRANCE), now=site.clock())
    take_in(store, _mail("A par - pic\n", HOLIDAY), now=site.clock())
    site.clock.advance(days=13)  # after the deadline the coordinator's file has the whole mail record
    before = {m.sender: m for m in messages(store)}
    data = site.coordinator.get("/api/games/g/export").json()
    assert {m["reason_msg"]["id"] for m in data["mail"]["messages"]} == {
        "version %(version)d recorded (%(accepted)d accepted, %(rejected)d rejected)",
        "%(sender)s is not the address registered for %(power)s in %(game)s; held for the coordinator, nothing applied",
    }
    file = tmp_path / "g.json"
    file.write_text(json.dumps(data))
    moved = f"sqlite:///{tmp_path / 'moved.db'}"
    _cli("import", str(file), "--db", moved, monkeypatch=monkeypatch)
    there = GameStore(moved)
    try:
        after = {m.sender: m for m in messages(there)}
    finally:
        there.close()
    assert {k: (m.reason, m.why) for k, m in after.items()} == {k: (m.reason, m.why) for k, m in before.items()}
    held_there = after[HOLIDAY].id
    shown = _cli("mail", "show", str(held_there), "--db", moved, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert "eingetragene Adresse; für den Spielleiter zurückgehalten" in shown, shown

    # A file written before reasons were values: its text imports and is shown as it is, in any locale.
    old = "held: 100% sure it is not France's (an old program's words)"
    for m in data["mail"]["messages"]:
        del m["reason_msg"]
        m["reason"] = old
    file.write_text(json.dumps(data))
    older = f"sqlite:///{tmp_path / 'older.db'}"
    _cli("import", str(file), "--db", older, monkeypatch=monkeypatch)
    there = GameStore(older)
    try:
        infos = messages(there)
    finally:
        there.close()
    assert [(m.reason, m.why) for m in infos] == [(old, None), (old, None)]
    shown = _cli("mail", "show", str(infos[0].id), "--db", older, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert old in shown, shown


def test_a_reason_that_is_no_message_is_refused_by_its_place(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    take_in(site.web.store, _mail("A par - bur\n", FRANCE), now=site.clock())
    site.clock.advance(days=13)
    data = site.coordinator.get("/api/games/g/export").json()
    data["mail"]["messages"][0]["reason_msg"] = ["not", "a", "message"]
    file = tmp_path / "g.json"
    file.write_text(json.dumps(data))
    monkeypatch.setenv("LC_ALL", "C")
    settings.reread()
    got = CliRunner().invoke(app, ["import", str(file), "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert got.exit_code == 2, got.output
    assert "mail.messages[0].reason_msg: not a message" in " ".join(got.output.split())


def test_an_automatic_message_and_a_duplicate_are_said_in_german(
    site: Site, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = _mail("I am away until Monday.\n", FRANCE)
    auto = raw.replace(b"Subject:", b"Auto-Submitted: auto-replied\nX-Autoreply: yes\nSubject:", 1)
    ignored = take_in(site.web.store, auto, now=site.clock())
    assert ignored.status == "ignored"
    assert ignored.line("de").endswith(": nicht beantwortet: Auto-Submitted: auto-replied"), ignored.line("de")
    listed = _cli("mail", "show", str(ignored.mail_id), "--db", db_url, locale="de_DE.UTF-8", monkeypatch=monkeypatch)
    assert "nicht beantwortet: Auto-Submitted: auto-replied" in listed, listed
    again = take_in(site.web.store, auto, now=site.clock())
    assert again.status == "duplicate" and again.line("de").endswith(": schon früher angenommen"), again.line("de")
    assert again.line().endswith(": taken in before")
    list_auto = _mail("A digest.\n", FRANCE).replace(b"Subject:", b"List-Id: <players.example.org>\nSubject:", 1)
    assert (
        take_in(site.web.store, list_auto, now=site.clock())
        .line("fr")
        .endswith(": sans réponse : un message de liste de diffusion")
    )
