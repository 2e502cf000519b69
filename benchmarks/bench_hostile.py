"""One hostile account beside 50 players: what the worst a signed-in person can ask for costs everyone else.

    .venv/bin/python benchmarks/bench_hostile.py [--seconds 60] [--players 50] [--page-rate 20]
        [--submit-rate 2] [--hostile-threads 4]

Two runs, each on a fresh SQLite database and a fresh ``dippouch serve`` (rate limits on, the scheduler on,
the work budget as deployed: nothing set by hand), with the same set-up made through the store before the
server starts:

- ``--players`` players seated in standard games of seven (each with a player key and a 1-day deadline);
- a long public game (standard, random legal orders, ``--long-years`` game years) whose replay, book and maps
  are there to be drawn;
- one person, signed in through a mailed sign-in link as anyone is.

In both runs the players follow their games for ``--seconds``, open loop (requests sent on a schedule, a
request's latency counted from when it was due, so a slow server cannot hide its queue): each player from an
address of their own (127.0.1.x: the per-address limits apply to each as they would to real players), at
``--page-rate`` requests a second together, alternating the game's page (``GET /games/G``) and their own view
(``GET /api/games/G/powers/P``, bearer key), and ``--submit-rate`` order submissions a second together
(``POST /api/games/G/powers/P/orders``).

In the second run the hostile person also does, from ``--hostile-threads`` threads (and addresses, since their
budget is theirs wherever they come from), as fast as they are answered: make games (the player-made template
with one-minute deadlines) and seat ``search`` bots on every power, then "process now" them; start W3K
sandboxes, set the longest order text allowed of misspelt orders, look at them and adjudicate them; draw the
long game's replay (GIF and WebP), its book and every phase's PDF map; check and adjudicate through the
adjudication contract.

It prints the players' p50/p90/p99/max for pages and submissions in each run (and the ratio of the p99s), what
the hostile person got (answers by kind and status), and the server's CPU time in each run (its own process's and
its work pool's processes'): what the hostile run spent beyond the quiet one is their cost, set beside what their
work budget allows in the time (``DIPPOUCH_WORK_SECONDS`` a minute, a full share to begin with) and the all-bot
games' pace. Not a test: figures go in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from bench_web import ORDERS, POWERS, cpu_seconds

from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import variant_copy as variant_copy

HOSTILE = "hostile@example.org"
T0 = datetime.now(UTC).replace(microsecond=0)


# --------------------------------------------------------------------------------------------------
# Set-up, through the store, before the server starts


@dataclass
class World:
    url: str
    seats: list[tuple[str, str, str]]  # (game, power, player key)
    long_game: str
    signin_token: str


def _random_orders(variant: Any, position: Any, power: str, rng: random.Random) -> str:
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order

    kind = variant.calendar.kind(position.phase)
    legal = legal_orders(variant, position, power)
    places = sorted(legal)
    if kind == PhaseKind.ADJUSTMENTS:
        need = abs(len(position.centres_of(power)) - len(position.units_of(power)))
        rng.shuffle(places)
        places = places[:need]
    return "\n".join(format_order(variant, rng.choice(legal[p]), phase_kind=kind) for p in places if legal[p])


def _play_long(store: Any, name: str, years: int) -> int:
    """A standard game played ``years`` game years with random legal orders (seeded), one hour a phase."""
    from dippouch.game import position_from_data, powers_to_act

    start = T0 - timedelta(days=30)
    store_games.create_game(store, name, "standard", now=start)
    variant = variant_copy.variant_of(store, name)
    rng = random.Random(1901)
    now, processed = start, 0
    while True:
        current = next((h for h in store_history.history(store, name) if h.status == "open"), None)
        if current is None:
            return processed
        position = position_from_data(variant, current.position)
        if position.phase.year >= variant.start.phase.year + years:
            return processed
        for power in powers_to_act(variant, position):
            if text := _random_orders(variant, position, power, rng):
                store_submissions.submit(store, name, power, text, now=now)
        now += timedelta(hours=1)
        processed += len(store_processing.process(store, name, now=now, force=True))


def build(folder: Path, players: int, long_years: int) -> World:
    from dippouch.store import GameStore
    from dippouch.store.access import AccessStore
    from dippouch.store.people import accounts as store_accounts

    url = f"sqlite:///{folder / 'hostile.db'}"
    store = GameStore(url)
    access = AccessStore(store)
    seats: list[tuple[str, str, str]] = []
    g = 0
    while len(seats) < players:
        name = f"club-{g}"
        store_games.create_game(store, name, "standard", now=T0)
        for p in POWERS:
            store_games.assign(store, name, p, f"{p} of {name}", now=T0)
            _, key = access.create_key("player", game=name, power=p, now=T0)
            seats.append((name, p, key))
        g += 1
    long_game = "long"
    _play_long(store, long_game, long_years)
    tokens: list[str] = []

    def compose(token: str, who: str | None, known: bool) -> tuple[str, str]:
        tokens.append(token)
        return "Sign in", f"/signin/link/{token}"

    store_accounts.create_signin_link(store, HOSTILE, now=datetime.now(UTC), name="Hostile", compose=compose)
    store.close()
    return World(url, seats[:players], long_game, tokens[0])


def serve(
    url: str, folder: Path, trace: Path | None = None, stalls: Path | None = None
) -> tuple[subprocess.Popen[str], int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {**os.environ, "DIPPOUCH_PUBLIC_URL": f"http://127.0.0.1:{port}"}
    if trace is not None:
        env["DIPPOUCH_WRITE_TRACE"] = str(trace)
    if stalls is not None:
        env["DIPPOUCH_STALL_TRACE"] = str(stalls)
    exe = Path(sys.executable).parent / "dippouch"
    log = open(folder / "serve.log", "w")  # noqa: SIM115  (kept open for the server's life)
    proc = subprocess.Popen(
        [str(exe), "serve", "--db", url, "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc, port
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not start")


# --------------------------------------------------------------------------------------------------
# The players


class Conn:
    """One keep-alive HTTP/1.1 connection from a source address of its own."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> int:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, local_addr=(self.source, 0)
            )
        assert self.reader is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.writer.write(head.encode() + b"\r\n" + body)
        status = int((await self.reader.readline()).split()[1])
        length, chunked = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
            elif k.lower() == "transfer-encoding" and "chunked" in v:
                chunked = True
        if chunked:
            while True:
                size = int((await self.reader.readline()).strip() or b"0", 16)
                await self.reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            await self.reader.readexactly(length)
        return status


