"""The lines the tournament, people, bot, worker, notify, puzzles, serve and start-up commands print for people
are said in the locale's language, as their refusals are: a German coordinator reads German from a command's
first line to its last, its names and numbers as written. In the C locale they read the English they always did.

Each German line below is a whole line, asserted as printed: the English one would fail it."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store.learning.puzzles import add_puzzles
from dippouch.store.people.persons import create_person
from workersupport import dippouch_command

T0 = "2026-03-01T09:00:00+00:00"
PUZZLES = Path(__file__).parents[1] / "data" / "puzzles" / "puzzles.json"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return migrated_sqlite(tmp_path / "g.db")


@pytest.fixture
def locale(monkeypatch: pytest.MonkeyPatch) -> Iterator[Locale]:
    """Sets the process's locale for the commands run after it (the settings read it once a process), and puts
    the settings back to the test run's own afterwards."""
    register_commands()
    yield Locale(monkeypatch)
    monkeypatch.delenv("LC_ALL", raising=False)
    settings.reread()


class Locale:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def __call__(self, name: str) -> None:
        self.monkeypatch.setenv("LC_ALL", name)
        settings.reread()


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """The program's own entry point on ``args``: its exit status. (It switches the garbage collector off for a
    short command: switched on again here, for the rest of the test run.)"""
    import gc

    import dippouch.cli as cli

    monkeypatch.setattr("sys.argv", ["dippouch", *args])
    try:
        cli.main()
    except SystemExit as e:
        return int(e.code or 0)
    finally:
        gc.enable()
    return 0


def _lines(db: str, *args: str, code: int = 0) -> list[str]:
    """The lines a command prints (its output and its errors), each stripped of the spaces that end it."""
    r = CliRunner().invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output, r.output
    return [line.rstrip() for line in r.output.splitlines()]


def _row(lines: list[str], *cells: str) -> bool:
    """Whether a table row holds exactly ``cells``, in order (rich's borders and padding between them)."""
    want = re.compile(r"^[│┃]\s*" + r"\s*[│┃]\s*".join(re.escape(c) for c in cells) + r"\s*[│┃]$")
    return any(want.match(line) for line in lines)


def test_a_tournament_is_made_filled_listed_and_emptied_in_german(db: str, locale: Locale) -> None:
    locale("C")
    _lines(db, "new", "g", "--now", T0)
    locale("de_DE.UTF-8")
    assert _lines(db, "tournament", "list") == [
        "Noch kein Turnier: Legen Sie eines an mit `dippouch tournament new NAME --system NAME`."
    ]
    assert _lines(db, "tournament", "new", "Pokal", "--system", "dss", "--now", T0) == [
        "Turnier Pokal angelegt, gewertet nach Draw-size scoring."
    ]
    assert _lines(db, "tournament", "add", "Pokal", "g", "--now", T0) == ["Partie g zu Pokal hinzugefügt (1 Partie)."]
    listed = _lines(db, "tournament", "list")
    assert listed[0] == "Turniere"
    assert _row(listed, "Turnier", "System", "Variante", "Partien", "Beendet")
    assert _row(listed, "Pokal", "dss", "beliebig", "1", "0")
    standing = _lines(db, "tournament", "standings", "Pokal")
    assert standing[0].startswith("Turnier Pokal: Draw-size scoring (https://")
    assert "Noch keine beendete Partie gewertet." in standing
    assert "Partien" in standing
    assert _row(standing, "Runde", "Partie", "Stand", "Anmerkung")
    assert _row(standing, "-", "g", "läuft", "")
    assert _lines(db, "tournament", "remove", "Pokal", "g") == ["Partie g aus Pokal genommen (0 Partien)."]
    locale("fr_FR.UTF-8")
    assert _lines(db, "tournament", "new", "Coupe", "--system", "sos", "--variant", "standard", "--now", T0) == [
        "Tournoi Coupe créé, score calculé selon Sum of squares, parties de standard uniquement."
    ]


def test_a_tournament_reads_as_before_in_the_c_locale(db: str, locale: Locale) -> None:
    locale("C")
    _lines(db, "new", "g", "--now", T0)
    assert _lines(db, "tournament", "new", "Cup", "--system", "dss", "--variant", "standard", "--now", T0) == [
        "Tournament Cup created, scored under Draw-size scoring, standard games only."
    ]
    assert _lines(db, "tournament", "add", "Cup", "g", "--now", T0) == ["Game g added to Cup (1 game)."]
    listed = _lines(db, "tournament", "list")
    assert listed[0] == "Tournaments"
    assert _row(listed, "Tournament", "System", "Variant", "Games", "Finished")
    standing = _lines(db, "tournament", "standings", "Cup")
    assert "No finished game counted yet." in standing
    assert _row(standing, "Round", "Game", "Status", "Note")
    assert _row(standing, "-", "g", "in progress", "")


def test_blocks_and_reports_are_said_in_german(db: str, locale: Locale) -> None:
    store = GameStore(db)
    ann = create_person(store, "Ann", now=store.clock(), email="ann@example.org")
    bob = create_person(store, "Bob", now=store.clock(), email="bob@example.org")
    store.close()
    locale("de_DE.UTF-8")
    assert _lines(db, "people", "blocks", str(ann)) == ["Blockiert niemanden."]
    assert _lines(db, "people", "block", str(ann), str(bob), "--now", T0) == [f"{bob}  Bob  seit 2026-03-01 09:00 UTC"]
    assert _lines(db, "people", "unblock", str(bob), str(ann)) == [
        "Diese Blockierung gab es nicht.",
        "Blockiert niemanden.",
    ]
    assert _lines(db, "reports") == ["Keine offenen Meldungen."]
    locale("C")
    assert _lines(db, "people", "blocks", str(bob)) == ["Blocks nobody."]
    assert _lines(db, "people", "blocks", "ann@example.org") == [f"{bob}  Bob  since 2026-03-01 09:00 UTC"]


