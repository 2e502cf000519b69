"""Deadline processing (``dippouch.worker``): what is due, by whose clock, and how a worker stops.

Each test runs on SQLite and on PostgreSQL (``db_url``). The many-worker runs are in test_worker_many.py,
submissions racing the processing of their phase in test_worker_races.py.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch.game import GameError, GameSettings
from dippouch.play.processing import Processed
from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.bots import games_with_bots
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.worker.service import ScanMemory, Worker, process_due
from dippouch.worker.stopping import StopFlag
from workersupport import check_ledger, dippouch_command, printed_port, start_worker, stop, wait_until


@pytest.fixture
def store(db_url: str):  # type: ignore[no-untyped-def]
    s = GameStore(db_url)
    yield s
    s.close()


def _game(store: GameStore, name: str, *, opened: datetime, movement: str = "1h") -> None:
    settings = GameSettings(deadlines={"movement": movement, "retreats": "1h", "adjustments": "1h"})
    store_games.create_game(store, name, "standard", now=opened, settings=settings)


def _processed(store: GameStore, name: str) -> list[str]:
    return [r.name for r in store_history.history(store, name) if r.status == "processed"]


def test_process_due_takes_due_games_oldest_deadline_first_and_leaves_the_rest(store: GameStore) -> None:
    now = store.clock()
    _game(store, "late", opened=now - timedelta(hours=2))  # due an hour ago
    _game(store, "later", opened=now - timedelta(hours=3))  # due two hours ago: first
    _game(store, "early", opened=now)  # due in an hour
    _game(store, "held", opened=now - timedelta(hours=2))
    store_deadlines.pause(store, "held", now=now - timedelta(hours=1, minutes=30))

    done = process_due(store)

    assert [(p.game, p.phase) for p in done] == [("later", "Spring 1901 Movement"), ("late", "Spring 1901 Movement")]
    assert _processed(store, "early") == [] and _processed(store, "held") == []
    # The next phases opened now, by the same clock, with a fresh hour: nothing more is due.
    assert process_due(store) == []
    assert not check_ledger(store.engine.url.render_as_string(hide_password=False)).problems


def test_process_due_processes_when_everyone_is_ready_and_not_before(store: GameStore) -> None:
    now = store.clock()
    _game(store, "g", opened=now)
    memory = ScanMemory()
    powers = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
    for p in powers[:-1]:
        store_submissions.submit(store, "g", p, "no orders", now=None, ready=True)  # ready with none, said so
    assert process_due(store, memory=memory) == []
    assert memory.not_ready, "the half-ready phase is remembered, not checked again until something changes"
    assert process_due(store, memory=memory) == []
    store_submissions.submit(store, "g", "Turkey", "A con - bul", now=None, ready=True)
    done = process_due(store, memory=memory)
    assert [p.phase for p in done] == ["Spring 1901 Movement"]
    assert store_history.phase_record(store, "g", "S1901M")["orders"]["Turkey"] == ["A con - bul"]


def test_while_phases_past_their_deadline_wait_the_looks_for_ready_phases_and_bots_wait_too(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy worker calls process_due for a few phases at a time: the looks over every game (phases ready early,
    bots to play, practice games left) come once a LOOKS_WHILE_BEHIND then, not at every call; the deadlines go
    first, and a phase everyone is ready in is processed at the first look after (or once none waits)."""
    import dippouch.play.processing as processing

    now = store.clock()
    for i in range(3):
        _game(store, f"late{i}", opened=now - timedelta(hours=2, minutes=i))
    _game(store, "ready", opened=now)
    for p in ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]:
        store_submissions.submit(store, "ready", p, "no orders", now=None, ready=True)
    looks: list[str] = []

    def looking(db: GameStore) -> list[str]:
        looks.append("bots")
        return games_with_bots(db)

    monkeypatch.setattr(processing, "games_with_bots", looking)
    memory = ScanMemory()
    # The first call looks (limit 1: the late phase first, nothing more this call); two wait behind it.
    assert [p.game for p in process_due(store, limit=1, memory=memory)] == ["late2"]
    assert looks == ["bots"] and memory.contended == 2
    clock = store.clock
    reads: list[datetime] = []

    def reading() -> datetime:
        reads.append(clock())
        return reads[-1]

    monkeypatch.setattr(store, "clock", reading)
    memory.looked = time.monotonic()  # the interval runs from now, however long the first call took
    assert [p.game for p in process_due(store, limit=1, memory=memory)] == ["late1"]
    assert looks == ["bots"], "no look while phases past their deadline wait, within the interval"
    assert reads == [], "nor the database's clock read for the housekeeping it does not do"
    monkeypatch.setattr(store, "clock", clock)
    assert memory.looked is not None
    memory.looked -= processing.LOOKS_WHILE_BEHIND  # as if that long had passed since
    # A look is due again: the last late phase, then the phase everyone is ready in, in one call.
    assert [p.game for p in process_due(store, limit=2, memory=memory)] == ["late0", "ready"]
    assert looks == ["bots", "bots"] and memory.contended == 0
    # None waits now: every call looks, however soon.
    process_due(store, memory=memory)
    assert looks == ["bots", "bots", "bots"]


