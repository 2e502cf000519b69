"""Deadline processing throughput: phases a second for 1, 2 and 4 ``dippouch worker`` processes.

For each database (SQLite file, PostgreSQL) and variant, a fresh database gets ``--games`` games. Then
``--rounds`` times: every power that must act submits random legal orders (each unit one order drawn from
its legal list; in adjustments as many builds or removals as it is entitled to), the workers are already
running and idle, and one UPDATE makes every open phase due at once. The round's figure is the number of
phases divided by the time from that UPDATE to the last phase's ``processed_at`` (both by the database's
clock): what a set of workers clears when a large batch of deadlines falls at the same moment, all
included (scan, claim, locks, reading submissions, adjudication, writing results and the next phase).

The benchmark process does nothing while a round is timed but poll a count every 0.2 s. Workers run as
real ``dippouch worker`` processes (``--interval 0.1 --quiet``). A first, unreported round warms them up
(each worker process compiles the variant once, about a second of CPU for W3K, as a long-running worker
does once in its life). Besides phases a second (wall time, which moves with whatever else the machine
runs), it reports CPU milliseconds per phase of the workers and of the PostgreSQL server's processes
(read from /proc; the server must run on this machine), which do not.

Usage (PostgreSQL: an admin URL of a server on which the benchmark may create and drop databases)::

    source scripts/postgres
    .venv/bin/python benchmarks/bench_workers.py --postgres "$DIPPOUCH_TEST_POSTGRES_URL"
    .venv/bin/python benchmarks/bench_workers.py --sqlite-only --games 50 --rounds 1
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.models import PhaseRow

TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far; 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _children(parent: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _postmaster(store: GameStore) -> int | None:
    """The PostgreSQL server's main process, when it runs on this machine and its files can be read."""
    if store.engine.dialect.name != "postgresql":
        return None
    with store.engine.connect() as c:
        data = c.execute(sa.text("SHOW data_directory")).scalar_one()
    try:
        return int((Path(data) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _server_cpu(postmaster: int | None) -> float:
    return sum(_cpu(pid) for pid in _children(postmaster)) if postmaster else 0.0


def _wal(store: GameStore) -> int:
    """PostgreSQL's write-ahead log position in bytes (0 on SQLite): what a round wrote, all tables."""
    if store.engine.dialect.name != "postgresql":
        return 0
    with store.engine.connect() as c:
        return int(c.execute(sa.text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")).scalar_one())


def _dippouch() -> list[str]:
    script = Path(sys.executable).parent / "dippouch"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from dippouch.cli import main; main()"]


@contextmanager
def fresh_database(kind: str, admin_url: str | None) -> Iterator[str]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            url = f"sqlite:///{Path(d) / 'bench.db'}"
            store = GameStore(url)
            raw = store.engine.raw_connection()  # WAL, as `dippouch serve` sets: readers do not wait for the writer
            try:
                raw.cursor().execute("PRAGMA journal_mode=WAL")
            finally:
                raw.close()
            store.close()
            yield url
        return
    assert admin_url is not None
    base = sa.make_url(admin_url)
    name = f"dippouch_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def submit_random_orders(store: GameStore, rng: random.Random) -> int:
    """Every power that must act in an open phase sends random legal orders, checked line by line as
    ``submit`` checks them (``check_orders``), written in one transaction (set-up, not timed). Returns
    the number of open phases."""
    from dippouch.catalog import load_variant
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order
    from dippouch.game import check_orders, position_from_data, powers_to_act
    from dippouch.store.models import GameRow, SubmissionRow

    with store.session() as s, s.begin():
        rows = s.execute(
            sa.select(PhaseRow, GameRow.variant, GameRow.options)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(PhaseRow.status == "open")
            .order_by(PhaseRow.id)
        ).all()
        stamp = store.clock()
        for ph, variant, options in rows:
            v = load_variant(variant, options)
            pos = position_from_data(v, ph.position)
            kind = v.calendar.kind(pos.phase)
            for power in powers_to_act(v, pos):
                legal = legal_orders(v, pos, power)
                chosen: list[Any] = []
                if kind == PhaseKind.ADJUSTMENTS:
                    need = len(pos.centres_of(power)) - len(pos.units_of(power))
                    places = sorted(legal)
                    rng.shuffle(places)
                    chosen = [rng.choice(legal[loc]) for loc in places[: abs(need)] if legal[loc]]
                else:
                    chosen = [rng.choice(legal[loc]) for loc in sorted(legal) if legal[loc]]
                text = "\n".join(format_order(v, o, phase_kind=kind) for o in chosen)
                lines = check_orders(v, pos, power, text)
                s.add(
                    SubmissionRow(
                        phase_id=ph.id,
                        power=power,
                        version=1,
                        submitted_at=stamp,
                        text=text,
                        lines=[line.to_data() for line in lines],
                        ready=False,
                    )
                )
        return len(rows)


@dataclass
class Round:
    phases: int
    seconds: float
    worker_cpu: float
    server_cpu: float
    wal_bytes: int

    @property
    def rate(self) -> float:
        return self.phases / max(1e-6, self.seconds)


def run_config(url: str, variant: str, games: int, workers: int, rounds: int, seed: int) -> list[Round]:
    store = GameStore(url)
    rng = random.Random(seed)
    now = store.clock()
    names = [f"{variant}-{i:04d}" for i in range(games)]
    from dippouch.game import GameSettings

    settings = GameSettings(deadlines={"movement": "1d", "retreats": "1d", "adjustments": "1d"})
    for n in names:
        store_games.create_game(store, n, variant, now=now, settings=settings)
    procs = [
        subprocess.Popen(
            [*_dippouch(), "worker", "--db", url, "--interval", "0.1", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(workers)
    ]
    results: list[Round] = []
    postmaster = _postmaster(store)
    try:
        time.sleep(3)  # the workers import and connect
        for k in range(rounds + 1):
            live = submit_random_orders(store, rng)
            cpu0 = sum(_cpu(p.pid) for p in procs)
            server0 = _server_cpu(postmaster)
            wal0 = _wal(store)
            with store.engine.begin() as c:
                base = c.execute(sa.select(sa.func.count()).where(PhaseRow.status == "processed")).scalar_one()
                due_at = store.clock()
                c.execute(
                    sa.update(PhaseRow)
                    .where(PhaseRow.status == "open")
                    .values(deadline=due_at - timedelta(milliseconds=1))
                )
            target = base + live
            end = time.monotonic() + 600
            while True:
                with store.engine.connect() as c:
                    done, last = c.execute(
                        sa.select(sa.func.count(), sa.func.max(PhaseRow.processed_at)).where(
                            PhaseRow.status == "processed"
                        )
                    ).one()
                if done >= target:
                    break
                if time.monotonic() > end or any(p.poll() is not None for p in procs):
                    errs = "".join(p.stderr.read() if p.stderr and p.poll() is not None else "" for p in procs)
                    raise SystemExit(f"round did not finish ({done - base}/{live} phases): {errs[-2000:]}")
                time.sleep(0.2)
            cpu1 = sum(_cpu(p.pid) for p in procs)
            server1 = _server_cpu(postmaster)
            assert last is not None  # at least one phase has been processed by now
            last = last.replace(tzinfo=due_at.tzinfo) if last.tzinfo is None else last
            if k > 0:  # round 0 warms the workers up (each loads the variant once), and is not reported
                wal = _wal(store) - wal0
                results.append(Round(live, (last - due_at).total_seconds(), cpu1 - cpu0, server1 - server0, wal))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(60)
        store.close()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres", help="admin URL of a PostgreSQL server (default: $DIPPOUCH_TEST_POSTGRES_URL)")
    ap.add_argument("--sqlite-only", action="store_true", help="skip PostgreSQL")
    ap.add_argument("--postgres-only", action="store_true", help="skip SQLite")
    ap.add_argument("--variants", default="standard,w3k")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--games", type=int, default=200, help="games per configuration (one phase each a round)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds, after one warm-up round")
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args(argv)
    admin = args.postgres or os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if args.postgres_only and not admin:
        ap.error("--postgres-only needs a server: --postgres URL or DIPPOUCH_TEST_POSTGRES_URL")
    kinds = [k for k in ("postgres", "sqlite") if not (k == "postgres" and (args.sqlite_only or not admin))]
    if args.postgres_only:
        kinds = [k for k in kinds if k == "postgres"]
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average before: {os.getloadavg()[0]:.1f}; {args.games} games, {args.rounds} rounds"
    )
    print("CPU ms/phase: CPU time of the worker processes and of the PostgreSQL server (its processes on this")
    print("machine, polling included) over the round, per phase; medians of the rounds")
    print(
        "database  variant   workers  phases/s  rounds (phases/s)      worker CPU ms/phase  server CPU ms/phase  WAL KB/phase"
    )
    for kind in kinds:
        for variant in args.variants.split(","):
            for w in (int(x) for x in args.workers.split(",")):
                with fresh_database(kind, admin) as url:
                    res = run_config(url, variant, args.games, w, args.rounds, args.seed)
                rates = [r.rate for r in res]
                shown = " ".join(f"{r:.1f}" for r in rates)
                wcpu = statistics.median(1000 * r.worker_cpu / r.phases for r in res)
                scpu = statistics.median(1000 * r.server_cpu / r.phases for r in res)
                wal = statistics.median(r.wal_bytes / 1024 / r.phases for r in res)
                server = f"{scpu:19.1f}  {wal:12.1f}" if kind == "postgres" else f"{'-':>19}  {'-':>12}"
                print(
                    f"{kind:9} {variant:9} {w:7}  {statistics.median(rates):8.1f}  {shown:22} {wcpu:19.1f}  {server}",
                    flush=True,
                )
    print(f"# load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
