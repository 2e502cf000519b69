"""Whole games through the coordinator CLI, from a fresh database to a win, on SQLite and PostgreSQL.

Each game starts from a position (imported with ``new --position``) where one power is a centre short of
victory, so a real game ends within a few phases; on the way it meets changed and late submissions,
missing orders, civil disorder, a rollback, and export/import round trips.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import dippouch.cli.game  # noqa: F401  (registers the commands)
from dippouch import settings
from dippouch.catalog import load_variant, variant_names
from dippouch.cli import app
from dippouch.core.calendar import PhaseKind
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.position import Position, Unit
from dippouch.core.variant import Variant
from dippouch.game import position_to_data

pytestmark = pytest.mark.empty_database  # from a database with nothing in it: the first command migrates it

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Cli:
    """Runs ``dippouch`` commands in-process against one database, checking exit codes."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, code: int = 0, now: datetime | None = None) -> str:
        argv = [*args, "--db", self.db]
        if now is not None:
            argv += ["--now", now.isoformat()]
        r = self.runner.invoke(app, argv, input=input)
        assert "Traceback" not in r.output, r.output
        assert r.exit_code == code, f"dippouch {' '.join(args)} exited {r.exit_code}:\n{r.output}"
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise r.exception
        return r.output


def _quick_win(v: Variant) -> tuple[Position, str, str, str, str]:
    """A position a centre short of victory: (position, winner, other power, attacking army's province, target)."""
    m = v.map
    need = int(v.victory["centres"])
    winner, other = v.power_names[0], v.power_names[1]
    centres = set(m.supply_centres)
    target = origin = None
    for c in sorted(centres):
        for x in sorted(m.army_adj[c]):
            if x not in centres and m.provinces[x].kind in (ProvinceKind.LAND, ProvinceKind.COAST):
                target, origin = c, x
                break
        if target is not None:
            break
    assert target is not None and origin is not None
    mine = [c for c in sorted(centres) if c != target][: need - 1]
    rest = [c for c in sorted(centres) if c != target and c not in mine]
    theirs = [target, *rest[: need - 3]]  # the other power stays well short of victory; the rest is unowned
    owners = {c: winner for c in mine} | dict.fromkeys(theirs, other)
    spare = next(c for c in theirs if c != target and c not in m.army_adj[target])
    phase = v.start.phase
    if v.calendar.kind(phase) != PhaseKind.MOVEMENT:
        phase = v.calendar.following(phase, [PhaseKind.MOVEMENT])
    units = {origin: Unit(winner, "A", origin), spare: Unit(other, "A", spare)}
    pos = Position(phase, units, owners, v.start.homes)
    return pos, winner, other, m.provinces[origin].abbr, m.provinces[target].abbr


def _play_to_the_end(cli: Cli, game: str, now: datetime, step: timedelta, limit: int = 12) -> tuple[datetime, str]:
    """Process at each deadline (nobody sends orders) until the game is over; returns the last report."""
    out = ""
    for _ in range(limit):
        status = cli("status", game, now=now)
        if "is over" in status:
            return now, out
        now += step
        out = cli("process", game, now=now)
        assert "results" in out
    raise AssertionError(f"{game} did not end within {limit} phases")


