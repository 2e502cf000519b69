"""Mail going out, once for every door that sends it: what is queued (a player's link, notices made once
whatever runs them), the sender's lease on a queued message and what became of it, a refused message queued
again, and the settings the mail channel runs by (a game's mail setup, the installation's SMTP server).

The mail door composes each message (its words, in its reader's language) and talks to the SMTP server; these
use cases write what it decided, each in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from dippouch.store.repository import GameStore

if TYPE_CHECKING:  # the mail tables: mapped only where mail is sent (imported in the calls)
    from dippouch.store.db import Database
    from dippouch.store.mail.outbox import Notice

__all__ = [
    "claim_next",
    "queue",
    "queue_once",
    "retry",
    "save_server",
    "secret",
    "sent",
    "set_up_game",
]


def queue(store: GameStore, **message: Any) -> bool:
    """Queue one message (:func:`dippouch.store.mail.outbox.queue_in` names its fields); ``False`` when one is
    queued under its key already (the same link is never sent twice)."""
    from dippouch.store.mail.outbox import queue_mail

    return queue_mail(store, **message)


def queue_once(store: GameStore, notices: Sequence[Notice], now: datetime) -> tuple[list[str], int]:
    """Record each notice under its key and queue its messages, in one transaction: one recorded before (by
    this or another process) queues nothing. The keys recorded now, and the messages queued."""
    from dippouch.store.mail.outbox import queue_notices_once

    return queue_notices_once(store, notices, now)


def claim_next(store: Database, now: datetime, worker: str, lease: timedelta) -> int | None:
    """The next message due, leased to ``worker`` for ``lease`` (another sender skips it meanwhile; one that
    died lets the lease run out and the message goes at the next send)."""
    from dippouch.store.mail.outbox import claim_outbox

    return claim_outbox(store, now, worker, lease)


def sent(store: Database, row_id: int, worker: str, **values: object) -> None:
    """What became of a leased message (sent, failed for good, or due again later): written only by the
    worker holding its lease."""
    from dippouch.store.mail.outbox import finish_outbox

    finish_outbox(store, row_id, worker, **values)


def retry(store: GameStore, row_id: int, now: datetime) -> None:
    """The coordinator's word: a refused (or waiting) message goes at the next send; a sent one never twice."""
    from dippouch.store.mail.outbox import retry_outbox

    retry_outbox(store, row_id, now)


def secret(store: Database, name: str) -> bytes:
    """The installation's secret ``name`` (an unsubscribe link's key), made on first use."""
    from dippouch.store.installation import installation_secret

    return installation_secret(store, name)


def save_server(store: Database, group: str, values: dict[str, str | None]) -> None:
    """Keep the installation's mail server settings of ``group`` (``smtp``, ``imap``) all at once."""
    from dippouch.store.installation import save_installation_values

    save_installation_values(store, group, values)


def set_up_game(
    store: GameStore, game: str, *, now: datetime, changes: dict[str, Any], check: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Create or change a game's mail settings under the game's lock (``check`` refuses settings that make
    no sense, before anything is written); the first call marks the moment mail starts."""
    from dippouch.store.mail.games import update_mail_config

    return update_mail_config(store, game, now, changes, check)
