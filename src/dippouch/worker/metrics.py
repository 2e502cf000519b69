"""Prometheus metrics of deadline processing, shared by ``dippouch worker`` and the web app's scheduler.

Defined once per process in prometheus-client's default registry, so whichever process processes phases
(a worker, or ``dippouch serve`` with its in-process scheduler) exposes the same names at ``/metrics``.
Each process reports its own counts; Prometheus adds them up across processes and machines.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "MAIL_FAILED",
    "MAIL_QUEUED",
    "MAIL_RETRY",
    "MAIL_SENT",
    "PHASES_DUE",
    "PHASES_PROCESSED",
    "PHASE_LATENESS",
    "PHASE_SECONDS",
    "WORKER_ERRORS",
    "WORKER_LAST_LOOP",
]

PHASES_PROCESSED = Counter(
    "dippouch_phases_processed",
    "Phases adjudicated and committed by this process.",
    ["variant"],
)
PHASE_SECONDS = Histogram(
    "dippouch_phase_processing_seconds",
    "Wall time to process one phase: lock, adjudicate, write the next phase, commit.",
    ["variant"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
PHASE_LATENESS = Histogram(
    "dippouch_phase_lateness_seconds",
    "How long after its deadline (by the database's clock) a phase due by the clock was processed.",
    buckets=(0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0),
)
PHASES_DUE = Gauge(
    "dippouch_phases_due",
    "Queue depth: open phases past their deadline, not yet processed, at this process's last look.",
)
WORKER_ERRORS = Counter(
    "dippouch_worker_errors",
    "Phases or loops that failed with an error (logged); the phase stays open and is tried again.",
)
WORKER_LAST_LOOP = Gauge(
    "dippouch_worker_last_loop_timestamp_seconds",
    "Unix time at which this process last finished a look for due phases without an error.",
)
MAIL_SENT = Counter("dippouch_mail_sent", "Messages this process handed to the SMTP server, accepted.")
MAIL_FAILED = Counter("dippouch_mail_failed", "Messages refused for good by the SMTP server (not retried).")
MAIL_QUEUED = Gauge(
    "dippouch_mail_queued",
    "Mail queue depth: messages waiting to be sent (not yet accepted or refused for good), at the last look.",
)
MAIL_RETRY = Counter(
    "dippouch_mail_retry", "Send attempts that failed for now (server down, temporary refusal); retried later."
)
