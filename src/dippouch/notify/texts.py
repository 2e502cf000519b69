"""What each notification says: a title, a body and the page it points to, from the event's facts.

Every channel gets the same words (a chat post joins title and body; push shows them as a notification).
Facts come from callers (the scan, the openings, the press), so every value is cut to a length here: a
message excerpt of a megabyte becomes a line, never a megabyte in every queue row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from dippouch.game import GameError

__all__ = ["MAX_BODY", "MAX_TITLE", "Message", "compose"]

MAX_TITLE = 200
MAX_BODY = 2000
_MAX_FACT = 500


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    url: str
    """A path on the web app (``/games/demo``) or a full address; the transports make it absolute."""


def cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split()) if "\n" not in str(text) else str(text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


_AT_THE_SEAT = frozenset({"phase_processed", "deadline", "game_starting"})
"""Events told to a seated player about their seat."""


def _fact(facts: Mapping[str, Any], name: str, default: str = "") -> str:
    return cut(str(facts.get(name, default) or default), _MAX_FACT)


def compose(event: str, facts: Mapping[str, Any]) -> Message:
    """The words for ``event``; facts used: game, phase, power, hours, deadline (text), sender, excerpt, url."""
    game = _fact(facts, "game")
    power = _fact(facts, "power")
    # What a player is told about their own seat opens their own page: the last turn and the orders are there.
    own = game and power and event in _AT_THE_SEAT
    default = f"/games/{quote(game, safe='')}/play/{quote(power, safe='')}" if own else f"/games/{quote(game)}"
    url = str(facts.get("url") or (default if game else "/"))
    if len(url) > 2000:
        raise GameError("the notification's link is longer than 2,000 characters")
    deadline = _fact(facts, "deadline")
    due = f" Orders are due by {deadline}." if deadline else ""
    if event == "phase_processed":
        title = f"{game}: {_fact(facts, 'phase')} processed"
        body = f"The results of {_fact(facts, 'phase')} in {game} are ready.{_next(facts)}"
    elif event == "deadline":
        title = f"{game}: orders for {power} missing"
        body = (
            f"{game}, {_fact(facts, 'phase')}: no orders for {power} yet, and the deadline is "
            f"{_fact(facts, 'left', 'near')} away.{due}"
        )
    elif event == "game_starting":
        title = f"{game} is starting"
        body = f"{game} has started: you play {power}. First phase: {_fact(facts, 'phase')}.{due}"
    elif event == "seat_offered":
        title = f"{game}: a seat is offered to you"
        body = f"{power} in {game} needs a player." + (f" {_fact(facts, 'note')}" if facts.get("note") else "")
        body += " Open the link to take the seat."
    elif event == "seat_lost":
        if facts.get("how") == "freed":
            title = f"{game}: your seat ({power}) is offered to others"
            body = (
                f"The coordinator of {game} offered your seat ({power}) to other players: it stays yours "
                "until one of them takes it."
            )
        elif facts.get("reason") == "resigned":
            title = f"{game}: {power} has a new player"
            body = f"{power} in {game}, which you left, is now played by someone else."
        else:
            title = f"{game}: {power} is no longer yours"
            body = f"{power} in {game} is now played by someone else: your seat was taken by a replacement."
        body += " Your other games are on your page."
    elif event == "message_received":
        sender = _fact(facts, "sender", "someone")
        title = f"{game}: a message from {sender}"
        body = f"{sender} wrote in {game}: {_fact(facts, 'excerpt')}".rstrip(": ")
    else:
        raise GameError(f"no event {event!r}")
    return Message(cut(title, MAX_TITLE), cut(body, MAX_BODY), url)


def _next(facts: Mapping[str, Any]) -> str:
    nxt, deadline = _fact(facts, "next"), _fact(facts, "deadline")
    if nxt and deadline:
        return f" Next: {nxt}, orders due by {deadline}."
    return f" Next: {nxt}." if nxt else ""
