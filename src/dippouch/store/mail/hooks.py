"""The mail's part in the games core's work, registered with it (:mod:`dippouch.store.domains`) when the store
package is imported: a phase held for the coordinator's review is not due, and photographed orders sent on time
count as taking part (:mod:`.review`); a submission made of a message records the message's end in its own
transaction (:mod:`.inbox`); a game file carries the game's mail record (:mod:`.record`).

Each function imports its room when first called, so a process that never takes mail in, holds a phase or
writes a game file does not map the mail's tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from dippouch.store.domains import FileRecord, Review, register_file_record, register_recorder, register_review
from dippouch.store.mail.finish import Finish

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dippouch.store.db import Database
    from dippouch.store.models import PhaseRow

__all__: list[str] = []

DOMAIN = "mail"


def _holds(s: Session, ph: PhaseRow, now: datetime) -> bool:
    from dippouch.store.mail.review import holds

    return holds(s, ph, now)


def _held_phase_ids(s: Session, now: datetime) -> Iterable[int]:
    from dippouch.store.mail.review import held_phase_ids

    return held_phase_ids(s, now)


def _may_hold(game_id: Any) -> Any:
    from dippouch.store.mail.review import may_hold

    return may_hold(game_id)


def _took_part(s: Session, ph: PhaseRow) -> set[str]:
    from dippouch.store.mail.review import took_part

    return took_part(s, ph)


def _finish(db: Database, s: Session, finish: Any) -> object:
    from dippouch.store.mail.inbox import finish_in

    return finish_in(db, s, finish)


def _write(s: Session, game_id: int, phase_ids: list[int], event_ids: list[int]) -> Any:
    from dippouch.store.mail.record import export_mail_record

    return export_mail_record(s, game_id, phase_ids, event_ids)


def _read(
    s: Session, game_id: int, record: Any, phase_ids: list[int], event_ids: list[int], submission_ids: dict[int, int]
) -> None:
    from dippouch.store.mail.record import import_mail_record

    import_mail_record(s, game_id, record, phase_ids, event_ids, submission_ids)


def _seal(data: dict[str, Any], sealed_phases: set[int]) -> object:
    from dippouch.store.mail.record import seal_mail_record

    return seal_mail_record(data, sealed_phases)


def _concerns() -> Any:
    from dippouch.store.mail.review import ANY_MAIL

    return ANY_MAIL


register_review(
    DOMAIN,
    Review(holds=_holds, held_phase_ids=_held_phase_ids, took_part=_took_part, may_hold=_may_hold, concerns=_concerns),
)
register_recorder(Finish, _finish)
register_file_record(DOMAIN, FileRecord(write=_write, read=_read, seal=_seal))
