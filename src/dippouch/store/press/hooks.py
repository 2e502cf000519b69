"""Press's part in the games core's work, registered with it (:mod:`dippouch.store.domains`) when the store
package is imported: postal press written in a phase goes out in the transaction that processes it, and a game
file carries the press its reader may have (:mod:`.messages` decides both).

Each function imports :mod:`.messages` when first called, so a process that never processes a phase nor writes
a game file does not map the press tables.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from dippouch.store.domains import register_file_share, register_processed

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dippouch.store.db import Database
    from dippouch.store.models import GameRow, PhaseRow

__all__: list[str] = []

DOMAIN = "press"


def _release(s: Session, g: GameRow, ph: PhaseRow, now: datetime) -> None:
    from dippouch.store.press.messages import release_held

    release_held(s, g, ph, now)


def _share(db: Database, name: str, coordinator: bool) -> Any:
    from dippouch.store.press.messages import export_press

    return export_press(db, name, coordinator=coordinator)


def _any_held() -> Any:
    from dippouch.store.press.messages import ANY_HELD

    return ANY_HELD


register_processed(DOMAIN, _release, only_if=_any_held)
register_file_share(DOMAIN, _share)
