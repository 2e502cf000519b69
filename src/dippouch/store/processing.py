"""Processing a phase: read, adjudicate and write in one transaction, then open the next phase (on SQLite the
adjudication is made from a snapshot before that transaction and used in it only if what it stood on still stands:
:func:`adjudicate_ahead`).

A crash anywhere leaves the game before the phase or after it; processing an already processed phase is a
no-op, and the unique ``(game, branch, seq)`` key stops two processes from both writing the next phase.
Whatever processes a game locks its ``games`` row first, so a submission and the processing of its phase
never interleave. What deadline workers find and claim is :mod:`dippouch.store.claims`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from dippouch.core.messages import msg
from dippouch.game import (
    GameError,
    LineCheck,
    as_utc,
    game_end,
    position_to_data,
    powers_to_act,
)
from dippouch.store.db import Database
from dippouch.store.domains import before_processing, phase_processed, took_part
from dippouch.store.models import GameRow, PhaseRow, SubmissionRow
from dippouch.store.readiness import phase_due
from dippouch.store.records import result_data
from dippouch.store.rows import (
    current_phase,
    game_row,
    game_settings,
    game_variant,
    log_event,
    open_next_phase,
    phase_position,
    require_current,
)
from dippouch.store.standing import standing_versions

if TYPE_CHECKING:
    from dippouch.core.variant import Variant
    from dippouch.game import Ending

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["IDLE_PHASES", "Adjudicated", "adjudicate_ahead", "process", "process_locked", "process_phase"]

IDLE_PHASES = 6
"""How many phases in a row one ``process`` call runs before their deadlines because nobody has anything to
decide in them; the rest wait for their deadlines (or the next call)."""


def process(db: Database, name: str, *, now: datetime, force: bool = False, limit: int = 1000) -> list[str]:
    """Process every phase that is due (deadline passed, or everyone who must act is ready).

    ``force`` processes the current phase even if it is not due (the coordinator's call). Returns the
    names of the phases processed, in order. Whether a phase is due is checked again under the game's
    lock, so a deadline extended meanwhile is respected.
    """
    now = as_utc(now)
    done: list[str] = []
    idle = 0
    for _ in range(limit):
        # What to process is read from a snapshot (no write lock): process_phase checks it again under the lock.
        with db.read_session() as s:
            g = game_row(s, name)
            if g.status == "paused" and force and not done:
                raise GameError(msg("game %(game)s is paused; resume it before processing", game=repr(name)))
            ph = current_phase(s, g)
            if ph is None:
                if not done and force:
                    require_current(s, g)
                break
            v = game_variant(g)
            forced = force and not done
            if not forced and not phase_due(db, s, g, v, ph, now):
                break
            if not forced and (ph.deadline is None or now < ph.deadline):
                # Due early because nobody has anything to decide (or everyone is ready). A board where
                # nobody can ever act again would otherwise run phase after phase to the end of time:
                # a few such phases in a row are normal (an empty retreat, an empty Winter), more wait.
                if not powers_to_act(v, phase_position(db, v, ph)):
                    idle += 1
                    if idle > IDLE_PHASES:
                        break
                else:
                    idle = 0
            phase_id, phase_name = ph.id, ph.name
        if process_phase(db, phase_id, now=now, only_if_due=not forced, absences=True):
            done.append(phase_name)
        else:
            break
    return done


def process_phase(
    db: Database,
    phase_id: int,
    *,
    now: datetime | None = None,
    only_if_due: bool = False,
    claim: bool = False,
    absences: bool = False,
) -> bool:
    """Adjudicate one open phase and open the next, in one transaction. True if this call processed it.

    Locks the game's row, then the phase's (every writer locks the game first, so no two wait for
    each other in a circle), and checks under those locks that the phase is still open and, with
    ``only_if_due``, due. ``now=None`` reads the database's clock once the locks are held.

    ``claim`` is for deadline workers: the game's row is locked with ``SKIP LOCKED`` (PostgreSQL), so
    a game another process is processing (or writing to) is skipped at once instead of waited for.

    ``absences``: what the domains do before a phase is processed first (the game's absence policy), under the
    same lock, as the deadline workers' claim does (:func:`dippouch.store.domains.before_processing`; without
    ``only_if_due`` it is the coordinator's process-now, and the players away today get it).
    """
    ahead = adjudicate_ahead(db, phase_id)
    try:
        with db.session() as s, s.begin():
            game_id = s.scalar(sa.select(PhaseRow.game_id).where(PhaseRow.id == phase_id))
            if game_id is None:
                return False
            q = sa.select(GameRow).where(GameRow.id == game_id).execution_options(populate_existing=True)
            g = s.scalars(q.with_for_update(skip_locked=claim)).first()
            if g is None:
                return False  # claimed by another process (only with ``claim``)
            if absences:
                before_processing(
                    db, s, g, phase_id, db.db_now(s) if now is None else as_utc(now), forced=not only_if_due
                )
            return process_locked(db, s, g, phase_id, now, only_if_due=only_if_due, ahead=ahead)
    except IntegrityError:
        # Another process wrote the next phase first: the phase has been processed, which is what we wanted.
        return False


@dataclass(frozen=True)
class Adjudicated:
    """One phase adjudicated from what it stood on (:func:`adjudicate_ahead`): what its processing writes, if
    the transaction that writes it finds the same submissions standing (:attr:`basis`) under the same variant."""

    phase_id: int
    variant: Variant
    basis: tuple[tuple[str, int, int, Any], ...]
    """(power, submission id, version, its lines) of each standing submission, in the powers' order."""
    used: dict[str, list[str]]
    results: list[Any]
    next_position: dict[str, Any]
    must: list[str]
    ending: Ending | None


def _basis(latest: dict[str, SubmissionRow]) -> tuple[tuple[str, int, int, Any], ...]:
    # The lines too, not only the row: a coordinator's review may change a version's lines in place.
    return tuple((power, sub.id, sub.version, sub.lines) for power, sub in sorted(latest.items()))


def _adjudicated(db: Database, v: Variant, ph: PhaseRow, latest: dict[str, SubmissionRow]) -> Adjudicated:
    """The adjudication of ``ph`` on the standing submissions ``latest``: pure computation, no writes. Its position
    as parsed once (:func:`phase_position`: the adjudicator changes none it is given)."""
    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.notation import OrderParseError, format_order, parse_order

    pos = phase_position(db, v, ph)
    kind = v.calendar.kind(pos.phase)
    orders: dict[str, list[Any]] = {}
    used: dict[str, list[str]] = {}
    for power, sub in sorted(latest.items()):
        accepted = [LineCheck.from_data(d) for d in sub.lines]
        parsed = []
        for line in accepted:
            if not line.accepted or line.order is None:
                continue
            try:
                parsed.append(parse_order(v, line.order, phase_kind=kind))
            except OrderParseError:  # pragma: no cover - a canonical order always reads back
                continue
        orders[power] = parsed
        used[power] = [format_order(v, o, phase_kind=kind) for o in parsed]
    must = list(powers_to_act(v, pos))
    resolution = adjudicate(v, pos, orders)
    return Adjudicated(
        phase_id=ph.id,
        variant=v,
        basis=_basis(latest),
        used=used,
        results=[result_data(v, r, kind) for r in resolution.results],
        next_position=position_to_data(v, resolution.next),
        must=must,
        ending=game_end(v, resolution.next),
    )


def adjudicate_ahead(db: Database, phase_id: int) -> Adjudicated | None:
    """Adjudicate an open phase from a snapshot, before the transaction that writes its results takes the write
    lock; ``None`` where that gains nothing (a database whose reads take the lock too: PostgreSQL locks the game's
    row alone, so its processing holds no other game's writers up) or the phase is not open.

    On SQLite the write lock is the whole file's: a phase adjudicated inside its transaction (a W3K phase, tens
    of milliseconds) held every player's submission to every game up for that long. The transaction then
    checks that the submissions standing are still the ones adjudicated (:func:`process_locked`) and adjudicates
    again under the lock when one arrived in between, so the results are always those of what stands."""
    if not db.reads_without_lock:
        return None
    try:
        with db.read_session() as s:
            ph = s.get(PhaseRow, phase_id)
            if ph is None or ph.status != "open":
                return None
            g = s.get(GameRow, ph.game_id)
            if g is None:
                return None
            ahead = _adjudicated(db, game_variant(g), ph, standing_versions(ph, on_time_only=True))
    except Exception:  # a phase that cannot be adjudicated fails again under the lock, where its caller reports it
        return None
    db.pause_point("process:adjudicated")
    return ahead


def process_locked(
    db: Database,
    s: Session,
    g: GameRow,
    phase_id: int,
    now: datetime | None,
    *,
    only_if_due: bool,
    ahead: Adjudicated | None = None,
    locked: PhaseRow | None = None,
) -> bool:
    """Process the phase of a game whose row this transaction has locked (see :func:`process_phase`): with the
    adjudication ``ahead`` made before the lock (:func:`adjudicate_ahead`) when it stands on the submissions
    standing now, else adjudicated here. ``locked``: the phase's row as this transaction has already locked and
    read it (a worker's claim); None: locked and read here."""
    ph = locked if locked is not None else s.get(PhaseRow, phase_id, with_for_update=True, populate_existing=True)
    if ph is None or ph.status != "open" or ph.game_id != g.id:
        return False
    now = db.db_now(s) if now is None else as_utc(now)
    v = game_variant(g)
    if only_if_due and not phase_due(db, s, g, v, ph, now):
        return False
    db.pause_point("process:locked")
    settings = game_settings(g)
    latest = standing_versions(ph, on_time_only=True)
    done = ahead
    if done is None or done.phase_id != ph.id or done.variant is not v or done.basis != _basis(latest):
        done = _adjudicated(db, v, ph, latest)
    # A power with a standing submission on time has taken part ("no orders" counts; chat does not).
    sent_photos = took_part(s, ph)  # taken part, whatever the coordinator made of them
    missed = [p for p in done.must if p not in latest and p not in sent_photos]
    ph.status = "processed"
    ph.processed_at = now
    ph.orders = done.used
    ph.results = done.results
    ph.next_position = done.next_position
    ph.missed = missed
    s.flush()
    db.crash_point("process:after-results")
    ending = done.ending
    if ending is not None:
        g.status = "finished"
        g.ending = ending.to_data()
    else:
        open_next_phase(s, g, v, settings, start_data=ph.next_position, seq=ph.seq + 1, now=now)
    log_event(s, g, now, "processed", phase=ph.name, seq=ph.seq, branch=ph.branch)
    # What the domains do with a processed phase (postal press goes out) is done in this same transaction.
    phase_processed(s, g, ph, now)
    s.flush()
    db.crash_point("process:before-commit")
    db.pause_point("process:before-commit")
    return True
