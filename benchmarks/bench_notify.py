"""Notification queue throughput: deliveries a second to a local webhook receiver, by 1 and 2 drainers.

For each database (SQLite file, PostgreSQL): ``--people`` people, each with a Discord webhook pointing at a
receiver on this machine (its own process, answering 204 as Discord does, after ``--delay`` ms), and
``--events`` seat offers queued for each through :func:`dippouch.notify.enqueue` (queuing is timed too).
Then 1 (and 2) drainer processes, each running :func:`dippouch.notify.deliver_due` as ``dippouch notify``
does, are started, imported and waiting; a file tells them to go, and the round's figure is the number of
deliveries divided by the time from "go" to the moment the queue is empty (by polling its count every
0.05 s). Every round checks that each delivery reached the receiver exactly once.

Usage::

    source scripts/postgres
    .venv/bin/python benchmarks/bench_notify.py --postgres "$DIPPOUCH_TEST_POSTGRES_URL"
    .venv/bin/python benchmarks/bench_notify.py --sqlite-only --people 5 --events 10
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

from dippouch import notify
from dippouch.notify.events import save_preferences
from dippouch.notify.targets import add_webhook
from dippouch.store import GameStore
from dippouch.store.notify.stored import notify_queue_depth
from dippouch.store.people.persons import create_person

RECEIVER = r"""
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
delay = float(sys.argv[1]) / 1000
count = 0
seen = set()
twice = 0
lock = threading.Lock()
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        global count, twice
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if delay:
            time.sleep(delay)
        with lock:
            count += 1
            twice += (self.path, body) in seen
            seen.add((self.path, body))
        self.send_response(204)
        self.end_headers()
    def do_GET(self):
        out = f"{count} {twice}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
"""

DRAINER = r"""
import os, sys, time
from dippouch.notify import deliver_due
from dippouch.store import GameStore
store = GameStore(sys.argv[1])
go = sys.argv[2]
while not os.path.exists(go):
    time.sleep(0.01)
n = 0
while True:
    got = len(deliver_due(store, store.clock(), limit=500).sent)
    n += got
    if not got:
        break
print(n, flush=True)
"""


def _counts(port: int) -> tuple[int, int]:
    import httpx

    got = httpx.get(f"http://127.0.0.1:{port}/", timeout=10, trust_env=False).text.split()
    return int(got[0]), int(got[1])


def fill(url: str, port: int, people: int, events: int, tag: str) -> tuple[int, float]:
    """Queue the deliveries; returns how many and the seconds queuing took."""
    store = GameStore(url)
    now = store.clock() - timedelta(minutes=1)
    pids = []
    for i in range(people):
        pid = create_person(store, f"P{i}", now=now)
        save_preferences(store, pid, {(e, c): c == "webhook" for e in notify.EVENTS for c in notify.CHANNELS}, None)
        add_webhook(store, pid, "discord", url=f"http://127.0.0.1:{port}/discord/{pid}/x", now=now)
        pids.append(pid)
    t0 = time.perf_counter()
    n = 0
    for e in range(events):
        for pid in pids:
            n += notify.enqueue(
                store, pid, "seat_offered", key=f"o{e}", now=now, facts={"game": f"{tag}-g{e}", "power": "France"}
            )
    took = time.perf_counter() - t0
    store.close()
    return n, took


def round_(url: str, port: int, drainers: int, expected: int) -> float:
    go = Path(tempfile.gettempdir()) / f"bench-notify-go-{uuid.uuid4().hex}"
    env = {**os.environ, "DIPPOUCH_NOTIFY_ALLOW_PRIVATE": "1"}
    procs = [
        subprocess.Popen([sys.executable, "-c", DRAINER, url, str(go)], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(drainers)
    ]
    time.sleep(3.0)  # imported and waiting
    store = GameStore(url)
    before = _counts(port)[0]
    go.touch()
    t0 = time.perf_counter()
    while notify_queue_depth(store) > 0:
        time.sleep(0.05)
    took = time.perf_counter() - t0
    outs = [int((p.communicate(timeout=600)[0] or "0").strip() or 0) for p in procs]
    go.unlink()
    store.close()
    count, twice = _counts(port)
    if sum(outs) != expected or count - before != expected or twice:
        raise SystemExit(
            f"wrong: drainers said {outs}, receiver got {count - before}, {twice} twice; expected {expected}"
        )
    return expected / took


def run(kind: str, make_url: Callable[[], str], people: int, events: int, delay: float, workers: list[int]) -> None:
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER, str(delay)], stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout is not None
        port = int(receiver.stdout.readline())
        for w in workers:
            url = make_url()
            n, queued = fill(url, port, people, events, f"{kind}{w}")
            rate = round_(url, port, w, n)
            print(f"{kind:10} {w:>7} {n:>10} {n / queued:>12.0f} {rate:>14.1f}", flush=True)
    finally:
        receiver.terminate()
        receiver.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--people", type=int, default=50)
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--delay", type=float, default=0.0, help="ms the receiver takes per post")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--postgres", help="an admin URL of a PostgreSQL server (databases are made and dropped)")
    ap.add_argument("--sqlite-only", action="store_true")
    args = ap.parse_args(argv)
    os.environ["DIPPOUCH_NOTIFY_ALLOW_PRIVATE"] = "1"  # the receiver is on this machine
    workers = [int(x) for x in args.workers.split(",")]
    print(f"{'database':10} {'drainers':>7} {'deliveries':>10} {'queued/s':>12} {'delivered/s':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        counter = iter(range(1000))
        run(
            "sqlite",
            lambda: f"sqlite:///{Path(tmp) / f'n{next(counter)}.db'}",
            args.people,
            args.events,
            args.delay,
            workers,
        )
    if args.postgres and not args.sqlite_only:
        admin = sa.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        made: list[str] = []

        def pg_url() -> str:
            name = f"dippouch_bn_{uuid.uuid4().hex[:10]}"
            with admin.connect() as c:
                c.execute(sa.text(f'CREATE DATABASE "{name}"'))
            made.append(name)
            return sa.make_url(args.postgres).set(database=name).render_as_string(hide_password=False)

        try:
            run("postgresql", pg_url, args.people, args.events, args.delay, workers)
        finally:
            with admin.connect() as c:
                for name in made:
                    c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