@dataclass
class Latencies:
    pages: list[float] = field(default_factory=list)
    submissions: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


async def players(port: int, world: World, seconds: float, page_rate: float, submit_rate: float) -> Latencies:
    out = Latencies()
    n = len(world.seats)
    start = time.perf_counter()
    stop = start + seconds

    async def player(i: int) -> None:
        game, power, key = world.seats[i]
        conn = Conn(port, f"127.0.1.{i + 1}")
        auth = {"Authorization": f"Bearer {key}"}
        page_every, submit_every = n / page_rate, n / submit_rate
        next_page = start + page_every * i / n
        next_submit = start + submit_every * i / n
        k = 0
        while True:
            due = min(next_page, next_submit)
            if due >= stop:
                return
            if (wait := due - time.perf_counter()) > 0:
                await asyncio.sleep(wait)
            if next_submit <= next_page:
                next_submit += submit_every
                kind, what = "submission", out.submissions
                body = json.dumps({"text": ORDERS[power]}).encode()
                req = (
                    "POST",
                    f"/api/games/{game}/powers/{power}/orders",
                    body,
                    {**auth, "Content-Type": "application/json"},
                )
            else:
                next_page += page_every
                kind, what = "page", out.pages
                k += 1
                path = f"/games/{game}" if k % 2 else f"/api/games/{game}/powers/{power}"
                req = ("GET", path, b"", auth if k % 2 == 0 else {})
            try:
                status = await conn.request(*req)
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                out.errors[f"{kind}: {type(e).__name__}"] += 1
                conn = Conn(port, f"127.0.1.{i + 1}")
                continue
            what.append(time.perf_counter() - due)
            # A submission refused line by line (400) is a correct answer: the phase moved on.
            if status >= 500 or status in (401, 403, 404, 429) or (status >= 400 and kind == "page"):
                out.errors[f"{kind}: {status}"] += 1

    await asyncio.gather(*(player(i) for i in range(n)))
    return out


# --------------------------------------------------------------------------------------------------
# The hostile person


