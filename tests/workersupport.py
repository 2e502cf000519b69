"""Running real ``dippouch worker`` processes in tests, and checking the database they leave behind."""

from __future__ import annotations

import itertools
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dippouch.store.db import _normalise
from dippouch.store.models import EventRow, GameRow, PhaseRow

WAIT = 120.0
"""Seconds any one wait may take before a test gives up (a loaded machine is slow, not stuck)."""


def dippouch_command() -> list[str]:
    """The installed ``dippouch`` script beside this Python, as a user would run it."""
    script = Path(sys.executable).parent / "dippouch"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from dippouch.cli import main; main()"]


def start_worker(
    url: str, *args: str, env: Mapping[str, str] | None = None, log: Path | None = None
) -> subprocess.Popen[str]:
    full_env = {**os.environ, **(env or {})}
    for k in ("DIPPOUCH_CRASH_AT", "DIPPOUCH_PAUSE_AT"):  # only what the test asks for
        if env is None or k not in env:
            full_env.pop(k, None)
    out = open(log, "a") if log is not None else subprocess.PIPE  # noqa: SIM115 - handed to the process
    return subprocess.Popen(
        # Full priority unless a test asks otherwise: the tests' own processes keep the cores busy, and a
        # worker at the default --nice 10 would wait behind them.
        # Without the pages made ahead unless a test asks for them (``--pages``): building the web's app costs
        # each start 2 s of CPU, and the tests start workers by the hundred; tests/worker/test_worker_pages.py
        # and the worker's season walk test the pages.
        [
            *dippouch_command(),
            "worker",
            "--db",
            url,
            *(() if "--pages" in args else ("--no-pages",)),
            *(args if "--nice" in args else ("--nice", "0", *args)),
        ],
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
        env=full_env,
    )


def wait_until(what: str, ok: Callable[[], bool], timeout: float = WAIT, every: float = 0.05) -> None:
    end = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
    return proc.wait(timeout=WAIT)


def engine(url: str) -> sa.Engine:
    return sa.create_engine(_normalise(url))


@dataclass
class Ledger:
    """What the phases and events tables say about every game, checked for "exactly once, in order"."""

    games: int = 0
    processed: int = 0
    open: int = 0
    problems: list[str] = field(default_factory=list)
    processed_per_game: dict[str, int] = field(default_factory=dict)


def check_ledger(url: str) -> Ledger:
    """Every game's line of play is whole: phases 0..n on branch 0, each processed one written in full,
    processed once (one ``processed`` event), not before its deadline, and the next phase opened from
    exactly its result; only the last phase is open; nothing abandoned, no stray rows."""
    led = Ledger()
    eng = engine(url)
    try:
        with eng.connect() as c:
            games = c.execute(sa.select(GameRow.id, GameRow.name, GameRow.status).order_by(GameRow.id)).all()
            P = PhaseRow
            phases = c.execute(
                sa.select(
                    P.game_id,
                    P.branch,
                    P.seq,
                    P.name,
                    P.status,
                    P.position,
                    P.next_position,
                    P.orders,
                    P.results,
                    P.missed,
                    P.opened_at,
                    P.deadline,
                    P.processed_at,
                ).order_by(P.game_id, P.branch, P.seq)
            ).all()
            events = c.execute(
                sa.select(EventRow.game_id, EventRow.detail).where(EventRow.kind == "processed").order_by(EventRow.id)
            ).all()
    finally:
        eng.dispose()
    by_game: dict[int, list[sa.Row[Any]]] = {}
    for row in phases:
        by_game.setdefault(row.game_id, []).append(row)
    ev_by_game: dict[int, list[int]] = {}
    for ev in events:
        ev_by_game.setdefault(ev.game_id, []).append(int(ev.detail["seq"]))
    led.games = len(games)

    def bad(game: str, text: str) -> None:
        led.problems.append(f"{game}: {text}")

    for gid, name, gstatus in games:
        rows = by_game.get(gid, [])
        if [r.seq for r in rows] != list(range(len(rows))):
            bad(name, f"phases are not seq 0..{len(rows) - 1}: {[r.seq for r in rows]}")
        if any(r.branch != 0 for r in rows):
            bad(name, "a phase on another branch")
        done = [r for r in rows if r.status == "processed"]
        still = [r for r in rows if r.status == "open"]
        if len(done) + len(still) != len(rows):
            bad(name, f"phases neither processed nor open: {[r.status for r in rows]}")
        if gstatus != "finished" and (len(still) != 1 or rows[-1].status != "open"):
            bad(name, f"not exactly one open phase at the end: {[r.status for r in rows]}")
        for r in done:
            if r.next_position is None or r.orders is None or r.results is None or r.missed is None:
                bad(name, f"{r.name} is processed but half-written")
            if r.processed_at is None or r.deadline is None or r.processed_at < r.deadline:
                bad(name, f"{r.name} processed at {r.processed_at}, before its deadline {r.deadline}")
        for r in still:
            if r.next_position is not None or r.results is not None or r.processed_at is not None:
                bad(name, f"{r.name} is open but has results written")
        for a, b in itertools.pairwise(rows):
            if a.next_position != b.position:
                bad(name, f"{b.name} did not open from {a.name}'s result")
            if b.opened_at != a.processed_at:
                bad(name, f"{b.name} opened at {b.opened_at}, not when {a.name} was processed ({a.processed_at})")
        seqs = ev_by_game.get(gid, [])
        if seqs != [r.seq for r in done]:
            bad(name, f"processed events for seqs {seqs}, processed phases {[r.seq for r in done]}")
        led.processed += len(done)
        led.open += len(still)
        led.processed_per_game[name] = len(done)
    return led


def printed_port(proc: subprocess.Popen[str], timeout: float = WAIT) -> int:
    """The port a worker started with ``--metrics-port 0`` printed."""
    assert proc.stdout is not None
    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(r"http://[^:]+:(\d+)/healthz", line)
        if m:
            return int(m.group(1))
    raise AssertionError(f"the worker printed no metrics address: {''.join(seen)}")
