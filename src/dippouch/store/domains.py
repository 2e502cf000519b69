"""What the games core asks of the domains around it, as a registry each domain fills when it is imported.

The core decides when (a phase is about to be processed, has been processed, is asked whether it is due; a
submission's transaction is ending; a game file is written or read; a person's grants are read); a domain says
what it adds then. The core
never names a domain (tests/project/test_import_layers.py), so a domain can be added or left out without
touching the core.

**Nothing is missed.** The store package's ``__init__`` imports each domain's ``hooks`` module
(:data:`dippouch.store.DOMAINS`), and Python runs a package's ``__init__`` before any module inside it: a
process that reaches any function of the store has every domain registered (tests/store/test_domains.py proves
it in a fresh interpreter). A domain's ``hooks`` module imports only this one; its functions import the
domain's rooms when first called, so a command that only submits orders maps none of the domain's tables.

Each registration is keyed by the domain's name, so importing a ``hooks`` module again (a reload in a test)
replaces its entries rather than doubling them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from dippouch.store.db import known_in

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dippouch.store.db import Database
    from dippouch.store.models import GameRow, PhaseRow

__all__ = [
    "Condition",
    "FileRecord",
    "Review",
    "ask_before_processing",
    "before_processing",
    "file_records",
    "file_shares",
    "held_phase_ids",
    "holds",
    "may_hold",
    "phase_processed",
    "record_in",
    "register_before_processing",
    "register_file_record",
    "register_file_share",
    "register_processed",
    "register_recorder",
    "register_review",
    "register_stand_ins",
    "registered",
    "stand_in_seats",
    "took_part",
]

BeforeProcessing = Callable[["Database", "Session", "GameRow", int, datetime, bool], None]
"""Under the game's lock, before a phase is processed: (db, session, game, phase id, now, forced), forced being
the coordinator's "process now" rather than a deadline."""
Processed = Callable[["Session", "GameRow", "PhaseRow", datetime], None]
"""In the processing transaction, once the phase is processed: (session, game, the processed phase, now)."""
StandIns = Callable[["Session", int, date], list[tuple[str, str]]]
"""Seats a person orders today beside their own, as (game, power): (session, person id, today)."""
Recorder = Callable[["Database", "Session", Any], object]
"""In a submission's transaction: records one value its caller's ``then`` made of the result."""
FileShare = Callable[["Database", str, bool], Any]
"""The part of a game file a reader may have, or ``None``: (db, game, coordinator)."""
Condition = Callable[[], Any]
"""() -> an SQL condition over the bound values ``game_id``, ``phase_id``, ``seq`` and ``name`` of a phase about to
be processed, false where a hook has nothing to do for it (for nearly every phase: no absence policy, no mail, no
postal press). A deadline worker asks every hook's at once, in one statement, once it holds the phase
(:func:`ask_before_processing`), and a hook whose condition was false is not called in that transaction: a
worker's phase is made of round trips, and a hook asking for itself is one more for every phase. Its answer is
the transaction's first, so it may not depend on what the processing itself writes. Built when first asked (the
domain's tables are mapped then)."""


@dataclass(frozen=True)
class Review:
    """A domain that may hold an open phase for the coordinator, and knows who took part without orders."""

    holds: Callable[[Session, PhaseRow, datetime], bool]
    """Whether the phase waits for the coordinator now (it is then not due)."""
    held_phase_ids: Callable[[Session, datetime], Iterable[int]]
    """Every open phase that waits now: the deadline workers' scans leave them out."""
    took_part: Callable[[Session, PhaseRow], set[str]]
    """Powers that took part in the phase by this domain's means (not missed, so no civil disorder)."""
    may_hold: Callable[[Any], Any]
    """(a games table's id column) -> an SQL condition, false where no phase of the game can wait for this domain:
    read with every page's lookup (:mod:`dippouch.store.page_cache`), so that a page past its deadline asks
    :attr:`holds` only of a game where it may be true (at a thousand games, almost none)."""
    concerns: Condition | None = None
    """False where the phase has nothing for this domain: :attr:`holds` and :attr:`took_part` are then not asked
    of it in the transaction that asked (:data:`Condition`)."""


@dataclass(frozen=True)
class FileRecord:
    """A part of the whole game file kept by a domain, under the file's key of the domain's name: written in the
    export's session, read back in the import's transaction, sealed in a coordinator's file, left out of the
    public one."""

    write: Callable[[Session, int, list[int], list[int]], Any]
    """(session, game id, the phases' ids and the events' ids in the file's order) -> the part."""
    read: Callable[[Session, int, Any, list[int], list[int], dict[int, int]], None]
    """(session, new game id, the part, new phase ids, new event ids, old submission id -> new)."""
    seal: Callable[[dict[str, Any], set[int]], object]
    """(the file, the places of the sealed phases): hides what may hold sealed orders."""