class Hostile:
    """The worst one signed-in person can ask for, from several threads (and addresses) at once."""

    def __init__(self, port: int, world: World, threads: int, jobs: list[str] | None = None) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.world = world
        self.threads = threads
        self.got: Counter[tuple[str, int]] = Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.cookies = self._sign_in()
        self.csrf = next((v for k, v in self.cookies.items() if "csrf" in k), "")
        self.games: list[str] = []
        self.sandboxes: list[str] = []
        self.jobs = jobs or ["games_and_bots", "sandbox", "drawings", "checks"]

    def _sign_in(self) -> httpx.Cookies:
        with httpx.Client(base_url=self.base, timeout=60) as c:
            r = c.get(f"/signin/link/{self.world.signin_token}")
            r.raise_for_status()
            field = r.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
            r = c.post(f"/signin/link/{self.world.signin_token}", data={"csrf": field, "name": "Hostile"})
            assert r.status_code in (200, 303), (r.status_code, r.text[:300])
            return c.cookies

    def client(self, i: int) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=f"127.0.2.{i + 1}")
        return httpx.Client(
            base_url=self.base,
            timeout=300,
            cookies=self.cookies,
            transport=transport,
            headers={"X-CSRF-Token": self.csrf},
        )

    def note(self, what: str, r: httpx.Response) -> httpx.Response:
        with self.lock:
            self.got[(what, r.status_code)] += 1
        return r

    def games_and_bots(self, c: httpx.Client) -> None:
        r = self.note(
            "new game",
            c.post(
                "/api/games/new",
                json={"template": "standard-1h-live", "movement": "1m", "retreats": "1m", "adjustments": "1m"},
            ),
        )
        if r.status_code == 200:
            name = r.json()["game"]
            self.games.append(name)
            for p in POWERS:
                self.note("seat search bot", c.post(f"/api/games/{name}/bots", json={"power": p, "level": "search"}))
        for name in list(self.games):
            self.note("process now", c.post(f"/api/games/{name}/actions", json={"action": "process"}))

    def sandbox(self, c: httpx.Client) -> None:
        r = self.note("new sandbox", c.post("/api/sandbox", json={"variant": "w3k"}))
        if r.status_code == 200:
            self.sandboxes.append(r.json()["edit"].rsplit("/", 1)[1])
        if not self.sandboxes:
            return
        token = random.choice(self.sandboxes)
        lines = [f"A Burgandy{i} - Lundon{i}" for i in range(2000)]
        text = "\n".join(lines)
        for _ in range(6):  # the longest text allowed: halve until it is taken
            r = self.note(
                "sandbox orders", c.post(f"/api/sandbox/{token}/orders", json={"orders": text, "adjudicate": False})
            )
            if r.status_code != 400:
                break
            text = text[: len(text) // 2].rsplit("\n", 1)[0]
        for _ in range(5):
            self.note("sandbox look", c.get(f"/api/sandbox/{token}"))
            self.note("sandbox page", c.get(f"/sandbox/{token}"))
        self.note(
            "sandbox adjudicate", c.post(f"/api/sandbox/{token}/orders", json={"orders": text, "adjudicate": True})
        )

    def drawings(self, c: httpx.Client) -> None:
        g = self.world.long_game
        for what in ("replay.gif", "replay.webp", "book.pdf"):
            self.note(what, c.get(f"/games/{g}/{what}"))
        r = c.get(f"/api/games/{g}")
        phases = [p["id"] for p in r.json().get("history", [])] if r.status_code == 200 else []
        random.shuffle(phases)
        for pid in phases[:5]:
            self.note("phase map.pdf", c.get(f"/games/{g}/map.pdf?phase={pid}"))

    def checks(self, c: httpx.Client) -> None:
        # The most orders one request may hold (300), each misspelt: a search for the closest names, about a
        # second of CPU in all.
        orders = {"Crown": [f"A Burgandy{i} - Lundon{i}" for i in range(300)]}
        self.note("adjudicate", c.post("/api/adjudicate", json={"variant": "w3k", "orders": orders}))

    def run(self) -> list[threading.Thread]:
        jobs: list[Callable[[httpx.Client], None]] = [getattr(self, name) for name in self.jobs]

        def loop(i: int) -> None:
            with self.client(i) as c:
                while not self.stop.is_set():
                    try:
                        jobs[i % len(jobs)](c)
                    except httpx.HTTPError as e:
                        with self.lock:
                            self.got[(f"{jobs[i % len(jobs)].__name__}: {type(e).__name__}", 0)] += 1
                    except (KeyError, ValueError, IndexError):
                        with self.lock:
                            self.got[(f"{jobs[i % len(jobs)].__name__}: unexpected answer", 0)] += 1
                    time.sleep(0.01)

        threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(self.threads)]
        for t in threads:
            t.start()
        return threads