def test_a_broken_game_is_skipped_and_the_others_go_on(store: GameStore, caplog: pytest.LogCaptureFixture) -> None:
    now = store.clock()
    _game(store, "broken", opened=now - timedelta(hours=3))  # the oldest deadline: first in the queue
    _game(store, "fine", opened=now - timedelta(hours=2))
    with store.session() as s, s.begin():  # a damaged stored position: a unit in a province that does not exist
        gid = s.scalar(sa.select(GameRow.id).where(GameRow.name == "broken"))
        ph = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == gid)).one()
        ph.position = {**ph.position, "units": [{"power": "France", "unit": "A nosuch"}]}
    memory = ScanMemory()
    done = process_due(store, memory=memory)
    assert [p.game for p in done] == ["fine"]
    assert "cannot process broken: Spring 1901 Movement" in caplog.text and "nosuch" in caplog.text, caplog.text
    assert list(memory.failed) == [store_claims.due_phases(store)[0].phase_id]
    assert memory.contended == 0  # the broken one is not "in other hands": no quick retries
    assert process_due(store, memory=memory) == []  # left alone for a while, not retried every look
    assert caplog.text.count("cannot process broken") == 1


def test_the_database_clock_decides_not_the_workers(store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose clock runs an hour fast must not process a phase due in half an hour (PostgreSQL:
    the server's clock decides). SQLite has no server clock: its workers share the one machine's clock."""
    import dippouch.store.db as db

    real = datetime

    class FastClock(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            return real.now(tz) + timedelta(hours=1)

    _game(store, "g", opened=store.clock() - timedelta(minutes=30))
    monkeypatch.setattr(db, "datetime", FastClock)
    done = process_due(store)
    if store.engine.dialect.name == "postgresql":
        assert done == []
        with store.engine.connect() as c:
            server = c.execute(sa.text("SELECT clock_timestamp()")).scalar_one()
        assert abs((store.clock() - server).total_seconds()) < 5
    else:
        assert [p.game for p in done] == ["g"]


def test_a_deadline_extended_after_the_scan_is_respected(store: GameStore) -> None:
    now = store.clock()
    _game(store, "g", opened=now - timedelta(hours=2))
    (due,) = store_claims.due_phases(store)
    store_deadlines.extend(store, "g", timedelta(hours=3), now=now)
    assert store_processing.process_phase(store, due.phase_id, only_if_due=True, claim=True) is False
    assert _processed(store, "g") == []


def test_submitting_for_a_phase_that_was_processed_is_refused_and_says_why(store: GameStore) -> None:
    now = store.clock()
    _game(store, "g", opened=now - timedelta(hours=2))
    ok = store_submissions.submit(store, "g", "France", "A par - bur", now=None, phase="spring 1901")
    assert ok.phase == "Spring 1901 Movement" and ok.late
    process_due(store)
    with pytest.raises(GameError) as e:
        store_submissions.submit(store, "g", "France", "A par - pic", now=None, phase="Spring 1901 Movement")
    msg = str(e.value)
    assert "Spring 1901 Movement was processed at" in msg and "not recorded" in msg
    assert "The open phase is Fall 1901 Movement, deadline" in msg
    with pytest.raises(GameError, match="Spring 1905 Movement is not open"):
        store_submissions.submit(store, "g", "France", "A par - pic", now=None, phase="S1905M")
    with pytest.raises(GameError, match="cannot read the phase 'Sprung 1901'"):
        store_submissions.submit(store, "g", "France", "A par - pic", now=None, phase="Sprung 1901")
    ok = store_submissions.submit(store, "g", "France", "A bur - mun", now=None, phase="F1901M")
    assert ok.phase == "Fall 1901 Movement" and ok.version == 1
    assert len(store_history.phase_record(store, "g", "S1901M")["submissions"]) == 1  # the refused ones left nothing


def test_the_ledger_check_finds_a_phase_processed_twice_or_half_written(db_url: str, store: GameStore) -> None:
    """The many-worker tests rely on check_ledger: it must see what it is there to see."""
    now = store.clock()
    _game(store, "a", opened=now - timedelta(hours=2))
    _game(store, "b", opened=now - timedelta(hours=2))
    process_due(store)
    assert check_ledger(db_url).problems == []
    with store.session() as s, s.begin():
        game_id = s.scalar(sa.select(PhaseRow.game_id).where(PhaseRow.seq == 0).order_by(PhaseRow.id))
        s.add(EventRow(game_id=game_id, at=now, kind="processed", detail={"seq": 0, "branch": 0}))
        other = s.scalars(sa.select(PhaseRow).where(PhaseRow.seq == 0, PhaseRow.game_id != game_id)).one()
        other.results = None
    problems = check_ledger(db_url).problems
    assert any("processed events for seqs [0, 0]" in p for p in problems), problems
    assert any("half-written" in p for p in problems), problems


# --------------------------------------------------------------------------------------------------
# The worker process: stopping, dying, health and metrics


def test_sigterm_finishes_the_phase_in_hand_then_stops(db_url: str, store: GameStore, tmp_path: Path) -> None:
    now = store.clock()
    _game(store, "a", opened=now - timedelta(hours=3))
    _game(store, "b", opened=now - timedelta(hours=2))
    env = {"DIPPOUCH_PAUSE_AT": "process:before-commit", "DIPPOUCH_PAUSE_DIR": str(tmp_path)}
    w = start_worker(db_url, "--interval", "0.2", env=env)
    wait_until("the worker to be inside its first phase", (tmp_path / "process-before-commit.reached").exists)
    w.send_signal(signal.SIGTERM)
    (tmp_path / "process-before-commit.go").touch()
    out, _ = w.communicate(timeout=60)
    assert w.returncode == 0, out
    assert "SIGTERM: finishing the phase in hand" in out and "worker stopped: 1 phase processed" in out
    assert _processed(store, "a") == ["Spring 1901 Movement"]  # finished and committed
    assert _processed(store, "b") == []  # not started


def test_a_second_signal_rolls_the_phase_in_hand_back_whole(db_url: str, store: GameStore, tmp_path: Path) -> None:
    _game(store, "a", opened=store.clock() - timedelta(hours=3))
    env = {"DIPPOUCH_PAUSE_AT": "process:before-commit", "DIPPOUCH_PAUSE_DIR": str(tmp_path)}
    w = start_worker(db_url, "--interval", "0.2", env=env)
    wait_until("the worker to be inside the phase", (tmp_path / "process-before-commit.reached").exists)
    w.send_signal(signal.SIGTERM)
    w.send_signal(signal.SIGINT)
    out, _ = w.communicate(timeout=60)
    assert w.returncode == 1, out
    assert "stopping now; the phase in hand is rolled back" in out
    assert _processed(store, "a") == []
    assert not check_ledger(db_url).problems
    # Nothing is left locked or claimed: a worker processes it at once.
    assert [p.game for p in process_due(store)] == ["a"]


def test_a_worker_killed_mid_phase_leaves_it_to_the_next(db_url: str, store: GameStore) -> None:
    _game(store, "a", opened=store.clock() - timedelta(hours=3))
    env = {"DIPPOUCH_CRASH_AT": "process:before-commit", "DIPPOUCH_CRASH_SIGKILL": "1"}
    w = start_worker(db_url, "--once", env=env)
    out, _ = w.communicate(timeout=60)
    assert w.returncode == -signal.SIGKILL, out
    assert "dying at crash point process:before-commit" in out
    assert _processed(store, "a") == [] and not check_ledger(db_url).problems
    again = start_worker(db_url, "--once")
    out, _ = again.communicate(timeout=60)
    assert again.returncode == 0, out
    assert "worker stopped: 1 phase processed" in out
    assert _processed(store, "a") == ["Spring 1901 Movement"]


def test_health_and_metrics_of_a_running_worker(db_url: str, store: GameStore) -> None:
    _game(store, "a", opened=store.clock() - timedelta(hours=3))
    _game(store, "b", opened=store.clock())
    w = start_worker(db_url, "--interval", "0.2", "--metrics-port", "0")
    try:
        port = printed_port(w)
        base = f"http://127.0.0.1:{port}"

        def fetch(path: str) -> tuple[int, str]:
            try:
                with urllib.request.urlopen(base + path, timeout=10) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        wait_until("game a to be processed", lambda: _processed(store, "a") != [])
        wait_until("a healthy look", lambda: fetch("/healthz")[0] == 200)
        health = json.loads(fetch("/healthz")[1])
        assert health["status"] == "ok" and health["role"] == "worker" and health["processed"] == 1
        status, text = fetch("/metrics")
        assert status == 200
        assert 'dippouch_phases_processed_total{variant="standard"} 1.0' in text
        assert 'dippouch_phase_processing_seconds_count{variant="standard"} 1.0' in text
        assert "dippouch_phases_due 0.0" in text
        assert "dippouch_phase_lateness_seconds_count 1.0" in text
        assert fetch("/nowhere")[0] == 404
    finally:
        assert stop(w) == 0


STOP_UNDER_SIGNALS = """
import signal, sys, time
from dippouch.worker.stopping import StopFlag

flag = StopFlag()
signal.signal(signal.SIGALRM, lambda signum, frame: flag.set())
signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)  # a signal every 0.2 ms
end = time.monotonic() + 1.0
waits = 0
while time.monotonic() < end:
    flag.wait(0.0001)
    waits += 1
signal.setitimer(signal.ITIMER_REAL, 0)
print("waited", waits, "times, set:", flag.is_set())
"""


def test_the_stop_flag_can_be_set_by_a_signal_landing_inside_its_wait() -> None:
    """The worker's SIGTERM handler sets its stop flag, and the signal may land while the main thread is in the
    flag's own wait. A ``threading.Event`` deadlocks there (its lock is held by the very thread the handler
    interrupts: a worker that never stopped on CI); this process waits on the flag thousands of times with a
    signal setting it every 0.2 ms and must finish (with an Event it hangs or dies within the second)."""
    r = subprocess.run([sys.executable, "-c", STOP_UNDER_SIGNALS], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("waited ") and r.stdout.strip().endswith("set: True"), r.stdout


def test_the_stop_flag_waits_on_a_descriptor_numbered_past_1024() -> None:
    """The test suite's process had so many files open that the flag's pipe was numbered over 1024, which select()
    refuses ("filedescriptor out of range"): a worker with as many open would have failed at its first wait."""
    import resource
    import threading

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1100:  # as tests/bots/test_outside_high_fd.py: not a skip
        pytest.fail(f"this machine allows {hard} open files; the test needs 1100")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))  # within the hard limit, checked above
    held: list[int] = []
    try:
        while not held or held[-1] < 1024:
            held.append(os.open(os.devnull, os.O_RDONLY))
        flag = StopFlag()
        assert flag._read >= 1024
        started = time.monotonic()
        assert flag.wait(0.05) is False and time.monotonic() - started >= 0.04
        threading.Timer(0.05, flag.set).start()
        assert flag.wait(10) is True and time.monotonic() - started < 5  # woken, not timed out
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_second_signal_handled_inside_the_first_s_handler_stops_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM and SIGINT sent together: the second may be handled between two bytecodes of the first's handler
    (while it logs). It must still count as the second (the worker stops at once, rolling the phase in hand
    back), not as another first (seen once in CI: the worker went on finishing a phase held at a pause point)."""
    store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
    w = Worker(store, interval=0.1)
    from dippouch.worker import service

    said: list[str] = []
    real_info = service.log.info

    def info(message: str, *args: object) -> None:
        said.append(message % args)
        if len(said) == 1:  # the SIGINT lands while the SIGTERM's handler logs
            w._on_signal(signal.SIGINT, None)
        real_info(message, *args)

    monkeypatch.setattr(service.log, "info", info)
    with pytest.raises(SystemExit) as stopped:
        w._on_signal(signal.SIGTERM, None)
    assert stopped.value.code == 1 and w.stopping.is_set()
    assert said == ["SIGTERM: finishing the phase in hand, then stopping"]
    store.close()


