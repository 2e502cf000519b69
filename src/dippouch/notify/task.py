"""The worker's task: hand what happened to every channel (:mod:`dippouch.notify.dispatch`), then deliver what
is due. ``dippouch worker`` runs it every look, before the mail task (so the game's mail and the e-mail
notifications handed to the outbox go out in the same look)."""

from __future__ import annotations

import logging
import time
from datetime import datetime

from dippouch.notify.dispatch import dispatch
from dippouch.notify.queue import DrainReport, deliver_due
from dippouch.notify.scan import ScanReport
from dippouch.notify.transports import MailSender, no_mail_sender
from dippouch.store.repository import GameStore

__all__ = ["NotifyTask", "notify_task", "run_once"]

log = logging.getLogger("dippouch.notify")


def run_once(
    store: GameStore, now: datetime, *, limit: int = 500, slow: bool = True, sender: MailSender = no_mail_sender
) -> tuple[ScanReport, DrainReport]:
    """Dispatch (``slow``: games starting, press, seats offered and deadlines too, not only the event log) to
    every registered channel, then deliver the notifications due (``sender``: where the installation's mail
    comes from, :data:`~dippouch.notify.transports.MailSender`). The counts are the notifications'; the game
    mail's messages wait in the mail outbox."""
    done = dispatch(store, now, slow=slow)
    found = ScanReport.of(done)
    report = deliver_due(store, now, limit=limit, sender=sender)
    if done.total or report.sent or report.failed or report.retry:
        log.info(
            "notifications: %d queued (%d game mail), %d delivered, %d to retry, %d refused",
            found.queued,
            done.total - found.queued,
            len(report.sent),
            len(report.retry),
            len(report.failed),
        )
    return found, report


def notify_task(store: GameStore, now: datetime) -> None:
    run_once(store, now)


class NotifyTask:
    """The worker's task: the event log, the deadline reminders and the queue every look (a few seconds); games
    starting and ending, press and seats offered at most every ``every`` seconds (by default the installation's
    ``DIPPOUCH_NOTIFY_SCAN_SECONDS``, a minute), since they read every seated person's choices and such news a
    minute late is still news."""

    def __init__(self, every: float | None = None, sender: MailSender = no_mail_sender) -> None:
        from dippouch.settings import current

        self.every = current().notify_scan_seconds if every is None else every
        self.sender = sender
        self.last: float | None = None
        self.__name__ = "notify_task"

    def __call__(self, store: GameStore, now: datetime) -> None:
        slow = self.last is None or time.monotonic() - self.last >= self.every
        run_once(store, now, slow=slow, sender=self.sender)
        if slow:
            self.last = time.monotonic()
