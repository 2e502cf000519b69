"""The web CPU one request costs, back to back and at a slow pace, by kind of request.

    source scripts/postgres
    .venv/bin/python benchmarks/bench_web_pace.py [--games 1500] [--rates 25,0] [--requests 250]
        [--kinds kept,memory,...] [--beside OTHER/src ...] [--rounds 3]

Why: bench_web_workers.py's pages-alone round measures the web CPU a game page costs at the issue's load (25
requests a second on each of two web processes, the workers busy beside them), and that figure (about 3 ms)
is some three times what the same request costs back to back. This script measures the same requests both ways
on a quiet machine, with no worker, so the difference is the pace's alone: the same code, the same answers.

A fresh PostgreSQL database gets ``--games`` standard games (no deadline falls during the run), a ``dippouch
serve --no-scheduler --no-rate-limits`` process makes and keeps each game's page (one request each), and for
every rate of ``--rates`` (requests a second; 0 is back to back, one connection) another web process, started
once and warmed up, is asked ``--requests`` of each kind:

- ``kept``: a different game's page each time, kept by the other process and never asked of this one before
  (the pages-alone round's usual case: one query, the page read back from the database);
- ``memory``: the same game's page each time (from the process's memory, confirmed by one query a second);
- ``not found``: an address that does not exist (the error page, no query);
- ``health``: ``/healthz`` (one query in a thread of the pool);
- ``static``: the style sheet (a file from memory, a 304 never asked).

With ``--beside``, each round starts a web process for this checkout and one for each other source tree named
(``git worktree add /tmp/before <commit>``, then ``--beside /tmp/before/src``), and asks each the same requests at
the same rate, side by side, a fraction of a period apart: the machine's moods (another process, the host) then
fall on both alike. Run one at a time, two versions' figures at 25 a second differed by run more than by code;
side by side, the kinds a change does not touch come out equal within some 0.06 ms. ``--rounds`` starts the
processes afresh that many times and prints each figure's mean and range.

CPU is read from /proc for every thread of each web process: the scheduler's own count of the time run
(``schedstat``, in nanoseconds) and, beside it, user + system time. Not a test: figures go in
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import Conn, cpu_seconds
from bench_web_workers import BROWSER_ENCODINGS, build, code_env, code_name, start_web
from bench_workers import fresh_database

KINDS = ("kept", "memory", "not found", "health", "static")


def run_seconds(pid: int) -> tuple[float, float]:
    """(the time the scheduler ran every thread of ``pid``, user + system time), in seconds."""
    ran = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            ran += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return ran / 1e9, cpu_seconds(pid)


async def paced(port: int, paths: list[str], rate: float) -> int:
    """``paths`` asked in turn on one keep-alive connection, ``rate`` a second (0: each when the last is
    answered); the answers that were not 200 (or 404 where one is asked for)."""
    conn = Conn(port)
    wrong = 0
    start = time.monotonic()
    try:
        for i, path in enumerate(paths):
            if rate > 0:
                await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
            status, _ = await conn.request("GET", path, headers={"Accept-Encoding": BROWSER_ENCODINGS})
            wrong += status != (404 if path.startswith("/no-such") else 200)
    finally:
        conn.close()
    return wrong


async def _side_by_side(ports: list[int], paths: list[str], rate: float) -> list[int]:
    """``paths`` asked of every process in ``ports`` at ``rate`` each, their requests spread evenly in time (one
    process's a fraction of a period after the other's), so that each meets the machine as the other does."""

    async def one(i: int, port: int) -> int:
        if rate > 0:
            await asyncio.sleep(i / rate / len(ports))
        return await paced(port, paths, rate)

    return list(await asyncio.gather(*(one(i, p) for i, p in enumerate(ports))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres", help="admin URL of a PostgreSQL server (default: $DIPPOUCH_TEST_POSTGRES_URL)")
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--rates", default="25,0", help="requests a second, comma-separated; 0: back to back")
    ap.add_argument("--requests", type=int, default=250, help="requests of each kind at each rate")
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    ap.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="SRC",
        help="also run the code under SRC (another checkout's src directory, put first on PYTHONPATH) in a web "
        "process of its own, asked the same requests at the same pace side by side with this checkout's; "
        "repeatable",
    )
    ap.add_argument("--rounds", type=int, default=1, help="times to start the web processes afresh and measure")
    ap.add_argument("--start-timeout", type=float, default=60.0, help="seconds a web process may take to start")
    args = ap.parse_args(argv)
    admin = args.postgres or os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not admin:
        ap.error("needs a PostgreSQL server: --postgres URL or DIPPOUCH_TEST_POSTGRES_URL (source scripts/postgres)")
    try:
        rates = [float(r) for r in args.rates.split(",")]
    except ValueError:
        ap.error(f"--rates takes numbers separated by commas, such as 25,0; got {args.rates!r}")
    kinds = [k.strip() for k in args.kinds.split(",")]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        ap.error(f"--kinds: unknown {', '.join(map(repr, unknown))}; the kinds are {', '.join(KINDS)}")
    missing = [t for t in args.beside if not (Path(t) / "dippouch").is_dir()]
    if missing:
        ap.error(f"--beside takes a checkout's src directory (holding dippouch/); not one: {', '.join(missing)}")
    if args.games < 20 + args.requests * len(rates):
        ap.error(
            f"--games must be at least {20 + args.requests * len(rates)} (20 for the warm-up, then --requests "
            f"different games at each rate); got {args.games}"
        )
    trees: list[str | None] = [None, *args.beside]
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    ran: dict[tuple[str | None, str, float], list[float]] = {}
    with fresh_database("postgres", admin) as url, tempfile.TemporaryDirectory() as d:
        log = Path(d) / "serve.log"
        names, _ = build(url, args.games, 1, 3600.0)
        maker, maker_port = start_web(url, log, args.start_timeout)
        try:
            asyncio.run(paced(maker_port, [f"/games/{n}" for n in names], 0))
        finally:
            maker.terminate()
            maker.wait(timeout=30)
        print(f"{args.games} games, their pages kept; {args.requests} requests of each kind at each rate")
        side = f" {'code':>18s}" if args.beside else ""
        print(f"{'kind':10s} {'rate':>9s}{side} {'CPU run':>12s} {'user+sys':>12s}  (ms a request)")
        for _ in range(args.rounds):
            webs = [start_web(url, log, args.start_timeout, code_env(t)) for t in trees]  # each starts afresh
            try:
                for _, port in webs:
                    asyncio.run(paced(port, [f"/games/{n}" for n in names[:20]] + ["/healthz"] * 20, 0))
                unread = names[20:]  # never asked of these processes: read back from the database
                for rate in rates:
                    time.sleep(1.5)  # past the memory's second: the first memory request asks the database
                    kept, unread = unread[: args.requests], unread[args.requests :]
                    paths = {
                        "kept": [f"/games/{n}" for n in kept],
                        "memory": [f"/games/{names[0]}"] * args.requests,
                        "not found": ["/no-such-page"] * args.requests,
                        "health": ["/healthz"] * args.requests,
                        "static": ["/static/app.css"] * args.requests,
                    }
                    for kind in kinds:
                        before = [run_seconds(w.pid) for w, _ in webs]
                        wrong = asyncio.run(_side_by_side([p for _, p in webs], paths[kind], rate))
                        after = [run_seconds(w.pid) for w, _ in webs]
                        n = len(paths[kind])
                        pace = f"{rate:g}/s" if rate > 0 else "flat out"
                        for tree, (r0, c0), (r1, c1), bad in zip(trees, before, after, wrong, strict=True):
                            said = f"  ({bad} wrong answers)" if bad else ""
                            code = f" {code_name(tree)[-18:]:>18s}" if args.beside else ""
                            run_ms, cpu_ms = 1000 * (r1 - r0) / n, 1000 * (c1 - c0) / n
                            print(f"{kind:10s} {pace:>9s}{code} {run_ms:12.2f} {cpu_ms:12.2f}{said}")
                            ran.setdefault((tree, kind, rate), []).append(run_ms)
                        if any(wrong):
                            return 1
            finally:
                for web, _ in webs:
                    web.terminate()
                    web.wait(timeout=30)
    if args.rounds > 1:
        print("\n".join(summary(ran, named=bool(args.beside))))
    print(f"# load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


def summary(ran: dict[tuple[str | None, str, float], list[float]], *, named: bool) -> list[str]:
    """The lines giving each (code, kind, rate)'s CPU a request over the rounds ``ran``: mean (least-most);
    ``named``: with the code's name (``--beside``)."""
    lines = ["CPU run, ms a request: mean (least-most) over the rounds"]
    for (tree, kind, rate), values in ran.items():
        pace = f"{rate:g}/s" if rate > 0 else "flat out"
        code = f" {code_name(tree)[-18:]:>18s}" if named else ""
        lines.append(
            f"{kind:10s} {pace:>9s}{code} {statistics.mean(values):6.2f} ({min(values):.2f}-{max(values):.2f})"
        )
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
