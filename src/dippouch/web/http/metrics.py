"""The web app's own Prometheus metrics (deadline processing's are in :mod:`dippouch.worker.metrics`)."""

from __future__ import annotations

from prometheus_client import Histogram

__all__ = ["REQUEST_SECONDS"]

REQUEST_SECONDS = Histogram(
    "dippouch_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route pattern and status.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0),
)
