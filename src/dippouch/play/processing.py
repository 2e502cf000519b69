"""Processing phases: a named game's phase now, on a coordinator's word, and every phase that is due, as the
workers and the served site's scheduler do at each look.

"Process now" (the coordinator's desk, the JSON API's ``process`` action, ``dippouch process GAME``) goes on as
a game does after ready orders (:func:`dippouch.play.progress.go_on`): the bots seated in the game send their
orders in each phase that opens, so a desk's "process now" and the command line's leave the same game behind.

"Process what is due" (:func:`process_due`) is the one function that finds due phases and processes them; its
guarantees (exactly once, in order, crash-safe, by the database's clock) come from the store's claim
(:func:`dippouch.store.claims.process_next_due`). A door that keeps counts (the worker's metrics) passes a :class:`Meter`.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from dippouch.bots.practice import stop_left_practice_games, stop_unwatched_bot_games
from dippouch.bots.seats import Think
from dippouch.core.messages import Msg, PhaseName, msg, nmsg
from dippouch.game import GameError
from dippouch.play.fairness import end_lapsed_graces, end_voted_pauses
from dippouch.play.progress import MAX_STEPS
from dippouch.store import claims as store_claims
from dippouch.store import processing as store_processing
from dippouch.store.bots import games_with_bots
from dippouch.store.db import DatabaseError
from dippouch.store.repository import DuePhase, GameStore, PhaseFailed
from dippouch.store.votes import lapse_stale

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = [
    "RETRY_FAILED_AFTER",
    "Meter",
    "Processed",
    "ProcessedNow",
    "ScanMemory",
    "TooSoon",
    "process_due",
    "process_now",
]

log = logging.getLogger("dippouch.worker")

RETRY_FAILED_AFTER = 300.0
"""Seconds before a phase whose processing failed with an error is tried again by the same process."""

GRACES_EVERY = 300.0
"""Seconds between one process's looks for lapsed grace pauses (a day's pause ends at most this much late)."""

LOOKS_WHILE_BEHIND = 1.0
"""Seconds between one process's looks for practice games left, games of bots nobody watches, bots to play and
phases everyone is ready in, while phases past their deadline wait (:attr:`ScanMemory.contended`). A busy
worker calls :func:`process_due` for a few phases at a time, several times a second; three of the looks, each a
scan of every active game, took some 3 s of the 19 s PostgreSQL spent executing statements in a round of the
issue bench (benchmarks/README.md, issue 57). A phase ready before its deadline is then processed at most this
much later, or when it falls due; a process that keeps up looks at every call."""


@dataclass(frozen=True)
class ProcessedNow:
    """The phases a "process now" processed, in order: the one asked for, then those the bots alone completed."""

    game: str
    phases: tuple[str, ...]

    @property
    def message(self) -> Msg:
        """What was done, said at the door in the reader's words (phases with their season and phase words)."""
        if not self.phases:
            return msg("Nothing was processed.")
        first = PhaseName(self.phases[0])
        if len(self.phases) == 1:
            return msg("Processed %(phase)s.", phase=first)
        return nmsg(
            "Processed %(phase)s, then %(num)d phase the bots alone played.",
            "Processed %(phase)s, then %(num)d phases the bots alone played.",
            len(self.phases) - 1,
            phase=first,
        )

    @property
    def text(self) -> str:
        """:attr:`message` in English (the command line's and the logs')."""
        return str(self.message)


