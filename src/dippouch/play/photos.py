"""Confirming a photographed submission: the coordinator's transcription of a photograph that came by mail
becomes a version of the power's orders, received when the message arrived, and the photograph is linked to
that version (so the review no longer shows it, and the record says where the version came from).

What the transcription says is the door's to give: the review page sends the lines it showed, ``dippouch mail
confirm`` the reading it printed or the coordinator's own file (:func:`dippouch.mail.ocr.confirm` reads the
photograph when no text is given). Where it may go (a photograph not confirmed yet, for a phase still open and
past its seal) is the store's to say.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dippouch.core.messages import Msg, msg
from dippouch.game import GameError, as_utc
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.photos import confirm_target, link_confirmed
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = ["PhotoConfirmed", "confirm_photo"]


@dataclass(frozen=True)
class PhotoConfirmed:
    """A photograph confirmed: the version of the power's orders it became."""

    attachment: int
    game: str
    power: str
    version: int

    @property
    def said(self) -> Msg:
        """What the coordinator is told, in their language where it is shown."""
        return msg(
            "Photograph #%(id)s confirmed as %(power)s version %(version)s",
            id=self.attachment,
            power=self.power,
            version=self.version,
        )

    @property
    def text(self) -> str:
        """:attr:`said` in English."""
        return str(self.said)


def confirm_photo(store: GameStore, attachment: int, *, text: str, now: datetime) -> PhotoConfirmed:
    """Record ``text`` as the transcription of photograph ``attachment``. Refused (GameError, nothing recorded)
    when the transcription has no line, or the photograph cannot be confirmed now (see the module's notes)."""
    now = as_utc(now)
    target = confirm_target(store, attachment, now=now)
    if not text.strip():
        # An empty version would stand over the power's earlier ones and leave every unit without an order.
        raise GameError(
            msg(
                "the transcription of photograph #%(id)s has no line: give at least one, or set the photograph aside",
                id=attachment,
            )
        )
    result = store_submissions.submit(
        store,
        target.game,
        target.power,
        text,
        now=target.received,
        source="photo",
        recorded_at=max(now, target.received),
    )
    link_confirmed(store, attachment, target.phase_id, target.power, result.version)
    return PhotoConfirmed(attachment, target.game, target.power, result.version)