def test_a_bot_taking_a_seat_and_the_disorder_policy_are_said_in_german(db: str, locale: Locale) -> None:
    locale("C")
    _lines(db, "new", "g", "--now", T0)
    locale("de_DE.UTF-8")
    assert _lines(db, "seat-bot", "g", "Italy", "hold", "--now", T0) == [
        "Bot (passiv) spielt jetzt Italy in g; er hat Version 1 für Frühjahr 1901 Bewegung geschickt."
    ]
    assert _lines(db, "bot-policy", "g", "random", "--now", T0) == [
        "Mächte in Anarchie werden in g einem Bot der Stufe random übergeben, bis ein Mensch den Platz übernimmt."
    ]
    assert _lines(db, "bot-policy", "g", "off", "--now", T0) == [
        "Mächte in Anarchie werden in g nicht mehr einem Bot übergeben."
    ]


@pytest.mark.parametrize(
    ("args", "german"),
    [
        (["mapgen"], "error: geben Sie einen Variantennamen oder --all an (nicht beides)"),
        (
            ["daide", "serve", "--game", "g", "--poll", "0"],
            "error: --poll muss über 0 und --port zwischen 0 und 65535 liegen",
        ),
        (["bot", "--years", "0", "prog"], "error: --years muss mindestens 1 sein und --timeout über 0 liegen"),
    ],
)
def test_the_refusals_these_commands_word_themselves_are_german(
    args: list[str], german: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], locale: Locale
) -> None:
    """Said by the program's own entry point (main), which prints a refusal's ``error:`` line."""
    locale("de_DE.UTF-8")
    assert _main(monkeypatch, *args) == 2
    assert capsys.readouterr().err.strip() == german


def test_ctrl_c_is_said_in_german(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], locale: Locale
) -> None:
    import dippouch.cli as cli

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    locale("de_DE.UTF-8")
    monkeypatch.setattr(cli, "register_commands", interrupted)
    assert _main(monkeypatch) == 130
    assert capsys.readouterr().err.strip() == "abgebrochen"


def test_notify_and_puzzles_report_in_german(db: str, locale: Locale) -> None:
    store = GameStore(db)
    stored = json.loads(PUZZLES.read_text(encoding="utf-8"))[:2]
    assert add_puzzles(store, stored, now=store.clock()) == 2
    store.close()
    locale("de_DE.UTF-8")
    assert _lines(db, "notify") == [
        "Benachrichtigungen: 0 eingereiht, 0 zugestellt, 0 erneut zu versuchen, 0 abgewiesen"
    ]
    found = _lines(db, "puzzles", "generate", "--no-games")
    assert len(found) == 1 and re.fullmatch(r"0 Rätsel gefunden, 0 neu, in \d+(,\d)? s\.", found[0]), found
    goals = {"take": "einnehmen", "keep": "halten"}
    # One puzzle a line: its number, stars, "power goal target", where it comes from.
    listed = _lines(db, "puzzles", "list")
    assert sorted(line.split("  ")[2] for line in listed) == sorted(
        f"{p['power']} {goals[p['goal']]} {p['target']}" for p in stored
    )


def test_a_worker_says_its_look_and_its_stop_in_german(tmp_path: Path) -> None:
    url = migrated_sqlite(tmp_path / "w.db")
    r = subprocess.run(
        [*dippouch_command(), "worker", "--once", "--db", url],
        env={**os.environ, "LC_ALL": "de_DE.UTF-8"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"dippouch worker auf {url}: ein Durchgang",
        "Worker beendet: 0 Phasen ausgewertet",
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_says_its_address_in_german_with_the_address_as_written(tmp_path: Path) -> None:
    """The address stays on its line, as written (what a reader copies, and scripts/run's readers look for)."""
    port = _free_port()
    url = f"sqlite:///{tmp_path / 's.db'}"
    env = {k: v for k, v in os.environ.items() if k != "DIPPOUCH_PUBLIC_URL"} | {"LC_ALL": "de_DE.UTF-8"}
    proc = subprocess.Popen(
        [*dippouch_command(), "serve", "--db", url, "--port", str(port), "--no-scheduler"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 120
        while len(lines) < 3:
            assert time.monotonic() < deadline, lines
            line = proc.stdout.readline()
            assert line, lines
            lines.append(line.rstrip("\n"))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    link_file = tmp_path / "dippouch-coordinator-link.txt"
    assert lines == [
        f"dippouch stellt {url} bereit unter http://localhost:{port}/",
        "Es gab keinen Spielleiter-Schlüssel, also wurde einer erstellt. Sein Link steht in "
        f"{link_file} (nur für Sie lesbar);",
        "  er wird hier nicht ausgegeben, weil diese Ausgabe kein Terminal ist und in Protokollen aufbewahrt werden kann.",
    ]
    assert link_file.read_text().startswith(f"http://localhost:{port}/k/dp_")