VARIANTS = ["standard"] + [n for n in ("hundred", "1897") if n in variant_names()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_whole_game_through_the_cli(variant: str, db_url: str, tmp_path: Path) -> None:
    cli = Cli(db_url)
    v = load_variant(variant)
    pos, winner, other, origin, target = _quick_win(v)
    first = v.calendar.name(pos.phase)
    # Receipts and reports name places in full (--abbrev: by the map's abbreviations).
    move_words = f"A {v.map.province(origin).name} - {v.map.province(target).name}"
    start_file = tmp_path / "start.json"
    start_file.write_text(json.dumps(position_to_data(v, pos)))

    out = cli(
        "new", "g", "--variant", variant, "--position", str(start_file), "--movement", "3d", "--retreats", "1d",
        "--adjustments", "1d", "--tz", "Europe/London", "--at", "07:00", "--missed", "2", now=T0,
    )  # fmt: skip
    assert f"{first}: orders due by 2026-03-05 07:00 GMT" in out
    cli("players", "assign", "g", winner, "Alice", now=T0)
    cli("players", "assign", "g", other, "Bob", now=T0)
    assert "Alice" in cli("players", "list", "g")

    # Two versions before the deadline (the second counts), then a late third that must not count.
    out = cli("submit", "g", winner, input=f"A {origin} H\nA {origin} - nowhere\n", now=T0 + timedelta(hours=1))
    assert "version 1" in out and "REJECTED" in out and "1 order accepted, 1 rejected" in out
    out = cli(
        "submit", "g", winner, "-", input=f"# changed my mind\nA {origin} - {target}\n", now=T0 + timedelta(days=1)
    )
    assert f"accepted  {move_words}" in out
    deadline = datetime(2026, 3, 5, 7, 0, tzinfo=UTC)
    out = cli("submit", "g", winner, input=f"A {origin} H\n", now=deadline + timedelta(minutes=5))
    assert "version 3" in out and "after the deadline" in out
    assert "Nothing to process" in cli("process", "g", now=deadline - timedelta(minutes=1))

    # Bob never sends orders: his army holds, and the report says so.
    report = cli("process", "g", now=deadline + timedelta(hours=1))
    assert f"{first} results" in report
    assert f"{move_words}\n" in report  # moved: no failure note
    assert "no order received" in report
    assert "orders are due by" in report
    show = cli("show", "g", first)
    assert "LATE" in show and "v3" in show

    # Nobody orders any more: the game runs to the win at each deadline, Bob falls into civil disorder.
    now, last_report = _play_to_the_end(cli, "g", deadline + timedelta(hours=1), timedelta(days=4))
    status = cli("status", "g", now=now)
    assert f"{winner} wins" in status
    assert f"THE GAME IS OVER. {winner} wins" in last_report
    history = cli("history", "g")
    assert "processed" in history and "open" not in history

    # Roll back to the first phase: the phases played since stay in the history as abandoned.
    out = cli("rollback", "g", first, now=now)
    assert f"Rolled g back to {first}" in out
    history = cli("history", "g")
    assert "abandoned" in history
    abandoned_id = next(ln.split()[1] for ln in history.splitlines() if "abandoned" in ln and ln.split()[1].isdigit())
    old_report = cli("report", "g", "--id", abandoned_id)
    assert "abandoned by a rollback" in old_report and "results" in old_report
    assert first in cli("status", "g", now=now)
    # This time both players are ready early, so the phase runs at once, before its deadline (as on the web).
    cli("submit", "g", winner, "--ready", input=f"A {origin} - {target}\n", now=now)
    out = cli("submit", "g", other, "--ready", input="no orders\n", now=now)
    assert f"Every power was ready: processed {first}." in out
    report = cli("report", "g", first, "--abbrev")
    assert f"A {origin} - {target}\n" in report
    cli("replay", "g", first)
    now, _ = _play_to_the_end(cli, "g", now + timedelta(minutes=1), timedelta(days=4))
    assert f"{winner} wins" in cli("status", "g", now=now)

    # Our own game file, both ways, twice: nothing is lost.
    exported = tmp_path / "g.json"
    cli("export", "g", str(exported))
    out = cli("import", str(exported), "--name", "copy", now=now)
    assert f"Imported game copy ({variant}), {winner} wins" in out
    again = json.loads(cli("export", "copy"))
    original = json.loads(exported.read_text())
    assert _comparable(again) == _comparable(original)
    assert cli("report", "copy", first).splitlines()[2:] == cli("report", "g", first).splitlines()[2:]

    if variant == "standard":
        mila = tmp_path / "mila.json"
        cli("export", "g", str(mila), "--format", "mila")
        saved = json.loads(mila.read_text())
        assert saved["map"] == "standard" and saved["phases"][0]["name"].endswith("M")
        out = cli("import", str(mila), "--format", "mila", "--name", "from-mila", now=now)
        assert f"{winner} wins" in out


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    from helpers import comparable_game_file

    game = {k: v for k, v in data["game"].items() if k != "name"}
    return {**comparable_game_file(data), "game": game}


def test_civil_disorder_and_replacement_through_the_cli(tmp_path: Path) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "g", "--missed", "1", now=T0)
    cli("players", "assign", "g", "England", "Ann", now=T0)
    cli("process", "g", now=T0 + timedelta(days=13))
    status = cli("status", "g", now=T0 + timedelta(days=13))
    assert "CIVIL DISORDER" in status
    cli("players", "replace", "g", "England", "Bea", now=T0 + timedelta(days=14))
    status = cli("status", "g", now=T0 + timedelta(days=14))
    lines = [ln for ln in status.splitlines() if "England" in ln]
    assert lines and "CIVIL DISORDER" not in lines[0] and "Bea" in lines[0]


