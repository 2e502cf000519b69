"""The CLI used as a coordinator would use it: bounded work, clear refusals, a game that keeps its variant.

* A deadline of zero (or one too far off to be a date) is refused; a board where no power
  has a unit or a centre ends the game; one forced ``process`` stops instead of running a thousand
  empty phases.
* ``show`` on a new game shows the open phase; the .ics feed dates a phase processed early
  by when it was processed and stamps each event with the time the feed was made; ``status`` tells a
  borrowed unit's order apart from the power's own and names the units without orders; "(due now)"
  before the deadline says why.
* Every command on a game of a user variant works without the variant's folder (the
  receipt of ``submit`` and ``show`` read the game's stored copy, not the file).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing

register_commands()
runner = CliRunner()
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _run(db: str, *args: str, stdin: str | None = None) -> tuple[int, str]:
    r = runner.invoke(app, [*args, "--db", db], input=stdin)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.db'}"


# -- bounded work ---------------------------------------------------------------------------


@pytest.mark.parametrize("opt", ["--movement", "--retreats", "--adjustments"])
@pytest.mark.parametrize("value", ["0d", "0s", "0h0m"])
def test_a_deadline_of_zero_is_refused(db: str, opt: str, value: str) -> None:
    code, out = _run(db, "new", "g", opt, value)
    assert code == 2, out
    assert "error:" in out and "longer than zero" in out
    assert "Traceback" not in out


def test_a_deadline_too_far_off_is_a_message_not_a_traceback(db: str) -> None:
    code, out = _run(db, "new", "g", "--movement", "99999999d")
    assert code == 2, out
    assert "error:" in out and "at most" in out


def test_settings_refuse_zero_in_code_too() -> None:
    with pytest.raises(GameError, match="longer than zero"):
        GameSettings(deadlines={"movement": "0s"})


def test_extend_by_an_absurd_time_is_a_message(db: str) -> None:
    _run(db, "new", "g")
    code, out = _run(db, "extend", "g", "99999999d")
    assert code == 2 and "error:" in out, out


def test_a_board_without_units_or_centres_ends_the_game_and_force_processes_once(db: str) -> None:
    # 1897: nobody builds in Winter 1897, so no power has a unit or a centre.
    _run(db, "new", "g", "--variant", "1897", "--now", "2026-01-01T00:00")
    code, out = _run(db, "process", "g", "--force", "--now", "2026-01-01T00:00")
    assert code == 0, out
    assert out.count("results, game g") == 1, out[:2000]
    code, out = _run(db, "status", "g")
    assert "is over" in out and "no power" in out.lower(), out


def test_process_is_bounded_when_phases_need_nobody(db_url: str) -> None:
    """A game where nobody has anything to decide (no units; centres nobody can build on) cannot spin."""
    store = GameStore(db_url)
    try:
        from dippouch.catalog import load_variant
        from dippouch.game import position_to_data
        from helpers import board

        v = load_variant("standard")
        # Austria owns Warsaw (not a home centre) and has no unit: it can never build, and nobody else exists.
        pos = board(v, "Spring 1901 Movement", {}, centres={"Austria": ["war"]})
        store_games.create_game(store, "g", "standard", now=T0, position=position_to_data(v, pos))
        done = store_processing.process(store, "g", now=T0, force=True)
        assert 1 <= len(done) <= 10, done
        done = store_processing.process(store, "g", now=T0)
        assert len(done) <= 10, done
    finally:
        store.close()


# -- smaller things ------------------------------------------------------------------------


def test_show_on_a_new_game_shows_its_open_phase(db: str) -> None:
    _run(db, "new", "g", "--now", "2026-01-01T00:00")
    code, out = _run(db, "show", "g", "--now", "2026-01-01T00:00")
    assert code == 0, out
    assert "Spring 1901 Movement" in out and "open" in out
    assert "A Paris" in out


def test_calendar_dates_an_early_phase_by_its_processing_and_stamps_now(db: str) -> None:
    _run(db, "new", "g", "--now", "2026-01-01T00:00")
    _run(db, "process", "g", "--force", "--now", "2026-01-02T00:00")
    code, out = _run(db, "calendar", "g")
    assert code == 0, out
    events = out.split("BEGIN:VEVENT")[1:]
    spring = next(e for e in events if "Spring 1901" in e)
    assert "DTSTART:20260102T000000Z" in spring, spring
    stamps = [ln for e in events for ln in e.splitlines() if ln.startswith("DTSTAMP:")]
    assert stamps and all(s != "DTSTAMP:20260113T000000Z" and s != "DTSTAMP:20260114T000000Z" for s in stamps)
    fall = next(e for e in events if "Fall 1901" in e)
    assert "DTSTART:20260114T000000Z" in fall, fall


def test_status_tells_borrowed_orders_apart_and_lists_units_without_orders(db: str) -> None:
    now = "2026-01-01T00:00"
    _run(db, "new", "g", "--variant", "w3k", "--now", now)
    _run(db, "submit", "g", "Protectorate", "--now", now, stdin="A Deptford under orders of Crown\n")
    _run(db, "submit", "g", "Crown", "--now", now, stdin="A Deptford - London\nA Wiltshire - Berkshire\n")
    code, out = _run(db, "status", "g", "--now", now)
    assert code == 0, out
    flat = " ".join(out.split())
    assert "v1: 1 ok + 1" in out and "borrowed: orders for another power's units" in flat, out
    assert "without orders" in flat.lower()
    assert "Oxfordshire" in flat and "Gloucestershire" in flat  # Crown's units not ordered


def test_the_last_power_to_say_ready_makes_the_phase_process_at_once(db: str) -> None:
    """`submit --ready` does what the web's ready box does: once every power is ready the phase is processed
    then, not at the deadline (the same use case at every door, dippouch.play.orders)."""
    now = "2026-01-01T00:00"
    _run(db, "new", "g", "--now", now)
    for p in ("Austria", "England", "France", "Germany", "Italy", "Russia"):
        code, out = _run(db, "submit", "g", p, "--ready", "--replace-with-nothing", "--now", now, stdin="")
        assert code == 0 and "processed" not in out, out
    code, out = _run(db, "submit", "g", "Turkey", "--ready", "--replace-with-nothing", "--now", now, stdin="")
    assert code == 0 and "Every power was ready: processed Spring 1901 Movement." in out, out
    code, out = _run(db, "status", "g", "--now", now)
    assert code == 0 and "Fall 1901 Movement" in out, out


# -- a game keeps its variant, in every command ----------------------------------------------

V1898 = """[variant]
name = "v1898"
title = "1898"
extends = "standard"
"""


def test_every_command_on_a_user_variant_game_works_without_its_folder(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "v1898.toml").write_text(V1898)
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    now = "2026-01-01T00:00"
    code, out = _run(db, "new", "g", "--variant", "v1898", "--now", now)
    assert code == 0, out
    monkeypatch.delenv("DIPPOUCH_VARIANT_PATH")
    code, out = _run(db, "submit", "g", "France", "--now", now, stdin="A Par - Bur\n")
    assert code == 0 and "accepted  A Paris - Burgundy" in out, out
    code, out = _run(db, "show", "g", "--now", now)
    assert code == 0, out
    code, out = _run(db, "process", "g", "--force", "--now", now)
    assert code == 0, out
    export = str(tmp_path / "g.mila.json")
    for args in (
        ("show", "g"),
        ("report", "g"),
        ("replay", "g"),
        ("status", "g"),
        ("history", "g"),
        ("export", "g", export, "--format", "mila"),
    ):
        code, out = _run(db, *args)
        assert code == 0 and "error:" not in out, (args, out)


# -- scripts/run keeps the caller's directory ------------------------------------------------


def test_scripts_run_reads_relative_paths_from_where_it_is_called(tmp_path: Path) -> None:
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "mine.toml").write_text('[variant]\nname = "mine"\nextends = "standard"\n')
    env = {k: v for k, v in os.environ.items() if k != "DIPPOUCH_VARIANT_PATH"}
    env["DIPPOUCH_SETTINGS"] = str(tmp_path / "settings.toml")
    done = subprocess.run(
        [str(root / "scripts" / "run"), "variants", "check", "mine.toml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mine" in done.stdout


# -- a database already at the newest schema opens without Alembic ----------------------------


def test_head_revision_read_from_the_scripts_is_alembics(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory

    from dippouch.store.db import alembic_config, head_revision

    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_a_command_on_an_up_to_date_database_does_not_load_alembic(tmp_path: Path) -> None:
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'g.db'}"
    GameStore(url).close()  # creates the schema (this one needs Alembic)
    probe = (
        "import sys; from dippouch.store import GameStore, games; s = GameStore(sys.argv[1]); games.games(s); s.close(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))"
    )
    done = subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


# -- no input is read without a size limit ---------------------------------------------------


def test_a_submission_too_big_to_be_orders_is_refused_quickly(db: str, tmp_path: Path) -> None:
    import time

    _run(db, "new", "g", "--now", "2026-01-01T00:00")
    big = tmp_path / "big.txt"
    big.write_text("A Parr - Burr\n" * 40_000)
    t = time.perf_counter()
    code, out = _run(db, "submit", "g", "France", str(big), "--now", "2026-01-01T00:00")
    assert time.perf_counter() - t < 5
    assert code == 2 and "at most 1,000 lines" in out, out
    long = tmp_path / "long.txt"
    long.write_text("A Par - Bur " + "x" * 70_000)
    code, out = _run(db, "submit", "g", "France", str(long), "--now", "2026-01-01T00:00")
    assert code == 2 and "64,000 characters" in out, out
    # A reply quoting a long thread is read: quoted lines do not count.
    reply = tmp_path / "reply.txt"
    reply.write_text("A Par - Bur\n" + "> earlier mail, quoted\n" * 5_000)
    code, out = _run(db, "submit", "g", "France", str(reply), "--now", "2026-01-01T00:00")
    assert code == 0 and "accepted  A Paris - Burgundy" in out, out


# -- Ctrl-C, even during start-up, is a quiet stop ---------------------------------------------


def test_ctrl_c_during_start_up_is_quiet(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import dippouch.cli as cli

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "register_commands", interrupted)
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


def test_ctrl_c_while_a_command_waits_is_quiet(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    command = Path(sys.executable).parent / "dippouch"
    proc = subprocess.Popen(
        [str(command), "adjudicate"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal delivers it: to a process that has not inherited an ignored SIGINT.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Started and waiting for a request on standard input: blocked in read(0, ...). A fixed 3 s was not
    # enough on a loaded machine (the signal came during start-up).
    syscall = Path(f"/proc/{proc.pid}/syscall")
    end = time.monotonic() + 60
    while time.monotonic() < end and syscall.exists():
        words = syscall.read_text().split()
        if words[:2] in (["0", "0x0"], ["63", "0x0"]):  # read on fd 0 (x86-64, arm64)
            break
        time.sleep(0.05)
    else:
        time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err


def test_a_phase_id_too_big_for_the_database_is_a_message(db: str) -> None:
    _run(db, "new", "g")
    for command in ("report", "show", "replay"):
        code, out = _run(db, command, "g", "--id", "99999999999999999999")
        assert code == 2 and "has no phase with id" in out, (command, out)


@pytest.mark.parametrize(
    ("content", "message"),
    [("[" * 100_000, "nested too deeply"), ('{"a": ' + "7" * 5000 + "}", "digits"), ("{", "not valid JSON")],
)
def test_hostile_json_files_are_a_message(db: str, tmp_path: Path, content: str, message: str) -> None:
    f = tmp_path / "hostile.json"
    f.write_text(content)
    for args in (("import", str(f)), ("new", "g", "--position", str(f))):
        code, out = _run(db, *args)
        assert code == 2 and message in out, (args, out)
