"""The web app's own Prometheus metrics (deadline processing's are in :mod:`dippouch.worker.metrics`)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

__all__ = ["REQUEST_SECONDS", "WORK_CHARGED"]

REQUEST_SECONDS = Histogram(
    "dippouch_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route pattern and status.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0),
)

WORK_CHARGED = Counter(
    "dippouch_work_charged_seconds",
    "CPU seconds charged to askers' work budgets, by what was charged: a request's flat handling cost, expensive "
    "work (its thread's and the work pool's CPU time) and metered work (a submission's checks).",
    ["kind"],
)
"""Set beside the server's CPU time, what the budget saw of it (benchmarks/bench_hostile.py prints both): work the
budget does not see is work nobody is charged for."""
