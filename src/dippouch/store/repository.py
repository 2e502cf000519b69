"""Games in a database: every coordinator action is one short transaction; :class:`GameStore` is the door.

The store is built of modules with one idea each, each function taking the store (a
:class:`dippouch.store.db.Database`) first, and callers call them from their modules
(``store_submissions.submit(store, ...)``, ``store_claims.due_phases(store)``, ``store_rows.game_row(s, name)`` in
a session the caller opened): :class:`GameStore` forwards nothing, so each function has one name. The modules:

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

- A submission is committed before :func:`dippouch.store.submissions.submit` returns, so an acknowledged submission is never
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

    ``GameStore(url)`` opens the database (:class:`~dippouch.store.db.Database`: engine, sessions, clock); what is
    done with it is a function of one of the store's modules, called with the store first."""