def _attack(port: int, world: World, threads: int, jobs: list[str] | None, stop: Any, out: Any) -> None:
    """The hostile person's process: their threads until ``stop`` is set, then what they got sent back. Niced
    to the lowest priority: an attacker's client runs on their own machine, not on the two CPUs the server and
    the players' timing share here (what it sends is the same; reading the answers no longer slows the server)."""
    os.nice(19)
    h = Hostile(port, world, threads, jobs)
    running = h.run()
    stop.wait()
    h.stop.set()
    for t in running:
        t.join(timeout=300)
    out.put((dict(h.got), len(h.games), len(h.sandboxes)))


@dataclass
class Got:
    got: dict[tuple[str, int], int]
    games: int
    sandboxes: int


class Attacker:
    """The hostile person in a process of their own: the answers they read (a GIF, a 1 MB page) never hold the
    interpreter lock of the process that times the players' requests."""

    def __init__(self, port: int, world: World, threads: int, jobs: list[str] | None) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop = ctx.Event()
        self.out: Any = ctx.Queue()
        self.proc = ctx.Process(target=_attack, args=(port, world, threads, jobs, self.stop, self.out), daemon=True)
        self.proc.start()

    def finish(self) -> Got:
        self.stop.set()
        got, games, sandboxes = self.out.get(timeout=600)
        self.proc.join(timeout=60)
        return Got(got, games, sandboxes)


# --------------------------------------------------------------------------------------------------


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000 if xs else float("nan")


def _line(label: str, xs: list[float]) -> str:
    return (
        f"{label:<28} {len(xs):6d} requests  p50 {_pct(xs, 0.5):7.1f}  p90 {_pct(xs, 0.9):7.1f}  "
        f"p99 {_pct(xs, 0.99):7.1f}  max {_pct(xs, 1.0):7.1f} ms"
        + (f"  mean {statistics.fmean(xs) * 1000:.1f}" if xs else "")
    )


def tree_cpu(pid: int) -> tuple[float, float]:
    """User + system CPU time so far of the server ``pid`` and of its children together (the work pool's
    processes, where expensive work runs: dippouch.web.http.pool), each read from Linux's /proc."""
    children = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name == str(pid):
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return cpu_seconds(pid), children


@dataclass
class Holder:
    """One place that took SQLite's write lock, over a run (``DIPPOUCH_WRITE_TRACE``'s lines summed)."""

    who: str
    count: int = 0
    held: float = 0.0
    longest: float = 0.0
    waited: float = 0.0
    commit: float = 0.0
    longest_commit: float = 0.0
    longest_wait: float = 0.0


def _place(frame: str) -> str:
    """``store/processing.py:123 process_locked`` -> ``store/processing.py process_locked``."""
    where, _, function = frame.partition(" ")
    return f"{where.rsplit(':', 1)[0]} {function}"


def write_holders(trace: Path, frames: int = 2) -> list[Holder]:
    """The trace's write transactions summed by who began them (the innermost ``frames`` of dippouch's frames,
    without line numbers, so that one function's transactions are one holder)."""
    by: dict[str, Holder] = {}
    for line in trace.read_text().splitlines():
        try:
            t = json.loads(line)
        except ValueError:  # a line cut short by the server's end
            continue
        who = " < ".join(_place(w) for w in t["who"][:frames]) or "?"
        h = by.setdefault(who, Holder(who))
        h.count += 1
        h.held += t["held"]
        h.longest = max(h.longest, t["held"])
        h.waited += t["waited"]
        h.commit += t.get("commit", 0.0)
        h.longest_commit = max(h.longest_commit, t.get("commit", 0.0))
        h.longest_wait = max(h.longest_wait, t["waited"])
    return list(by.values())


