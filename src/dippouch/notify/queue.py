"""Queuing notifications by each person's choices, and delivering the queue.

:func:`enqueue` is the one call for the rest of dippouch (the scan, the openings' seat offers, the press's
messages): it expands an event for a person into one delivery per channel they want (and per push
subscription or webhook they keep), each under a key unique to (person, event, channel, target), so an
event queued twice is queued once. :func:`deliver_due` sends what is due, each row claimed before it is
sent (see :mod:`dippouch.store.notify.stored` for the guarantees), and is what the worker and ``dippouch notify``
call.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from dippouch.core.messages import msg
from dippouch.game import GameError, as_utc
from dippouch.notify.events import CHANNELS, EVENTS, NoticePreferences, preferences
from dippouch.notify.texts import compose
from dippouch.notify.transports import Failure, MailSender, deliver, no_mail_sender
from dippouch.store.db import DatabaseError
from dippouch.store.notify import stored
from dippouch.store.notify.stored import Delivery
from dippouch.store.repository import GameStore

if TYPE_CHECKING:
    import httpx

I18N_DOMAIN = "rules"
"""The catalogue of the notifications' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = ["BACKOFF", "LEASE", "DrainReport", "deliver_due", "enqueue", "items_for"]

log = logging.getLogger("dippouch.notify")

BACKOFF = (30, 120, 600, 1800, 3600, 3600 * 3, 3600 * 6)
"""Seconds to wait after the 1st, 2nd, ... failed attempt (the last repeats): a chat service that is down
for a day gets a post every six hours, never none."""
LEASE = timedelta(minutes=2)
BATCH = 10
"""Deliveries claimed in one transaction. A delivery's receiver has 10 s (:data:`transports.TIMEOUT`), so a
batch of 10 is sent within 100 s, inside the lease; past half the lease the rest is given back."""
MAX_KEY = 200


@dataclass
class DrainReport:
    sent: list[int] = field(default_factory=list)
    retry: list[tuple[int, str]] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    more: bool = False
    """Stopped (``stop``) before the queue was worked through: the rest waits for the next drain."""


