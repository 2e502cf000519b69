"""What an attacker's expensive requests cost everyone else, and what the server's defences cost: run it
against the code to measure (``PYTHONPATH=other/src`` measures another checkout's, e.g. before a change).

    .venv/bin/python benchmarks/bench_hardening.py [--seconds 20]

Starts `dippouch serve` (rate limits on, as deployed) on a fresh SQLite database with a W3K game, then:

- **map.pdf**: the same anonymous request five times in a row (a pure function of the phase: drawn once?);
- **compression**: the W3K game page's size as sent with and without ``Accept-Encoding``;
- **cheap page under attack**: a visitor fetching ``/games/w`` every 50 ms, first alone, then while four
  clients each send adjudications of 900 misspelt W3K orders and line checks of 200 misspelt lines (or
  ``--orders``/``--lines``) as fast as the server answers; the visitor's p50/p90/max, and what the
  attackers got.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

SERVE = [sys.executable, "-c", "from dippouch.cli import main; main()"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000 if xs else float("nan")


def _visitor(base: str, seconds: float) -> list[float]:
    times: list[float] = []
    end = time.monotonic() + seconds
    with httpx.Client(base_url=base, timeout=60) as c:
        while time.monotonic() < end:
            t = time.perf_counter()
            r = c.get("/games/w", headers={"Accept-Encoding": "identity"})
            assert r.status_code == 200, r.status_code
            times.append(time.perf_counter() - t)
            time.sleep(0.05)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument(
        "--orders", type=int, default=900, help="misspelt orders per adjudication (300: the most now allowed)"
    )
    ap.add_argument("--lines", type=int, default=200, help="misspelt lines per check (100: the most now allowed)")
    args = ap.parse_args()
    from dippouch.catalog import load_variant
    from dippouch.store import GameStore
    from dippouch.store.access import AccessStore

    tmp = Path(tempfile.mkdtemp())
    url = f"sqlite:///{tmp / 'b.db'}"
    subprocess.run([*SERVE, "new", "w", "--variant", "w3k", "--db", url], check=True, capture_output=True)
    power = load_variant("w3k").power_names[0]
    _, key = AccessStore(GameStore(url)).create_key("player", game="w", power=power, now=datetime.now(UTC))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp / "serve.log").open("w")
    proc = subprocess.Popen(
        [*SERVE, "serve", "--db", url, "--port", str(port), "--no-scheduler"],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        print(f"python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f}")
        with httpx.Client(base_url=base, timeout=120) as c:
            times = []
            for _ in range(5):
                t = time.perf_counter()
                r = c.get("/games/w/map.pdf")
                times.append(time.perf_counter() - t)
            print(f"map.pdf x5 (status {r.status_code}): " + ", ".join(f"{x * 1000:.0f}" for x in times) + " ms")
            plain = c.get("/games/w", headers={"Accept-Encoding": "identity"})
            for enc in ("zstd", "br", "gzip"):
                r = c.get("/games/w", headers={"Accept-Encoding": enc})
                print(
                    f"game page {enc}: {r.num_bytes_downloaded:,} bytes sent for {len(plain.content):,} "
                    f"(content-encoding {r.headers.get('content-encoding', 'none')})"
                )
        alone = _visitor(base, args.seconds / 2)
        print(
            f"cheap page alone:        p50 {_pct(alone, 0.5):6.1f} ms  p90 {_pct(alone, 0.9):6.1f} ms  "
            f"max {max(alone) * 1000:6.1f} ms  ({len(alone)} requests)"
        )
        stop = threading.Event()
        got: dict[str, list[tuple[int, float]]] = {"adjudicate": [], "check": []}
        adj = json.dumps(
            {"variant": "w3k", "orders": {power: [f"A Parisxq{i} - Burgandyz{i}" for i in range(args.orders)]}}
        )
        check = json.dumps({"text": "\n".join(f"A Parisxq{i} - Burgandyz{i}" for i in range(args.lines))})

        def attacker(kind: str) -> None:
            with httpx.Client(base_url=base, timeout=120) as c:
                while not stop.is_set():
                    t = time.perf_counter()
                    if kind == "adjudicate":
                        r = c.post("/api/adjudicate", content=adj, headers={"Content-Type": "application/json"})
                    else:
                        r = c.post(
                            f"/api/games/w/powers/{power}/check",
                            content=check,
                            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
                        )
                    got[kind].append((r.status_code, time.perf_counter() - t))
                    if r.status_code in (429, 503):
                        time.sleep(0.2)

        threads = [threading.Thread(target=attacker, args=(k,)) for k in ("adjudicate", "check") * 2]
        for th in threads:
            th.start()
        time.sleep(1)
        busy = _visitor(base, args.seconds)
        stop.set()
        for th in threads:
            th.join()
        print(
            f"cheap page, 4 attackers: p50 {_pct(busy, 0.5):6.1f} ms  p90 {_pct(busy, 0.9):6.1f} ms  "
            f"max {max(busy) * 1000:6.1f} ms  ({len(busy)} requests)"
        )
        for kind, rows in got.items():
            codes: dict[int, int] = {}
            for code, _ in rows:
                codes[code] = codes.get(code, 0) + 1
            ok = [t for code, t in rows if code == 200]
            mean = f"{statistics.mean(ok):.2f} s" if ok else "-"
            print(f"  attackers' {kind}: {dict(sorted(codes.items()))}; mean time of those answered 200: {mean}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        log.close()


if __name__ == "__main__":
    main()
