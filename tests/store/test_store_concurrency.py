"""Submissions for one power that arrive at the same moment: every one is recorded, as versions 1..N with
no gap, in the order they took the power's lock, and each is stamped with its arrival time under that lock,
so the version order and the time order agree (and "late" is judged by that time).

Real concurrency on both databases (``db_url``): threads calling the store, a second process holding the
power's lock, and a real HTTP server (uvicorn) answering many clients at once.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import submissions as store_submissions
from servesupport import TLS
from workersupport import WAIT, wait_until

ORDERS = "A par - bur\nA mar - spa\nF bre - mao"
LONG = GameSettings(deadlines={"movement": "7d", "retreats": "7d", "adjustments": "7d"})


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    store_games.create_game(s, "g", "standard", now=s.clock(), settings=LONG)
    yield s
    s.close()


def _versions(store: GameStore, power: str) -> list[dict[str, Any]]:
    rec = store_history.phase_record(store, "g", open_ok=True)
    return sorted((s for s in rec["submissions"] if s["power"] == power), key=lambda s: s["version"])


def _assert_gapless_and_in_time_order(subs: list[dict[str, Any]], n: int) -> None:
    assert [s["version"] for s in subs] == list(range(1, n + 1)), "versions must be 1..N with no gap"
    stamps = [datetime.fromisoformat(s["submitted_at"]) for s in subs]
    inversions = [
        (subs[i]["version"], subs[i + 1]["version"]) for i in range(len(subs) - 1) if stamps[i + 1] < stamps[i]
    ]
    assert not inversions, f"a later version stamped before an earlier one: {inversions[:5]}"


def test_simultaneous_submissions_for_one_power_are_all_recorded_in_order(store: GameStore) -> None:
    """16 threads send 12 versions each for France, all at once: 192 recorded, versions 1..192, times in order."""
    threads, each = 16, 12
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def send(i: int) -> list[int]:
        start.wait()
        got = []
        for j in range(each):
            try:
                got.append(store_submissions.submit(store, "g", "France", f"{ORDERS}\n# {i}.{j}", now=None).version)
            except BaseException as e:  # recorded: the test shows every failure, not only the first
                errors.append(e)
        return got

    with ThreadPoolExecutor(threads) as pool:
        answered = [v for got in pool.map(send, range(threads)) for v in got]
    assert not errors, f"{len(errors)} of {threads * each} submissions failed, e.g. {errors[0]!r}"
    assert sorted(answered) == list(range(1, threads * each + 1)), "each submitter is told its own version"
    _assert_gapless_and_in_time_order(_versions(store, "France"), threads * each)


MANY = """
import sys
from dippouch.store import GameStore
from dippouch.store import submissions as store_submissions
store = GameStore(sys.argv[1])
for j in range(int(sys.argv[2])):
    print(store_submissions.submit(store, "g", "France", f"A par - bur\\n# {sys.argv[3]}.{j}", now=None).version, flush=True)
