"""The web app's /healthz and Prometheus /metrics (request latency by route), and DIPPOUCH_WORKERS in serve."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import time
import urllib.request
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.web.app import create_app
from dippouch.worker.service import Worker
from websupport import TEST_SITE
from workersupport import dippouch_command, wait_until


def _count(text: str, series: str) -> float:
    m = re.search(re.escape(series) + r" ([0-9.e+]+)", text)
    return float(m.group(1)) if m else 0.0


def test_healthz_and_request_latency_by_route(tmp_path: Path) -> None:
    # Prometheus on this machine (the default for who may read /metrics)
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}", site=TEST_SITE), client=("127.0.0.1", 9090))
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "role": "web", "scheduler": False}
    before = client.get("/metrics").text
    page = 'dippouch_http_request_duration_seconds_count{method="GET",route="/variants",status="200"}'
    missing = 'dippouch_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'
    assert client.get("/variants").status_code == 200
    assert client.get("/no/such/page").status_code == 404
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert _count(r.text, page) == _count(before, page) + 1
    assert _count(r.text, missing) == _count(before, missing) + 1
    assert "/no/such/page" not in r.text  # addresses are not labels: one series per route


def test_metrics_are_no_page_for_clients_elsewhere_and_health_answers_any_host_name(tmp_path: Path) -> None:
    """/metrics (request counts by route and status) is for the operator's Prometheus: to a client from another
    network it is a missing page. Health checks and scrapes use internal names (127.0.0.1:8000, web:8000),
    which the site's host check would refuse: those two paths answer any name."""
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", site=TEST_SITE)
    outside = TestClient(app, client=("203.0.113.9", 5000))
    r = outside.get("/metrics")
    assert r.status_code == 404 and "dippouch_http" not in r.text
    assert TestClient(app, client=("testclient", 5000)).get("/metrics").status_code == 404  # not an address
    inside = TestClient(app, base_url="http://web:8000", client=("172.18.0.5", 5000))
    assert inside.get("/healthz").status_code == 200
    assert inside.get("/metrics").status_code == 404  # a private network is not this machine by default
    assert inside.get("/").status_code == 400  # and pages still need the site's own name
    local = TestClient(app, base_url="http://127.0.0.1:8000", client=("127.0.0.1", 5000))
    assert local.get("/metrics").status_code == 200


def test_healthz_says_unhealthy_when_the_database_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    app = create_app(f"sqlite:///{db}", site=TEST_SITE)
    client = TestClient(app)
    assert client.get("/healthz").status_code == 200
    app.state.web.store.engine.dispose()
    db.unlink()
    db.mkdir()  # a directory where the database was: every connection fails
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json() == {"status": "unhealthy", "role": "web", "error": "database unavailable"}
    assert "g.db" not in r.text and "unable to open" not in r.text  # the database's own words stay in the log


def _serve(db: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    """``dippouch serve`` on ``db`` with its scheduler looking every 0.2 s, once it answers /healthz."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen(
        [*dippouch_command(), "serve", "--db", db, "--port", str(port), "--interval", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **env},
    )
    wait_until("the server to answer", lambda: _health(port) is not None or proc.poll() is not None)
    assert proc.poll() is None, proc.communicate()[0]
    return proc, port


def _health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            return dict(json.loads(r.read()))
    except OSError:
        return None


def _due_game(db: str) -> GameStore:
    store = GameStore(db)
    settings = GameSettings(deadlines={"movement": "1h", "retreats": "1h", "adjustments": "1h"})
    store_games.create_game(store, "g", "standard", now=store.clock() - timedelta(hours=2), settings=settings)
    return store


def _processed(store: GameStore) -> list[str]:
    return [r.name for r in store_history.history(store, "g") if r.status == "processed"]


def test_serve_processes_deadlines_itself_on_the_single_machine_default(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    store = _due_game(db)
    proc, port = _serve(db, {"DIPPOUCH_WORKERS": ""})
    try:
        assert _health(port) == {"status": "ok", "role": "web", "scheduler": True}
        wait_until("the in-process scheduler to process the due phase", lambda: _processed(store) != [])
        assert _processed(store) == ["Spring 1901 Movement"]
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert "DIPPOUCH_WORKERS is set" not in out


def test_serve_leaves_deadlines_to_workers_when_they_are_configured(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'g.db'}"
    store = _due_game(db)
    proc, port = _serve(db, {"DIPPOUCH_WORKERS": "1"})
    try:
        assert _health(port) == {"status": "ok", "role": "web", "scheduler": False}
        time.sleep(2)  # ten of the scheduler's intervals, had it been running
        assert _processed(store) == []
    finally:
        proc.terminate()
        out = proc.communicate(timeout=60)[0]
    assert "DIPPOUCH_WORKERS is set: phases are processed by `dippouch worker`, not by this server" in out
    # The worker's job, and it does it: one look of the worker's own loop (the `dippouch worker` process around
    # it is tested in tests/worker; here a process of its own only repeated the imports).
    assert Worker(store, interval=0.2).run(once=True) == 1
    assert _processed(store) == ["Spring 1901 Movement"]
