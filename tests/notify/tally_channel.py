"""A channel written as a new one would be: this one module and its one registration (the decorator below).
It keeps what it is handed, so tests/notify/test_dispatch.py can see that every event reaches it."""

from __future__ import annotations

from dippouch.notify.dispatch import Event, Look, channel

name = "tally"
received: list[Event] = []


@channel(name, {"phase_processed", "pause", "deadline"})
def handle(event: Event, look: Look) -> int:
    received.append(event)
    return 1
