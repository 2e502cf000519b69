"""Taking mail in, once for every way it arrives (``dippouch mail fetch``, the workers' fetch, a file piped to
``dippouch mail take-in``): the mail door reads a message and decides what becomes of it; these use cases write
what it decided.

Each message is written twice at most, and each write is one transaction: its claim (:func:`claim`: the same
message fetched twice, or by two processes, is taken in once) and what became of it with the replies it gets
(:func:`finish`). Orders and held mail are recorded by the use case that sends them
(:func:`dippouch.play.orders.send_orders`, :mod:`dippouch.play.held_mail`), the message's record made in the
orders' own transaction. What the mailbox was read up to (:func:`fetched`) and a player's token (:func:`token`)
are the intake's other writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from dippouch.core.messages import Msg
from dippouch.store.repository import GameStore

if TYPE_CHECKING:  # the mail tables: mapped only where mail is taken in (imported in the calls)
    from dippouch.store.inbox import Claim, Finish

__all__ = ["Arrival", "claim", "fetched", "finish", "finish_all", "token"]


@dataclass(frozen=True)
class Arrival:
    """A message as it came, read once by the door: what the mail log keeps of it before anything is decided."""

    raw: bytes
    message_id: str | None
    sender: str
    subject: str
    origin: str
    received_at: datetime
    fetched_at: datetime
    reading: Mapping[str, Any]
    attachments: Sequence[Any]
    """Each with ``filename``, ``content_type`` and ``data``: kept sealed with the message."""


def claim(store: GameStore, arrival: Arrival, *, is_copy: Callable[[bytes], bool]) -> Claim | Msg:
    """Claim ``arrival`` for intake, or say why it is a duplicate (``is_copy(raw)``: the door's word that a
    stored message with the same Message-ID and sender is this one, re-encoded by another server)."""
    from dippouch.store.inbox import store_message

    return store_message(
        store,
        raw=arrival.raw,
        message_id=arrival.message_id,
        sender=arrival.sender,
        subject=arrival.subject,
        origin=arrival.origin,
        received_at=arrival.received_at,
        fetched_at=arrival.fetched_at,
        reading=dict(arrival.reading),
        attachments=arrival.attachments,
        is_copy=is_copy,
    )


def finish(store: GameStore, done: Finish) -> int:
    """Record what became of a claimed message and queue its replies, in one transaction (a message is never
    recorded as answered without its answer); the number of replies queued. Raises
    :class:`dippouch.store.inbox.MessageTaken` when another process finished it meanwhile."""
    return finish_all(store, [done])


def finish_all(store: GameStore, done: Sequence[Finish]) -> int:
    """Several messages' records in one transaction (a held message applied, and the player's reply that
    confirmed it)."""
    from dippouch.store.inbox import record_messages

    return record_messages(store, done)


def fetched(store: GameStore, origin: str, validity: int, uid: int) -> None:
    """The mailbox ``origin`` has been read up to message ``uid`` (of its ``validity``): the next fetch starts
    after it. Written after the message was claimed, so a fetch killed between the two reads it again and the
    claim answers it as a duplicate."""
    from dippouch.store.inbox import record_fetched

    record_fetched(store, origin, validity, uid)


def token(store: GameStore, game_id: int, power: str, address: str, *, now: datetime) -> str:
    """The power's token for its registered address, made the first time a receipt or the coordinator's list
    teaches it (and anew for a new address: a new player does not inherit the last one's secret)."""
    from dippouch.store.mail_tokens import player_token

    return player_token(store, game_id, power, address, now=now)
