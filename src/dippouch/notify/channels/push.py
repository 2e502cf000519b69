"""Browser push notifications (Web Push with VAPID), one delivery per subscription the person keeps."""

from __future__ import annotations

from dippouch.notify.channels.people import PERSON_KINDS, tell
from dippouch.notify.registry import Event, Look, channel

name = "push"


@channel(name, PERSON_KINDS)
def handle(event: Event, look: Look) -> int:
    return tell(event, look, name)