def test_a_players_link_says_when_its_address_is_only_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's key is shown once: made in a process that cannot know where the server listens, its link must not
    pass for certain (a server on --port 8123 is not at the default's 8000)."""
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "g", now=T0)
    monkeypatch.delenv("DIPPOUCH_PUBLIC_URL", raising=False)
    settings.reread()
    said = cli("players", "assign", "g", "England", "Ann", "--link", now=T0)
    assert "England's link (shown only now): http://localhost:8000/k/dp_" in said
    assert "DIPPOUCH_PUBLIC_URL is not set" in said and "/k/... path there" in said
    monkeypatch.setenv("DIPPOUCH_PUBLIC_URL", "https://diplomacy.example.org")
    settings.reread()  # a new process, as the next command would be
    try:
        said = cli("players", "replace", "g", "England", "Bea", "--link", now=T0)
    finally:
        monkeypatch.delenv("DIPPOUCH_PUBLIC_URL")
        settings.reread()
    assert "England's link (shown only now): https://diplomacy.example.org/k/dp_" in said
    assert "not set" not in said
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")  # said in the locale's language, as the seat's own line is
    settings.reread()
    try:
        said = cli("players", "replace", "g", "England", "Cy", "--link", "--email", "cy@example.org", now=T0)
    finally:
        monkeypatch.delenv("LC_ALL")
        settings.reread()
    assert "Link für England (wird nur jetzt angezeigt): http://localhost:8000/k/dp_" in said
    assert "DIPPOUCH_PUBLIC_URL ist nicht gesetzt" in said and "Befehle per Mail kommen von cy@example.org." in said


def test_pause_extend_resume_and_draw_through_the_cli(tmp_path: Path) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "g", "--movement", "2d", now=T0)
    assert "2026-03-04 09:00" in cli("extend", "g", "1d", now=T0)
    assert "left on the clock" in cli("pause", "g", now=T0 + timedelta(days=1))
    assert "paused" in cli("status", "g", now=T0 + timedelta(days=9))
    assert "Nothing to process" in cli("process", "g", now=T0 + timedelta(days=9))
    assert "due 2026-03-13 09:00" in cli("resume", "g", now=T0 + timedelta(days=10))
    v = load_variant("standard")
    for p in v.power_names[:-1]:
        assert "Recorded" in cli("vote", "g", p, now=T0)
    assert "THE GAME IS OVER. Draw" in cli("vote", "g", v.power_names[-1], now=T0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("status", "nope"), "no game 'nope'"),
        (("submit", "g", "Frnace"), "no power 'Frnace'"),
        (("submit", "g", "France", "/no/such/file.txt"), "no file"),
        (("new", "h", "--variant", "standart"), "did you mean 'standard'"),
        (("new", "h", "--movement", "twelve days"), "cannot read the duration"),
        (("new", "h", "--tz", "Mars/Base"), "unknown time zone"),
        (("new", "h", "-o", "nonsense"), "must read KEY=VALUE"),
        (("new", "h", "-o", "no_such_option=1"), "no option 'no_such_option'"),
        (("new", "g"), "already exists"),
        (("status", "g", "--now", "tomorrow"), "cannot read the time"),
        (("rollback", "g", "Fall 1950 Movement"), "no phase 'Fall 1950 Movement'"),
        (("rollback", "g", "Summer"), "phase"),
        (("report", "g"), "no processed phase yet"),
        (("report", "g", "--id", "999"), "no phase with id 999"),
        (("extend", "g", "soon"), "cannot read the duration"),
        (("resume", "g"), "not paused"),
        (("export", "g", "--format", "pdf"), "unknown format"),
        (("import", "/no/such/game.json"), "no file"),
        (("players", "assign", "g", "Atlantis", "Zed"), "no power 'Atlantis'"),
    ],
)
def test_user_errors_are_messages_not_tracebacks(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "g", now=T0)
    out = cli(*args, code=2)
    assert "error:" in out and message in out


