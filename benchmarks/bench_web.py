"""Web load: 50 concurrent clients against one `dippouch serve` process on SQLite.

    .venv/bin/python benchmarks/bench_web.py [--games 1 100 10000] [--clients 50] [--seconds 20]

For each number of stored games it builds a database (one game made by the store, then copied row by row
with new names, so every game is a real, complete game), starts `dippouch serve` in its own process (one
server process, no scheduler, rate limits off), and runs two rounds of N concurrent clients, each a
keep-alive HTTP/1.1 connection in this process (a small asyncio client: the load generator should cost
less CPU than the server it measures):

- game page: GET /games/<name>, each client on a game of its own drawn from the stored games;
- submission: POST /api/games/<name>/powers/<power>/orders (bearer key, 3-line order text), each client
  a different power; the server checks every line (the arrival check) and records a new version;
- mixed: both at once on other games (45 clients reading the pages of the games that 5 clients send
  orders to, at --page-rate and half --submit-rate): every submission changes its game's page.

Each kind runs closed loop ("flat out": a client sends its next request as soon as the last is answered,
which measures capacity; with 50 clients, latency is then mostly queueing) and open loop (the clients
together send a fixed number of requests a second on a schedule, latency counted from when each was due).

It prints requests per second, p50/p90/p99/max latency and errors. Not a test: figures go in the READMEs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dippouch.store import games as store_games

ROOT = Path(__file__).resolve().parent.parent
MAP_IMG = re.compile(rb'<img src="(/games/[^"]+/map-[a-z-]+\.svg)"')
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
ORDERS = {
    "Austria": "A vie - gal\nA bud - ser\nF tri - alb",
    "England": "F lon - nth\nF edi - nwg\nA lvp - yor",
    "France": "A par - bur\nA mar S A par - bur\nF bre - mao",
    "Germany": "A ber - kie\nA mun - ruh\nF kie - den",
    "Italy": "A ven - tyr\nA rom - apu\nF nap - ion",
    "Russia": "A mos - ukr\nA war - gal\nF sev - bla",
    "Turkey": "F ank - bla\nA con - bul\nA smy - arm",
}


def build_db(path: Path, games: int) -> tuple[str, list[str], dict[tuple[str, str], str]]:
    """A database with ``games`` standard games (one made by the store, the rest copies) and player keys."""
    from dippouch.store import GameStore
    from dippouch.store.access import AccessStore

    url = f"sqlite:///{path}"
    store = GameStore(url)
    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    store_games.create_game(store, "game-00000", "standard", now=now)
    for p in POWERS:
        store_games.assign(store, "game-00000", p, f"{p} player", now=now)
    names = [f"game-{i:05d}" for i in range(games)]
    with store.engine.begin() as conn:
        g = conn.execute(sa.text("SELECT * FROM games WHERE name='game-00000'")).mappings().one()
        ph = conn.execute(sa.text("SELECT * FROM phases WHERE game_id=:g"), {"g": g["id"]}).mappings().one()
        ev = conn.execute(sa.text("SELECT * FROM events WHERE game_id=:g"), {"g": g["id"]}).mappings().all()
        pl = conn.execute(sa.text("SELECT * FROM players WHERE game_id=:g"), {"g": g["id"]}).mappings().all()
        for i, name in enumerate(names[1:], start=2):
            conn.execute(
                sa.text(
                    "INSERT INTO games (id, name, variant, options, settings, status, ending, branch, paused_remaining, created_at) "
                    "VALUES (:id, :name, :variant, :options, :settings, :status, :ending, :branch, :paused_remaining, :created_at)"
                ),
                {**g, "id": i, "name": name},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO phases (game_id, branch, seq, name, kind, status, position, opened_at, deadline, processed_at, orders, results, next_position, missed) "
                    "VALUES (:game_id, :branch, :seq, :name, :kind, :status, :position, :opened_at, :deadline, :processed_at, :orders, :results, :next_position, :missed)"
                ),
                {**ph, "game_id": i},
            )
            for e in ev:
                conn.execute(
                    sa.text("INSERT INTO events (game_id, at, kind, detail) VALUES (:game_id, :at, :kind, :detail)"),
                    {**e, "game_id": i},
                )
            for r in pl:
                conn.execute(
                    sa.text(
                        "INSERT INTO players (game_id, power, name, assigned_at, replaced_at) VALUES (:game_id, :power, :name, :assigned_at, :replaced_at)"
                    ),
                    {**r, "game_id": i},
                )
    access = AccessStore(store)
    keys: dict[tuple[str, str], str] = {}
    for name in names[:16]:
        for p in POWERS:
            _, keys[(name, p)] = access.create_key("player", game=name, power=p, now=now)
    store.close()
    return url, names, keys


class Conn:
    """One keep-alive HTTP/1.1 connection (the load generator: cheap, so it costs less CPU than the server)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """The answer's status and body."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.writer.write(head.encode() + b"\r\n" + body)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
        return status, await self.reader.readexactly(length)


async def load(
    port: int,
    clients: int,
    seconds: float,
    make: list[tuple[str, str, bytes, dict[str, str]]],
    rate: float | None = None,
) -> dict[str, float]:
    """Closed loop (``rate`` None: each client sends its next request when the last is answered, so the
    server runs flat out) or open loop (the clients together send ``rate`` requests a second on a fixed
    schedule; a request's latency counts from when it was due, so a slow server cannot hide its queue)."""
    latencies: list[float] = []
    maps: list[float] = []
    errors = 0
    start = time.perf_counter()
    stop = start + seconds

    async def client(i: int) -> None:
        nonlocal errors
        conn = Conn(port)
        method, path, body, headers = make[i % len(make)]
        cached: set[bytes] = set()
        interval = clients / rate if rate else 0.0
        due = start + interval * i / clients
        while time.perf_counter() < stop:
            if rate:
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                t0 = due
                due += interval
            else:
                t0 = time.perf_counter()
            try:
                status, text = await conn.request(method, path, body, headers)
                latencies.append(time.perf_counter() - t0)
                # The page's map, fetched as a browser does: once per address (it is marked immutable).
                m = MAP_IMG.search(text) if status == 200 and method == "GET" else None
                if m and m.group(1) not in cached:
                    cached.add(m.group(1))
                    t1 = time.perf_counter()
                    got, _ = await conn.request("GET", m.group(1).decode())
                    maps.append(time.perf_counter() - t1)
                    errors += got != 200
            except (OSError, asyncio.IncompleteReadError, ValueError):
                errors += 1
                conn = Conn(port)
                continue
            if status >= 400:
                errors += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    wall = time.perf_counter() - t0
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000

    return {
        "requests": len(latencies),
        "rps": len(latencies) / wall,
        "p50": pct(0.50),
        "p90": pct(0.90),
        "p99": pct(0.99),
        "max": latencies[-1] * 1000,
        "mean": statistics.fmean(latencies) * 1000,
        "errors": errors,
        "maps": len(maps),
        "map_max": max(maps, default=0.0) * 1000,
    }


async def mixed(
    port: int, clients: int, seconds: float, pages: list[Any], posts: list[Any], page_rate: float, submit_rate: float
) -> tuple[dict[str, float], dict[str, float]]:
    """Both at once, as a site is used: most clients follow games while a tenth send orders."""
    writers = max(1, clients // 10)
    a, b = await asyncio.gather(
        load(port, clients - writers, seconds, pages, page_rate), load(port, writers, seconds, posts, submit_rate)
    )
    return a, b


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc): the server's own cost, whatever else runs."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(pid: int, run: Any) -> dict[str, float]:
    c0 = cpu_seconds(pid)
    r: dict[str, float] = asyncio.run(run)
    r["cpu_ms"] = (cpu_seconds(pid) - c0) * 1000 / max(1, r["requests"])
    return r


def serve(url: str) -> tuple[subprocess.Popen[str], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    exe = Path(sys.executable).parent / "dippouch"
    proc = subprocess.Popen(
        [str(exe), "serve", "--db", url, "--port", str(port), "--no-scheduler", "--no-rate-limits"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, nargs="+", default=[1, 100, 10000])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--page-rate", type=float, default=300.0, help="open-loop game-page requests a second")
    ap.add_argument("--submit-rate", type=float, default=50.0, help="open-loop submissions a second")
    args = ap.parse_args()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {args.clients} clients, {args.seconds:.0f} s a round"
    )
    for n in args.games:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            url, names, keys = build_db(Path(d) / "bench.db", n)
            built = time.perf_counter() - t0
            proc, port = serve(url)
            try:
                rng = random.Random(n)
                pages: list[tuple[str, str, bytes, dict[str, str]]] = [
                    ("GET", f"/games/{rng.choice(names)}", b"", {}) for _ in range(args.clients)
                ]

                def orders(
                    games: list[str], keys: dict[tuple[str, str], str] = keys
                ) -> list[tuple[str, str, bytes, dict[str, str]]]:
                    out = []
                    for (name, power), key in sorted(keys.items()):
                        if name in games:
                            body = json.dumps({"text": ORDERS[power]}).encode()
                            head = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
                            out.append(("POST", f"/api/games/{name}/powers/{power}/orders", body, head))
                    return out

                # The mixed round reads the pages of the games it sends orders to; the submission rounds
                # use other games (they send thousands of versions, far more than a real phase gets).
                hot = sorted({name for name, _ in keys})
                mixed_games = hot[8:] or hot
                mixed_posts = orders(mixed_games)
                mixed_pages: list[tuple[str, str, bytes, dict[str, str]]] = [
                    ("GET", f"/games/{mixed_games[i % len(mixed_games)]}", b"", {}) for i in range(args.clients)
                ]
                posts = orders(hot[:8])
                asyncio.run(load(port, args.clients, args.warmup, pages))
                pid = proc.pid
                # Mixed first: the submission rounds then flood their games with versions.
                c0 = cpu_seconds(pid)
                mp, ms = asyncio.run(
                    mixed(
                        port, args.clients, args.seconds, mixed_pages, mixed_posts, args.page_rate, args.submit_rate / 2
                    )
                )
                cpu = (cpu_seconds(pid) - c0) * 1000 / max(1, mp["requests"] + ms["requests"])
                mp["cpu_ms"] = ms["cpu_ms"] = cpu
                rounds = [
                    ("mixed: game page", mp),
                    ("mixed: submission", ms),
                    ("game page, flat out", measured(pid, load(port, args.clients, args.seconds, pages))),
                    (
                        f"game page at {args.page_rate:.0f}/s",
                        measured(pid, load(port, args.clients, args.seconds, pages, args.page_rate)),
                    ),
                    ("submission, flat out", measured(pid, load(port, args.clients, args.seconds, posts))),
                    (
                        f"submission at {args.submit_rate:.0f}/s",
                        measured(pid, load(port, args.clients, args.seconds, posts, args.submit_rate)),
                    ),
                ]
            finally:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
            print(f"\n== {n} stored game(s) (database built in {built:.1f} s; load average {os.getloadavg()[0]:.1f})")
            for label, r in rounds:
                print(
                    f"{label:<24} {r['rps']:7.1f} req/s  p50 {r['p50']:6.1f} ms  p90 {r['p90']:6.1f} ms  "
                    f"p99 {r['p99']:6.1f} ms  max {r['max']:6.1f} ms  server CPU {r['cpu_ms']:.2f} ms/request  "
                    f"({r['requests']} requests, {r['errors']} errors"
                    + (f"; and {r['maps']} maps fetched, max {r['map_max']:.1f} ms" if r.get("maps") else "")
                    + ")"
                )


if __name__ == "__main__":
    main()