def test_health_says_unhealthy_when_the_database_is_gone(tmp_path: Path) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
    w = Worker(store, interval=0.1)
    assert w.health()[0] is False  # no look yet
    w.run(once=True)
    assert w.health()[0] is True
    store.close()
    (tmp_path / "g.db").unlink()
    (tmp_path / "g.db").mkdir()  # a directory where the database was: every query now fails
    with pytest.raises(sa.exc.OperationalError):
        w.run(once=True)
    ok, detail = w.health()
    assert ok is False and detail["last_error"] == "database unavailable"
    assert "g.db" not in json.dumps(detail) and "OperationalError" not in json.dumps(detail)  # the log has it


def test_a_worker_whose_database_comes_back_says_so_after_its_failures(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A restart of the database: the looks fail, back off, then succeed. The log (kept at warnings by --quiet)
    must not end on the last failure, as if the worker were still failing."""
    store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
    w = Worker(store, interval=0.001)
    looks = iter(["restarting", "restarting", "answers"])

    def look() -> list[Processed]:
        database = next(looks, "enough")
        if database == "restarting":
            raise sa.exc.OperationalError("SELECT", {}, RuntimeError(database))
        if database == "enough":
            w.stopping.set()  # the look after the first that succeeded
        return []

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]

    w.look = look  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING, logger="dippouch.worker"):
        w.run()
    store.close()
    assert [m.split(":")[0] for m in said()] == [
        "look for due phases failed (1 in a row)",
        "look for due phases failed (2 in a row)",
        "looking again",
    ]
    assert said()[-1] == "looking again: the database answered after 2 failed looks"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "--interval must be more than 0 seconds (got 0); try 5"),
        (["--batch", "0"], "--batch must be at least 1 (got 0); try 100"),
        (["--metrics-port", "70000"], "--metrics-port 70000 is out of range (0-65535)"),
        (["--intervl", "2"], "No such option: --intervl"),
        (["--nice", "25"], "--nice must be between 0 and 19 (got 25); try 10"),
    ],
)
def test_worker_command_refuses_bad_options_clearly(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line's own entry (what the ``dippouch`` script runs after its imports), in this process: a
    refusal is decided before the worker starts, so a process of its own per option only repeated the imports
    (the script itself starts every worker of these tests)."""
    from dippouch.cli import _run

    monkeypatch.setattr(sys, "argv", ["dippouch", "worker", "--db", f"sqlite:///{tmp_path / 'g.db'}", *args])
    with pytest.raises(SystemExit) as done:
        _run()
    err = capsys.readouterr().err
    assert done.value.code == 2, err
    assert message in err
    assert "Traceback" not in err
    assert not (tmp_path / "g.db").exists()  # refused before anything was opened


def test_worker_once_on_an_empty_database_says_so(tmp_path: Path) -> None:
    r = subprocess.run(
        [*dippouch_command(), "worker", "--once", "--db", f"sqlite:///{tmp_path / 'g.db'}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "worker stopped: 0 phases processed" in r.stdout


@pytest.mark.parametrize(("args", "lowered_by"), [((), 10), (("--nice", "0"), 0), (("--nice", "3"), 3)])
def test_a_worker_gives_the_web_the_cpu_first(args: tuple[str, ...], lowered_by: int, tmp_path: Path) -> None:
    """By default a worker lowers its own CPU priority (nice 10): on a shared machine a player's page goes
    before a deadline, which can wait a second."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    proc = subprocess.Popen(  # not start_worker, which runs workers at full priority
        [*dippouch_command(), "worker", "--db", f"sqlite:///{tmp_path / 'g.db'}", "--interval", "30", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline() + proc.stdout.readline()
        assert "dippouch worker on" in banner or "note:" in banner, banner
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == min(base + lowered_by, 19)
    finally:
        stop(proc)
