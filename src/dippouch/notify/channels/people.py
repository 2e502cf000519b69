"""What the three notification channels share: an event told to each of its readers by their choices, queued
once per occurrence and channel.

Each channel records its own mark (``<occurrence>:<channel>``) with its deliveries; the mark the scan it
replaced recorded for all three channels at once (``<occurrence>``) is honoured too, so a database the scan
worked on gets nothing twice when the dispatcher takes over.
"""

from __future__ import annotations

from typing import Any

from dippouch.notify.queue import items_for
from dippouch.notify.registry import Event, Look, Reader
from dippouch.store import notify as stored
from dippouch.store import press

__all__ = ["PERSON_KINDS", "tell"]

PERSON_KINDS = frozenset(
    {"phase_processed", "game_starting", "seat_offered", "message_received", "deadline", "seat_lost"}
)
"""The events a person chooses to be told about (:data:`dippouch.notify.events.EVENTS`)."""


def _items(look: Look, event: Event, r: Reader, channel: str) -> list[dict[str, Any]]:
    if channel == "email" and event.kind == "message_received" and press.copied(look.store, int(r.key), r.power):
        return []  # the press's copy with its reply code is this message's e-mail: never two for one message
    return items_for(
        look.store,
        r.person_id,
        event.kind,
        key=r.key,
        facts=r.facts,
        game_id=event.game_id,
        prefs=r.prefs,
        only=channel,
    )


def tell(event: Event, look: Look, channel: str) -> int:
    """Queue ``event`` by ``channel`` for each of its readers who chose it; how many deliveries are new."""
    if event.row is not None and event.at < look.notify_since():
        return 0  # from before notifications started here, or too old to be news
    if event.mark is not None:
        if stored.marked_keys(look.store, [event.mark, f"{event.mark}:{channel}"]):
            return 0
        items = [i for r in event.readers for i in _items(look, event, r, channel)]
        return stored.queue_deliveries(
            look.store, items, now=look.now, mark=f"{event.mark}:{channel}", unless=[event.mark]
        )
    mine = [(r, r.mark) for r in event.readers if r.mark is not None]
    seen = stored.marked_keys(look.store, [k for _, m in mine for k in (m, f"{m}:{channel}")])
    count = 0
    for r, m in mine:
        if m in seen or f"{m}:{channel}" in seen:
            continue
        count += stored.queue_deliveries(
            look.store, _items(look, event, r, channel), now=look.now, mark=f"{m}:{channel}", unless=[m]
        )
    return count
