"""What became of a message taken in, as a value: light enough for the mail's hooks to name without mapping the
mail's tables (:mod:`dippouch.store.mail.hooks` registers it with the games core, which records it in a
submission's transaction through :func:`dippouch.store.mail.inbox.finish_in`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Finish"]


@dataclass(frozen=True)
class Finish:
    """What became of a message, recorded in the transaction that does it (:func:`dippouch.store.mail.inbox.finish_in`): its new
    ``values`` (status, reason, game_id, phase_id, power, submission_id; ``reading`` is merged into the
    recorded one) and the ``replies`` queued with them (each as :func:`dippouch.store.mail.outbox.queue_in` takes
    it). ``was``: the status it must still have, else :class:`dippouch.store.mail.inbox.MessageTaken` (``None``: any)."""

    mail_id: int
    values: Mapping[str, Any]
    replies: Sequence[Mapping[str, Any]] = ()
    was: str | None = "received"
    """A message taken in is finished from ``received``; a held one the coordinator applies, from ``held``."""
