"""The table of sandboxes (migrations 0017, 0021, 0034): boards copied from a game's phase or a variant's opening, changed
and adjudicated at will without touching any game (:mod:`dippouch.store.sandboxes.boards` reads and writes it).

Kept apart from the game tables, as the web's and the openings' are; :mod:`dippouch.store.tables` maps them
for migrations and the schema test.
"""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from dippouch.store.models import Base


class SandboxRow(Base):
    """One sandbox: where it came from, the board as it stands, the orders typed, the last step, and the
    earlier states "Back" returns to."""

    __tablename__ = "sandboxes"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int | None] = mapped_column(sa.ForeignKey("people.id"), index=True, default=None)
    """The signed-in person who made it (it is listed for them, and they edit it from its share link too);
    ``None``: made by a visitor who was not signed in, kept under its edit link alone."""
    edit_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    """SHA-256 of the edit link's secret (the secret itself is shown once, never stored)."""
    share_token: Mapped[str] = mapped_column(sa.String(64), unique=True)
    """The read-only link's token: stored as it is, as it opens nothing but a view of this board."""
    variant: Mapped[str] = mapped_column(sa.String(100))
    """The variant's name, for a sandbox begun from its opening (and to name the board)."""
    game: Mapped[str | None] = mapped_column(sa.String(100), default=None)
    """The game it was copied from (by name, not a key: the game may be deleted, the copy stays); its
    variant, which may be the game's own copy of a variant file, is the sandbox's."""
    phase_id: Mapped[int | None] = mapped_column(default=None)
    """The phase of ``game`` it was copied from."""
    position: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    orders: Mapped[str] = mapped_column(sa.Text, default="")
    step: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
    history: Mapped[list[Any]] = mapped_column(sa.JSON)
    checked: Mapped[list[Any] | None] = mapped_column(sa.JSON, default=None)
    """The order box's lines as checked against the board when either was last kept (migration 0021), so a look
    at the sandbox never checks them again; ``None``: kept before the check was (it is made on the first look)."""
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    revision: Mapped[int] = mapped_column(default=0, server_default="0")
    """Raised by every change kept (migration 0034): one number for one state of the sandbox, which the web's
    answers made once are found by."""
