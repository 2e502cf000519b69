"""Games in a database: every coordinator action is one short transaction; :class:`GameStore` is the door.

The store is built of modules with one idea each, each function taking the store (a
:class:`dippouch.store.db.Database`) first; :class:`GameStore` hands out the most used of the games core's as its
methods, and callers call the rest from their modules (``store_claims.due_phases(store)``,
``store_rows.game_row(s, name)`` in a session the caller opened): a method that only forwards is not added. The
modules:

- :mod:`~dippouch.store.db`: the open database, its sessions and its clock;
- :mod:`~dippouch.store.rows`: finding a game's rows and reading what they mean;
- :mod:`~dippouch.store.games`: games and their seats; :mod:`~dippouch.store.variant_copy`: the game's own
  copy of its variant, compared with the file and upgraded on request;
- :mod:`~dippouch.store.submissions` and :mod:`~dippouch.store.standing`: orders as versions, and which
  one stands; :mod:`~dippouch.store.votes`: draw votes;
- :mod:`~dippouch.store.readiness`: whether a phase is due, and civil disorder;
  :mod:`~dippouch.store.status`: a game's state now;
- :mod:`~dippouch.store.processing`: adjudicating a phase; :mod:`~dippouch.store.claims`: what deadline
  workers find and take; :mod:`~dippouch.store.deadlines`: extending, pausing and resuming the clock;
- :mod:`~dippouch.store.history`: history, phase records, replay and rollback; :mod:`~dippouch.store.sealing`:
  the seal on the open phase's orders; :mod:`~dippouch.store.transfer`: the game file, out and in.

The store's domains (its sub-packages: :mod:`~dippouch.store.mail`, :mod:`~dippouch.store.press`,
:mod:`~dippouch.store.people`, :mod:`~dippouch.store.notify`...) and its other rooms (bots, the crash tests'
stopping points in :mod:`~dippouch.store.faults`...) are called as functions with the database first. No room imports this
facade: each takes the :class:`~dippouch.store.db.Database`, so the facade and its rooms never import each other.

The guarantees the coordinator relies on:

- A submission is committed before :meth:`GameStore.submit` returns, so an acknowledged submission is never
  lost.
- Processing a phase (:func:`dippouch.store.processing.process_phase`) reads, adjudicates and writes in one transaction. A
  crash anywhere leaves the game before the phase or after it; processing an already processed phase is a
  no-op, and the unique ``(game, branch, seq)`` key stops two processes from both writing the next phase.
- Nothing is deleted: resubmissions are new versions, a rollback abandons phases instead of removing them.
- Several processes (web servers, deadline workers, the coordinator's commands) may share one database.
  Whatever writes a game locks its ``games`` row first (submissions share that lock; processing, votes
  and coordinator actions take it alone), so a submission and the processing of its phase never
  interleave: the submission lands before processing starts, and is used, or after it has committed,
  when it names a phase that is no longer open it is refused. Workers claim a game for processing by
  locking its row with ``SKIP LOCKED`` (:func:`dippouch.store.claims.process_next_due`), so they never wait for each
  other.

Every method takes ``now``; the store never reads the clock, except where a method says that a missing
``now`` means the database's clock (:meth:`GameStore.clock`), which is what deadline workers go by.
"""

from __future__ import annotations

# Modules by their own names (not ``from dippouch.store import ...``, which would also import the package,
# whose __init__ imports this module); three by other names, as GameStore has methods of theirs.
import dippouch.store.claims as claims
import dippouch.store.deadlines as deadlines
import dippouch.store.games as _games
import dippouch.store.history as _history
import dippouch.store.processing as processing
import dippouch.store.sealing as sealing
import dippouch.store.status as _status
import dippouch.store.submissions as submissions
import dippouch.store.transfer as transfer
import dippouch.store.variant_copy as variant_copy
import dippouch.store.votes as votes
from dippouch.store.claims import DuePhase, PhaseFailed
from dippouch.store.db import Database
from dippouch.store.gamefile import SOURCES, clean_address
from dippouch.store.games import start_position
from dippouch.store.history import Carried
from dippouch.store.processing import IDLE_PHASES
from dippouch.store.records import phase_record_of
from dippouch.store.sealing import MAX_REASON, check_reason, is_sealed, seal_export, seal_submission
from dippouch.store.status import PowerStatus, Status
from dippouch.store.submissions import SubmitResult
from dippouch.store.transfer import GAME_FILE_FORMAT, GAME_FILE_VERSION
from dippouch.store.variant_copy import VariantDrift

__all__ = [
    "GAME_FILE_FORMAT",
    "GAME_FILE_VERSION",
    "IDLE_PHASES",
    "MAX_REASON",
    "SOURCES",
    "Carried",
    "DuePhase",
    "GameStore",
    "PhaseFailed",
    "PowerStatus",
    "Status",
    "SubmitResult",
    "VariantDrift",
    "check_reason",
    "clean_address",
    "is_sealed",
    "phase_record_of",
    "seal_export",
    "seal_submission",
    "start_position",
]


class GameStore(Database):
    """All games in one database (SQLite file by default; any SQLAlchemy URL, e.g. PostgreSQL).

    ``GameStore(url)`` opens the database (:class:`~dippouch.store.db.Database`: engine, sessions, clock).
    Each method below is a function of one of the store's modules, whose docstring is the method's.
    """

    # Games and their seats
    create_game = _games.create_game
    games = _games.games
    players = _games.players
    assign = _games.assign
    set_email = _games.set_email
    emails = _games.emails

    # The game's own copy of its variant
    variant = variant_copy.variant_of

    # Orders and draw votes
    submit = submissions.submit
    vote = votes.vote

    # A game's state now
    status = _status.status

    # Processing, and what deadline workers claim
    process = processing.process
    due_count = claims.due_count

    # The clock of a game
    extend = deadlines.extend
    pause = deadlines.pause
    resume = deadlines.resume

    # History, phase records, rollback
    history = _history.history
    phase_record = _history.phase_record
    rollback = _history.rollback

    # The seal on the open phase's orders, and the game file
    unsealings = sealing.unsealings
    game_file = transfer.game_file
    export_game = transfer.export_game
    import_game = transfer.import_game