class TooSoon(GameError):
    """A "process now" of a game bots alone play, asked before the installation's pace allows its next phase
    (:func:`dippouch.bots.seats.bot_pace`): worth asking again in :attr:`retry_after` seconds."""

    def __init__(self, message: Msg, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def process_now(
    store: GameStore,
    game: str,
    *,
    now: datetime,
    force: bool = False,
    limit: int = MAX_STEPS,
    think: Think | None = None,
) -> ProcessedNow:
    """Process ``game``'s open phase: with ``force`` even before its deadline and with powers not ready (the
    coordinator's word), else only if it is due. The bots order each phase that opens; a phase they alone had
    to order is processed too, at most ``limit`` phases in all. A paused game is refused (GameError) when
    ``force`` asks for it.

    A game bots alone play goes one phase a call, and no faster than the installation's pace: ``force`` within
    it is refused (:class:`TooSoon`, saying when to ask again), since its bots would order that phase only then
    (:func:`dippouch.bots.seats.pace_wait`). ``think``: where the bots think (here by default)."""
    from dippouch.bots.seats import bot_pace, pace_wait, process_with_bots, think_here

    if force and (wait := pace_wait(store, game, now=now)) is not None:
        seconds = max(1, math.ceil(wait.total_seconds()))
        raise TooSoon(
            msg(
                "bots alone play %(game)s, and this site plays such a game at most one phase every %(pace)d s: "
                "process it again in %(wait)d s",
                game=game,
                pace=round(bot_pace().total_seconds()),
                wait=seconds,
            ),
            seconds,
        )
    phases = process_with_bots(store, game, now=now, force=force, limit=limit, think=think or think_here)
    return ProcessedNow(game, tuple(phases))


@dataclass(frozen=True)
class Processed:
    """A phase processed because it was due."""

    game: str
    phase: str
    phase_id: int
    seconds: float
    """Wall time of the processing transaction."""


@dataclass
class ScanMemory:
    """What one process remembers between looks, so it does not redo work that cannot have changed.

    ``not_ready`` holds phases some power is ready in but not everyone, with the (newest submission,
    newest player) stamp they had: readiness only changes when a submission arrives or a player is
    seated, so the phase is checked again only then. ``failed`` holds phases whose processing raised
    an error, and when, so one broken game cannot make a worker spin on it.
    """

    not_ready: dict[int, tuple[int, int]] = field(default_factory=dict)
    failed: dict[int, float] = field(default_factory=dict)
    contended: int = 0
    """Phases past their deadline that the last call found in another process's hands (or just done)."""
    graces_looked: float | None = None
    """When (``time.monotonic``) this process last looked for creators' grace pauses that have lapsed."""
    looked: float | None = None
    """When (``time.monotonic``) this process last looked for games to stop, bots to play and phases ready early
    (:data:`LOOKS_WHILE_BEHIND`)."""
    waiting: int | None = None
    """Phases past their deadline still open at the end of the last call (None: no call yet): where the worker's
    hooks after each phase start weighing how many more fall due (``dippouch.worker.service``), rather than
    counting them again as the next call begins."""
    held: store_claims.Held = field(default_factory=store_claims.Held)
    """The phases held for the coordinator as the call in hand read them (read afresh at each call's start): its
    claims and the counts of phases due made meanwhile (the worker's hooks) leave them out without asking."""


class Meter(Protocol):
    """What a door counts of :func:`process_due`'s work (the worker's Prometheus metrics)."""

    def processed(self, due: DuePhase, seconds: float, late: float | None) -> None:
        """``due`` processed in ``seconds``, ``late`` seconds after its deadline (None: it had none)."""

    def failed(self) -> None:
        """A phase's processing failed with an error (it is skipped for a while)."""

    def waiting(self, count: int) -> None:
        """Phases past their deadline and still open after this call."""


def process_due(
    store: GameStore,
    *,
    now: datetime | None = None,
    limit: int = 100,
    stop: Callable[[], bool] | None = None,
    memory: ScanMemory | None = None,
    meter: Meter | None = None,
    then: Callable[[Processed], object] | None = None,
) -> list[Processed]:
    """Process due phases (deadline passed, or everyone who must act ready; never paused games), oldest
    deadline first, at most ``limit`` of them; the phases this call processed, in the order it did.

    Safe to call from any number of processes at once. ``now=None``: the database's clock decides what
    is due (give ``now`` only to process "as of" a moment, as tests and the coordinator's ``--now`` do).
    ``stop`` is asked between phases (a worker told to shut down finishes the phase in hand and stops).
    ``then`` is called with each phase as soon as it is processed, before the next is claimed (a worker makes
    the game's page there, before its readers come for it).
    """
    memory = memory if memory is not None else ScanMemory()
    started = time.monotonic()
    behind = memory.contended > 0  # phases past their deadline waited at the end of the last call
    looks = not behind or memory.looked is None or started - memory.looked >= LOOKS_WHILE_BEHIND
    memory.contended = 0
    graces = memory.graces_looked is None or started - memory.graces_looked >= GRACES_EVERY

    @functools.cache
    def at() -> datetime:
        """The housekeeping's moment: one reading of the database's clock (a round trip), when there is some."""
        return store.clock() if now is None else now

    if looks:
        memory.looked = started
        # A practice game its person has left stops first (paused), so its bots do not play on against nobody.
        # Then the bots send their orders (they never hold a phase up): a phase they complete is then due. The
        # bots themselves are imported only when some game has one.
        stop_left_practice_games(store, now=at())
        # So does a game bots alone play that nobody looks at (bots.practice.UNWATCHED).
        stop_unwatched_bot_games(store, now=at())
    # A player-run game's creator's one pause ends by itself after a day (play.fairness.GRACE), and a pause its
    # table voted when its time is up; looked for every few minutes, not at every look.
    if graces:
        memory.graces_looked = started
        end_lapsed_graces(store, now=at())
        end_voted_pauses(store, now=at())  # a pause the table voted, over
        lapse_stale(store, now=at())  # proposals whose phase is over
    with_bots = games_with_bots(store) if looks else []
    if with_bots:
        from dippouch.bots.seats import play_seats

        play_seats(store, now=store.clock() if now is None else now, games=with_bots)
    done: list[Processed] = []

    def record(due: DuePhase, seconds: float) -> None:
        log.info("processed %s: %s (%.3f s)", due.game, due.phase, seconds)
        done.append(Processed(due.game, due.phase, due.phase_id, seconds))
        if then is not None:
            then(done[-1])
        if meter is not None:
            late = None
            if due.deadline is not None:
                processed_at = due.processed_at or (store.clock() if now is None else now)
                late = max(0.0, (processed_at - due.deadline).total_seconds())
            meter.processed(due, seconds, late)

    # Past their deadline: claimed one at a time, each by a query that skips games in other hands, and the phases
    # held for the coordinator read once for the call's claims.
    held = memory.held = store_claims.Held()
    while len(done) < limit and not (stop is not None and stop()):
        t0 = time.perf_counter()
        skip = [pid for pid, at in memory.failed.items() if started - at < RETRY_FAILED_AFTER]
        try:
            due = store_claims.process_next_due(store, now=now, skip=skip, held=held)
        except PhaseFailed as e:  # one broken game must not stop the others: skipped for a while
            memory.failed[e.phase_id] = started
            if meter is not None:
                meter.failed()
            log.error("%s (tried again in %d s)", e, RETRY_FAILED_AFTER)
            continue
        if due is None:
            break
        record(due, time.perf_counter() - t0)
    waiting = store_claims.due_count(store, now=now, held=held)
    if meter is not None:
        meter.waiting(waiting)
    failing = sum(1 for at in memory.failed.values() if started - at < RETRY_FAILED_AFTER)
    memory.contended = max(0, waiting - failing)  # due, but in other processes' hands: worth another look soon
    memory.waiting = waiting

    # Before their deadline, with some power ready: processed when everyone who must act is.
    for due in store_claims.due_phases(store, now=now, limit=limit, past=False) if looks else ():
        if (stop is not None and stop()) or len(done) >= limit:
            break
        failed_at = memory.failed.get(due.phase_id)
        if failed_at is not None and started - failed_at < RETRY_FAILED_AFTER:
            continue
        if memory.not_ready.get(due.phase_id) == due.stamp:
            continue
        try:
            if not store_claims.is_due(store, due.phase_id, now=now):
                memory.not_ready[due.phase_id] = due.stamp
                continue
            t0 = time.perf_counter()
            if not store_processing.process_phase(store, due.phase_id, now=now, only_if_due=True, claim=True):
                continue  # another process has it (or had it)
        except Exception as e:  # one broken game must not stop the others (a database error stops the look)
            if isinstance(e, DatabaseError):
                raise
            memory.failed[due.phase_id] = started
            if meter is not None:
                meter.failed()
            log.error("cannot process %s: %s: %s", due.game, due.phase, e)
            continue
        memory.not_ready.pop(due.phase_id, None)
        record(due, time.perf_counter() - t0)
    if len(memory.not_ready) > 10 * limit:  # phases that were processed or abandoned meanwhile
        memory.not_ready.clear()
    return done