def test_import_rejects_files_that_are_not_games(tmp_path: Path) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "not valid JSON" in cli("import", str(bad), code=2)
    bad.write_text('{"hello": 1}')
    assert "not a dippouch game file" in cli("import", str(bad), code=2)
    assert "has no 'phases'" in cli("import", str(bad), "--format", "mila", code=2)
    bad.write_bytes(b"\xff\xfe\x00garbage")
    assert "not UTF-8" in cli("import", str(bad), code=2)
    assert "not UTF-8" in cli("submit", "x", "France", str(bad), code=2)
    bad.write_text("[1, 2]")
    assert "error:" in cli("new", "g", "--position", str(bad), code=2)
    bad.write_text('{"phase": "Spring 1901 Movement", "units": [{"power": "France"}]}')
    assert "position" in cli("new", "g", "--position", str(bad), code=2)
    bad.write_text('{"phase": "Spring 1901 Movement", "units": 5}')
    assert "position: units: must be a list, not int" in cli("new", "g", "--position", str(bad), code=2)


def test_default_database_is_a_file_here_and_the_environment_can_name_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DIPPOUCH_DATABASE_URL", raising=False)
    runner = CliRunner()
    r = runner.invoke(app, ["new", "here", "--now", T0.isoformat()])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "dippouch.db").is_file()
    other = tmp_path / "other.db"
    monkeypatch.setenv("DIPPOUCH_DATABASE_URL", f"sqlite:///{other}")
    settings.reread()  # a new process, as the next command would be
    r = runner.invoke(app, ["games"])
    assert "No games yet" in r.output and other.is_file()


def test_the_installed_command_prints_errors_without_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {**os.environ, "DIPPOUCH_DATABASE_URL": f"sqlite:///{tmp_path / 'g.db'}"}
    code = "from dippouch.cli import main; main()"
    r = subprocess.run(
        [sys.executable, "-c", code, "status", "nope"], env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2
    assert "error: no game 'nope'" in r.stderr and "Traceback" not in r.stderr


def test_process_all_games_for_cron(tmp_path: Path) -> None:
    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "a", "--movement", "1d", now=T0)
    cli("new", "b", "--movement", "5d", now=T0)
    cli("new", "c", "--movement", "1d", now=T0)
    cli("pause", "c", now=T0)
    out = cli("process", "--all", now=T0 + timedelta(days=2))
    assert "Processed 1 phase in 2 active games." in out
    assert "Fall 1901 Movement" in cli("status", "a", now=T0)
    assert "Spring 1901 Movement" in cli("status", "b", now=T0)
    assert "name a game, or pass --all" in cli("process", code=2)


def test_calendar_feed_of_deadlines(tmp_path: Path) -> None:
    import icalendar

    cli = Cli(f"sqlite:///{tmp_path / 'g.db'}")
    cli("new", "g", "--movement", "3d", "--tz", "Europe/London", "--at", "07:00", now=T0)
    cli("process", "g", now=T0 + timedelta(days=5))
    cli("extend", "g", "1d", now=T0 + timedelta(days=5))
    cal = icalendar.Calendar.from_ical(cli("calendar", "g"))
    events = [(str(e["summary"]), e.decoded("dtstart")) for e in cal.walk("VEVENT") if e.get("status") != "TENTATIVE"]
    assert events == [
        ("g: orders due, Spring 1901 Movement", datetime(2026, 3, 5, 7, 0, tzinfo=UTC)),
        ("g: orders due, Fall 1901 Movement", datetime(2026, 3, 11, 7, 0, tzinfo=UTC)),
    ]
    # As the web's feed: every event lasts, and the deadlines to come are there, tentative, after the open one.
    assert all(e.decoded("dtend") > e.decoded("dtstart") for e in cal.walk("VEVENT"))
    to_come = [e for e in cal.walk("VEVENT") if e.get("status") == "TENTATIVE"]
    assert to_come and all(e.decoded("dtstart") > datetime(2026, 3, 11, 7, 0, tzinfo=UTC) for e in to_come)
    assert str(cal["x-wr-timezone"]) == "Europe/London"
