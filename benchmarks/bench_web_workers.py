"""Web load while deadline workers advance 1,000 games on PostgreSQL.

    source scripts/postgres
    .venv/bin/python benchmarks/bench_web_workers.py [--games 1000] [--phase-seconds 30] [--workers 2]
        [--seconds 60] [--page-rate 300] [--submit-rate 25]

A fresh PostgreSQL database gets ``--games`` standard games whose every phase lasts ``--phase-seconds``
(movement, retreats and adjustments alike); ``--keyed`` of them get seated players and player keys. Then:

- ``--workers`` real ``dippouch worker`` processes (``--interval 1 --quiet``) and one ``dippouch serve
  --no-scheduler --no-rate-limits`` process start on the database, as compose.yaml runs them;
- one UPDATE spreads the open phases' deadlines evenly over the next ``--phase-seconds``, so from then on
  about games / phase-seconds deadlines fall due every second, and every game advances a phase each
  phase-seconds for as long as the run lasts (the workers open each next phase with a fresh deadline);
  then ``ANALYZE``, as autovacuum would have done in a database that has been running (without statistics
  the planner claims a due phase by a nested loop over every game);
- a warm-up of game-page requests, then the measured round, open loop as bench_web.py's "mixed" round:
  ``--clients`` keep-alive HTTP/1.1 connections from this process, 9 in 10 of them requesting game pages
  (``GET /games/<name>``, cycling over every game in a shuffled order) at ``--page-rate`` a second together,
  1 in 10 submitting three order lines (``POST /api/games/<g>/powers/<p>/orders``, bearer key) at
  ``--submit-rate`` a second, cycling over every power of the keyed games; with ``--play-rate``, a tenth more
  of them requesting player pages (``GET /games/<g>/play/<p>``, the seat's bearer key) at that rate. A
  request's latency counts from when it was due, so a slow server cannot hide its queue.

It prints the requests' p50/p90/p99/max latency and errors (a connection error, a timeout, an answer of 500
or more, or any refusal other than the one below), the phases the workers processed meanwhile and how late
after their deadlines (by the database's clock), CPU per request (web process) and per phase (workers) and
the PostgreSQL server's CPU, read from /proc, and the load average before and after. A submission for a power
that has nothing to order in the phase now open (a retreat or adjustment phase of another power; the phase
moved on while the client was not looking) is refused with 400 and the reason: counted apart, as "refused",
as the correct answer it is. Then ``--pages-alone`` seconds of game-page requests alone (the workers still
running) give the web CPU a page request costs, which the mixed round's CPU per request mixes with the maps' and
the submissions', and, read from each web process's ``/metrics`` (``dippouch_shared_pages_total``), how many of
those pages came from the process's memory, were kept by another process or a worker, or were made by their
reader. With ``--beside SRC`` the last web process runs the code under SRC (``git worktree add /tmp/before
<commit>``, then ``--beside /tmp/before/src``) and the pages-alone round gives each process's CPU a page: two
versions side by side in one run, the machine's moods falling on both alike (run one after the other, the same
code's figure moved by a millisecond between runs). Last, with the load stopped, it checks that the game page of a sample of games
shows the phase the database has open (pages are cached; workers change games from other processes).

The orders are the same three lines per power every time (bench_web.py's): legal in Spring 1901, partly
refused line by line later, as a real player's stale orders would be. Games without keys send no orders, so
most phases are processed with every unit holding: cheaper to adjudicate than bench_workers.py's random
orders (the worker CPU per phase printed says how much). Not a test: figures go in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import platform
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import brotli
import sqlalchemy as sa
import zstandard
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import ORDERS, POWERS, Conn, cpu_seconds
from bench_workers import _cpu, _dippouch, _postmaster, _server_cpu, _wal, fresh_database

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.access import AccessStore
from dippouch.store.models import PhaseRow

Request = tuple[str, str, bytes, dict[str, str]]
NOTHING_TO_ORDER = "has nothing to order in"


def build(url: str, games: int, keyed: int, phase_seconds: float) -> tuple[list[str], dict[tuple[str, str], str]]:
    """``games`` standard games made by the store, phases of ``phase_seconds``; players and keys on ``keyed``.

    Deadlines are set far off here and spread out later (:func:`spread`): building takes longer than a phase.
    """
    store = GameStore(url)
    access = AccessStore(store)
    now = store.clock()
    settings = GameSettings(deadlines={k: f"{phase_seconds:g}s" for k in ("movement", "retreats", "adjustments")})
    names = [f"game-{i:05d}" for i in range(games)]
    keys: dict[tuple[str, str], str] = {}
    try:
        for i, name in enumerate(names):
            store_games.create_game(store, name, "standard", now=now, settings=settings)
            if i < keyed:
                for p in POWERS:
                    store_games.assign(store, name, p, f"{p} player", now=now)
                    _, keys[(name, p)] = access.create_key("player", game=name, power=p, now=now)
        with store.engine.begin() as c:
            c.execute(sa.update(PhaseRow).where(PhaseRow.status == "open").values(deadline=now + timedelta(days=1)))
    finally:
        store.close()
    return names, keys


def spread(url: str, phase_seconds: float) -> None:
    """Every open phase's deadline, spread evenly over the next ``phase_seconds`` by the database's clock;
    then ANALYZE."""
    store = GameStore(url)
    try:
        now = store.clock()
        with store.engine.begin() as c:
            ids = list(c.scalars(sa.select(PhaseRow.id).where(PhaseRow.status == "open").order_by(PhaseRow.id)))
            rng = random.Random(15)
            rng.shuffle(ids)
            for k, pid in enumerate(ids):
                at = now + timedelta(seconds=phase_seconds * (k + 1) / len(ids))
                c.execute(sa.update(PhaseRow).where(PhaseRow.id == pid).values(deadline=at))
        # Table statistics, as autovacuum keeps them in a database that has been running a while. Without
        # them (a database filled a minute ago) the planner guesses two games and claims a due phase by a
        # nested loop over every game: 190 ms a claim at 1,000 games instead of 0.14 ms.
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(sa.text("ANALYZE"))
    finally:
        store.close()


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    refused: int = 0
    bytes: int = 0
    unsent: int = 0

    def figures(self, wall: float) -> dict[str, float]:
        lat = sorted(self.latencies) or [0.0]

        def pct(q: float) -> float:
            return lat[min(len(lat) - 1, int(q * len(lat)))] * 1000

        return {
            "requests": len(self.latencies),
            "rps": len(self.latencies) / wall,
            "p50": pct(0.5),
            "p90": pct(0.9),
            "p99": pct(0.99),
            "max": lat[-1] * 1000,
        }


MAP_IMG = re.compile(
    rb'<img src="(/games/[^"]+/map-[a-z-]+\.svg)"|<use href="(/(?:games|variants)/[^"#]+/board-[0-9a-f]+\.svg)#'
)
"""The picture a game page names: its phase's map (a page before the picture was inline), or the board file an
inline picture is drawn over (a variant's, or a game's own: fetched once by a browser, which the server tells to
keep it)."""

BROWSER_ENCODINGS = "gzip, deflate, br, zstd"
"""The Accept-Encoding a current Chrome sends, which the page and map requests send by default
(``--accept-encoding``)."""


def decoded(body: bytes) -> bytes:
    """An answer's bytes as the browser reads them: gzip and zstd told by their magic numbers, brotli (which has
    none) tried on anything that does not start like text."""
    if body[:2] == b"\x1f\x8b":
        return gzip.decompress(body)
    if body[:4] == b"\x28\xb5\x2f\xfd":
        return bytes(zstandard.ZstdDecompressor().decompressobj().decompress(body))
    if body and body[:1] not in b"<\n\r\t {[":
        with contextlib.suppress(brotli.error):
            return bytes(brotli.decompress(body))
    return body


async def open_loop(
    ports: list[int],
    clients: int,
    seconds: float,
    rate: float,
    requests: list[Request],
    timeout: float,
    tally: Tally,
    maps: Tally | None = None,
    map_headers: dict[str, str] | None = None,
) -> None:
    """``clients`` connections together send ``rate`` requests a second on a fixed schedule for ``seconds``,
    client ``i``'s k-th request being ``requests[(i + k * clients) % len]``: every request is used in turn.
    A client more than ``timeout`` seconds behind its schedule when the round ends sends no more (the
    requests it never sent are reported as one error line each client, with their number).
    Client ``i`` talks to web process ``ports[i % len(ports)]`` (a load balancer's round robin, by connection).

    With ``maps``, a client then fetches the map a page names, as a browser does, unless it has fetched
    that address before (the browser's cache: the server marks maps immutable), and counts it there, sending
    ``map_headers``."""
    start = time.perf_counter()
    stop = start + seconds
    interval = clients / rate

    async def client(i: int) -> None:
        conn = Conn(ports[i % len(ports)])  # reconnects by itself after close()
        due = start + interval * i / clients
        k = 0
        cached: set[bytes] = set()

        async def timed(
            counted: Tally, since: float, method: str, path: str, body: bytes = b"", headers: Any = None
        ) -> tuple[int, bytes] | None:
            """One request counted in ``counted`` from ``since``; ``None`` when it failed (counted as an error)."""
            try:
                answer = await asyncio.wait_for(conn.request(method, path, body, headers), timeout)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError) as e:
                counted.errors.append(f"{method} {path}: {type(e).__name__} {e}".strip())
                conn.close()
                return None
            counted.latencies.append(time.perf_counter() - since)
            counted.statuses[answer[0]] += 1
            counted.bytes += len(answer[1])
            return answer

        while due < stop:
            if time.perf_counter() > stop + timeout:  # so far behind that the round would never end: stop
                left = int((stop - due) / interval) + 1
                tally.errors.append(f"{left} requests never sent: the server was over {timeout:g} s behind")
                tally.unsent += left
                break
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            method, path, body, headers = requests[(i + k * clients) % len(requests)]
            t0, due, k = due, due + interval, k + 1
            answer = await timed(tally, t0, method, path, body, headers)
            if answer is None:
                continue
            status, text = answer[0], decoded(answer[1])
            if status >= 400:
                message = text.decode(errors="replace")
                with contextlib.suppress(ValueError, AttributeError):
                    message = json.loads(message).get("error", message)
                if status == 400 and NOTHING_TO_ORDER in message:
                    tally.refused += 1
                else:
                    tally.errors.append(f"{method} {path}: {status} {message[:200]}")
            elif maps is not None and (m := MAP_IMG.search(text)) and (m.group(1) or m.group(2)) not in cached:
                cached.add(m.group(1) or m.group(2))
                url = (m.group(1) or m.group(2)).decode()
                got = await timed(maps, time.perf_counter(), "GET", url, b"", map_headers)
                if got is not None and got[0] != 200:
                    maps.errors.append(f"GET {url}: {got[0]}")
        conn.close()

    await asyncio.gather(*(client(i) for i in range(clients)))


async def mixed(
    ports: list[int], args: argparse.Namespace, pages: list[Request], posts: list[Request], plays: list[Request]
) -> tuple[Tally, Tally, Tally, Tally, float]:
    writers = max(1, args.clients // 10)
    players = max(1, args.clients // 10) if args.play_rate > 0 else 0
    p, s, m, y = Tally(), Tally(), Tally(), Tally()
    t0 = time.perf_counter()
    rounds = [
        open_loop(
            ports,
            args.clients - writers - players,
            args.seconds,
            args.page_rate,
            pages,
            args.timeout,
            p,
            m,
            accepts(args),
        ),
        open_loop(ports, writers, args.seconds, args.submit_rate, posts, args.timeout, s),
    ]
    if players:
        rounds.append(open_loop(ports, players, args.seconds, args.play_rate, plays, args.timeout, y))
    await asyncio.gather(*rounds)
    return p, s, m, y, time.perf_counter() - t0


def accepts(args: argparse.Namespace) -> dict[str, str]:
    """The headers a page or map request sends: the browser's Accept-Encoding unless ``--accept-encoding ''``."""
    return {"Accept-Encoding": args.accept_encoding} if args.accept_encoding else {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def code_env(tree: str | None) -> dict[str, str] | None:
    """The environment of a process running the code under ``tree`` (a checkout's ``src``, put first on
    PYTHONPATH), or None: this one's (the code installed)."""
    if tree is None:
        return None
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH")) if p)}


def code_name(tree: str | None) -> str:
    """How a process's code is named in a table: ``this checkout``, or the last two parts of its path."""
    return "this checkout" if tree is None else "/".join(Path(tree).resolve().parts[-2:])


def start_web(
    url: str, log: Path, wait: float = 60.0, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """A ``dippouch serve`` on ``url`` and its port, once it accepts connections; ``env``: its environment (this
    process's by default)."""
    port = free_port()
    proc = subprocess.Popen(
        [*_dippouch(), "serve", "--db", url, "--port", str(port), "--no-scheduler", "--no-rate-limits"],
        stdout=open(log, "ab"),  # noqa: SIM115 - handed to the process
        stderr=subprocess.STDOUT,
        env=env,
    )
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"the web server exited: {log.read_text()[-2000:]}") from None
            time.sleep(0.2)
    proc.terminate()
    proc.wait(timeout=30)
    said = log.read_text(errors="replace")[-2000:] or "(nothing)"
    raise SystemExit(f"the web server did not start in {wait:g} s (--start-timeout); its log:\n{said}")


SOURCES = (
    ("memory", "from the process's memory"),
    ("held", "held by the process, told of no change (no query)"),
    ("kept", "kept by another process or a worker"),
    ("made", "made by their reader"),
)


def shared_pages(ports: list[int]) -> dict[str, float]:
    """The game pages the web processes answered so far, by where each came from (their memory, kept by another
    process or a worker, or made by the process): ``dippouch_shared_pages_total`` of each one's /metrics."""
    counts: dict[str, float] = {}
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
            text = answer.read().decode()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "dippouch_shared_pages_total" and sample.labels.get("kind") == "page":
                    source = sample.labels["source"]
                    counts[source] = counts.get(source, 0.0) + sample.value
    return counts


def phase_counts(url: str) -> tuple[int, int]:
    """(processed phases, open phases past their deadline by the database's clock)."""
    eng = sa.create_engine(sa.make_url(url))
    try:
        with eng.connect() as c:
            done = c.scalar(sa.select(sa.func.count()).where(PhaseRow.status == "processed")) or 0
            due = (
                c.scalar(
                    sa.select(sa.func.count()).where(
                        PhaseRow.status == "open", PhaseRow.deadline < sa.func.clock_timestamp()
                    )
                )
                or 0
            )
    finally:
        eng.dispose()
    return int(done), int(due)


def lateness(url: str, since: Any) -> tuple[int, float, float, float]:
    """Phases processed since ``since`` (the database's clock): count, p50, p99, max seconds after deadline."""
    eng = sa.create_engine(sa.make_url(url))
    try:
        with eng.connect() as c:
            q = sa.text(
                "SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY s), "
                "percentile_cont(0.99) WITHIN GROUP (ORDER BY s), max(s) FROM ("
                "SELECT extract(epoch FROM processed_at - deadline) AS s FROM phases "
                "WHERE status = 'processed' AND processed_at >= :since) t"
            )
            n, p50, p99, mx = c.execute(q, {"since": since}).one()
    finally:
        eng.dispose()
    return int(n), float(p50 or 0), float(p99 or 0), float(mx or 0)


def fresh_pages(url: str, port: int, names: list[str], sample: int) -> tuple[int, list[str]]:
    """Pages of ``sample`` games that show the phase the database has open (after the page cache's second)."""
    store = GameStore(url)
    stale: list[str] = []
    try:
        chosen = random.Random(7).sample(names, min(sample, len(names)))
        time.sleep(1.5)
        for name in chosen:
            open_phase = store_status.status(store, name, now=store.clock()).phase
            conn = Conn(port)
            status, body = asyncio.run(
                conn.request("GET", f"/games/{name}", b"", {"Accept-Encoding": BROWSER_ENCODINGS})
            )
            if status != 200 or f">{open_phase}<" not in decoded(body).decode():
                stale.append(f"{name}: database has {open_phase} open, page answered {status}")
    finally:
        store.close()
    return len(chosen), stale


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres", help="admin URL of a PostgreSQL server (default: $DIPPOUCH_TEST_POSTGRES_URL)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--keyed", type=int, default=50, help="games with seated players and keys (submissions)")
    ap.add_argument("--phase-seconds", type=float, default=30.0, help="length of every phase of every game")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--web", type=int, default=1, help="web processes (clients spread over them)")
    ap.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="SRC",
        help="run the last web process (the last but one, ... for each more) on the code under SRC (another "
        "checkout's src directory, put first on PYTHONPATH); the pages-alone round then gives each process's CPU "
        "a request: the code before and after, side by side in one run",
    )
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=60.0, help="length of the measured round")
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--page-rate", type=float, default=300.0, help="game-page requests a second (open loop)")
    ap.add_argument("--submit-rate", type=float, default=25.0, help="submissions a second (open loop)")
    ap.add_argument(
        "--play-rate",
        type=float,
        default=0.0,
        help="player pages a second (GET /games/<g>/play/<p> by the seat's key, the keyed games' seats in turn; "
        "open loop, a tenth of the clients); 0: none",
    )
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds before a request counts as an error")
    ap.add_argument("--check-pages", type=int, default=20, help="games whose page is checked afterwards")
    ap.add_argument(
        "--start-timeout", type=float, default=60.0, help="seconds a web process may take to start (a busy machine)"
    )
    ap.add_argument(
        "--worker-pages",
        action="store_true",
        help="the workers make each processed game's page for its readers (`dippouch worker --pages`)",
    )
    ap.add_argument(
        "--pages-alone",
        type=float,
        default=10.0,
        help="seconds of game-page requests alone after the measured round (the workers still running), for the "
        "web CPU a page request costs; 0: none",
    )
    ap.add_argument(
        "--accept-encoding",
        default=BROWSER_ENCODINGS,
        help="the Accept-Encoding of page and map requests (default: a browser's; '' for none, as before "
        "2026-11-26 evening, when the server sent everything plain)",
    )
    args = ap.parse_args(argv)
    admin = args.postgres or os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not admin:
        ap.error("needs a PostgreSQL server: --postgres URL or DIPPOUCH_TEST_POSTGRES_URL (source scripts/postgres)")
    if len(args.beside) >= args.web:
        ap.error(f"--beside names {len(args.beside)} trees: --web must be more (one process runs this checkout)")
    missing = [t for t in args.beside if not (Path(t) / "dippouch").is_dir()]
    if missing:
        ap.error(f"--beside takes a checkout's src directory (holding dippouch/); not one: {', '.join(missing)}")
    trees: list[str | None] = [None] * (args.web - len(args.beside)) + list(args.beside)
    if not 0 < args.keyed <= args.games:
        ap.error(f"--keyed must be between 1 and --games ({args.games}); got {args.keyed}")
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        f"# {args.games} standard games, every phase {args.phase_seconds:g} s, {args.workers} workers"
        f"{' making the pages' if args.worker_pages else ''}, "
        f"{args.web} web process{'es' if args.web > 1 else ''}, "
        f"PostgreSQL; {args.clients} clients: {args.page_rate:g} pages/s + {args.submit_rate:g} submissions/s "
        f"+ {args.play_rate:g} player pages/s for {args.seconds:g} s; Accept-Encoding: {args.accept_encoding!r}"
    )
    with fresh_database("postgres", admin) as url, tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        names, keys = build(url, args.games, args.keyed, args.phase_seconds)
        print(f"built in {time.perf_counter() - t0:.1f} s ({len(keys)} player keys on {args.keyed} games)")
        logs = Path(d)
        workers = [
            subprocess.Popen(
                [*_dippouch(), "worker", "--db", url, "--interval", "1", "--quiet"]
                + (["--pages"] if args.worker_pages else []),
                stdout=open(logs / f"worker{i}.log", "ab"),  # noqa: SIM115 - handed to the process
                stderr=subprocess.STDOUT,
            )
            for i in range(args.workers)
        ]
        webs: list[tuple[subprocess.Popen[bytes], int]] = []
        store = GameStore(url)
        try:
            # Inside the try: a web process that does not start stops the workers started before it.
            webs += [start_web(url, logs / f"web{i}.log", args.start_timeout, code_env(t)) for i, t in enumerate(trees)]
            ports = [port for _, port in webs]
            postmaster = _postmaster(store)
            rng = random.Random(15)
            order = names[:]
            rng.shuffle(order)
            pages: list[Request] = [("GET", f"/games/{n}", b"", accepts(args)) for n in order]
            posts: list[Request] = []
            for (name, power), key in sorted(keys.items()):
                body = json.dumps({"text": ORDERS[power]}).encode()
                head = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
                posts.append(("POST", f"/api/games/{name}/powers/{power}/orders", body, head))
            rng.shuffle(posts)
            plays: list[Request] = [
                ("GET", f"/games/{name}/play/{power}", b"", {"Authorization": f"Bearer {key}"})
                for (name, power), key in sorted(keys.items())
            ]
            rng.shuffle(plays)
            time.sleep(2)  # the workers import and connect
            spread(url, args.phase_seconds)
            warm = Tally()
            asyncio.run(open_loop(ports, args.clients, args.warmup, args.page_rate, pages, args.timeout, warm))
            done0, _ = phase_counts(url)
            since = store.clock()
            wal0 = _wal(store)
            cpu_web0 = sum(cpu_seconds(w.pid) for w, _ in webs)
            cpu_workers0 = sum(_cpu(w.pid) for w in workers)
            cpu_pg0 = _server_cpu(postmaster)
            cpu_me0 = time.process_time()
            p, s, m, y, wall = asyncio.run(mixed(ports, args, pages, posts, plays))
            cpu_web = sum(cpu_seconds(w.pid) for w, _ in webs) - cpu_web0
            cpu_workers = sum(_cpu(w.pid) for w in workers) - cpu_workers0
            cpu_pg = _server_cpu(postmaster) - cpu_pg0
            cpu_me = time.process_time() - cpu_me0
            wal = _wal(store) - wal0
            done1, backlog = phase_counts(url)
            n_late, late50, late99, late_max = lateness(url, since)
            alone = Tally()
            sources: dict[str, float] = {}
            cpu_alone = 0.0
            processed_alone = 0
            # (CPU, pages, where they came from) of each web process in the pages-alone round
            each: list[tuple[float, float, dict[str, float]]] = []
            if args.pages_alone > 0:
                # The pages' own cost: the mixed round's CPU counts the maps and the submissions too. The phases
                # processed meanwhile are counted: each makes its game's page again for its next reader.
                cpu_each = [cpu_seconds(w.pid) for w, _ in webs]
                served_from = [shared_pages([port]) for port in ports]
                sources = shared_pages(ports)
                processed_alone = phase_counts(url)[0]
                readers = args.clients - max(1, args.clients // 10)
                asyncio.run(open_loop(ports, readers, args.pages_alone, args.page_rate, pages, args.timeout, alone))
                cpu_each = [cpu_seconds(w.pid) - c for (w, _), c in zip(webs, cpu_each, strict=True)]
                cpu_alone = sum(cpu_each)
                processed_alone = phase_counts(url)[0] - processed_alone
                sources = {k: v - sources.get(k, 0.0) for k, v in shared_pages(ports).items()}
                served_from = [
                    {k: v - before.get(k, 0.0) for k, v in shared_pages([port]).items()}
                    for port, before in zip(ports, served_from, strict=True)
                ]
                each = [(c, sum(f.values()), f) for c, f in zip(cpu_each, served_from, strict=True)]
            dead = [f"worker {i} exited ({w.returncode})" for i, w in enumerate(workers) if w.poll() is not None]
            for w in workers:  # SIGTERM: each finishes the phase in hand; then nothing changes under the check
                w.terminate()
            stopped = [w.wait(60) for w in workers]
            dead += [f"worker {i} stopped with {c}" for i, c in enumerate(stopped) if c != 0]
            checked, stale = fresh_pages(url, ports[0], names, args.check_pages)
        finally:
            for proc in [*workers, *(w for w, _ in webs)]:
                if proc.poll() is None:
                    proc.terminate()
            for proc in [*workers, *(w for w, _ in webs)]:
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    proc.kill()
            store.close()
        worker_errors = sum(f.read_text().count(" ERROR ") for f in logs.glob("worker*.log"))
        phases = done1 - done0
        requests = len(p.latencies) + len(s.latencies) + len(m.latencies) + len(y.latencies)
        print(f"warm-up: {len(warm.latencies)} page requests, {len(warm.errors)} errors")
        for label, t in (("game page", p), ("submission", s), ("its map", m), ("player page", y)):
            if (t is m or t is y) and not t.latencies and not t.errors:
                continue  # the page carries its map inline (before the map became its own resource)
            f = t.figures(wall)
            extra = f", {t.refused} refused: nothing to order" if t is s else ""
            extra += f", {t.unsent} never sent" if t.unsent else ""
            print(
                f"{label:<12} {f['rps']:6.1f} req/s  p50 {f['p50']:6.1f} ms  p90 {f['p90']:6.1f} ms  "
                f"p99 {f['p99']:6.1f} ms  max {f['max']:7.1f} ms  ({f['requests']} requests, "
                f"{len(t.errors)} errors{extra}; {t.bytes / max(1, f['requests']) / 1024:.0f} KB an answer)"
            )
        for e in (p.errors + s.errors + m.errors + y.errors)[:5]:
            print(f"  error: {e}")
        print(
            f"workers: {phases} phases processed in the round ({phases / wall:.1f}/s); after their deadline "
            f"p50 {late50:.2f} s, p99 {late99:.2f} s, max {late_max:.2f} s ({n_late} phases); "
            f"{backlog} past their deadline at the end; {worker_errors} worker errors logged"
        )
        print(
            f"CPU: web process{'es' if args.web > 1 else ''} {cpu_web / wall:.2f} cores, "
            f"{1000 * cpu_web / max(1, requests):.2f} ms/request; workers "
            f"{1000 * cpu_workers / max(1, phases):.1f} ms/phase; PostgreSQL {cpu_pg / wall:.2f} cores "
            f"({1000 * cpu_pg / max(1, phases + requests):.2f} ms per phase-or-request); load generator "
            f"{cpu_me / wall:.2f} cores; WAL {wal / 1024 / max(1, phases + len(s.latencies)):.1f} KB per "
            f"phase-or-submission"
        )
        if alone.latencies or alone.errors:
            f = alone.figures(args.pages_alone)
            print(
                f"game pages alone (workers running): {f['rps']:.1f} req/s, web CPU "
                f"{1000 * cpu_alone / max(1, f['requests']):.2f} ms/request, p50 {f['p50']:.1f} ms, "
                f"p99 {f['p99']:.1f} ms ({f['requests']} requests, {len(alone.errors)} errors; {processed_alone} "
                "phases processed meanwhile)"
            )
            print(
                "  their pages: "
                + ", ".join(f"{sources.get(k, 0):.0f} {w}" for k, w in SOURCES)
                + " (dippouch_shared_pages_total)"
            )
            if args.beside:
                for i, (tree, (cpu, n, came)) in enumerate(zip(trees, each, strict=True)):
                    print(
                        f"  web process {i} ({code_name(tree)}): {1000 * cpu / max(1, n):.2f} ms/request "
                        f"({n:.0f} pages: " + ", ".join(f"{came.get(k, 0):.0f} {k}" for k, _ in SOURCES) + ")"
                    )
        print(f"pages afterwards: {checked - len(stale)} of {checked} show the phase the database has open")
        for line in [*stale[:5], *dead]:
            print(f"  problem: {line}")
    print(f"# load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    errors = len(p.errors) + len(s.errors) + len(m.errors) + len(y.errors) + len(alone.errors)
    return 0 if not (errors or stale or dead) else 1


if __name__ == "__main__":
    sys.exit(main())
