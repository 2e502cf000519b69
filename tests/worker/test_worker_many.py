"""Many games, several worker processes: every phase processed exactly once, in order, none skipped.

Real ``dippouch worker`` processes run against a real database while the games' deadlines (seconds
long) keep falling due. Afterwards the phases table and the event log are read back and every game's line
of play is checked whole (:func:`workersupport.check_ledger`). The second test kills workers with SIGKILL
at random moments, some of them in the middle of a phase (a crash point just before the commit), starts
new ones in their place, and checks the same.

PostgreSQL gets 3 workers and 48 games; SQLite, whose single write lock makes several workers safe but
not faster, 2 workers and 12 games. That is enough for what is checked: with deadlines falling due every
second, every worker's looks find phases the others are claiming at the same moment, each worker gets work,
and the kill test's workers die inside phases and between them. More games (200 before) repeated the same
races more often, at a worker's start-up per kill.
"""

from __future__ import annotations

import random
import signal
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from workersupport import WAIT, check_ledger, engine, start_worker, stop

PHASES_EACH = 2
"""Movement phases every game must have processed before the workers are stopped."""
OUTSIDE_KILLS = 4
"""SIGKILLs from outside at most (each costs a new worker's start); at least one is checked to have happened."""


def _size(db_url: str) -> tuple[int, int]:
    """(games, workers) for this database."""
    return (48, 3) if db_url.startswith("postgresql") else (12, 2)


def _games(url: str, n: int) -> None:
    """``n`` standard games whose phases last 1 to 3 seconds, so deadlines keep falling due in the test."""
    store = GameStore(url)
    try:
        now = datetime.now(UTC)
        for i in range(n):
            secs = 1 + i % 3
            settings = GameSettings(deadlines={"movement": f"{secs}s", "retreats": "1s", "adjustments": "1s"})
            store_games.create_game(store, f"g{i:03d}", "standard", now=now, settings=settings)
    finally:
        store.close()


def _progress(url: str) -> tuple[int, int]:
    """(the fewest phases any game has processed so far, the phases processed in all)."""
    eng = engine(url)
    try:
        with eng.connect() as c:
            q = "SELECT min(n), sum(n) FROM (SELECT g.id, count(p.id) AS n FROM games g LEFT JOIN phases p ON p.game_id = g.id AND p.status = 'processed' GROUP BY g.id) t"
            fewest, total = c.execute(sa.text(q)).one()
            return int(fewest or 0), int(total or 0)
    finally:
        eng.dispose()


class Progress:
    """Whether every game has its phases yet; an error when no phase at all has been processed for ``WAIT``
    seconds (workers stuck or dying at once). A loaded machine's workers take long to start and to process, and
    that is not what these tests check: a fixed limit on the whole wait failed them at load averages of 20 and
    more with every phase processed exactly once."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.total = -1
        self.moved = time.monotonic()

    def done(self) -> bool:
        fewest, total = _progress(self.url)
        if total != self.total:
            self.total, self.moved = total, time.monotonic()
        assert time.monotonic() - self.moved < WAIT, f"no phase processed for {WAIT:g} s ({total} in all)"
        return fewest >= PHASES_EACH


def _assert_whole(url: str, games: int) -> None:
    led = check_ledger(url)
    assert led.games == games
    assert not led.problems, "\n".join(led.problems[:20])
    assert led.open == games
    assert min(led.processed_per_game.values()) >= PHASES_EACH


@pytest.mark.postgres
@pytest.mark.slow
def test_workers_process_every_phase_exactly_once_in_order(db_url: str, tmp_path: Path) -> None:
    games, workers = _size(db_url)
    _games(db_url, games)
    logs = [tmp_path / f"worker{i}.log" for i in range(workers)]
    procs = [start_worker(db_url, "--interval", "0.2", "--batch", "20", log=logs[i]) for i in range(workers)]
    try:
        progress = Progress(db_url)
        while not progress.done():
            time.sleep(0.5)
    finally:
        for p in procs:  # all told at once: each finishes its phase in hand while the others do
            p.send_signal(signal.SIGTERM)
        codes = [p.wait(timeout=WAIT) for p in procs]  # not stop(), whose second signal would roll back
    output = "\n".join(f.read_text() for f in logs)
    assert codes == [0] * workers, output[-3000:]
    _assert_whole(db_url, games)
    # Each worker's own account: the phases it says it processed add up to the phases in the database, so
    # no phase was reported processed twice.
    said = sum(
        int(line.rsplit("worker stopped: ", 1)[1].split()[0])
        for line in output.splitlines()
        if "worker stopped: " in line
    )
    assert said == check_ledger(db_url).processed
    if workers > 1:
        # The work was shared, not done by one worker while the others waited.
        busy = [f.read_text().count(" processed ") for f in logs]
        assert sum(1 for b in busy if b > 0) >= 2, busy


@pytest.mark.postgres
@pytest.mark.slow
def test_workers_killed_at_random_still_process_exactly_once(db_url: str, tmp_path: Path) -> None:
    games, workers = _size(db_url)
    _games(db_url, games)
    rng = random.Random(15)
    # Some deaths come from inside a phase, just before its commit (the worst moment), by SIGKILL; the
    # test adds more SIGKILLs at random moments from outside.
    crash = {
        "DIPPOUCH_CRASH_AT": "process:before-commit",
        "DIPPOUCH_CRASH_CHANCE": "0.02",
        "DIPPOUCH_CRASH_SIGKILL": "1",
    }
    log = tmp_path / "workers.log"
    procs: list[subprocess.Popen[str]] = []
    outside = 0

    def spawn(chance: str | None = None) -> subprocess.Popen[str]:
        env = {**crash, "DIPPOUCH_CRASH_CHANCE": chance} if chance else crash
        return start_worker(db_url, "--interval", "0.2", "--batch", "20", env=env, log=log)

    # The first worker dies at the first phase it processes, surely: at least one death is mid-phase.
    sure = spawn("1")
    procs = [sure] + [spawn() for _ in range(workers - 1)]
    progress = Progress(db_url)
    try:
        while not progress.done():  # its error says whether the workers keep dying before they get anything done
            time.sleep(rng.uniform(0.5, 1.5))
            # A few kills from outside, spaced so that new workers (a second or more to start) get work done.
            if outside < OUTSIDE_KILLS and rng.random() < 0.5:
                victim = rng.choice([p for p in procs if p is not sure])
                if victim.poll() is None:
                    victim.send_signal(signal.SIGKILL)
                    victim.wait()
                    outside += 1
            for i, p in enumerate(procs):
                if p.poll() is not None:
                    assert p.returncode == -signal.SIGKILL, log.read_text()[-3000:]
                    procs[i] = spawn()
    finally:
        for p in procs:
            stop(p, signal.SIGKILL)
    inside = log.read_text().count("dying at crash point process:before-commit")  # SIGKILLs mid-phase
    assert outside > 0 and inside > 0, (outside, inside)
    _assert_whole(db_url, games)
