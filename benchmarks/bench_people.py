"""People: signing in by a mailed link and the "my games" page, with 10,000 people and 1,000 games on SQLite.

    .venv/bin/python benchmarks/bench_people.py [--games 1000] [--people 10000] [--rounds 300]

Builds a SQLite database of ``--games`` standard games (one made by the store, the rest copied row by row, so
every game is complete), ``--people`` people with e-mail addresses, and seats all seven powers of every game,
each seat to a person (a person plays up to several seats, the sampled ones five each). Then, in process
(the app through Starlette's test client: the server's own time, no network), it times ``--rounds`` of:

- ask: POST /signin/mail (a link made and its mail queued, one transaction);
- link use: POST /signin/link/TOKEN (the link checked and spent, a new session started);
- my games: GET /me of a person with five seats (seats, deadlines, whether each power's orders are in);
- my games JSON: GET /api/me.

It prints p50/p90/p99/max in milliseconds of wall time, and the mean CPU time of this process per request
(the app and the test client; on a machine shared with other work, wall time includes waiting for a core,
CPU time does not). Not a test: no time is asserted anywhere; figures go in the docs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from dippouch.store import games as store_games

POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
NOW = datetime(2026, 12, 1, 9, tzinfo=UTC)


def build(path: Path, games: int, people: int) -> tuple[str, list[int]]:
    """The database; returns its URL and the ids of people who play five seats each."""
    from dippouch.store import GameStore

    url = f"sqlite:///{path}"
    store = GameStore(url)
    store_games.create_game(store, "game-00000", "standard", now=NOW)
    for p in POWERS:
        store_games.assign(store, "game-00000", p, f"{p} player", now=NOW)
    with store.engine.begin() as conn:
        g = dict(conn.execute(sa.text("SELECT * FROM games WHERE name='game-00000'")).mappings().one())
        ph = dict(conn.execute(sa.text("SELECT * FROM phases WHERE game_id=:g"), {"g": g["id"]}).mappings().one())
        pl = [
            dict(r) for r in conn.execute(sa.text("SELECT * FROM players WHERE game_id=:g"), {"g": g["id"]}).mappings()
        ]
        gcols, phcols, plcols = list(g), [c for c in ph if c != "id"], [c for c in pl[0] if c != "id"]

        def insert(table: str, cols: list[str], rows: list[dict[str, Any]]) -> None:
            conn.execute(
                sa.text(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"), rows
            )

        insert("games", gcols, [{**g, "id": i + 1, "name": f"game-{i:05d}"} for i in range(1, games)])
        insert("phases", phcols, [{**ph, "game_id": i + 1} for i in range(1, games)])
        insert("players", plcols, [{**r, "game_id": i + 1} for i in range(1, games) for r in pl])
        insert(
            "people",
            ["id", "name", "email", "created_at", "deleted_at"],
            [
                {
                    "id": i + 1,
                    "name": f"Person {i}",
                    "email": f"p{i}@example.org",
                    "created_at": NOW,
                    "deleted_at": None,
                }
                for i in range(people)
            ],
        )
        # Seats: the first 200 people five each (the ones measured), the rest one each, round the people.
        seat_ids = [r[0] for r in conn.execute(sa.text("SELECT id FROM players ORDER BY id"))]
        owners: list[int] = []
        for i in range(200):
            owners += [i + 1] * 5
        n = 200
        while len(owners) < len(seat_ids):
            owners.append(n % people + 1)
            n += 1
        random.Random(1).shuffle(seat_ids)
        conn.execute(
            sa.text("UPDATE players SET person_id = :p WHERE id = :id"),
            [{"p": p, "id": s} for p, s in zip(owners, seat_ids, strict=False)],
        )
    store.close()
    return url, list(range(1, 201))


class Timed:
    """Wall and CPU milliseconds of each request of one kind."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> Timed:
        self.t, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall.append((time.perf_counter() - self.t) * 1000)
        self.cpu.append((time.process_time() - self.c) * 1000)


def stats(name: str, timed: Timed) -> None:
    ms = sorted(timed.wall)
    q = statistics.quantiles(ms, n=100)
    cpu = statistics.fmean(timed.cpu)
    print(
        f"{name:<16} n={len(ms):<5} p50={q[49]:7.2f} p90={q[89]:7.2f} p99={q[98]:7.2f} max={ms[-1]:7.2f} ms"
        f"  cpu mean={cpu:6.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--people", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from dippouch.store.people.accounts import create_signin_link
    from dippouch.web.app import create_app

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        url, measured = build(Path(tmp) / "people.db", args.games, args.people)
        print(f"built {args.games} games, {args.people} people in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        app = create_app(url, clock=lambda: NOW, limits={})
        web = app.state.web
        tokens: list[tuple[int, str]] = []

        def keep(pid: int) -> Any:
            def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
                tokens.append((pid, token))
                return "link", token

            return compose

        asks, uses, pages, apis = Timed(), Timed(), Timed(), Timed()
        with TestClient(app) as c:
            c.get("/signin")
            csrf = c.cookies.get("dp_csrf")
            for i in range(args.rounds):
                with asks:
                    r = c.post("/signin/mail", data={"csrf": csrf, "email": f"p{i * 7 % args.people}@example.org"})
                assert r.status_code == 200, r.text[:300]
            for i in range(args.rounds):
                pid = measured[i % len(measured)]
                create_signin_link(web.store, f"p{pid - 1}@example.org", now=NOW, compose=keep(pid))
        for _pid, token in tokens:
            with TestClient(app) as b:
                b.get("/signin")
                with uses:
                    r = b.post(f"/signin/link/{token}", data={"csrf": b.cookies.get("dp_csrf")}, follow_redirects=False)
                assert r.status_code == 303, r.text[:300]
                for _ in range(2):
                    with pages:
                        r = b.get("/me")
                    assert r.status_code == 200 and r.text.count("<tr data-game") == 5, r.text[:300]
                with apis:
                    r = b.get("/api/me")
                assert len(r.json()["seats"]) == 5
        stats("ask for a link", asks)
        stats("link use", uses)
        stats("my games page", pages)
        stats("my games JSON", apis)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
