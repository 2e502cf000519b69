"""What the notification channels alone are handed at a moment: the dispatcher (:mod:`dippouch.notify.dispatch`)
run with e-mail, push and webhooks only, its counts by event as the scan it replaced gave them (for callers
that want the notifications alone; the worker runs every channel at once).

A partial run leaves every channel's mark where it is: what it queued is kept under the channels' own marks
(``notify_marks``), so the worker's next full look queues none of it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dippouch.notify.dispatch import LOOK_BACK, Dispatched, dispatch, registered
from dippouch.store.repository import GameStore

__all__ = ["LOOK_BACK", "PERSON_CHANNELS", "ScanReport", "scan"]

PERSON_CHANNELS = ("email", "push", "webhook")


@dataclass
class ScanReport:
    """Deliveries queued, by event."""

    processed: int = 0
    deadline: int = 0
    starting: int = 0
    messages: int = 0
    offers: int = 0
    more: bool = False
    """The dispatch was stopped with events left (:attr:`Dispatched.more`)."""

    @property
    def queued(self) -> int:
        return self.processed + self.deadline + self.starting + self.messages + self.offers

    @classmethod
    def of(cls, done: Dispatched, channels: tuple[str, ...] = PERSON_CHANNELS) -> ScanReport:
        """The notification channels' share of a dispatch (the game mail's messages are the mail's)."""

        def n(kind: str) -> int:
            return sum(v for (ch, k), v in done.queued.items() if k == kind and ch in channels)

        return cls(
            n("phase_processed"),
            n("deadline"),
            n("game_starting"),
            n("message_received"),
            n("seat_offered"),
            more=done.more,
        )


def scan(store: GameStore, now: datetime, *, slow: bool = True) -> ScanReport:
    """Queue the notifications due at ``now`` (``slow=False``: only what the event log says, every look;
    games starting, press, seats offered and deadlines read every seated person's choices, so the worker
    looks for them less often: :class:`dippouch.notify.task.NotifyTask`)."""
    mine = [ch for ch in registered() if ch.name in PERSON_CHANNELS]
    return ScanReport.of(dispatch(store, now, slow=slow, only=mine))
