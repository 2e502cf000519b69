"""The table of the table's proposals (migration 0024): a pause, an extension, a cancellation, a concession, a
draw or, in a game its players run, one of the coordinator's powers put to the seated players' vote
(:mod:`dippouch.store.votes` reads and writes it).

The ballots are kept on the proposal's row (power -> yes or no) rather than a row a ballot: a proposal is
decided under the game's lock by reading all of its ballots at once, and never has more than a table's powers.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class ProposalRow(Base):
    """One proposal: who proposed what, until when, the ballots cast, and how it ended."""

    __tablename__ = "proposals"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    phase_id: Mapped[int] = mapped_column(sa.ForeignKey("phases.id"))
    """The phase it was proposed in: it lapses when that phase is processed or rolled back."""
    kind: Mapped[str] = mapped_column(sa.String(20))
    values: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    """What the kind needs: ``hours`` (pause, extend), ``power`` (concede, replace), ``powers`` (a draw of some),
    ``phase`` (roll back), ``player`` and ``email`` (replace)."""
    proposer: Mapped[str] = mapped_column(sa.String(100))
    ballots: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    """Power -> true (yes) or false (no), as last cast."""
    rule: Mapped[str] = mapped_column(sa.String(20))
    """The game's vote rule when it was proposed (a rule changed later does not change a vote under way)."""
    status: Mapped[str] = mapped_column(sa.String(20))
    """``open``, ``passed``, ``refused``, ``withdrawn``, ``expired`` or ``failed`` (passed, but its act was refused)."""
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime | None]
    """The phase's deadline when it was proposed (None while the game was paused: then the phase's end)."""
    decided_at: Mapped[datetime | None] = mapped_column(default=None)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
    """What passing it did, or why its act was refused (a message's data)."""
