"""Submissions that arrive while their phase is being processed: used if they were in first, else refused
with the reason (or, when they name no phase, kept for the phase that is open); never lost.

The race is made exact with pause points: a process stops inside its transaction, holding its locks,
until the test lets it go, and the other side is started in that gap. Both databases (``db_url``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.worker.service import ScanMemory, process_due
from workersupport import WAIT, start_worker, wait_until

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture
def store(db_url: str):  # type: ignore[no-untyped-def]
    s = GameStore(db_url)
    yield s
    s.close()


def _game(store: GameStore, *, hours_ago: float = 0) -> None:
    settings = GameSettings(deadlines={"movement": "1h", "retreats": "1h", "adjustments": "1h"})
    store_games.create_game(store, "g", "standard", now=store.clock() - timedelta(hours=hours_ago), settings=settings)


class Call(threading.Thread):
    """A store call in a thread, so the test can see it wait for a lock and then see how it ended."""

    def __init__(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(daemon=True)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.result: Any = None
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.result = self.fn(*self.args, **self.kwargs)
        except BaseException as e:
            self.error = e

    def outcome(self) -> Any:
        self.join(WAIT)
        assert not self.is_alive(), "the call never finished"
        return self.result


def _paused_worker(db_url: str, tmp_path: Path, point: str) -> subprocess.Popen[str]:
    env = {"DIPPOUCH_PAUSE_AT": point, "DIPPOUCH_PAUSE_DIR": str(tmp_path)}
    w = start_worker(db_url, "--once", env=env)
    wait_until(f"the worker to reach {point}", (tmp_path / f"{point.replace(':', '-')}.reached").exists)
    return w


def _go(tmp_path: Path, point: str) -> None:
    (tmp_path / f"{point.replace(':', '-')}.go").touch()


def test_orders_for_a_phase_being_processed_wait_and_are_refused_with_the_reason(
    db_url: str, store: GameStore, tmp_path: Path
) -> None:
    """Everyone is ready, so a worker processes the phase early; France changes its mind meanwhile."""
    _game(store)
    for p in POWERS:
        store_submissions.submit(store, "g", p, "A par - bur" if p == "France" else "no orders", now=None, ready=True)
    w = _paused_worker(db_url, tmp_path, "process:locked")
    late = Call(store_submissions.submit, store, "g", "France", "A par - pic", now=None, phase="Spring 1901 Movement")
    time.sleep(0.5)
    assert late.is_alive(), "the submission must wait for the phase being processed, not slip in beside it"
    _go(tmp_path, "process:locked")
    late.outcome()
    assert w.wait(WAIT) == 0
    assert isinstance(late.error, GameError)
    assert "Spring 1901 Movement was processed at" in str(late.error)
    assert "not recorded" in str(late.error) and "The open phase is Fall 1901 Movement" in str(late.error)
    rec = store_history.phase_record(store, "g", "S1901M")
    assert rec["orders"]["France"] == ["A par - bur"]
    assert [(s["power"], s["version"]) for s in rec["submissions"] if s["power"] == "France"] == [("France", 1)]


def test_orders_naming_no_phase_wait_and_go_to_the_phase_that_is_open(
    db_url: str, store: GameStore, tmp_path: Path
) -> None:
    _game(store, hours_ago=2)
    w = _paused_worker(db_url, tmp_path, "process:locked")
    call = Call(store_submissions.submit, store, "g", "France", "A par - bur", now=None)
    time.sleep(0.5)
    assert call.is_alive()
    _go(tmp_path, "process:locked")
    res = call.outcome()
    assert w.wait(WAIT) == 0
    assert call.error is None, call.error
    assert res.phase == "Fall 1901 Movement" and not res.late and res.version == 1
    assert [s["power"] for s in store_history.phase_record(store, "g", "F1901M")["submissions"]] == ["France"]


SUBMIT = """
import sys
from datetime import datetime
from dippouch.store import GameStore
from dippouch.store import submissions as store_submissions
url, power, text, stamp = sys.argv[1:5]
store = GameStore(url)
r = store_submissions.submit(store, "g", power, text, now=datetime.fromisoformat(stamp) if stamp else None, phase="S1901M")
print(r.phase, "version", r.version, "late" if r.late else "on time", flush=True)
"""


def _submit_held(db_url: str, flags: Path, power: str, text: str, stamp: str) -> subprocess.Popen[str]:
    """A submission in another process that stops inside its transaction, holding the game, until let go."""
    flags.mkdir()
    env = {**os.environ, "DIPPOUCH_PAUSE_AT": "submit:locked", "DIPPOUCH_PAUSE_DIR": str(flags)}
    sub = subprocess.Popen(
        [sys.executable, "-c", SUBMIT, db_url, power, text, stamp],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    wait_until(f"{power}'s submission to hold the game", (flags / "submit-locked.reached").exists)
    return sub


def _process_while_held(store: GameStore, go: Path, sub: subprocess.Popen[str]) -> tuple[list[Any], str]:
    """A worker's look while a submission holds the game; then the submission is let go.

    PostgreSQL: the worker skips the game (its claim is ``SKIP LOCKED``), processes nothing now, counts
    the phase as in other hands, and its next look processes it. SQLite: the worker waits for the
    submission's write lock, then processes. Either way the phase is processed after the submission.
    Returns the phases processed and the submitter's output.
    """
    memory = ScanMemory()
    worker = Call(process_due, store, memory=memory)
    time.sleep(0.5)
    if store.engine.dialect.name == "postgresql":
        assert worker.outcome() == [], "a worker must not process a game while a submission is being written"
        assert memory.contended == 1, "the skipped phase is known to be waiting"
    else:
        assert worker.is_alive(), "processing must wait for a submission in flight"
    go.touch()
    out, err = sub.communicate(timeout=WAIT)
    assert sub.returncode == 0, err
    done = worker.outcome()
    assert worker.error is None, worker.error
    if store.engine.dialect.name == "postgresql":
        done = process_due(store)  # the next look
    return done, out.strip()


def test_a_submission_in_flight_when_processing_starts_is_waited_for_and_used_if_on_time(
    db_url: str, store: GameStore, tmp_path: Path
) -> None:
    """France's orders, received before the deadline (by post, say), are being written when a worker
    comes for the phase: the phase is processed after them, and with them."""
    _game(store, hours_ago=2)
    deadline = store_status.status(store, "g", now=store.clock()).deadline
    assert deadline is not None
    stamp = (deadline - timedelta(minutes=1)).isoformat()
    sub = _submit_held(db_url, tmp_path / "flags", "France", "A par - bur", stamp)
    done, out = _process_while_held(store, tmp_path / "flags" / "submit-locked.go", sub)
    assert out == "Spring 1901 Movement version 1 on time"
    assert [p.phase for p in done] == ["Spring 1901 Movement"]
    assert store_history.phase_record(store, "g", "S1901M")["orders"]["France"] == ["A par - bur"]


def test_a_late_submission_in_flight_is_kept_as_late_and_not_used(
    db_url: str, store: GameStore, tmp_path: Path
) -> None:
    _game(store, hours_ago=2)
    flags = tmp_path / "flags"
    sub = _submit_held(db_url, flags, "Germany", "A ber - kie", "")
    done, out = _process_while_held(store, flags / "submit-locked.go", sub)
    assert out == "Spring 1901 Movement version 1 late"
    assert [p.phase for p in done] == ["Spring 1901 Movement"]
    rec = store_history.phase_record(store, "g", "S1901M")
    assert rec["orders"].get("Germany") is None and "Germany" in rec["missed"]
    assert [(s["power"], s["late"]) for s in rec["submissions"]] == [("Germany", True)]


def test_orders_from_a_page_whose_phase_was_processed_meanwhile_are_refused_not_moved(db_url: str) -> None:
    """The web's side of the race: a player's form (and the JSON API) says which phase it was written for, so
    orders that arrive after a worker processed that phase are refused with the reason, by form and by API,
    and do not go unseen into the next phase; naming the open phase, or none, they go in."""
    from websupport import Site

    site = Site(db_url)
    site.new_game("demo", movement="3d")
    france = site.player("demo", "France", "Bruno")
    assert (
        '<input type="hidden" name="phase" value="Spring 1901 Movement">' in france.get("/games/demo/play/France").text
    )
    site.post_form(
        site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"}
    )  # processed while France was typing

    r = site.post_form(
        france, "/games/demo/play/France/orders", {"orders": "A par - bur", "phase": "Spring 1901 Movement"}
    )
    assert r.status_code == 400, r.text
    assert "Spring 1901 Movement was processed at" in r.text and "The open phase is Fall 1901 Movement" in r.text
    r = site.api(france, "/api/games/demo/powers/France/orders", {"text": "A par - bur", "phase": "S1901M"})
    assert r.status_code == 400 and "Spring 1901 Movement was processed at" in r.json()["error"], r.text
    store = site.web.store
    assert (
        store_history.phase_record(store, "demo", "F1901M")["submissions"] == []
    )  # nothing slipped into the next phase

    r = site.api(france, "/api/games/demo/powers/France/orders", {"text": "A par - pic", "phase": "Fall 1901 Movement"})
    assert r.status_code == 200 and r.json()["phase"] == "Fall 1901 Movement", r.text
    r = site.api(france, "/api/games/demo/powers/France/orders", {"text": "A par - bur"})
    assert r.status_code == 200 and r.json()["phase"] == "Fall 1901 Movement" and r.json()["version"] == 2
