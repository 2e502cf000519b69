"""Ratings and leaderboards at a large installation's size (issue 42): the Ghost Ratings engine over many
finished games, and the whole path the ratings page takes over games stored in a database.

    .venv/bin/python benchmarks/bench_ratings.py [--people 10000] [--games 50000] [--stored 500]

- the engine (:func:`dippouch.ranking.ratings.compute_ratings`): ``--games`` synthetic finished games of seven
  players each, drawn from ``--people`` people, over the six built-in variants as groups; the overall and
  per-variant leaderboards sorted; time and this process's peak memory growth;
- the stored path (:class:`dippouch.play.ratings.RatingsCache`, as the ratings page and ``GET /api/ratings``
  use it): ``--stored`` standard games played to a draw through the store on SQLite, seven people each; the
  standings cold (every game read and scored), warm (the list of finished games read, nothing scored), after
  one more game ends (that game scored), and the top-50 leaderboard with names and reliability.

CPU time of this process (medians of three runs where repeated): the machine is shared, and its wall clock
moves with other people's work. Not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

VARIANTS = ("standard", "hundred3", "hundred", "1897", "1000ad", "w3k")


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The median CPU time of this process over ``repeat`` runs (the machine is shared: its wall clock moves
    with other people's work, the CPU time much less), and the last run's result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def engine(people: int, games: int) -> None:
    from dippouch.ranking.ratings import PlayerResult, RatedGame, compute_ratings

    rng = random.Random(1901)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    rated = []
    for n in range(games):
        seats = rng.sample(range(people), 7)
        scores = [rng.choice((0.0, 0.0, 1.0, 2.0, 4.0, 9.0, 16.0)) for _ in seats]
        if not any(scores):
            scores[0] = 1.0
        rated.append(
            RatedGame(
                name=f"g{n}",
                ended_at=start + timedelta(hours=n),
                players=tuple(
                    PlayerResult(str(p), f"P{i}", s, civil_disorder=rng.random() < 0.03)
                    for i, (p, s) in enumerate(zip(seats, scores, strict=True))
                ),
                group=VARIANTS[n % len(VARIANTS)],
                practice=False,
            )
        )
    took, ratings = timed(lambda: compute_ratings(rated))
    tracemalloc.start()  # a second run for the memory alone: tracing slows Python many times over
    compute_ratings(rated)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    board, _ = timed(lambda: [ratings.leaderboard(g) for g in (None, *VARIANTS)])
    print(
        f"engine: {games:,} games, {people:,} people: ratings in {took:.2f} s CPU (median of 3; peak {peak / 2**20:.0f} MiB traced)"
    )
    print(f"        the overall and six variants' leaderboards sorted: {board * 1000:.1f} ms")


def stored(count: int) -> None:
    from dippouch.play.ratings import RatingsCache, leaderboard
    from dippouch.store import GameStore
    from dippouch.store.people import create_person, seat_person

    db = Path(tempfile.mkdtemp(prefix="bench-ratings-")) / "r.db"
    store = GameStore(f"sqlite:///{db}")
    rng = random.Random(1914)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    pool = [create_person(store, f"Player {i}", now=now) for i in range(max(20, count // 2))]
    powers = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")

    def play(n: int) -> None:
        name = f"g{n:05d}"
        when = now + timedelta(hours=n)
        store.create_game(name, "standard", now=when)
        for power, person in zip(powers, rng.sample(pool, 7), strict=True):
            store.assign(name, power, f"{name} {power}", now=when)
            seat_person(store, name, power, person, now=when)
        for power in powers:
            store.vote(name, power, True, now=when + timedelta(minutes=1))

    t0 = time.perf_counter()
    for n in range(count):
        play(n)
    print(f"stored: {count:,} standard games played to a draw on SQLite in {time.perf_counter() - t0:.0f} s")
    cache = RatingsCache()
    t0 = time.process_time()
    s = cache.get(store)
    cold = time.process_time() - t0
    warm, _ = timed(lambda: cache.get(store))
    play(count)
    t0 = time.process_time()
    cache.get(store)
    one_more = time.process_time() - t0
    s = cache.get(store)
    board, top = timed(lambda: leaderboard(store, s, top=50))
    print(
        f"        standings cold (every game read and scored): {cold:.2f} s ({cold / (count or 1) * 1000:.1f} ms a game)"
    )
    print(f"        warm (nothing changed): {warm * 1000:.1f} ms; after one more game ended: {one_more * 1000:.0f} ms")
    print(f"        top-50 leaderboard with names and reliability: {board * 1000:.1f} ms ({len(top)} lines)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--stored", type=int, default=500)
    opts = ap.parse_args()
    engine(opts.people, opts.games)
    stored(opts.stored)


if __name__ == "__main__":
    main()
