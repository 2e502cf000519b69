"""Sending a power's orders: a new version recorded and checked line by line, and, when it says the power is
ready (the web's box, ``--ready``, or a line "Ready" in a mail or a letter), the game goes on at once if every
power is (:func:`dippouch.play.progress.go_on`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from dippouch.core.messages import Msg
from dippouch.game import SUBMISSION, OrderBounds, check_size, read_version_lines
from dippouch.play.progress import go_on
from dippouch.store import submissions as store_submissions
from dippouch.store.repository import GameStore
from dippouch.store.submissions import SubmitResult

if TYPE_CHECKING:
    from dippouch.store.mail.inbox import Finish  # the mail tables: mapped only where mail is taken in

__all__ = ["Submitted", "send_orders"]


@dataclass(frozen=True)
class Submitted:
    """What became of a submission: the store's receipt, and the phases processed because of it."""

    receipt: SubmitResult
    processed: list[str] = field(default_factory=list)
    votes: tuple[Msg, ...] = ()
    """What the submission's vote lines did (a mail's "Vote yes 3": :func:`dippouch.play.votes.from_lines`)."""

    @property
    def accepted(self) -> int:
        """Orders accepted: a line "no orders" is accepted as the player's word, but it is not an order."""
        return sum(1 for ln in self.receipt.lines if ln.accepted and ln.order is not None)

    @property
    def rejected(self) -> int:
        """Lines refused, each with its reason in the receipt's lines."""
        return sum(1 for ln in self.receipt.lines if not ln.accepted)


def send_orders(
    store: GameStore,
    game: str,
    power: str,
    text: str,
    *,
    source: str,
    now: datetime | None = None,
    ready: bool = False,
    phase: str | None = None,
    label: str | None = None,
    received: datetime | None = None,
    recorded_at: datetime | None = None,
    reinstates: int | None = None,
    replace_with_nothing: bool = False,
    based_on: int | None = None,
    bounds: OrderBounds = SUBMISSION,
    then: Callable[[SubmitResult], Sequence[Finish]] | None = None,
) -> Submitted:
    """Record ``power``'s orders in ``game`` (``phase``: the phase they were written for, refused if processed
    meanwhile); ``now`` is the arrival time, or None for the store to stamp it under the power's lock.
    ``based_on``: the latest version the orders were written over, refused if another came since
    (:class:`~dippouch.game.Changed`). ``received``: when a letter came, if earlier (post). Ready orders make the game go on if every power is.
    ``bounds``: how much text the door takes (:data:`dippouch.game.TYPED` for a page or the JSON API), checked
    before the store is asked, so text beyond them costs no transaction. ``then``: the record of the message the
    orders came in, made of the receipt in the submission's own transaction (mail; see
    :func:`dippouch.store.submissions.submit`)."""
    check_size(text, bounds)
    receipt = store_submissions.submit(
        store,
        game,
        power,
        text,
        now=received or now,
        ready=ready,
        source=source,
        phase=phase,
        label=label,
        recorded_at=recorded_at,
        reinstates=reinstates,
        replace_with_nothing=replace_with_nothing,
        based_on=based_on,
        then=then,
    )
    votes: tuple[Msg, ...] = ()
    if source == "mail" and read_version_lines(text).votes:
        # A mail's vote lines (the registered address is the player's own; a page has its forms for them).
        from dippouch.play.votes import from_lines  # the votes act through the clock, which goes on as this does

        votes = from_lines(store, game, receipt.power, text, now=now or receipt.received or store.clock())
    if not receipt.ready or receipt.late:
        return Submitted(receipt, votes=votes)
    when = now or recorded_at or receipt.received  # the time it is now, not a letter's day
    assert when is not None, "the store stamps every submission it records"
    return Submitted(receipt, go_on(store, game, now=when), votes=votes)