_before: dict[str, BeforeProcessing] = {}
_processed: dict[str, Processed] = {}
_reviews: dict[str, Review] = {}
_recorders: dict[type, Recorder] = {}
_stand_ins: dict[str, StandIns] = {}
_records: dict[str, FileRecord] = {}
_shares: dict[str, FileShare] = {}
_conditions: dict[tuple[str, str], Condition] = {}
"""(hook kind, domain) -> the hook's :data:`Condition`."""
_asking: list[tuple[tuple[tuple[str, str], ...], Any]] = []
"""The statement of :func:`ask_before_processing` as built for the conditions then registered (one at most)."""
_ASKED = "domains.asked"
"""The key of the answers :func:`ask_before_processing` leaves in the session's :func:`known_in`."""


def _condition(kind: str, domain: str, condition: Condition | None) -> None:
    if condition is None:
        _conditions.pop((kind, domain), None)
    else:
        _conditions[(kind, domain)] = condition
    _asking.clear()


def register_before_processing(domain: str, hook: BeforeProcessing, *, only_if: Condition | None = None) -> None:
    _before[domain] = hook
    _condition("before", domain, only_if)


def register_processed(domain: str, hook: Processed, *, only_if: Condition | None = None) -> None:
    _processed[domain] = hook
    _condition("processed", domain, only_if)


def register_review(domain: str, review: Review) -> None:
    _reviews[domain] = review
    _condition("review", domain, review.concerns)


def register_stand_ins(domain: str, hook: StandIns) -> None:
    _stand_ins[domain] = hook


def register_recorder(kind: type, hook: Recorder) -> None:
    """Values of ``kind`` handed back by a submission's ``then`` are recorded by ``hook``."""
    _recorders[kind] = hook


def register_file_record(domain: str, record: FileRecord) -> None:
    _records[domain] = record


def register_file_share(domain: str, share: FileShare) -> None:
    _shares[domain] = share


def registered() -> dict[str, list[str]]:
    """What each hook holds, by domain (the test of the guarantee reads it)."""
    return {
        "before_processing": sorted(_before),
        "processed": sorted(_processed),
        "review": sorted(_reviews),
        "stand_ins": sorted(_stand_ins),
        "recorders": sorted(f"{k.__module__}.{k.__qualname__}" for k in _recorders),
        "file_records": sorted(_records),
        "file_shares": sorted(_shares),
    }


def ask_before_processing(s: Session, ph: PhaseRow) -> None:
    """Ask every hook's :data:`Condition` of ``ph``, in one statement; the hooks whose answer is false are then not
    called for it in this transaction (:func:`before_processing`, :func:`holds`, :func:`took_part`,
    :func:`phase_processed`). Asked by a deadline worker once it holds the phase, under the game's lock."""
    if not _asking:
        keys = tuple(_conditions)
        _asking.append((keys, sa.select(*(_conditions[k]() for k in keys)) if keys else None))
    keys, statement = _asking[0]
    if statement is None:
        return
    row = s.execute(statement, {"game_id": ph.game_id, "phase_id": ph.id, "seq": ph.seq, "name": ph.name}).one()
    known = known_in(s)
    for key, answer in zip(keys, row, strict=True):
        known[(_ASKED, *key, ph.id)] = bool(answer)


def _nothing(s: Session, kind: str, domain: str, phase_id: int) -> bool:
    """Whether :func:`ask_before_processing` found nothing for the domain's hook in this phase (else: not asked, or
    something)."""
    return known_in(s).get((_ASKED, kind, domain, phase_id)) is False


def before_processing(db: Database, s: Session, g: GameRow, phase_id: int, now: datetime, *, forced: bool) -> None:
    for domain, hook in _before.items():
        if not _nothing(s, "before", domain, phase_id):
            hook(db, s, g, phase_id, now, forced)


def phase_processed(s: Session, g: GameRow, ph: PhaseRow, now: datetime) -> None:
    for domain, hook in _processed.items():
        if not _nothing(s, "processed", domain, ph.id):
            hook(s, g, ph, now)


def holds(s: Session, ph: PhaseRow, now: datetime) -> bool:
    return any(r.holds(s, ph, now) for d, r in _reviews.items() if not _nothing(s, "review", d, ph.id))


def held_phase_ids(s: Session, now: datetime) -> list[int]:
    return sorted({i for r in _reviews.values() for i in r.held_phase_ids(s, now)})


def may_hold(game_id: Any) -> list[Any]:
    """Each domain's :attr:`Review.may_hold` of the games table's id column ``game_id``."""
    return [r.may_hold(game_id) for r in _reviews.values()]


def took_part(s: Session, ph: PhaseRow) -> set[str]:
    return {p for d, r in _reviews.items() if not _nothing(s, "review", d, ph.id) for p in r.took_part(s, ph)}


def stand_in_seats(s: Session, person_id: int, today: date) -> list[tuple[str, str]]:
    return [seat for hook in _stand_ins.values() for seat in hook(s, person_id, today)]


def record_in(db: Database, s: Session, value: object) -> None:
    """Record ``value`` with the domain that registered its type; a value no domain knows is a bug, said so."""
    hook = _recorders.get(type(value))
    if hook is None:
        raise TypeError(f"no domain records a {type(value).__qualname__} in a submission's transaction")
    hook(db, s, value)


def file_records() -> dict[str, FileRecord]:
    return dict(_records)


def file_shares() -> dict[str, FileShare]:
    return dict(_shares)
