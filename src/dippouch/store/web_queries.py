"""The few reads the web app makes that no other part of the program needs: small, cheap lookups by game name
that a busy page asks before (or instead of) the fuller reads of :class:`GameStore`.

Each takes the store to read through (the web reads through :meth:`GameStore.reader`, which never takes
SQLite's write lock), so the web app itself speaks no SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date, datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.calendar import PhaseKind
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.store.page_cache import phase_submissions_in
from dippouch.store.people.absences import (
    ANY_POLICY,
    ANY_USES,
    AbsencePolicy,
    GameAway,
    Use,
    absence_policy_in,
    absence_uses_in,
    game_absences_in,
    players_and_seats,
)
from dippouch.store.records import StoredPhase
from dippouch.store.rows import game_row_adding, game_row_and
from dippouch.store.sealing import is_sealed, unsealing
from dippouch.store.status import Status, status_in
from dippouch.store.votes import ANY_DRAW

__all__ = [
    "GamePageReads",
    "game_exists",
    "game_page_reads",
    "game_phase",
    "open_phase_id",
    "open_phase_sealed",
    "phase_by_id",
]


def game_exists(store: Database, name: str) -> bool:
    with store.session() as s:
        return s.scalar(sa.select(GameRow.id).where(GameRow.name == name)) is not None


def open_phase_id(store: Database, name: str) -> int | None:
    """The id of the game's open phase (None when it is over, not started, or there is no such game): one
    narrow query, so a caller that keeps parsed positions by phase reads the phase's row only when it must."""
    with store.session() as s:
        row = s.execute(
            sa.select(PhaseRow.id)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == name, PhaseRow.status == "open")
        ).first()
    return None if row is None else int(row[0])


def phase_by_id(store: Database, phase_id: int) -> StoredPhase | None:
    with store.session() as s:
        row = s.get(PhaseRow, phase_id)
        return StoredPhase.of(row) if row is not None else None


def game_phase(store: Database, name: str, phase_id: int) -> StoredPhase | None:
    """Phase ``phase_id`` if it belongs to game ``name`` (an address naming another game's phase finds none)."""
    with store.session() as s:
        row = s.connection().execute(_GAME_PHASE, {"name": name, "phase_id": phase_id}).first()
    return None if row is None else StoredPhase(**row._asdict())


def open_phase_sealed(store: Database, name: str, now: datetime) -> bool:
    """Is the game's open phase sealed at ``now`` (before its deadline, or paused)? False without one."""
    with store.session() as s:
        row = s.execute(
            sa.select(PhaseRow.status, PhaseRow.deadline)
            .join(GameRow, GameRow.id == PhaseRow.game_id)
            .where(GameRow.name == name, PhaseRow.status == "open")
        ).first()
    return row is not None and is_sealed(row[0], row[1], now)


@dataclass(frozen=True)
class GamePageReads:
    """What a game's shared page is made of, read in one transaction: its status (without whether the phase is
    due, which the page does not show), its phases, who plays each seat, its absences and its unsealings."""

    status: Status
    phases: list[StoredPhase]
    """Every phase, abandoned ones too, in the order opened. Only the phases the page shows whole (the open one,
    the last processed one and the one after it, the last of the line) carry their positions, orders and
    results; the others carry their names and times, ``position`` empty and ``next_position`` None, their
    having a next position in :attr:`led_on`."""
    led_on: frozenset[int]
    """The ids of the processed phases that have a position after them (a game that ended has none)."""
    seats: list[tuple[str, str, int]]
    """(power, name, person id) of each seat a person plays now."""
    absence_policy: AbsencePolicy
    away: list[GameAway]
    absences_used: list[Use]
    unsealings: list[dict[str, Any]]
    last_submissions: list[dict[str, Any]]
    """Every version sent in the last processed phase of the line (its report names the lines not accepted)."""


