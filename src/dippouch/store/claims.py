"""What deadline workers find and claim: open phases that are due (or may be), their count, and the claim
of the oldest one due, processed in the same transaction.

Workers claim a game for processing by locking its row with ``SKIP LOCKED`` (:func:`process_next_due`),
so they never wait for each other; a worker that dies mid-phase releases its claim with its transaction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from dippouch.game import GameError, as_utc
from dippouch.store.db import Database
from dippouch.store.domains import ask_before_processing, before_processing, held_phase_ids
from dippouch.store.models import GameRow, PhaseRow, PlayerRow, SubmissionRow
from dippouch.store.processing import adjudicate_ahead, process_locked
from dippouch.store.readiness import phase_due
from dippouch.store.rows import game_variant

__all__ = ["DuePhase", "Held", "PhaseFailed", "due_count", "due_phases", "is_due", "process_next_due"]


@dataclass(frozen=True)
class DuePhase:
    """An open phase that is, or may be, due: what a worker's scan finds (see :func:`due_phases`)."""

    phase_id: int
    game: str
    variant: str
    phase: str
    deadline: datetime | None
    past_deadline: bool
    """True: due by the clock. False: some power is ready, so everyone may be (checked under the lock)."""
    stamp: tuple[int, int]
    """(newest submission id, newest player id): readiness can only change when one of these does."""
    processed_at: datetime | None = None
    """The moment it was processed as of, by the database's clock, once :func:`process_next_due` has processed it
    (how late it was processed is measured from it, without reading the clock again)."""


class PhaseFailed(GameError):
    """Processing one phase failed with an error (rolled back): which phase, and why."""

    def __init__(self, phase_id: int, game: str, phase: str, error: BaseException) -> None:
        super().__init__(f"cannot process {game}: {phase}: {type(error).__name__}: {error}")
        self.phase_id = phase_id
        self.game = game
        self.phase = phase


def due_phases(
    db: Database, *, now: datetime | None = None, limit: int = 100, past: bool = True, ready: bool = True
) -> list[DuePhase]:
    """Open phases of active games that are due by the clock (``past``), oldest deadline first, then
    (``ready``) phases in which some power has said it is ready (candidates for "everyone is ready";
    only :func:`is_due` or processing with ``only_if_due`` decides). ``now=None``: the database's clock.

    One indexed query each, however many games there are; nothing is locked.
    """
    with db.read_session() as s:
        now = db.db_now(s) if now is None else as_utc(now)
        newest_sub = (
            sa.select(sa.func.coalesce(sa.func.max(SubmissionRow.id), 0))
            .where(SubmissionRow.phase_id == PhaseRow.id)
            .scalar_subquery()
        )
        newest_player = (
            sa.select(sa.func.coalesce(sa.func.max(PlayerRow.id), 0))
            .where(PlayerRow.game_id == GameRow.id)
            .scalar_subquery()
        )
        cols = (
            PhaseRow.id,
            GameRow.name,
            GameRow.variant,
            PhaseRow.name,
            PhaseRow.deadline,
            newest_sub,
            newest_player,
        )
        base = sa.select(*cols).join(GameRow, GameRow.id == PhaseRow.game_id)
        base = base.where(PhaseRow.status == "open", GameRow.status == "active")
        held = held_phase_ids(s, now)
        if held:
            base = base.where(PhaseRow.id.not_in(held))
        overdue = (
            s.execute(base.where(PhaseRow.deadline <= now).order_by(PhaseRow.deadline, PhaseRow.id).limit(limit)).all()
            if past
            else []
        )
        ready_sub = sa.exists().where(
            SubmissionRow.phase_id == PhaseRow.id,
            SubmissionRow.ready.is_(True),
            SubmissionRow.submitted_at <= PhaseRow.deadline,
        )
        early = (
            s.execute(
                base.where(PhaseRow.deadline > now, ready_sub).order_by(PhaseRow.deadline, PhaseRow.id).limit(limit)
            ).all()
            if ready
            else []
        )
        return [
            DuePhase(r[0], r[1], r[2], r[3], r[4], past_deadline=flag, stamp=(int(r[5]), int(r[6])))
            for rows, flag in ((overdue, True), (early, False))
            for r in rows
        ]


