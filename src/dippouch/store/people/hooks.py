"""People's part in the games core's work, registered with it (:mod:`dippouch.store.domains`) when the store
package is imported: players away at a deadline get their game's absence policy under the game's lock, before
the phase is processed (:func:`dippouch.store.people.absences.apply_locked`), and a stand-in orders the seats of
the players away today in the games that name them (:func:`dippouch.store.people.absences.stand_in_seats_in`).

Each function imports its room when first called: the absences' tables are mapped only where a phase may be
processed or a person's grants are read.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from dippouch.store.domains import register_before_processing, register_stand_ins

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dippouch.store.db import Database
    from dippouch.store.models import GameRow

__all__: list[str] = []

DOMAIN = "people"


def _absences(db: Database, s: Session, g: GameRow, phase_id: int, now: datetime, forced: bool) -> None:
    from dippouch.store.people.absences import apply_locked

    apply_locked(db, s, g, phase_id, now, forced=forced)


def _stand_ins(s: Session, person_id: int, today: date) -> list[tuple[str, str]]:
    from dippouch.store.people.absences import stand_in_seats_in

    return stand_in_seats_in(s, person_id, today)


def _has_policy() -> Any:
    from dippouch.store.people.absences import HAS_POLICY

    return HAS_POLICY


register_before_processing(DOMAIN, _absences, only_if=_has_policy)
register_stand_ins(DOMAIN, _stand_ins)