_PHASES = cast(sa.Table, PhaseRow.__table__)
_GAME_PHASE = (
    sa.select(*(_PHASES.c[f.name] for f in fields(StoredPhase) if f.name != "versions"))
    .join(GameRow, GameRow.id == _PHASES.c.game_id)
    .where(GameRow.name == sa.bindparam("name"), _PHASES.c.id == sa.bindparam("phase_id"))
)
"""Built once, read as columns (no row object): every map a web process draws asks it first."""
_NARROW = (
    _PHASES.c.id,
    _PHASES.c.game_id,
    _PHASES.c.branch,
    _PHASES.c.seq,
    _PHASES.c.name,
    _PHASES.c.kind,
    _PHASES.c.status,
    _PHASES.c.opened_at,
    _PHASES.c.deadline,
    _PHASES.c.processed_at,
    _PHASES.c.next_position.is_not(None),
    _PHASES.c.missed,
)
# The page's own statements, built once: building one costs more CPU than the database spends answering it (a
# statement's clauses are checked and coerced as they are put together), and a made page sends a dozen. Sent
# on the session's connection as SQL expressions, not through the ORM, where they read no rows as objects.
_NARROW_PHASES = sa.select(*_NARROW).where(_PHASES.c.game_id == sa.bindparam("game_id")).order_by(_PHASES.c.id)
_WHOLE_PHASES = sa.select(PhaseRow).where(PhaseRow.id.in_(sa.bindparam("ids", expanding=True)))
_EVENTS = cast(sa.Table, EventRow.__table__)
_UNSEALINGS = (
    sa.select(_EVENTS.c.at, _EVENTS.c.detail)
    .where(_EVENTS.c.game_id == sa.bindparam("game_id"), _EVENTS.c.kind == "unsealed")
    .order_by(_EVENTS.c.id)
)

_PAGE_GAME = game_row_adding(
    ANY_DRAW, sa.exists().where(_EVENTS.c.game_id == GameRow.id, _EVENTS.c.kind == "unsealed"), ANY_POLICY, ANY_USES
)
"""The game's row with whether it has any draw proposal, unsealing, absence policy and use of one: most games
have none, and a page made asked each of them in a statement of its own (a third of its reads)."""


def _page_phases(s: Session, game_id: int) -> tuple[list[StoredPhase], frozenset[int], list[PhaseRow], list[Any]]:
    """The game's phases, narrow but for the few the page shows whole (:attr:`GamePageReads.phases`): a long
    game's positions, orders and results are most of its bytes, and decoding them was a tenth of a page's
    making. With the open phase's row, if any, and the processed movement phases who missed (the status reads
    both: its query of the missed streaks was a page's eighth)."""
    rows = s.connection().execute(_NARROW_PHASES, {"game_id": game_id}).all()
    led_on = frozenset(int(r[0]) for r in rows if r[6] == "processed" and r[10])
    line = [r for r in rows if r[6] != "abandoned"]
    whole = {int(r[0]) for r in rows if r[6] == "open"}
    if line:
        whole.add(int(line[-1][0]))
    processed = [r for r in line if int(r[0]) in led_on]
    if processed:
        last = processed[-1]
        whole.add(int(last[0]))
        whole |= {int(r[0]) for r in rows if r[2] == last[2] and r[3] == last[3] + 1}
    full = {row.id: row for row in s.scalars(_WHOLE_PHASES, {"ids": sorted(whole)})}
    out = [
        StoredPhase.of(full[int(r[0])])
        if int(r[0]) in full
        else StoredPhase(
            int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4], r[5], r[6], {}, r[7], r[8], r[9], None, None, None, None
        )
        for r in rows
    ]
    movement = sorted(
        (r for r in rows if r[6] == "processed" and r[5] == PhaseKind.MOVEMENT.value), key=lambda r: int(r[3])
    )
    return out, led_on, [row for row in full.values() if row.status == "open"], movement


def game_page_reads(db: Database, name: str, *, now: datetime, today: date) -> GamePageReads:
    """Everything the game page reads of the store, in one read-only transaction: the game's row once, where the
    status, the absences, the seats and the unsealings read it each in a transaction of their own."""
    with db.read_session() as s:
        g, (drawn, unsealed, policy, used) = game_row_and(s, _PAGE_GAME, name)
        phases, led_on, open_rows, movement = _page_phases(s, g.id)
        players, seats = players_and_seats(s, g.id)
        st = status_in(
            db,
            s,
            g,
            now=now,
            due=False,
            open_phase=open_rows[0] if open_rows else None,
            movement=movement,
            votes=None if drawn else {},
            players=players,
        )
        line = [h for h in phases if h.status != "abandoned" and h.id in led_on]
        last = phase_submissions_in(s, line[-1].id) if line else []
        unsealings = s.connection().execute(_UNSEALINGS, {"game_id": g.id}).all() if unsealed else []
        return GamePageReads(
            status=st,
            phases=phases,
            led_on=led_on,
            seats=seats,
            absence_policy=absence_policy_in(s, g, stored=policy),
            away=game_absences_in(s, seats, today),
            absences_used=absence_uses_in(s, g.id) if used else [],
            unsealings=[unsealing(at, detail) for at, detail in unsealings],
            last_submissions=last,
        )
