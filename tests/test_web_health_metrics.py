"""The web app's /healthz and Prometheus /metrics (request latency by route), and DIPPOUCH_WORKERS in serve."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from dippouch.web.app import create_app


def _count(text: str, series: str) -> float:
    m = re.search(re.escape(series) + r" ([0-9.e+]+)", text)
    return float(m.group(1)) if m else 0.0


def test_healthz_and_request_latency_by_route(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'g.db'}"))
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


def test_healthz_says_unhealthy_when_the_database_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    app = create_app(f"sqlite:///{db}")
    client = TestClient(app)
    assert client.get("/healthz").status_code == 200
    app.state.web.store.engine.dispose()
    db.unlink()
    db.mkdir()  # a directory where the database was: every connection fails
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "unhealthy"
