"""The table of the coach's analyses (migration 0030): one row a movement phase of a finished or practice game, as
:mod:`dippouch.play.coach` made it (:mod:`dippouch.store.coach` reads and writes it)."""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class CoachPhaseRow(Base):
    """The coach's look at one phase: kept by the phase it derives from (a processed phase never changes)."""

    __tablename__ = "coach_phases"

    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id", ondelete="CASCADE"), index=True)
    data: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    """The look as :meth:`dippouch.play.coach.PhaseLook.as_json` writes it: read back whole, never queried inside."""
    made_at: Mapped[datetime]
