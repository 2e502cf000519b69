"""Whether a phase is due before its deadline, and who no longer holds it up: readiness and civil disorder.

A phase is due when its deadline has passed, when every power that must act (and is not in civil disorder)
says it is ready, or when nobody has anything to decide; and never while photographs or held mail wait for
the coordinator (a domain's review: the mail's, registered in :mod:`dippouch.store.domains`). A power is in civil disorder after missing ``missed_limit``
movement phases in a row since its current player took over.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session, load_only

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import civil_disorder_streak, powers_to_act
from dippouch.store.db import Database
from dippouch.store.domains import holds
from dippouch.store.models import GameRow, PhaseRow, PlayerRow
from dippouch.store.rows import game_settings, phase_position
from dippouch.store.standing import standing_versions

__all__ = ["CURRENT_PLAYERS", "current_players", "missed_streaks", "phase_due", "powers_in_civil_disorder"]


def powers_in_civil_disorder(s: Session, g: GameRow, v: Variant) -> set[str]:
    """Powers that missed ``missed_limit`` movement phases in a row since their current player took over."""
    limit = game_settings(g).missed_limit
    if limit <= 0:
        return set()
    return {p for p, n in missed_streaks(s, g, v).items() if n >= limit}


CURRENT_PLAYERS = (
    sa.select(PlayerRow.power, PlayerRow.name, PlayerRow.assigned_at)
    .where(PlayerRow.game_id == sa.bindparam("game_id"), PlayerRow.replaced_at.is_(None))
    .order_by(PlayerRow.id)
)
"""(power, name, when they took the seat) of each seat's current player (one not replaced), in seat order: what
:func:`current_players` reads, and what the game page's read of seats and people widens
(:func:`dippouch.store.people.absences.players_and_seats`)."""


def current_players(s: Session, g: GameRow) -> list[tuple[str, str, datetime]]:
    """(power, name, when they took the seat) of each seat's current player: from the game's players where the
    session has them already, else by one narrow read that makes no row objects (every status reads this, a
    game page after each change among them: loading the players as rows was a tenth of the page's reads)."""
    if "players" not in sa.inspect(g).unloaded:
        return [(r.power, r.name, r.assigned_at) for r in g.players if r.replaced_at is None]
    return [(str(r[0]), str(r[1]), r[2]) for r in s.connection().execute(CURRENT_PLAYERS, {"game_id": g.id})]


def missed_streaks(
    s: Session,
    g: GameRow,
    v: Variant,
    phases: Sequence[Any] | None = None,
    players: Sequence[tuple[str, str, datetime]] | None = None,
) -> dict[str, int]:
    """Power -> movement phases missed in a row since its current player took over. ``phases``: the game's
    processed movement phases in order (anything with their ``processed_at`` and ``missed``), when the caller
    has read them with its own (the game page reads every phase already), else read here; ``players``: the
    current players (:func:`current_players`), when the caller has read them."""
    seated = current_players(s, g) if players is None else players
    if phases is not None:
        return _streaks(seated, v, phases)
    # Only the columns the streak needs: every status (a game page after each change) reads this, and
    # a long game's positions, orders and results are most of its phases' bytes.
    q = (
        sa.select(PhaseRow)
        .options(load_only(PhaseRow.seq, PhaseRow.processed_at, PhaseRow.missed))
        .where(
            PhaseRow.game_id == g.id,
            PhaseRow.status == "processed",
            PhaseRow.kind == PhaseKind.MOVEMENT.value,
        )
        .order_by(PhaseRow.seq)
    )
    return _streaks(seated, v, list(s.scalars(q)))


def _streaks(players: Sequence[tuple[str, str, datetime]], v: Variant, phases: Sequence[Any]) -> dict[str, int]:
    out = {}
    for power in v.power_names:
        since = max((at for p, _, at in players if p == power), default=None)
        relevant = [p for p in phases if since is None or (p.processed_at is not None and p.processed_at > since)]
        out[power] = civil_disorder_streak(power in (p.missed or []) for p in relevant)
    return out


def phase_due(
    db: Database, s: Session, g: GameRow, v: Variant, ph: PhaseRow, now: datetime, *, cd: set[str] | None = None
) -> bool:
    """``cd``: the powers in civil disorder, when the caller has them already."""
    if g.status != "active":
        return False
    if holds(s, ph, now):
        return False  # photographs or held mail wait for the coordinator (the mail's review)
    if ph.deadline is not None and now >= ph.deadline:
        return True
    pos = phase_position(db, v, ph)
    cd = powers_in_civil_disorder(s, g, v) if cd is None else cd
    latest = standing_versions(ph, on_time_only=True)
    must = powers_to_act(v, pos)
    if not must:
        return True  # nobody has anything to decide
    voters = [p for p in must if p not in cd]
    # Powers in civil disorder do not hold the game up, but they alone never make it run early.
    return bool(voters) and all(p in latest and latest[p].ready for p in voters)
