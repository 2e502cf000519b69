"""The opening explorer's one read (:mod:`dippouch.play.explorer`): for a variant and a power, every public
finished game's first phases (what the power ordered in each, and its centres when each opened and after it)
and the game's end (its ending, and the power's centres and units on the final board), in one query.

Which games count is what the public pages show of finished games: public ones only (an unlisted game's name
is its secret and a private one's existence is not shown outside it, as the hall of fame and the ratings'
public lists leave them out: :mod:`dippouch.store.ratings.ledger`). A game's line of play is its phases a rollback
did not abandon, as a game's record reads it (:func:`dippouch.store.finished.game_record`); its end is its
last phase, as the records read the final board (:mod:`dippouch.play.records`).

Only the power's own part of each stored position is read (its centres by a JSON path, the units of the last
phase only): a game's every position whole is kilobytes, and a busy installation has thousands of games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from dippouch.store.db import Database
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.models_web import GameWebRow

__all__ = ["ExploredGame", "ExploredPhase", "explored_games", "public_finished_counts"]


@dataclass(frozen=True)
class ExploredPhase:
    """One phase of a game's line of play, as the power lived it."""

    seq: int
    name: str
    kind: str
    status: str
    orders: tuple[str, ...] | None
    """The power's adjudicated orders (canonical text, as stored); None when it gave none that counted."""
    missed: bool
    """The power had to act and sent nothing that counted."""
    centres: tuple[str, ...] | None
    """The power's supply centres when the phase opened (None: the position names none for it)."""
    centres_after: tuple[str, ...] | None
    """Its centres on the board the phase led to (None for a phase not processed)."""


@dataclass(frozen=True)
class ExploredGame:
    """A public finished game, as far as the explorer reads it."""

    name: str
    ending: Mapping[str, Any] | None
    """The game's stored ending (``kind``, ``powers``, ``text``)."""
    phases: tuple[ExploredPhase, ...]
    """Its first phases (seq below the bound asked), in order."""
    final_centres: int
    """The power's centres on the final board (after the last phase when it was processed, else when it opened)."""
    final_units: int
    last_seq: int
    """The seq of the game's last phase: when it is below the bound asked, the last of :attr:`phases` is it."""


def _public() -> sa.ColumnElement[bool]:
    return sa.func.coalesce(GameWebRow.visibility, "public") == "public"


def _names(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(str(x) for x in value)


def _units_of(units: Any, power: str) -> int:
    if not isinstance(units, list):
        return 0
    return sum(1 for u in units if isinstance(u, Mapping) and u.get("power") == power)


def explored_games(db: Database, variant: str, power: str, *, first: int) -> tuple[ExploredGame, ...]:
    """Every public finished game of ``variant`` with its phases of seq below ``first`` as ``power`` lived
    them, and the power's end, in the order the games were created: one query."""
    last = (
        sa.select(sa.func.max(PhaseRow.id))
        .where(PhaseRow.game_id == GameRow.id, PhaseRow.status != "abandoned")
        .correlate(GameRow)
        .scalar_subquery()
    )
    final = PhaseRow.id == last
    q = (
        sa.select(
            GameRow.id,
            GameRow.name,
            GameRow.ending,
            PhaseRow.seq,
            PhaseRow.name,
            PhaseRow.kind,
            PhaseRow.status,
            PhaseRow.orders[power],
            PhaseRow.missed,
            PhaseRow.position[("supply_centers", power)],
            PhaseRow.next_position[("supply_centers", power)],
            sa.case((final, PhaseRow.position["units"]), else_=sa.null()),
            sa.case((final, PhaseRow.next_position["units"]), else_=sa.null()),
            final,
        )
        .join(PhaseRow, PhaseRow.game_id == GameRow.id)
        .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
        .where(
            GameRow.status == "finished",
            GameRow.variant == variant,
            _public(),
            PhaseRow.status != "abandoned",
            sa.or_(PhaseRow.seq < first, final),
        )
        .order_by(GameRow.id, PhaseRow.seq)
    )
    with db.session() as s:
        rows = s.execute(q).all()
    games: list[ExploredGame] = []
    current: int | None = None
    name = ""
    ending: Mapping[str, Any] | None = None
    phases: list[ExploredPhase] = []
    end = (0, 0, 0)

    def close() -> None:
        if current is not None:
            games.append(ExploredGame(name, ending, tuple(phases), *end))

    for (
        gid,
        gname,
        gending,
        seq,
        pname,
        kind,
        status,
        orders,
        missed,
        before,
        after,
        units,
        units_after,
        last_one,
    ) in rows:
        if gid != current:
            close()
            current, name, ending, phases, end = int(gid), str(gname), gending, [], (0, 0, 0)
        phase = ExploredPhase(
            seq=int(seq),
            name=str(pname),
            kind=str(kind),
            status=str(status),
            orders=_names(orders),
            missed=power in (missed or ()),
            centres=_names(before),
            centres_after=_names(after),
        )
        if int(seq) < first:
            phases.append(phase)
        if last_one:
            done = status == "processed" and phase.centres_after is not None
            centres = phase.centres_after if done else phase.centres
            end = (len(centres or ()), _units_of(units_after if done else units, power), int(seq))
    close()
    return tuple(games)


def public_finished_counts(db: Database, variants: Sequence[str] | None = None) -> dict[str, int]:
    """Variant -> how many public finished games it has (only ``variants`` when given), for the explorer's
    choice of variant."""
    q = (
        sa.select(GameRow.variant, sa.func.count())
        .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
        .where(GameRow.status == "finished", _public())
        .group_by(GameRow.variant)
    )
    if variants is not None:
        q = q.where(GameRow.variant.in_(list(variants)))
    with db.session() as s:
        return {str(v): int(n) for v, n in s.execute(q)}
