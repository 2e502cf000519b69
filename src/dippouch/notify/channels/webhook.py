"""Chat webhook notifications (Discord, Slack, Matrix), one delivery per webhook the person keeps."""

from __future__ import annotations

from dippouch.notify.channels.people import PERSON_KINDS, tell
from dippouch.notify.registry import Event, Look, channel

name = "webhook"


@channel(name, PERSON_KINDS)
def handle(event: Event, look: Look) -> int:
    return tell(event, look, name)
