"""Held mail, once for every door: a message the intake held (from an address not registered for the power, or
a photograph waiting for the coordinator's review) is applied, dismissed, set aside or released from the review
page and from ``dippouch mail apply/dismiss/set-aside/release``, and applied by the player's own confirming reply.

Applying is sending orders: the held text goes through :func:`dippouch.play.orders.send_orders` (its size check,
the store's submission under the power's lock), as received when the mail arrived, with the held message's record
written in the submission's own transaction (``then``), so a message is applied once. Reading the mail (its
body, signature, sheet heading) is the mail intake's, which hands the text here
(:func:`dippouch.mail.intake.apply_held`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from dippouch.play.orders import Submitted, send_orders
from dippouch.store.repository import GameStore
from dippouch.store.submissions import SubmitResult

if TYPE_CHECKING:  # the mail tables: mapped only where mail is taken in or reviewed (imported in the calls)
    from dippouch.store.inbox import Finish
    from dippouch.store.review import ReviewState

__all__ = ["apply_orders", "dismiss", "keep_reading", "release", "set_aside"]


def apply_orders(
    store: GameStore,
    game: str,
    power: str,
    text: str,
    *,
    received: datetime,
    now: datetime,
    then: Callable[[SubmitResult], Sequence[Finish]],
) -> Submitted:
    """A held message's orders ``text`` sent for ``power`` as received at ``received`` (when the mail came),
    on the coordinator's or the player's word given at ``now``; ``then``: the held message's record."""
    return send_orders(store, game, power, text, source="mail", now=now, received=received, then=then)


def dismiss(store: GameStore, mail_id: int) -> None:
    """Set a held message aside for good: it stays in the record, dismissed."""
    from dippouch.store.inbox import dismiss_held

    dismiss_held(store, mail_id)


def release(store: GameStore, game: str, *, now: datetime) -> ReviewState:
    """The review is over: the phase is processed with what stands (refused before the deadline)."""
    from dippouch.store.review import release as release_review

    return release_review(store, game, now=now)


def set_aside(store: GameStore, attachment_id: int, *, now: datetime, why: str = "") -> tuple[str, str]:
    """A photograph with no orders in it no longer holds the phase; (game, power)."""
    from dippouch.store.review import set_aside as set_photo_aside

    return set_photo_aside(store, attachment_id, now=now, why=why)


def keep_reading(store: GameStore, attachment: int, text: str, *, now: datetime) -> None:
    """What the OCR engine read of a photograph waiting for review, kept so that it is read once however often
    the review shows it."""
    from dippouch.store.photos import record_reading

    record_reading(store, attachment, text, now=now)
