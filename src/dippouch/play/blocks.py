"""Blocking a person, once for every door: a signed-in person blocks another (from their public profile or from
one of their messages) and unblocks them from their account page. A block holds in every game: no press passes
between the two either way (:mod:`dippouch.store.press.messages` leaves it out of both readers' threads and copies), and
neither joins a new game the other is in (:func:`check_join`, asked by every join in
:mod:`dippouch.play.openings`). The blocked person is never told: their messages are stored as if read, and a
refused join says only that the game cannot take them.
"""

from __future__ import annotations

from datetime import datetime

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError
from dippouch.people.blocks import join_refusal
from dippouch.store.db import Database
from dippouch.store.moderation import stored as store_moderation
from dippouch.store.moderation.stored import Blocked
from dippouch.store.people.persons import names_hidden
from dippouch.store.press.messages import readable, set_block

I18N_DOMAIN = "rules"
"""The catalogue of the refusals said here."""

__all__ = ["Blocked", "block", "block_sender", "blocked_people", "check_join", "join_warning", "unblock"]


def block(db: Database, person_id: int, other_id: int, *, now: datetime) -> None:
    """``person_id`` blocks ``other_id`` in every game (refused for oneself, or a person who is not there)."""
    store_moderation.block(db, person_id, other_id, now=now)


def unblock(db: Database, person_id: int, other_id: int) -> bool:
    """The block lifted; False if there was none."""
    return store_moderation.unblock(db, person_id, other_id)


def blocked_people(db: Database, person_id: int) -> list[Blocked]:
    return store_moderation.blocked_people(db, person_id)


def block_sender(db: Database, game: str, power: str, message_id: int, person_id: int, *, now: datetime) -> str:
    """``person_id``, playing ``power``, blocks the sender of a message they may read: the person behind it, in
    every game (``person``); or, while the game hides its players' names, the sending power in this game only
    (``power``: muted, as the press panel mutes), since a block of the person would name them on the blocker's
    account page. Refused for a message they may not read, or one no other person sent (the coordinator's,
    a bot's, their own)."""
    sender = store_moderation.sender_of(db, game, message_id) if readable(db, game, power, message_id) else None
    if sender is None or sender[1] is None or sender[1] == person_id:
        raise GameError(msg("this message's sender cannot be blocked: no other person of this site sent it"))
    if names_hidden(db, game):
        set_block(db, game, power, sender[0], "mute", now=now)
        return "power"
    block(db, person_id, sender[1], now=now)
    return "person"


def blocks(db: Database, person_id: int, other_id: int) -> bool:
    """Whether ``person_id`` blocks ``other_id`` (their own pages show it; never the blocked person's)."""
    return store_moderation.blocks_person(db, person_id, other_id)


def check_join(db: Database, game: str, person_id: int, *, despite_block: bool = False) -> None:
    """Refuse ``person_id``'s join into ``game`` (a sign-up, a quick play, a claim from the pool) when a block or
    a shared device stands in the way (:func:`dippouch.people.blocks.join_refusal`)."""
    why = join_refusal(store_moderation.join_check(db, game, person_id), despite_block=despite_block)
    if why == "same-device":
        raise GameError(
            msg("another account signed in on this device is in this game already: one person plays one seat in a game")
        )
    if why == "blocked":
        raise GameError(msg("this game cannot take your sign-up; choose another on Open games (/open)"))
    if why == "blocking":
        raise GameError(
            msg(
                "someone you block is in this game: no press would pass between you, and you would play the same "
                "board. Tick 'join anyway' to join all the same"
            )
        )


def _blocking() -> Msg:
    """The warning the opening page gives, in the words of the refusal above."""
    return msg(
        "someone you block is in this game: no press would pass between you, and you would play the same "
        "board. Tick 'join anyway' to join all the same"
    )


def join_warning(db: Database, game: str, person_id: int) -> Msg | None:
    """What the opening page warns ``person_id`` of before they join: someone they block is in the game (never
    said to the blocked person, whose join is refused in neutral words)."""
    return _blocking() if join_refusal(store_moderation.join_check(db, game, person_id)) == "blocking" else None
