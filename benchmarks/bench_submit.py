"""What one order submission costs the store as versions pile up in a phase.

A game's open phase is filled with versions from every power (round robin), then France submits again 20
times and the CPU time per submission is printed. It should not grow with the versions stored: a submission
reads its next version number by SQL max and only the standing (and named) version, never every earlier one
(tests/web/test_web_perf_submit.py counts the rows). Before, it loaded every version of the phase (then every
version of its power) with its text and line checks.

    .venv/bin/python benchmarks/bench_submit.py [--sizes 10,100,400] [--repeat 20]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime, timedelta

from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 3, 1, tzinfo=UTC)
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
ORDERS = {"France": "A par - bur\nA mar - spa\nF bre - mao", "Germany": "A mun - ruh\nA ber - kie\nF kie - den"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,400", help="versions stored before each measurement")
    ap.add_argument("--repeat", type=int, default=20, help="submissions timed at each size")
    args = ap.parse_args()
    store = GameStore(f"sqlite:///{tempfile.mkdtemp()}/bench.db")
    store_games.create_game(store, "g", "standard", now=T0)
    n = 0
    for total in (int(x) for x in args.sizes.split(",")):
        while n < total:
            power = POWERS[n % len(POWERS)]
            store_submissions.submit(store, "g", power, ORDERS.get(power, "no orders"), now=T0 + timedelta(seconds=n))
            n += 1
        started = time.process_time()
        for _ in range(args.repeat):
            store_submissions.submit(store, "g", "France", ORDERS["France"], now=T0 + timedelta(seconds=n))
            n += 1
        per = (time.process_time() - started) / args.repeat * 1000
        print(f"{total:5d} versions stored: {per:.1f} ms CPU per submission")
    store.close()


if __name__ == "__main__":
    main()