def due_count(db: Database, *, now: datetime | None = None, held: Held | None = None) -> int:
    """How many open phases of active games are past their deadline: the workers' queue depth. With the phases
    ``held`` as a worker's call read them, not asked again: on PostgreSQL one round trip (the clock read in the
    count's statement) where it was three (the clock, the phases held, the count)."""
    known = held.ids if held is not None else None
    if known is not None and now is None and _server_clock(db):
        with db.one_read.connect() as conn:
            return int(conn.execute(_DUE_COUNT_NOW, {"held": known}).scalar_one())
    with db.read_session() as s:
        now = db.db_now(s) if now is None else as_utc(now)
        ids = held_phase_ids(s, now) if known is None else known
        return int(s.execute(_DUE_COUNT, {"now": now, "held": ids}).scalar_one())


def _server_clock(db: Database) -> bool:
    """Whether the database has a clock of its own to read in a statement (PostgreSQL; SQLite's is the process's)."""
    return db.engine.dialect.name == "postgresql"


_DUE_COUNT = (
    sa.select(sa.func.count())
    .select_from(PhaseRow)
    .join(GameRow, GameRow.id == PhaseRow.game_id)
    .where(PhaseRow.status == "open", GameRow.status == "active", PhaseRow.deadline <= sa.bindparam("now"))
    .where(PhaseRow.id.not_in(sa.bindparam("held", expanding=True)))
)
"""Built once: a worker asks it several times a call of four phases."""
_DUE_COUNT_NOW = (
    sa.select(sa.func.count())
    .select_from(PhaseRow)
    .join(GameRow, GameRow.id == PhaseRow.game_id)
    .where(PhaseRow.status == "open", GameRow.status == "active", PhaseRow.deadline <= sa.func.statement_timestamp())
    .where(PhaseRow.id.not_in(sa.bindparam("held", expanding=True)))
)
""":data:`_DUE_COUNT` by the database's clock as the statement starts (PostgreSQL's)."""


def is_due(db: Database, phase_id: int, *, now: datetime | None = None) -> bool:
    """Whether this phase is open and due (deadline passed, or everyone who must act is ready)."""
    with db.read_session() as s:  # a look: the processing that follows checks again under the lock
        now = db.db_now(s) if now is None else as_utc(now)
        ph = s.get(PhaseRow, phase_id)
        if ph is None or ph.status != "open":
            return False
        g = s.get(GameRow, ph.game_id)
        assert g is not None
        return phase_due(db, s, g, game_variant(g), ph, now)


@functools.cache
def _claim_query(*, clock: bool, lock: bool) -> sa.Select[Any]:
    """Built once each way (a worker claims every phase it processes with it): the open phase with the oldest
    deadline that has passed the moment ``at`` (``clock``: the database's, as the statement starts), of an active
    game, not in the list ``leave``: its id, its game's row, the game, variant and phase names, its deadline, and
    (``clock``) the clock's reading, the moment it is processed as of; ``lock``: its game's row locked, a game in
    another worker's hands skipped, and the phase's row itself (not its id alone) locked and read with it: the
    processing then reads it again in no statement of its own (:func:`dippouch.store.processing.process_locked`)."""
    moment: Any = sa.func.statement_timestamp() if clock else sa.bindparam("at", type_=PhaseRow.deadline.type)
    query = (
        sa.select(
            PhaseRow if lock else PhaseRow.id,
            GameRow,
            GameRow.name,
            GameRow.variant,
            PhaseRow.name,
            PhaseRow.deadline,
            moment if clock else sa.null(),
        )
        .join(GameRow, GameRow.id == PhaseRow.game_id)
        .where(PhaseRow.status == "open", GameRow.status == "active", PhaseRow.deadline <= moment)
        .where(PhaseRow.id.not_in(sa.bindparam("leave", expanding=True)))
        .order_by(PhaseRow.deadline, PhaseRow.id)
        .limit(1)
    )
    # Both rows: a phase row read under its game's lock alone is as the statement's snapshot saw it, which a
    # worker that processed it meanwhile may have changed; locked, it is read as last committed, and the
    # statement's conditions (still open) are checked again on that.
    return query.with_for_update(of=(GameRow, PhaseRow), skip_locked=True) if lock else query


