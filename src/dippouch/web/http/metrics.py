"""The web app's own Prometheus metrics (deadline processing's are in :mod:`dippouch.worker.metrics`)."""

from __future__ import annotations

import functools
from typing import Any

from prometheus_client import Counter, Histogram

__all__ = ["REQUEST_SECONDS", "SHARED_PAGES", "WORK_CHARGED", "request_seconds", "shared_pages"]

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

SHARED_PAGES = Counter(
    "dippouch_shared_pages_total",
    "Pages made once per game state and shared (dippouch.web.views.page_cache), by kind and where the answer's page "
    "came from: this process's memory (held: past the second a page is served unasked, told of no change since), "
    "kept by another process or a worker, or made here.",
    ["kind", "source"],
)
"""How often a reader pays for making a page: at a thousand games turning every 30 s nearly every request finds
its game changed, so the share made here says whether the workers' pages (``dippouch worker --pages``) reach the
readers first (benchmarks/bench_web_workers.py prints it)."""


# A series looked up once a process: prometheus_client takes a lock and builds its key at each lookup, a few
# microseconds of every request (the labels' values are the app's own: a route's pattern, a status, a kind).


@functools.cache
def request_seconds(method: str, route: str, status: int) -> Any:
    """:data:`REQUEST_SECONDS`' series of a method, route pattern and status."""
    return REQUEST_SECONDS.labels(method, route, str(status))


@functools.cache
def shared_pages(kind: str, source: str) -> Any:
    """:data:`SHARED_PAGES`' series of a kind and source."""
    return SHARED_PAGES.labels(kind, source)
