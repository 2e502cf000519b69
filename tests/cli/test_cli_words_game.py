"""The coordinator's game commands (new, submit, status, the clock, process, show, history, rollback, export,
calendar) say what they did in the locale's language, as their refusals are: a German coordinator reads German
from a command's first line to its last, the names of powers, places and games and the numbers as written, the
phases with the reader's season and phase words. In the C locale they read the English they always did.

Each German (and French) line below is a whole line, asserted as printed: the English one would fail it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store.models import PhaseRow

T0 = "2026-03-01T09:00:00+00:00"
LATER = "2026-03-20T10:00:00+00:00"
ORDERS = "A Lon - Nth\nF Edi - Nwg\nA xyz\n"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return migrated_sqlite(tmp_path / "g.db")


@pytest.fixture
def locale(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The settings read the locale once a process: each test sets it before its commands, and the settings are
    put back to the test run's own afterwards."""
    register_commands()
    yield monkeypatch
    monkeypatch.delenv("LC_ALL", raising=False)
    settings.reread()


def _speak(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("LC_ALL", name)
    settings.reread()


def _lines(db: str, *args: str, now: str | None = T0, input: str | None = None, code: int = 0) -> list[str]:
    """The lines a command prints (its output and its errors), each stripped of the spaces that end it; wide,
    so no table's cell is wrapped."""
    argv = [*args, "--db", db, *(["--now", now] if now else [])]
    r = CliRunner().invoke(app, argv, input=input, env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exit_code == code, r.output
    return [line.rstrip() for line in r.output.splitlines()]


def _row(lines: list[str], first: str) -> list[str]:
    """The cells of the table row (or heading) whose first cell is ``first``."""
    for line in lines:
        cells = [c.strip() for c in line.replace("┃", "│").split("│")[1:-1]]
        if cells and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r} in:\n" + "\n".join(lines))


def _spoil_the_record(db: str) -> None:
    """The stored results and next position of the first phase changed, as a broken adjudication would leave them."""
    store = GameStore(db)
    try:
        with store.session() as s, s.begin():
            first = s.scalars(sa.select(PhaseRow).where(PhaseRow.seq == 0)).one()
            assert first.next_position is not None
            first.results = []
            first.next_position = {**first.next_position, "units": []}
    finally:
        store.close()


def _a_game_with_orders(db: str, orders: Path) -> None:
    """Game g, England's orders (two accepted, one refused, ready), then a chat that replaces nothing."""
    _lines(db, "new", "g", "--scoring", "dss", "--no-newcomers")
    _lines(db, "players", "assign", "g", "England", "Ann")
    orders.write_text(ORDERS, encoding="utf-8")
    _lines(db, "submit", "g", "England", str(orders), "--ready")


def test_a_game_is_made_and_its_orders_taken_in_german(db: str, tmp_path: Path, locale: pytest.MonkeyPatch) -> None:
    _speak(locale, "de_DE.UTF-8")
    assert _lines(db, "games", now=None) == [
        "Noch keine Partien: legen Sie eine mit `dippouch new NAME --variant standard` an."
    ]
    assert _lines(db, "new", "g", "--scoring", "dss", "--no-newcomers") == [
        "Partie g (Standard Diplomacy) angelegt.",
        "Frühjahr 1901 Bewegung: Befehle bis 2026-03-13 09:00 UTC.",
        "Bei Spielende gewertet nach Draw-size scoring.",
        "Nichts für Neulinge: nur Spieler mit mindestens 3 gespielten Plätzen dürfen beitreten.",
    ]
    games = _lines(db, "games", now=None)
    assert _row(games, "Partie") == ["Partie", "Variante", "Zustand", "aktuelle Phase"]
    assert _row(games, "g") == ["g", "standard", "läuft", "Frühjahr 1901 Bewegung"]
    _lines(db, "players", "assign", "g", "England", "Ann")
    assert _row(_lines(db, "players", "list", "g", now=None), "France") == ["France", "(niemand)", ""]
    assert _lines(db, "players", "email", "g", "England", "ann@example.org") == [
        "Ann (England) in g: Mail an ann@example.org."
    ]
    orders = tmp_path / "orders.txt"
    orders.write_text(ORDERS, encoding="utf-8")
    submitted = _lines(db, "submit", "g", "England", str(orders), "--ready")
    assert submitted[0] == "England, Frühjahr 1901 Bewegung: Abgabe (cli) Version 1 gespeichert (bereit)."
    assert "  Zeile  2 angenommen F Edinburgh - Norwegian Sea" in submitted
    assert "  Zeile  3 ABGELEHNT  A xyz: keine Provinz 'xyz'" in submitted
    assert "2 Befehle angenommen, 1 abgelehnt." in submitted
    assert "Es gilt jetzt: Version 1, 2 Befehle." in submitted
    chat = tmp_path / "chat.txt"
    chat.write_text("hello\n", encoding="utf-8")
    refused = _lines(db, "submit", "g", "England", str(chat))
    assert "0 Befehle angenommen, 1 abgelehnt." in refused
    assert (
        "NICHT ERSETZT: alle ihre Zeilen wurden abgelehnt, daher gilt weiter Version 1 (2 Befehle). Um sie durch "
        "keine Befehle zu ersetzen, senden Sie eine Zeile 'no orders' (oder geben Sie --replace-with-nothing an)."
    ) in refused
    nothing = _lines(db, "submit", "g", "France", str(chat))
    assert (
        "NICHTS GILT: alle ihre Zeilen wurden abgelehnt; France hat noch keine Befehle für Frühjahr 1901 Bewegung."
    ) in nothing
    france = tmp_path / "france.txt"
    france.write_text("A Par - Bur\nA xyz\n", encoding="utf-8")
    late = _lines(db, "submit", "g", "France", str(france), "--received", "2026-02-28T09:00:00")
    assert late[0] == (
        "France, Frühjahr 1901 Bewegung: Abgabe (cli) Version 2 gespeichert, eingegangen 2026-02-28 09:00 UTC."
    )
    assert "1 Befehl angenommen, 1 abgelehnt." in late[1:]  # one order: German's singular
    assert _lines(db, "vote", "g", "France") == ["Gespeichert: France stimmt für ein Remis."]


def test_the_status_the_clock_and_a_rollback_are_german(db: str, tmp_path: Path, locale: pytest.MonkeyPatch) -> None:
    _a_game_with_orders(db, tmp_path / "orders.txt")
    _speak(locale, "de_DE.UTF-8")
    status = _lines(db, "status", "g")
    assert status[:2] == ["Partie g (standard), Frühjahr 1901 Bewegung, läuft.", "Frist: 2026-03-13 09:00 UTC."]
    assert _row(status, "Macht") == ["Macht", "Spieler", "Einheiten", "Zentren", "Befehle", "bereit", "Hinweise"]
    assert _row(status, "England") == ["England", "Ann", "3", "3", "v1: 2 ok, 1 abgelehnt", "ja", ""]
    assert _row(status, "France") == ["France", "(niemand)", "3", "3", "noch keine", "nein", ""]
    assert "Einheiten ohne Befehle in den geltenden Versionen (sie halten):" in status
    assert _lines(db, "extend", "g", "1d") == ["Frühjahr 1901 Bewegung: Frist verlängert bis 2026-03-14 09:00 UTC."]
    assert _lines(db, "pause", "g") == ["g angehalten mit 13d Restzeit auf der Uhr."]
    assert _lines(db, "process", "g") == [
        "Nichts auszuwerten: g ist angehalten (Frühjahr 1901 Bewegung); `dippouch resume g` startet die Uhr wieder."
    ]
    assert _lines(db, "resume", "g") == ["g fortgesetzt: Frühjahr 1901 Bewegung fällig am 2026-03-14 09:00 UTC."]
    assert _lines(db, "process", "g") == [
        "Nichts auszuwerten: Frühjahr 1901 Bewegung ist fällig am 2026-03-14 09:00 UTC."
    ]
    _lines(db, "process", "g", now=LATER)  # the results report stays as the Judge writes it
    history = _lines(db, "history", "g", now=None)
    assert _row(history, "ID") == ["ID", "Phase", "Status", "Frist (UTC)", "ausgewertet (UTC)", "Abg.", "verpasst"]
    assert _row(history, "2")[:3] == ["2", "Herbst 1901 Bewegung", "offen"]
    assert _lines(db, "replay", "g", now=None) == ["Wiederholt: gleiche Ergebnisse und gleiche nächste Stellung."]
    _spoil_the_record(db)  # each difference the store finds, said in the locale's language
    assert _lines(db, "replay", "g", "Spring 1901 Movement", now=None, code=1) == [
        "Wiederholt: die Ergebnisse weichen ab, die nächste Stellung weicht ab."
    ]
    assert _lines(db, "rollback", "g", "Spring 1901 Movement", now=LATER) == [
        "g auf Frühjahr 1901 Bewegung zurückgesetzt; Befehle bis 2026-04-01 10:00 UTC.",
        "Befehle übernommen, wie sie galten (Version 1 der wieder geöffneten Phase, nicht bereit):",
        "  England: Version 1 vom 2026-03-01 09:00 UTC, 2 Befehle",
    ]
    assert _lines(db, "export", "g", str(tmp_path / "g.json"), now=LATER) == [
        "1 Abgabe der offenen Phase ist in dieser Datei versiegelt (--unsealed --reason TEXT nimmt sie auf, und die "
        "Spieler erfahren es).",
        f"g nach {tmp_path / 'g.json'} geschrieben.",
    ]
    assert _lines(db, "process", "--all", now=LATER) == ["0 Phasen in 1 laufenden Partie ausgewertet."]


def test_a_phase_shown_is_german(db: str, tmp_path: Path, locale: pytest.MonkeyPatch) -> None:
    _a_game_with_orders(db, tmp_path / "orders.txt")
    _lines(db, "process", "g", now=LATER)
    _speak(locale, "de_DE.UTF-8")
    shown = _lines(db, "show", "g", "Spring 1901 Movement", now=None)
    assert shown[0] == "Frühjahr 1901 Bewegung (ID 1, ausgewertet)"
    assert "  England: F Edinburgh, F London, A Liverpool; 3 Zentren" in shown
    assert "Abgaben:" in shown
    assert "  England v1 um 2026-03-01T09:00:00+00:00 (bereit, cli)" in shown
    assert "      A xyz  ->  ABGELEHNT: keine Provinz 'xyz'" in shown


def test_a_french_locale_reads_french(db: str, tmp_path: Path, locale: pytest.MonkeyPatch) -> None:
    _speak(locale, "fr_FR.UTF-8")
    assert _lines(db, "new", "g")[:2] == [
        "Partie g (Standard Diplomacy) créée.",
        "Printemps 1901 Mouvements : ordres attendus avant le 2026-03-13 09:00 UTC.",
    ]
    orders = tmp_path / "orders.txt"
    orders.write_text(ORDERS, encoding="utf-8")
    submitted = _lines(db, "submit", "g", "England", str(orders))
    assert submitted[0] == "England, Printemps 1901 Mouvements : envoi cli version 1 enregistré."
    assert "2 ordres acceptés, 1 refus." in submitted


def test_the_c_locale_reads_the_english_it_always_did(db: str, tmp_path: Path, locale: pytest.MonkeyPatch) -> None:
    _speak(locale, "C")
    assert _lines(db, "new", "g", "--scoring", "dss", "--no-newcomers") == [
        "Created game g (Standard Diplomacy).",
        "Spring 1901 Movement: orders due by 2026-03-13 09:00 UTC.",
        "Scored at its end under Draw-size scoring.",
        "Not for newcomers: only players with at least 3 seats played may sign up.",
    ]
    orders = tmp_path / "orders.txt"
    orders.write_text(ORDERS, encoding="utf-8")
    submitted = _lines(db, "submit", "g", "England", str(orders), "--ready")
    assert submitted[:5] == [
        "England, Spring 1901 Movement: cli submission version 1 recorded (ready).",
        "  line  1 accepted  F London - North Sea",
        "             note: the unit in London is a fleet, not an army: the order is read for it as written here",
        "  line  2 accepted  F Edinburgh - Norwegian Sea",
        "  line  3 REJECTED  A xyz: no province 'xyz'",
    ]
    assert submitted[5:] == [
        "2 orders accepted, 1 rejected.",
        "Now standing: version 1, 2 orders.",
        "  A Liverpool: no order, it holds",
    ]
    status = _lines(db, "status", "g")
    assert status[:2] == ["Game g (standard), Spring 1901 Movement, active.", "Deadline: 2026-03-13 09:00 UTC."]
    assert _row(status, "power") == ["power", "player", "units", "centres", "orders", "ready", "notes"]
    assert _row(status, "England") == ["England", "(nobody)", "3", "3", "v1: 2 ok, 1 rejected", "yes", ""]
    _lines(db, "process", "g", now=LATER)
    shown = _lines(db, "show", "g", "Spring 1901 Movement", now=None)
    assert shown[0] == "Spring 1901 Movement (id 1, processed)"
    assert "  England v1 at 2026-03-01T09:00:00+00:00 (ready, cli)" in shown
    assert "      A xyz  ->  REJECTED: no province 'xyz'" in shown
    history = _lines(db, "history", "g", now=None)
    assert _row(history, "id") == ["id", "phase", "status", "deadline (UTC)", "processed (UTC)", "subs", "missed"]
    assert _lines(db, "rollback", "g", "Spring 1901 Movement", now=LATER)[1:] == [
        "Orders carried forward as they stood (version 1 of the reopened phase, not ready):",
        "  England: version 1 of 2026-03-01 09:00 UTC, 2 orders",
    ]