@dataclass
class Held:
    """The open phases that wait for the coordinator (:func:`dippouch.store.domains.held_phase_ids`) as a worker's
    call of several claims read them: once a call, not once a claim (a read of its own, with the clock's). A claim
    that finds its phase held after all forgets them, and the next reads them again."""

    ids: list[int] | None = None
    """None: not read yet, or forgotten."""

    def read(self, db: Database, now: datetime | None) -> list[int]:
        if self.ids is None:
            with db.read_session() as s:
                self.ids = held_phase_ids(s, db.db_now(s) if now is None else as_utc(now))
        return self.ids


def process_next_due(
    db: Database, *, now: datetime | None = None, skip: Sequence[int] = (), held: Held | None = None
) -> DuePhase | None:
    """Claim the open phase with the oldest deadline that has passed and is not in another process's
    hands, and process it, in one transaction; the phase processed, or ``None`` if there was none.

    The claim is one query, ``SELECT ... ORDER BY deadline LIMIT 1 FOR UPDATE OF games SKIP LOCKED``
    on PostgreSQL: several workers calling this at once each get a different game, with no waiting and
    no wasted attempts, and a worker that dies mid-phase releases its claim with its transaction.
    (SQLite: the transaction's write lock lets one process in at a time.) ``now=None``: the database's
    clock as the claim's statement starts, for the claim and the processing alike (the phase's
    :attr:`DuePhase.processed_at`). ``skip``: phase ids to leave alone (ones that failed just now). ``held``: the
    phases held for the coordinator as the caller's call read them (:class:`Held`); None: read here.

    A phase that cannot be processed (a game whose variant no longer loads, a bug) raises
    :class:`PhaseFailed` naming it, so the caller can skip it and go on with the others.
    """
    held = Held() if held is None else held
    while True:
        ahead = None
        leave = [*skip, *held.read(db, now)]
        if db.reads_without_lock:
            # SQLite: the phase the claim will find is adjudicated first from a snapshot, without the file's write
            # lock (process_locked uses it only if what it stood on still stands).
            with db.read_session() as s:
                seen = db.db_now(s) if now is None else as_utc(now)
                row = s.execute(_claim_query(clock=False, lock=False), {"at": seen, "leave": leave}).first()
            if row is None:
                return None
            ahead = adjudicate_ahead(db, row[0])
        try:
            with db.session() as s, s.begin():
                # The claim reads the game's row it locks and the database's clock in the same round trip (a
                # worker's phase is made of round trips): the clock is the moment the phase is processed as of.
                # SQLite has no server's clock to read: the process's, read here.
                told = as_utc(now) if now is not None else (None if _server_clock(db) else db.db_now(s))
                row = s.execute(
                    _claim_query(clock=told is None, lock=True),
                    {"leave": leave} if told is None else {"at": told, "leave": leave},
                    execution_options={"populate_existing": True},
                ).first()
                if row is None:
                    return None
                locked, g, game, variant, phase, deadline, clock = row
                phase_id = locked.id
                at: datetime = as_utc(clock) if told is None else told
                try:
                    # What the domains have for the phase (an absence policy, mail, postal press: nearly always
                    # nothing), asked in one statement now it is held, rather than each asking for itself.
                    ask_before_processing(s, locked)
                    # Players away at the deadline get the game's absence policy first, under the same lock: an
                    # extended phase is then not due, and standing or proxy orders are a version at the deadline.
                    before_processing(db, s, g, phase_id, at, forced=False)
                    ok = process_locked(db, s, g, phase_id, at, only_if_due=True, ahead=ahead, locked=locked)
                except (sa.exc.SQLAlchemyError, PhaseFailed):
                    raise
                except Exception as e:  # rolled back; the caller skips this phase and goes on
                    raise PhaseFailed(phase_id, game, phase, e) from e
                if ok:
                    return DuePhase(
                        phase_id, game, variant, phase, deadline, past_deadline=True, stamp=(0, 0), processed_at=at
                    )
            # Lost a race (the phase was processed between the query's snapshot and its lock), or the phase is held
            # after all (decided under the lock): the held phases read again, then the next one.
            held.ids = None
        except IntegrityError:
            continue
