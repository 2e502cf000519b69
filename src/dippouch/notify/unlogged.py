"""The scan for what the game's event log does not record yet: games starting, press a seated power may read,
seats offered to the replacement pool, games that ended. Each becomes an event for the dispatcher's channels, with its readers
and a mark per reader (the occurrence's name, the one the scan before the dispatcher used).

These scans go once the transactions that cause them write event rows (a game's first phase opened or its
held clock started: ``started``, :data:`dippouch.notify.dispatch.ROW_KINDS`; a message sent; a seat freed or
given up): the dispatcher then reads them from the log with the rest.

A game starting is one whose first phase opened (or whose held clock started) in the last two days and is
still open (its players have yet to order); a first phase found processed before a look saw it open has its
start told just before its results (:mod:`dippouch.notify.dispatch`).
"""

from __future__ import annotations

from collections.abc import Set
from datetime import timedelta
from urllib.parse import quote

from dippouch.notify.registry import LOOK_BACK, Event, Look, Reader, seated_readers, starting
from dippouch.store import openings
from dippouch.store.notify import stored
from dippouch.store.press import messages as press

__all__ = ["EXCERPT", "POOL_LOOK_BACK", "found"]

EXCERPT = 200
"""Characters of a message quoted in its notification."""

POOL_LOOK_BACK = timedelta(days=60)
"""A seat in the replacement pool is offered to people who signed up for an open game this recently."""


def found(look: Look, kinds: Set[str]) -> list[Event]:
    """The events of ``kinds`` this scan finds at the look's moment."""
    out: list[Event] = []
    if "game_starting" in kinds:
        out += _starting_games(look)
    if "message_received" in kinds:
        out += _messages(look)
    if "seat_offered" in kinds:
        out += _offers(look)
    if "game_ended" in kinds:
        out += _ended(look)
    return out


def _ended(look: Look) -> list[Event]:
    """A game finished (a solo, a draw or a concession, however it ended): told once to each person seated at
    the end. Its ``detail``: game, ending (its English, what a webhook's program reads), ending_msg (the same as a
    message's data, said in each reader's language), ended_at."""
    from dippouch.game.endings import Ending

    out = []
    for g in stored.ended_games(look.store, look.notify_since()):
        ending = Ending.from_data(g.ending) if g.ending.get("kind") else None
        facts = {
            "game": g.game,
            "ending": str(g.ending.get("text") or ""),
            "ending_msg": ending.message.to_data() if ending is not None else None,
            "ended_at": g.ended_at,
        }
        readers = seated_readers(look, g.game_id, str(g.game_id), facts, f"game_ended:{g.game_id}:{{person}}")
        out.append(Event("game_ended", g.ended_at, g.game_id, g.game, facts, tuple(readers)))
    return out


def _starting_games(look: Look) -> list[Event]:
    found = stored.starting_games(look.store, look.now - LOOK_BACK)
    # A thousand games may be starting at once (a tournament's round): their seats and settings in a few
    # queries for all of them, not a few each.
    look.prefetch_seated(ph.game_id for ph in found)
    look.prefetch_settings(ph.game for ph in found)
    return [
        starting(
            look, ph.game_id, ph.game, ph.phase, look.describe(ph.game, ph.deadline) if ph.deadline else "", look.now
        )
        for ph in found
    ]


def _messages(look: Look) -> list[Event]:
    """A message received: each seated person, for each message their power may read (the press rules,
    mutes and postal release decide, through :func:`dippouch.store.press.messages.messages_since`), not their own."""
    store = look.store
    out: list[Event] = []
    for game, game_id, first in press.games_with_press_since(store, look.notify_since()):
        readers: dict[int, list[Reader]] = {}
        facts_of: dict[int, dict[str, str]] = {}
        for pid, power in look.seated(game_id):
            for m in press.messages_since(store, game, power, first - 1):
                if m.mine:
                    continue
                facts = {
                    "game": game,
                    "power": power,
                    "sender": m.sender,
                    "excerpt": " ".join(m.text.split())[:EXCERPT],
                    "url": f"/games/{quote(game, safe='')}/play/{quote(power, safe='')}/press/{m.channel_id}",
                }
                facts_of[m.id] = facts
                mark = f"message_received:{m.id}:{pid}"
                readers.setdefault(m.id, []).append(Reader(pid, power, str(m.id), facts, mark=mark))
        for mid, rs in sorted(readers.items()):
            out.append(Event("message_received", look.now, game_id, game, facts_of[mid], tuple(rs)))
    return out


def _offers(look: Look) -> list[Event]:
    """A seat offered: each seat in the replacement pool, to the people who want to play
    (:func:`dippouch.store.openings.pool_people`), once per vacancy and person. A vacancy is the player's
    row given up (``offer.seat``): a seat claimed and abandoned again is offered again, to the same people."""
    store, now = look.store, look.now
    out: list[Event] = []
    for offer in openings.offered_seats(store):
        people = openings.pool_people(store, offer.game, since=now - POOL_LOOK_BACK, minimum=offer.min_reliability)
        key = f"{offer.game}:{offer.power}:{offer.reason}:{offer.seat}"
        facts = {
            "game": offer.game,
            "power": offer.power,
            "reason": offer.reason,
            "deadline": look.describe(offer.game, offer.deadline) if offer.deadline else "",
            "url": "/open",
        }
        readers = tuple(Reader(pid, offer.power, key, facts, mark=f"seat_offered:{key}:{pid}") for pid in people)
        out.append(Event("seat_offered", now, None, offer.game, facts, readers))
    return out
