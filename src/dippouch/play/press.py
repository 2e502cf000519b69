"""Sending press: one message from a power to the powers it names (``all`` for every one) or into a channel it is
in (a reply), under the game's press rules, whichever door it came through (the player's page, the JSON API, a
reply by mail). The rules' one decision is :func:`dippouch.press.rules.refusal`, asked by the store in the
transaction that stores the message; this is where the doors' requests become that call and its answer one
typed result, said in the same words at every door.

A message that reaches a bot's seat is answered by the bot, in the same channel and through this same use case
(as the bot's power, so the press rules decide its reply as anyone's and the coordinator sees it like anyone's
press): :func:`dippouch.bots.seats.answer_press`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import dippouch.store.press.messages as store_press
from dippouch.core.messages import Msg, msg
from dippouch.press.rules import COORDINATOR, PressRules
from dippouch.store.db import Database

if TYPE_CHECKING:
    from dippouch.store.mail.inbox import Finish

I18N_DOMAIN = "rules"
"""The catalogue of what this module tells a sender."""

__all__ = [
    "MessageSent",
    "PressRefused",
    "announce",
    "mark_read",
    "report_message",
    "send_press",
    "set_press_rules",
    "set_sender_block",
]

PressRefused = store_press.PressRefused
"""A message the rules refuse (nothing stored): ``refusal.rule`` names the rule, the message says it."""

log = logging.getLogger("dippouch.press")

EVERY_POWER = "all"
"""The word a door may name instead of powers: every other power of the game (public press)."""


@dataclass(frozen=True)
class MessageSent:
    """What became of a message the rules let through."""

    game: str
    power: str
    id: int
    channel: int
    kind: str
    """``private``, ``group`` or ``public``."""
    held: bool
    """Postal press: kept until the phase's results, then delivered."""
    mailed: int
    """Copies queued for recipients who take press by e-mail."""

    @property
    def said(self) -> Msg:
        """What every door tells the sender, in the sender's language."""
        return msg("Held until the phase's results (postal press).") if self.held else msg("Sent.")


def send_press(
    db: Database,
    game: str,
    power: str,
    text: str,
    *,
    to: Sequence[str] = (),
    channel: int | None = None,
    now: datetime,
    via: str,
    then: Callable[[store_press.Sent], Sequence[Finish]] | None = None,
) -> MessageSent:
    """Send ``text`` from ``power`` to the powers ``to`` names (power names as typed; ``all`` for every other
    power), or into ``channel`` (a reply to its members); refused with :class:`PressRefused`, nothing stored,
    when the game's press rules say no. ``via``: the door (``web``, ``api``, ``mail``), kept with the message;
    ``then``: the record of the mail it came in, made in the message's own transaction (:func:`store_press.send`)."""
    named = [t.strip() for t in to if t.strip()]
    if any(t.lower() == EVERY_POWER for t in named):
        named = [p for p in store_press.power_names(db, game) if p != power]
    sent = store_press.send(db, game, power, named, text, now=now, via=via, in_channel=channel, then=then)
    if via != BOT_VIA:
        _bots_answer(db, game, power, text, sent.channel_id, now)
    return _told(game, power, sent)


def mark_read(db: Database, game: str, power: str, channel: int, up_to: int | None = None) -> int:
    """``power`` has read ``channel`` up to message ``up_to`` (all of it by default): the id it is read to."""
    return store_press.mark_read(db, game, channel, power, up_to)


def set_sender_block(db: Database, game: str, power: str, other: str, choice: str, *, now: datetime) -> None:
    """``power`` mutes (hides ``other``'s messages), blocks (hides them and takes no private message from them)
    or lets ``other`` through again: ``choice`` as a person types or picks it (``none`` or nothing lets through),
    read alike at every door."""
    chosen = choice.strip().lower()
    store_press.set_block(db, game, power, other, None if chosen in ("", "none") else chosen, now=now)


def report_message(db: Database, game: str, power: str, message_id: int, reason: str, *, now: datetime) -> int:
    """``power`` shows a message it may read to the coordinator, with why: the report's id."""
    return store_press.report(db, game, power, message_id, reason, now=now)


def set_press_rules(db: Database, game: str, rules: Mapping[str, Any], *, now: datetime) -> PressRules:
    """The coordinator declares the game's press rules (settings left out stay as they are), logged."""
    return store_press.set_press_rules(db, game, rules, now=now)


def announce(db: Database, game: str, text: str, *, now: datetime, via: str = "web") -> MessageSent:
    """The coordinator's announcement to every power, shown whatever the press rules."""
    return _told(game, COORDINATOR, store_press.announce(db, game, text, now=now, via=via))


def _told(game: str, power: str, sent: store_press.Sent) -> MessageSent:
    """What became of a stored message, as every door is told it (a power's or the coordinator's)."""
    return MessageSent(
        game=game,
        power=power,
        id=sent.id,
        channel=sent.channel_id,
        kind=sent.kind,
        held=sent.held,
        mailed=sent.mailed,
    )


BOT_VIA = "bot"
"""The door a bot's reply comes through: a bot never answers a bot (no two bots talk on without a person)."""


def _bots_answer(db: Database, game: str, power: str, text: str, channel: int, now: datetime) -> None:
    """The bots in the channel answer the message; a bot's trouble never undoes or refuses the person's own
    message (it was sent: the bot is logged and stays silent)."""
    from dippouch.bots.seats import answer_press

    def reply(bot: str, said: str) -> int | None:
        try:
            return send_press(db, game, bot, said, channel=channel, now=now, via=BOT_VIA).id
        except PressRefused as e:
            log.info("%s: %s's bot says nothing (%s)", game, bot, e.refusal.rule)
            return None

    try:
        answer_press(db, game, power, text, channel, now=now, send=reply)
    except Exception:
        log.exception("%s: the bots could not answer %s's message", game, power)
