"""Notifications where players are: one queue (:mod:`dippouch.store.notify.stored`) feeding e-mail (through the mail
outbox), browser push (Web Push with VAPID) and chat webhooks (Discord, Slack, Matrix), each person choosing
per event and per channel.

For other parts of dippouch, one call queues an event for a person, by their choices::

    from dippouch import notify
    notify.enqueue(store, person_id, "seat_offered", key=f"opening:{opening_id}", now=now,
                   facts={"game": "demo", "power": "France", "url": "/open/demo/claim/..."})

The worker (``dippouch worker``) runs the dispatcher (:mod:`dippouch.notify.dispatch`: the game's event log,
the scan for what it does not record yet and the reminder policy, handed to every registered channel) and
drains the queue every look; ``dippouch notify`` does it once.
"""

from __future__ import annotations

from dippouch.notify.events import CHANNELS, EVENTS
from dippouch.notify.queue import DrainReport, deliver_due, enqueue

__all__ = ["CHANNELS", "EVENTS", "DrainReport", "deliver_due", "enqueue"]
