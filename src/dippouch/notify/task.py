"""The worker's task: hand what happened to every channel (:mod:`dippouch.notify.dispatch`), then deliver what
is due. ``dippouch worker`` runs it every look, before the mail task (so the game's mail and the e-mail
notifications handed to the outbox go out in the same look)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from dippouch.notify.dispatch import dispatch
from dippouch.notify.queue import DrainReport, deliver_due
from dippouch.notify.scan import ScanReport
from dippouch.notify.transports import MailSender, no_mail_sender
from dippouch.store import claims as store_claims
from dippouch.store.repository import GameStore

if TYPE_CHECKING:
    import httpx

__all__ = ["NotifyTask", "notify_task", "run_once"]

log = logging.getLogger("dippouch.notify")


def run_once(
    store: GameStore,
    now: datetime,
    *,
    limit: int = 500,
    slow: bool = True,
    sender: MailSender = no_mail_sender,
    stop: Callable[[], bool] | None = None,
    client: httpx.Client | None = None,
) -> tuple[ScanReport, DrainReport]:
    """Dispatch (``slow``: games starting, press, seats offered and deadlines too, not only the event log) to
    every registered channel, then deliver the notifications due (``sender``: where the installation's mail
    comes from, :data:`~dippouch.notify.transports.MailSender`). The counts are the notifications'; the game
    mail's messages wait in the mail outbox. ``stop``: asked between events and between deliveries; once it
    says yes the rest waits for the next call (:attr:`ScanReport.more`, :attr:`DrainReport.more`). ``client``:
    the HTTP client webhooks and push go through (:func:`~dippouch.notify.queue.deliver_due`'s)."""
    done = dispatch(store, now, slow=slow, stop=stop)
    found = ScanReport.of(done)
    report = deliver_due(store, now, limit=limit, sender=sender, stop=stop, client=client)
    if done.total or report.sent or report.failed or report.retry:
        log.info(
            "notifications: %d queued (%d game mail), %d delivered, %d to retry, %d refused%s",
            found.queued,
            done.total - found.queued,
            len(report.sent),
            len(report.retry),
            len(report.failed),
            "; more next look" if found.more or report.more else "",
        )
    return found, report


def notify_task(store: GameStore, now: datetime) -> None:
    run_once(store, now)


class NotifyTask:
    """The worker's task: the event log, the deadline reminders and the queue every look; games starting and
    ending, press and seats offered at most every ``every`` seconds (by default the installation's
    ``DIPPOUCH_NOTIFY_SCAN_SECONDS``, a minute), since they read every seated person's choices and such news a
    minute late is still news.

    Deadlines come first: while it runs no due phase is processed, so a call stops after ``budget`` seconds,
    or as soon as a phase has fallen due since it began (asked of the database every ``due_every`` seconds),
    and says so in :attr:`behind`; the worker then processes what is due and calls it again at once, and it
    goes on from where it stopped (the dispatcher's marks and records: nothing lost, nothing told twice, in
    order). A backlog of thousands of notifications is worked off in slices between the phases."""

    def __init__(
        self,
        every: float | None = None,
        sender: MailSender = no_mail_sender,
        *,
        budget: float = 1.0,
        due_every: float = 0.2,
    ) -> None:
        from dippouch.settings import current

        self.every = current().notify_scan_seconds if every is None else every
        self.sender = sender
        self.budget = budget
        self.due_every = due_every
        self.last: float | None = None
        self.behind = False
        """The last call stopped with work left (the worker looks again without waiting)."""
        self.client: httpx.Client | None = None
        """The HTTP client of every call's deliveries, made at the first: a client's TLS context alone cost 19 ms
        of CPU, which a client made per call paid at every look with something to send (and its connections
        were never reused)."""
        self.__name__ = "notify_task"

    def __call__(self, store: GameStore, now: datetime) -> None:
        slow = self.last is None or time.monotonic() - self.last >= self.every
        if self.client is None:
            import httpx  # at the first look: the processes that import this module and never look skip its 50-80 ms

            self.client = httpx.Client(trust_env=False)  # as deliver_due makes its own
        found, report = run_once(store, now, slow=slow, sender=self.sender, stop=self._stop(store), client=self.client)
        self.behind = found.more or report.more
        if slow and not found.more:
            self.last = time.monotonic()

    def _stop(self, store: GameStore) -> Callable[[], bool]:
        """When a call is to stop: its budget spent, or more phases due than when it began (those due at its
        start were left by the worker's look: a broken game's, or in another worker's hands)."""
        start = checked = time.monotonic()
        before = store_claims.due_count(store)

        def stop() -> bool:
            nonlocal checked
            at = time.monotonic()
            if at - start >= self.budget:
                return True
            if at - checked < self.due_every:
                return False
            checked = at
            return store_claims.due_count(store) > before

        return stop
