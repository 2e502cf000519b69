"""Ratings and leaderboards at a large installation's size (issue 42): the Ghost Ratings engine alone, then the
stored ratings and their pages with 10,000 people and 50,000 finished games in SQLite and in PostgreSQL.

    source scripts/postgres            # for PostgreSQL (or --postgres ADMIN_URL)
    nice -n 10 .venv/bin/python benchmarks/bench_ratings.py [--people 10000] [--games 50000] [--db both]
        [--requests 100] [--markdown]
    .venv/bin/python benchmarks/bench_ratings.py --quick     # 300 games of 60 people, SQLite (a test runs it)

- **engine** (:func:`dippouch.ranking.ratings.compute_ratings`): ``--games`` synthetic seven-player games of
  ``--people`` people over six variant groups, from scratch; the leaderboards sorted.
- **seeding**: five kinds of game played to their end through the store (a draw of seven under draw-size
  scoring, one under sum of squares, a solo, a solo beside a bot, a practice game), then copied row by row
  (game, seats, phases, votes and event log) to ``--games`` games, each seated with people drawn from
  ``--people``, ended at a random moment of four years (so the order of their end is not that of their
  creation), and labelled with one of six variant names (the ratings group games by that name; the games
  themselves are standard).
- **the stored ratings** (:func:`dippouch.play.ratings.update_ratings`, the worker's task): the first update
  (every finished game read and scored, the standings computed and stored); an update with nothing new (what
  every worker look costs), and a deep one (every game's event log compared); one more game finished through
  the store after every other and taken in (median of ``--more`` games); one finished before the last rated
  game (the standings replayed from the ledger); and ``dippouch ratings check``'s recomputation from scratch
  with its exact comparison.
- **pages** through the real app (FastAPI's ASGI app, Starlette's test client: httpx in process, no network):
  ``/ratings`` (the overall leaderboard, six variants' and the hall of fame), a deep page of the overall
  leaderboard, one variant's leaderboard and a deep page of it, ``GET /api/ratings``, and a rated person's page
  (its rating and rank among the rest), ``--requests`` each after one warm-up: p50, p95 and max of wall time,
  and the mean CPU time of this process (app and client) per request, and the first request of each; then
  ``--requests`` pages spread over the whole overall leaderboard, each asked once.

Wall time and CPU time of this process; the machine is shared, so the load average is printed with them. Not a
test: nothing is asserted about speed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

# The board the ratings' tests win on: the benchmark's solos are theirs.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "play"))
from solo_board import solo_board

from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import votes as store_votes

VARIANTS = ("standard", "hundred3", "hundred", "1897", "1000ad", "w3k")
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
START = datetime(2022, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=4 * 365)
KINDS = (("draw-dss", 25), ("draw-sos", 35), ("solo", 25), ("solo-bot", 10), ("practice", 5))
"""The kinds of game copied, and how many in a hundred of each."""
CHILDREN = {"players": "assigned_at", "phases": "opened_at", "votes": "at", "events": "at"}
"""The tables a seeded game has rows in, and a time column each (moved with the game's end)."""


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The median CPU time of this process over ``repeat`` runs, and the last run's result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


# ---- the engine alone -----------------------------------------------------------------------------------


def engine(people: int, games: int) -> list[tuple[str, str]]:
    from dippouch.ranking.ratings import PlayerResult, RatedGame, compute_ratings

    rng = random.Random(1901)
    rated = []
    for n in range(games):
        seats = rng.sample(range(people), 7)
        scores = [rng.choice((0.0, 0.0, 1.0, 2.0, 4.0, 9.0, 16.0)) for _ in seats]
        if not any(scores):
            scores[0] = 1.0
        rated.append(
            RatedGame(
                name=f"g{n}",
                ended_at=START + timedelta(hours=n),
                players=tuple(
                    PlayerResult(str(p), f"P{i}", s, civil_disorder=rng.random() < 0.03)
                    for i, (p, s) in enumerate(zip(seats, scores, strict=True))
                ),
                group=VARIANTS[n % len(VARIANTS)],
            )
        )
    took, ratings = timed(lambda: compute_ratings(rated))
    tracemalloc.start()  # a second run for the memory alone: tracing slows Python many times over
    compute_ratings(rated)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    board, _ = timed(lambda: [ratings.leaderboard(g) for g in (None, *VARIANTS)])
    return [
        (
            f"engine: Ghost Ratings over {games:,} games of {people:,} people (overall and six variant pools), "
            "from scratch",
            f"{took:.2f} s CPU (median of 3; {peak / 2**20:.0f} MiB at peak)",
        ),
        ("engine: the seven leaderboards sorted", f"{board * 1000:.0f} ms"),
    ]


# ---- seeding --------------------------------------------------------------------------------------------


def play(store: Any, name: str, kind: str, people: list[int], at: datetime) -> None:
    """``name`` of ``kind`` played to its end through the store, ending at ``at``."""
    from dippouch.bots.seats import seat_bot
    from dippouch.game import GameSettings
    from dippouch.play.records import choose_scoring
    from dippouch.store.people.persons import seat_person

    solo = kind in ("solo", "solo-bot", "practice")
    settings = GameSettings(practice="bench") if kind == "practice" else None
    # A drawn game is voted within its first phase's time: a draw vote is a ballot on the table's draw proposal,
    # which lapses at the phase's deadline.
    begun = at - (timedelta(days=30) if solo else timedelta(hours=1))
    store_games.create_game(
        store, name, "standard", now=begun, position=solo_board() if solo else None, settings=settings
    )
    humans = POWERS if kind != "solo-bot" else tuple(p for p in POWERS if p != "Italy")
    for power, person in zip(humans, people, strict=False):
        store_games.assign(store, name, power, f"{name} {power}", now=begun)
        seat_person(store, name, power, person, now=begun)
    if kind in ("solo-bot", "practice"):
        seat_bot(store, name, "Italy", "hold", now=begun)
    if solo:
        store_processing.process(store, name, now=at, force=True)
    else:
        if kind == "draw-sos":
            choose_scoring(store, name, "sos", now=begun)
        for power in POWERS:
            store_votes.vote(store, name, power, True, now=at)


@contextmanager
def database(kind: str, admin_url: str | None) -> Iterator[str]:
    """A fresh database of ``kind``, dropped afterwards."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="bench-ratings-") as d:
            yield f"sqlite:///{Path(d) / 'r.db'}"
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


def seed(store: Any, people: int, games: int, rng: random.Random) -> tuple[list[int], dict[str, float]]:
    """``people`` people and ``games`` finished games (the module's note); the people's ids and the seconds
    each part took."""
    took: dict[str, float] = {}
    engine_ = store.engine
    md = sa.MetaData()
    tables = {t: sa.Table(t, md, autoload_with=engine_) for t in ("games", "people", *CHILDREN)}
    t0 = time.perf_counter()
    with engine_.begin() as conn:
        ids = list(
            conn.scalars(
                sa.insert(tables["people"]).returning(tables["people"].c.id, sort_by_parameter_order=True),
                [
                    {"name": f"Person {i}", "email": None, "created_at": START, "deleted_at": None}
                    for i in range(people)
                ],
            )
        )
    took["people"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    templates: dict[str, dict[str, Any]] = {}
    for kind, _ in KINDS:
        name = f"template-{kind}"
        play(store, name, kind, rng.sample(ids, 7), START)
        templates[kind] = _rows(engine_, tables, name)
    took["templates"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    weights = [w for _, w in KINDS]
    kinds = [k for k, _ in KINDS]
    done = 0
    while done < games - len(templates):
        batch = min(2000, games - len(templates) - done)
        clones = []
        for n in range(done, done + batch):
            kind = rng.choices(kinds, weights)[0]
            end = START + timedelta(seconds=rng.randrange(int(SPAN.total_seconds())))
            clones.append((f"g{n:06d}", VARIANTS[n % len(VARIANTS)], templates[kind], end, rng.sample(ids, 7)))
        _copy(engine_, tables, clones)
        done += batch
    took["copies"] = time.perf_counter() - t0
    if engine_.dialect.name == "postgresql":
        with engine_.begin() as conn:
            conn.execute(sa.text("ANALYZE"))  # as autovacuum would have in a database that has been running
    return ids, took


def _rows(engine_: sa.Engine, tables: dict[str, sa.Table], name: str) -> dict[str, Any]:
    with engine_.connect() as conn:
        g = dict(conn.execute(sa.select(tables["games"]).where(tables["games"].c.name == name)).mappings().one())
        out: dict[str, Any] = {"games": g}
        for t in CHILDREN:
            table = tables[t]
            out[t] = [
                dict(r)
                for r in conn.execute(
                    sa.select(table).where(table.c.game_id == g["id"]).order_by(table.c.id)
                ).mappings()
            ]
        ended = max(p["processed_at"] for p in out["phases"] if p["processed_at"] is not None)
        out["ended"] = ended if ended.tzinfo else ended.replace(tzinfo=UTC)
    return out


def _moved(value: Any, by: timedelta) -> Any:
    return value + by if isinstance(value, datetime) else value


def _copy(
    engine_: sa.Engine, tables: dict[str, sa.Table], clones: list[tuple[str, str, dict[str, Any], datetime, list[int]]]
) -> None:
    games = tables["games"]
    with engine_.begin() as conn:
        rows = []
        for name, variant, t, end, _ in clones:
            by = end - t["ended"]
            g = {k: _moved(v, by) for k, v in t["games"].items() if k != "id"}
            rows.append({**g, "name": name, "variant": variant})
        gids = list(conn.scalars(sa.insert(games).returning(games.c.id, sort_by_parameter_order=True), rows))
        for table_name in CHILDREN:
            table = tables[table_name]
            children = []
            for gid, (_, _, t, end, people) in zip(gids, clones, strict=True):
                by = end - t["ended"]
                seats = iter(people)
                for r in t[table_name]:
                    row = {k: _moved(v, by) for k, v in r.items() if k != "id"}
                    row["game_id"] = gid
                    if table_name == "players" and row.get("person_id") is not None:
                        row["person_id"] = next(seats)
                    children.append(row)
            for i in range(0, len(children), 20_000):
                conn.execute(sa.insert(table), children[i : i + 20_000])


# ---- the stored ratings ---------------------------------------------------------------------------------


def stored(url: str, kind: str, people: int, games: int, requests: int, more: int) -> list[tuple[str, str]]:
    from dippouch.play.ratings import board, update_ratings
    from dippouch.play.ratings_check import check_ratings
    from dippouch.store import GameStore

    rows: list[tuple[str, str]] = []
    rng = random.Random(1914)
    store = GameStore(url)
    if kind == "sqlite":  # WAL, as `dippouch serve` sets: readers do not wait for the writer
        raw = store.engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode=WAL")
        finally:
            raw.close()
    ids, took = seed(store, people, games, rng)
    rows.append(
        (
            f"{kind}: seeding {people:,} people and {games:,} finished games",
            f"{took['people']:.1f} s people, {took['templates']:.1f} s the five games through the store, "
            f"{took['copies']:.0f} s the copies",
        )
    )

    t0, c0 = time.perf_counter(), time.process_time()
    first = update_ratings(store)
    rows.append(
        (
            f"{kind}: first update (every game read, scored and taken in)",
            f"{time.perf_counter() - t0:.0f} s ({(time.process_time() - c0) / games * 1000:.2f} ms CPU a game; "
            f"{first.entered:,} games)",
        )
    )
    nothing = _median(lambda: update_ratings(store), 5)
    deep = _median(lambda: update_ratings(store, deep=True), 3)
    rows.append(
        (
            f"{kind}: an update with nothing new (every worker look)",
            f"{nothing * 1000:.0f} ms; deep {deep * 1000:.0f} ms",
        )
    )

    # One more game finished after every other, taken in: the standings continue.
    late = START + SPAN
    times = []
    for i in range(more):
        late += timedelta(hours=1)
        play(store, f"more{i:03d}", "draw-sos", rng.sample(ids, 7), late)
        t0 = time.perf_counter()
        done = update_ratings(store)
        times.append(time.perf_counter() - t0)
        assert done.entered == 1 and not done.replayed, done
    rows.append(
        (
            f"{kind}: one more finished game taken in (continued)",
            f"{statistics.median(times) * 1000:.0f} ms (median of {more})",
        )
    )
    t0 = time.perf_counter()
    play(store, "earlier", "solo", rng.sample(ids, 7), START + SPAN / 2)
    done = update_ratings(store)
    assert done.replayed, done
    rows.append(
        (f"{kind}: a game ending before the last rated one (replayed from the ledger)", f"{done.seconds:.1f} s")
    )

    t0, c0 = time.perf_counter(), time.process_time()
    check = check_ratings(store)
    rows.append(
        (
            f"{kind}: recomputation from scratch and exact comparison (`dippouch ratings check`)",
            f"{time.perf_counter() - t0:.0f} s; {'equal' if check.equal else f'{len(check.differences)} DIFFERENCES'}"
            f" ({check.rated:,} rated games, {check.people:,} people)",
        )
    )
    assert check.equal, check.differences[:5]

    overall = board(store, limit=1)
    person = board(store, offset=overall.people // 2, limit=1).places[0].person_id
    deep_page = max(1, overall.people // 20 // 2)
    standard = board(store, "standard", limit=1).people
    pages = [
        ("/ratings", "the ratings page (overall, six variants, hall of fame)"),
        (f"/ratings?page={deep_page}", f"the overall leaderboard, page {deep_page}"),
        ("/ratings?variant=standard", "one variant's leaderboard and hall"),
        (f"/ratings?variant=standard&page={max(1, standard // 20 // 2)}", "one variant's leaderboard, a middle page"),
        ("/api/ratings", "GET /api/ratings"),
        (f"/people/{person}", "a rated person's page (rating, rank among the rest)"),
    ]
    spread = [f"/ratings?page={1 + i * (overall.people // 20) // requests}" for i in range(requests)]
    rows.extend(serve(url, kind, pages, requests, spread))
    store.close()
    return rows


def _median(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _figures(wall: list[float], cpu: list[float]) -> str:
    wall = sorted(wall)
    p50, p95 = statistics.median(wall), wall[min(len(wall) - 1, int(len(wall) * 0.95))]
    return f"p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {wall[-1]:.0f} ms; {statistics.mean(cpu):.0f} ms CPU"


def serve(url: str, kind: str, pages: list[tuple[str, str]], requests: int, spread: list[str]) -> list[tuple[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from dippouch.web.app import create_app

    rows = []
    app = create_app(url, limits={})
    with TestClient(app, base_url=app.state.site.public_url) as client:
        for path, what in pages:
            t0 = time.perf_counter()
            r = client.get(path)
            cold = time.perf_counter() - t0
            assert r.status_code == 200, (path, r.status_code, r.text[:300])
            wall, cpu = [], []
            for _ in range(requests):
                t0, c0 = time.perf_counter(), time.process_time()
                r = client.get(path)
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
                assert r.status_code == 200, (path, r.status_code)
            rows.append((f"{kind}: {what} `{path}`", f"{_figures(wall, cpu)}; first {cold * 1000:.0f} ms"))
        # Pages nobody asked for lately: each shows twenty people whose reliability is read afresh.
        wall, cpu = [], []
        for path in spread:
            t0, c0 = time.perf_counter(), time.process_time()
            r = client.get(path)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            assert r.status_code == 200, (path, r.status_code)
        rows.append(
            (f"{kind}: {len(set(spread))} pages of the overall leaderboard, each asked once", _figures(wall, cpu))
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--postgres", help="admin URL of a PostgreSQL server (default: $DIPPOUCH_TEST_POSTGRES_URL)")
    ap.add_argument("--requests", type=int, default=100, help="requests of each page, after one warm-up")
    ap.add_argument("--more", type=int, default=10, help="games finished one at a time after the seeding")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table for benchmarks/README.md")
    ap.add_argument("--quick", action="store_true", help="300 games of 60 people on SQLite, 3 requests a page")
    args = ap.parse_args(argv)
    if args.quick:
        args.people, args.games, args.requests, args.more = 60, 300, 3, 2
        if args.db == "both":
            args.db = "sqlite"
    admin = args.postgres or os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    kinds = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    if "postgres" in kinds and not admin:
        ap.error("PostgreSQL needs a server: --postgres URL or DIPPOUCH_TEST_POSTGRES_URL (source scripts/postgres)")
    print(f"load average before: {load()}", flush=True)
    rows = engine(args.people, args.games)
    for kind in kinds:
        with database(kind, admin) as url:
            rows.extend(stored(url, kind, args.people, args.games, args.requests, args.more))
        print(f"load average after {kind}: {load()}", flush=True)
    if args.markdown:
        print("| What | Figure |\n|---|---|")
        for what, figure in rows:
            print(f"| {what} | {figure} |")
    else:
        width = max(len(w) for w, _ in rows)
        for what, figure in rows:
            print(f"{what:<{width}}  {figure}")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
