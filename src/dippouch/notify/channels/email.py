"""E-mail notifications: handed to the mail outbox when delivered (:mod:`dippouch.notify.transports`)."""

from __future__ import annotations

from dippouch.notify.channels.people import EMAIL_KINDS, tell
from dippouch.notify.registry import Event, Look, channel

name = "email"


@channel(name, EMAIL_KINDS)
def handle(event: Event, look: Look) -> int:
    return tell(event, look, name)