def backoff(attempts: int) -> timedelta:
    return timedelta(seconds=BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


def items_for(
    db: GameStore,
    person_id: int,
    event: str,
    *,
    key: str,
    facts: Mapping[str, Any],
    game_id: int | None = None,
    prefs: NoticePreferences | None = None,
    only: str | None = None,
    targets: Sequence[stored.Target] | None = None,
) -> list[dict[str, Any]]:
    """The deliveries ``event`` makes for the person by their choices (not queued yet); ``only``: those of one
    channel (each channel of the dispatcher queues its own); ``targets``: the person's, when the caller has
    read them already (the dispatcher reads a look's readers' at once)."""
    if event not in EVENTS:
        raise GameError(msg("no event %(event)s; events: %(events)s", event=repr(event), events=", ".join(EVENTS)))
    if not key or len(key) > MAX_KEY:
        raise GameError(msg("an event's key is 1 to %(most)d characters (got %(got)d)", most=MAX_KEY, got=len(key)))
    prefs = prefs or preferences(db, person_id)
    if only is not None and not prefs.wants(event, only):
        return []
    message = compose(event, facts)
    kept = [] if only == "email" else stored.targets(db, person_id) if targets is None else targets
    out: list[dict[str, Any]] = []
    for channel in CHANNELS:
        if (only is not None and channel != only) or not prefs.wants(event, channel):
            continue
        ids: list[int | None] = [None] if channel == "email" else [t.id for t in kept if t.channel == channel]
        for target_id in ids:
            out.append(
                {
                    "key": f"{event}:{key}:{person_id}:{channel}:{target_id or 0}",
                    "person_id": person_id,
                    "event": event,
                    "channel": channel,
                    "target_id": target_id,
                    "game_id": game_id,
                    "title": message.title,
                    # An e-mail ends by saying why it came and how to get fewer; a push or a chat post is short.
                    "body": message.body + (f"\n\n{message.why}" if channel == "email" and message.why else ""),
                    "url": message.url,
                }
            )
    return out


def enqueue(
    db: GameStore,
    person_id: int,
    event: str,
    *,
    key: str,
    now: datetime,
    facts: Mapping[str, Any] | None = None,
    game_id: int | None = None,
) -> int:
    """Queue ``event`` for the person, by their choices; returns how many deliveries are new.

    ``key`` names this occurrence of the event (``opening:12``, ``message:345``): queuing the same
    (person, event, key) again queues nothing, whoever calls. ``facts``: what the words say (game, power,
    phase, deadline, sender, excerpt, url; see :func:`dippouch.notify.texts.compose`). A person who deleted
    their data gets nothing."""
    if not stored.live_person(db, person_id):
        return 0
    items = items_for(db, person_id, event, key=key, facts=facts or {}, game_id=game_id)
    return stored.queue_deliveries(db, items, now=now)


def _deliver_one(
    db: GameStore,
    d: Delivery,
    now: datetime,
    worker: str,
    http: httpx.Client,
    report: DrainReport,
    sender: MailSender,
) -> None:
    try:
        deliver(db, d, now, http, sender)
    except Failure as e:
        if e.permanent:
            stored.finish_delivery(db, d.id, worker, status="failed", last_error=str(e))
            report.failed.append((d.id, str(e)))
            log.warning("notification #%d refused for good: %s", d.id, e)
        else:
            stored.finish_delivery(db, d.id, worker, next_attempt_at=now + backoff(d.attempts), last_error=str(e))
            report.retry.append((d.id, str(e)))
        return
    except Exception as e:  # a bug or a library's surprise: recorded and retried, never dropped
        if isinstance(e, DatabaseError):
            raise
        why = f"{type(e).__name__}: {e}"[:500]
        stored.finish_delivery(db, d.id, worker, next_attempt_at=now + backoff(d.attempts), last_error=why)
        report.retry.append((d.id, why))
        log.error("notification #%d failed: %s", d.id, why)
        return
    stored.finish_delivery(db, d.id, worker, status="sent", sent_at=now, last_error=None)
    report.sent.append(d.id)


def deliver_due(
    db: GameStore,
    now: datetime,
    *,
    limit: int = 500,
    worker: str | None = None,
    lease: timedelta = LEASE,
    client: httpx.Client | None = None,
    sender: MailSender = no_mail_sender,
    stop: Callable[[], bool] | None = None,
) -> DrainReport:
    """Deliver every notification due at ``now`` (at most ``limit``). Safe to run in several processes at
    once: each row is claimed before it is sent and sent once. ``sender``: where the installation's mail
    comes from (:data:`~dippouch.notify.transports.MailSender`), for e-mails handed to the outbox. ``stop``:
    asked before each batch is claimed but the first (a batch claimed is sent: an unsent claim would hold its
    rows back for the lease)."""
    now = as_utc(now)
    worker = worker or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    report = DrainReport()
    own = client is None
    http: httpx.Client | None = client  # made when a batch is claimed: most looks find nothing to send
    start = time.monotonic()
    try:
        while len(report.sent) + len(report.failed) + len(report.retry) < limit:
            if stop is not None and (report.sent or report.failed or report.retry) and stop():
                report.more = True
                break
            # Each claim's lease runs from the moment it is taken, not from the start of a long drain (whose
            # ``now`` would leave later claims already run out for the other workers).
            at = now + timedelta(seconds=time.monotonic() - start)
            batch = stored.claim_deliveries(
                db, at, worker, lease, min(BATCH, limit - len(report.sent) - len(report.failed) - len(report.retry))
            )
            if not batch:
                break
            if http is None:
                import httpx  # imported once there is something to send (its import, rich with it, is 50-80 ms)

                http = httpx.Client(trust_env=False)
            claimed = time.monotonic()
            for i, d in enumerate(batch):
                if time.monotonic() - claimed > lease.total_seconds() / 2:
                    # Slow receivers ate half the lease: give the rest back before another worker may take
                    # them (a claim that ran out could be sent twice).
                    stored.release_deliveries(db, [x.id for x in batch[i:]], worker)
                    break
                _deliver_one(db, d, now, worker, http, report, sender)
    finally:
        if own and http is not None:
            http.close()
    return report
