"""Several processes opening a brand-new database at the same moment: one creates the schema, none fails.

Each process imports everything first, then waits for a shared "go" file, so their first opens (and the
schema migrations they start) overlap as closely as separate processes can. A race is not lost every
time, so the same processes race again on further brand-new databases, one round each. Run on SQLite and
on PostgreSQL (``db_url``); see tests/store/test_store.py for how PostgreSQL is found.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions

pytestmark = pytest.mark.empty_database  # the first opens of brand-new databases race to migrate them

PROCESSES = 4
ROUNDS = 3
WAIT = 120.0
"""Seconds any one wait may take before the test gives up (a loaded machine is slow, not stuck)."""

OPEN_SCRIPT = """
import sys, time
from datetime import datetime, UTC
from pathlib import Path
from dippouch.store import GameStore
from dippouch.store import games as store_games
flags, me, urls = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
(flags / f"ready-{me}").touch()
for k, url in enumerate(urls):
    deadline = time.monotonic() + float(WAIT)
    while not (flags / f"go-{k}").exists():
        if time.monotonic() > deadline:
            sys.exit(f"round {k}: never told to go")
        time.sleep(0.001)
    store = GameStore(url)
    store_games.create_game(store, f"g{me}", "standard", now=datetime(2026, 1, 5, 12, 0, tzinfo=UTC))
    store.close()
    (flags / f"done-{k}-{me}").touch()
print("opened", len(urls))
""".replace("WAIT", repr(WAIT))


def _wait_for(flags: Path, pattern: str, procs: list[subprocess.Popen[str]]) -> None:
    """Until every process has left a flag matching ``pattern`` or exited (a failed one leaves none)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if all((flags / pattern.format(i)).exists() or p.poll() is not None for i, p in enumerate(procs)):
            return
        time.sleep(0.005)


def _race(urls: list[str], flags: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start the processes, let them import, then open ``urls[k]`` all at once in round ``k``."""
    flags.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_SCRIPT, str(flags), str(i), *urls],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(PROCESSES)
    ]
    try:
        _wait_for(flags, "ready-{}", procs)
        for k in range(len(urls)):
            (flags / f"go-{k}").touch()
            _wait_for(flags, f"done-{k}-{{}}", procs)
        done = []
        for p in procs:
            out, err = p.communicate(timeout=WAIT)
            done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
        return done
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


@contextmanager
def _fresh_databases(db_url: str, tmp_path: Path, n: int) -> Iterator[list[str]]:
    """``db_url`` and ``n - 1`` more brand-new, empty databases of the same kind."""
    url = sa.make_url(db_url)
    if url.get_backend_name() == "sqlite":
        yield [db_url, *(f"sqlite:///{tmp_path / f'games{k}.db'}" for k in range(1, n))]
        return
    names = [f"{url.database}_r{k}" for k in range(1, n)]
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            for name in names:
                c.execute(sa.text(f'CREATE DATABASE "{name}"'))
        yield [db_url, *(url.set(database=name).render_as_string(hide_password=False) for name in names)]
    finally:
        with admin.connect() as c:
            for name in names:
                c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _check_at_head_with_every_game(url: str) -> None:
    from alembic.migration import MigrationContext

    store = GameStore(url)
    try:
        with store.engine.connect() as conn:
            assert MigrationContext.configure(conn).get_current_revision() == _head()
            assert conn.execute(sa.text("SELECT count(*) FROM alembic_version")).scalar_one() == 1
        assert sorted(name for name, *_ in store_games.games(store)) == sorted(f"g{i}" for i in range(PROCESSES))
        # Every process's game is usable, whichever process created the schema.
        store_submissions.submit(store, "g0", "France", "A par - bur", now=datetime(2026, 1, 5, 12, 0, tzinfo=UTC))
    finally:
        store.close()


def test_concurrent_first_opens_of_a_new_database_all_succeed(db_url: str, tmp_path: Path) -> None:
    with _fresh_databases(db_url, tmp_path, ROUNDS) as urls:
        done = _race(urls, tmp_path / "flags")
        failures = [f"process {i}: exit {d.returncode}\n{d.stderr[-2000:]}" for i, d in enumerate(done) if d.returncode]
        assert not failures, "\n\n".join(failures)
        assert all(d.stdout.strip() == f"opened {ROUNDS}" for d in done)
        for url in urls:
            _check_at_head_with_every_game(url)


def _head() -> str:
    """The newest migration shipped (the schema every database is brought to)."""
    from alembic.script import ScriptDirectory

    from dippouch.store.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def test_a_lock_refused_at_once_on_first_open_is_tried_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite answered "database is locked" at once (no busy wait) to three of four processes opening one new file
    together (a CI run): such an answer is tried again, and the store opens; one that came after waiting, another
    error, or one still there after the last try is said as before."""
    import sqlite3

    import dippouch.store.db as db
    from dippouch.game import GameError

    real = db.upgrade
    refusals: list[str] = []

    def refusing(times: int, error: str) -> Callable[[sa.Engine], None]:
        def upgrade(engine: sa.Engine) -> None:
            if len(refusals) < times:
                refusals.append(error)
                raise sa.exc.OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError(error))
            real(engine)

        return upgrade

    monkeypatch.setattr(db, "upgrade", refusing(2, "database is locked"))
    GameStore(f"sqlite:///{tmp_path / 'a.db'}").close()
    assert refusals == ["database is locked"] * 2
    for case, times, error, quick in (
        ("never given", 10, "database is locked", db._QUICK_BUSY),
        ("another error", 1, "disk I/O error", db._QUICK_BUSY),
        ("after waiting", 1, "database is locked", -1.0),  # every refusal then came after the busy wait
    ):
        refusals.clear()
        monkeypatch.setattr(db, "upgrade", refusing(times, error))
        monkeypatch.setattr(db, "_QUICK_BUSY", quick)
        with pytest.raises(GameError, match=error):
            GameStore(f"sqlite:///{tmp_path / (case + '.db')}")
        assert len(refusals) == (5 if case == "never given" else 1), case
