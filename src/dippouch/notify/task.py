"""The worker's task: scan for events, then deliver what is due. ``dippouch worker`` runs it every look,
before the mail task (so e-mail notifications handed to the outbox go out in the same look)."""

from __future__ import annotations

import logging
from datetime import datetime

from dippouch.notify.queue import DrainReport, deliver_due
from dippouch.notify.scan import ScanReport, scan
from dippouch.store.repository import GameStore

__all__ = ["notify_task", "run_once"]

log = logging.getLogger("dippouch.notify")


def run_once(store: GameStore, now: datetime, *, limit: int = 500) -> tuple[ScanReport, DrainReport]:
    found = scan(store, now)
    report = deliver_due(store, now, limit=limit)
    if found.queued or report.sent or report.failed or report.retry:
        log.info(
            "notifications: %d queued, %d delivered, %d to retry, %d refused",
            found.queued,
            len(report.sent),
            len(report.retry),
            len(report.failed),
        )
    return found, report


def notify_task(store: GameStore, now: datetime) -> None:
    run_once(store, now)