def _print_holders(holders: list[Holder], top: int = 12) -> None:
    total = sum(h.held for h in holders)
    print(f"write transactions: {sum(h.count for h in holders)}, the lock held {total:.2f} s in all")
    rankings: list[tuple[str, Callable[[Holder], float]]] = [
        ("by total hold", lambda h: h.held),
        ("by longest hold", lambda h: h.longest),
        ("by longest commit (its flush, after the hold)", lambda h: h.longest_commit),
    ]
    for title, key in rankings:
        print(f"  {title}:")
        for h in sorted(holders, key=key, reverse=True)[:top]:
            print(
                f"    {h.held * 1000:8.1f} ms in {h.count:5d}  longest {h.longest * 1000:7.1f} ms  "
                f"waited {h.waited * 1000:8.1f} ms (longest {h.longest_wait * 1000:6.1f})  "
                f"commits {h.commit * 1000:7.1f} ms (longest {h.longest_commit * 1000:6.1f})  {h.who}"
            )


def charged(port: int) -> dict[str, float]:
    """The CPU seconds the server's work budget has charged so far, by kind (its /metrics: this machine may read
    it), to set beside the CPU time the server spent."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30).text
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("dippouch_work_charged_seconds_total{"):
            labels, _, value = line.rpartition(" ")
            out[labels.split('kind="', 1)[1].split('"', 1)[0]] = float(value)
    return out


def one_run(args: argparse.Namespace, hostile: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as d:
        folder = Path(d)
        t0 = time.perf_counter()
        world = build(folder, args.players, args.long_years)
        built = time.perf_counter() - t0
        trace = folder / "writes.jsonl" if args.write_trace else None
        stalls = Path(f"{args.stall_trace}-{'hostile' if hostile else 'alone'}.jsonl") if args.stall_trace else None
        proc, port = serve(world.url, folder, trace, stalls)
        try:
            # Warm-up: every player's page once (what a server that has been running has made already).
            asyncio.run(players(port, world, 3.0, args.page_rate * 2, args.submit_rate))
            if trace is not None:
                trace.write_bytes(b"")  # the timed part only (emptied: the server appends to the file it opened)
            if stalls is not None:
                stalls.write_bytes(b"")
            c0 = charged(port)
            s0, w0 = tree_cpu(proc.pid)
            attacker = Attacker(port, world, args.hostile_threads, args.jobs) if hostile else None
            lat = asyncio.run(players(port, world, args.seconds, args.page_rate, args.submit_rate))
            s1, w1 = tree_cpu(proc.pid)
            cpu, workers = s1 - s0 + w1 - w0, w1 - w0
            got = attacker.finish() if attacker else None
            c1 = charged(port)
            charges = {kind: c1[kind] - c0.get(kind, 0.0) for kind in c1}
            errors_logged = sum(1 for line in (folder / "serve.log").read_text().splitlines() if "Traceback" in line)
            holders = write_holders(trace) if trace is not None and trace.exists() else None
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    return {
        "built": built,
        "lat": lat,
        "cpu": cpu,
        "workers": workers,
        "charged": charges,
        "hostile": got,
        "tracebacks": errors_logged,
        "holders": holders,
    }


def _report(args: argparse.Namespace, budget: float, quiet: dict[str, Any], loud: dict[str, Any]) -> None:
    for label, r in (("players alone", quiet), ("players + hostile", loud)):
        lat = r["lat"]
        print(
            f"\n== {label} (set-up {r['built']:.1f} s; server CPU {r['cpu']:.1f} s, of which its work pool's "
            f"processes {r['workers']:.1f} s; tracebacks in its log {r['tracebacks']})"
        )
        print(
            "charged to work budgets: "
            + ", ".join(f"{kind} {seconds:.1f} s" for kind, seconds in sorted(r["charged"].items()))
        )
        print(_line("pages", lat.pages))
        print(_line("submissions", lat.submissions))
        if lat.errors:
            print("players' errors:", dict(lat.errors))
        if r["holders"] is not None:
            _print_holders(r["holders"])
    qp, lp = _pct(quiet["lat"].pages, 0.99), _pct(loud["lat"].pages, 0.99)
    qs, ls = _pct(quiet["lat"].submissions, 0.99), _pct(loud["lat"].submissions, 0.99)
    print(f"\np99 with the hostile account / without: pages {lp / qp:.2f}x, submissions {ls / qs:.2f}x")
    extra = loud["cpu"] - quiet["cpu"]
    allowed = budget + budget * args.seconds / 60.0
    print(
        f"server CPU spent beyond the quiet run: {extra:.1f} s in {args.seconds:.0f} s "
        f"(the hostile person's work budget allows {allowed:.1f} s of expensive work in that time: a full share "
        f"of {budget:g} s and {budget:g} s a minute)"
    )
    # Players sign nothing in (their keys are not people), so what was charged beyond the quiet run is the hostile
    # person's: the budget lets a job that overran its estimate leave them in debt, which they wait out after.
    kinds = set(loud["charged"]) | set(quiet["charged"])
    theirs = sum(loud["charged"].get(k, 0.0) - quiet["charged"].get(k, 0.0) for k in kinds)
    print(
        f"charged to the hostile person's budget: {theirs:.1f} s (beyond the allowance: "
        f"{max(0.0, theirs - allowed):.1f} s of debt, which they wait for before their next expensive request)"
    )
    attacker: Got = loud["hostile"]
    print("\nwhat the hostile person got (request, status: count):")
    for (what, status), n in sorted(attacker.got.items()):
        print(f"  {what:<24} {status:>3}: {n}")
    print(f"  games made: {attacker.games}; sandboxes: {attacker.sandboxes}")


def _pooled(rounds: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """The rounds' samples together: a p99 of 120 submissions is its second slowest, one stall of the machine's;
    of several rounds' it is a figure of the server."""
    print(f"\n######## the {len(rounds)} rounds pooled (alone / with the hostile account)")
    for kind in ("pages", "submissions"):
        alone = [x for q, _ in rounds for x in getattr(q["lat"], kind)]
        loud = [x for _, h in rounds for x in getattr(h["lat"], kind)]
        print(_line(f"{kind} alone", alone))
        print(_line(f"{kind} + hostile", loud))
        print(
            f"{kind}: p99 {_pct(loud, 0.99) / _pct(alone, 0.99):.2f}x, p90 {_pct(loud, 0.9) / _pct(alone, 0.9):.2f}x, "
            f"p50 {_pct(loud, 0.5) / _pct(alone, 0.5):.2f}x"
        )
    per = [(h["lat"], q["lat"]) for q, h in rounds]
    ratios = [
        (_pct(h.pages, 0.99) / _pct(q.pages, 0.99), _pct(h.submissions, 0.99) / _pct(q.submissions, 0.99))
        for h, q in per
    ]
    print("each round's p99 ratio (pages, submissions): " + "; ".join(f"{a:.2f}x, {b:.2f}x" for a, b in ratios))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--page-rate", type=float, default=20.0, help="players' page requests a second, together")
    ap.add_argument("--submit-rate", type=float, default=2.0, help="players' submissions a second, together")
    ap.add_argument("--hostile-threads", type=int, default=4)
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="quiet and hostile runs in turn this many times, then their samples pooled",
    )
    ap.add_argument("--long-years", type=int, default=6, help="game years of the long game to draw")
    ap.add_argument(
        "--jobs",
        type=lambda text: text.split(","),
        default=None,
        help="the hostile person's jobs, one a thread in turn: games_and_bots,sandbox,drawings,checks (all)",
    )
    ap.add_argument(
        "--write-trace",
        action="store_true",
        help="trace who holds SQLite's write lock in each run (DIPPOUCH_WRITE_TRACE) and print the top holders",
    )
    ap.add_argument(
        "--stall-trace",
        metavar="PREFIX",
        help="write what the server's threads did during each slow request to PREFIX-alone.jsonl and "
        "PREFIX-hostile.jsonl (DIPPOUCH_STALL_TRACE)",
    )
    args = ap.parse_args(argv)
    from dippouch import settings

    budget = settings.current().work_seconds
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"{args.players} players, {args.seconds:.0f} s a run; work budget {budget:g} s a minute"
    )
    rounds: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for n in range(args.rounds):
        if args.rounds > 1:
            print(f"\n######## round {n + 1} of {args.rounds} (load average {os.getloadavg()[0]:.1f})")
        quiet = one_run(args, hostile=False)
        loud = one_run(args, hostile=True)
        _report(args, budget, quiet, loud)
        rounds.append((quiet, loud))
    if args.rounds > 1:
        _pooled(rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