"""


def test_processes_submitting_for_one_power_at_once_get_versions_1_to_n(db_url: str, store: GameStore) -> None:
    """Four processes (four web servers, a mail fetch, a command) send 15 versions each for France at once."""
    procs, each = 4, 15
    running = [
        subprocess.Popen(
            [sys.executable, "-c", MANY, db_url, str(each), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(procs)
    ]
    got: list[int] = []
    for p in running:
        out, err = p.communicate(timeout=WAIT)
        assert p.returncode == 0, err[-2000:]
        got += [int(x) for x in out.split()]
    assert sorted(got) == list(range(1, procs * each + 1))
    _assert_gapless_and_in_time_order(_versions(store, "France"), procs * each)


HOLD = """
import sys
from dippouch.store import GameStore
from dippouch.store import submissions as store_submissions
store = GameStore(sys.argv[1])
r = store_submissions.submit(store, "g", "France", "A par - bur", now=None)
print(r.version, flush=True)
"""


def test_a_submission_is_stamped_after_it_waits_for_the_powers_lock(db_url: str, tmp_path: Path) -> None:
    """France's first version is being written (another process holds the lock, paused) when a second comes
    through the web app: the second waits, is version 2, and its arrival time is taken once it holds the
    lock, after the first's, never while it was queueing (which made v2 older than v1)."""
    from dippouch.web.app import create_app
    from dippouch.web.http.deps import OrderingSeat
    from dippouch.web.views.player_page import submit

    store = GameStore(db_url)
    store_games.create_game(store, "g", "standard", now=store.clock(), settings=LONG)
    app = create_app(store=store)  # no clock handed in: the real one, as a server has
    web = app.state.web
    _, key = web.access.create_key("player", game="g", power="France", label="P", now=datetime.now(UTC))
    grant = web.access.find_key(key)
    assert grant is not None
    seat = OrderingSeat("g", "France", web.variant_of("g"), stand_in=False)
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {**os.environ, "DIPPOUCH_PAUSE_AT": "submit:locked", "DIPPOUCH_PAUSE_DIR": str(flags)}
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD, db_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    wait_until("the first submission to hold the power's lock", (flags / "submit-locked.reached").exists)
    out: dict[str, Any] = {}

    def second() -> None:
        try:
            out["res"] = submit(web, seat, ORDERS, False)
        except BaseException as e:
            out["error"] = e

    t = threading.Thread(target=second, daemon=True)
    t.start()
    time.sleep(0.6)
    released = datetime.now(UTC)
    (flags / "submit-locked.go").touch()
    o, e = first.communicate(timeout=WAIT)
    assert first.returncode == 0, e
    t.join(WAIT)
    assert "error" not in out, out.get("error")
    assert o.strip() == "1" and out["res"].version == 2
    subs = _versions(store, "France")
    _assert_gapless_and_in_time_order(subs, 2)
    second_at = datetime.fromisoformat(subs[1]["submitted_at"])
    assert second_at >= released - timedelta(milliseconds=5), (
        f"version 2 was stamped at {second_at}, before the lock it waited for was let go ({released})"
    )
    store.close()


# --------------------------------------------------------------------------------------------------
# Over HTTP: a real server, many clients at once


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(db_url: str) -> Iterator[tuple[str, GameStore]]:
    import uvicorn

    from dippouch.web.app import create_app

    store = GameStore(db_url)
    store_games.create_game(store, "g", "standard", now=store.clock(), settings=LONG)
    app = create_app(store=store, limits={})
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", backlog=512))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    wait_until("the server to start", lambda: srv.started)
    try:
        yield f"http://127.0.0.1:{port}", store
    finally:
        srv.should_exit = True
        t.join(WAIT)
        store.close()


@pytest.mark.slow
def test_simultaneous_submissions_over_the_api_are_all_accepted_in_order(server: tuple[str, GameStore]) -> None:
    """100 pairs of requests for one power, each pair sent at the same moment (a double-click on Send, two
    tabs), 200 requests in all with 8 pairs in flight: every one answered 200, versions 1..200 in order."""
    base, store = server
    web_key = _player_key(store, base)
    pairs, in_flight = 100, 8
    outcomes: Counter[str] = Counter()
    versions: list[int] = []
    lock = threading.Lock()

    def pair(i: int) -> None:
        gate = threading.Barrier(2)

        def one(j: int) -> None:
            with httpx.Client(base_url=base, timeout=WAIT, verify=TLS) as c:
                gate.wait()
                try:
                    r = c.post(
                        "/api/games/g/powers/France/orders",
                        json={"text": f"{ORDERS}\n# {i}.{j}"},
                        headers={"Authorization": f"Bearer {web_key}"},
                    )
                    what = str(r.status_code)
                    if r.status_code == 200:
                        with lock:
                            versions.append(r.json()["version"])
                except httpx.TransportError as e:
                    what = type(e).__name__
            with lock:
                outcomes[what] += 1

        both = [threading.Thread(target=one, args=(j,)) for j in range(2)]
        for t in both:
            t.start()
        for t in both:
            t.join(WAIT)

    with ThreadPoolExecutor(in_flight) as pool:
        list(pool.map(pair, range(pairs)))
    assert outcomes == Counter({"200": 2 * pairs}), f"answers: {dict(outcomes)}"
    assert sorted(versions) == list(range(1, 2 * pairs + 1))
    _assert_gapless_and_in_time_order(_versions(store, "France"), 2 * pairs)


def _player_key(store: GameStore, base: str) -> str:
    from dippouch.store.access import AccessStore

    store_games.assign(store, "g", "France", "Bruno", now=store.clock())
    _, key = AccessStore(store).create_key("player", game="g", power="France", label="Bruno", now=store.clock())
    return key
