"""Rows as plain data: a phase as a value the rooms above the store read (:class:`StoredPhase`), a phase as a
report and the game file read it, a result as the adjudication contract writes it, and times as the game file
writes them (ISO 8601, UTC).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import as_utc
from dippouch.store.models import PhaseRow, SubmissionRow

__all__ = [
    "PhaseTimes",
    "StoredPhase",
    "iso_time",
    "phase_record_of",
    "phase_to_data",
    "read_time",
    "result_data",
    "submission_to_data",
]


@dataclass(frozen=True, slots=True)
class PhaseTimes:
    """A phase's name, standing and times, without its positions and orders: what a calendar lists of it."""

    id: int
    name: str
    status: str
    deadline: datetime | None
    processed_at: datetime | None


@dataclass(frozen=True)
class StoredPhase:
    """One phase as it leaves the store: what its row holds, read while the session was open, so a page or a
    command reads it after the session has closed (a row would then raise on what was not loaded)."""

    id: int
    game_id: int
    branch: int
    seq: int
    """Position in the game's line of play, from 0; a rollback reuses the numbers on a new branch."""
    name: str
    kind: str
    status: str
    """``open``, ``processed`` or ``abandoned``."""
    position: dict[str, Any]
    opened_at: datetime
    deadline: datetime | None
    """``None`` while the game is paused."""
    processed_at: datetime | None
    orders: dict[str, Any] | None
    results: list[Any] | None
    next_position: dict[str, Any] | None
    missed: list[Any] | None
    versions: int | None = None
    """How many versions were sent in the phase, where the read counted them (``history``), else None."""

    @classmethod
    def of(cls, row: PhaseRow, *, versions: int | None = None) -> StoredPhase:
        """The row's value (read inside the session that loaded it)."""
        return cls(
            row.id,
            row.game_id,
            row.branch,
            row.seq,
            row.name,
            row.kind,
            row.status,
            row.position,
            row.opened_at,
            row.deadline,
            row.processed_at,
            row.orders,
            row.results,
            row.next_position,
            row.missed,
            versions,
        )


def submission_to_data(sub: SubmissionRow, deadline: datetime | None) -> dict[str, Any]:
    """One stored version as a phase's record holds it (``late`` against the phase's ``deadline``): the one
    shape the game file and a player's own part of their page read."""
    return {
        "id": sub.id,
        "power": sub.power,
        "version": sub.version,
        "submitted_at": sub.submitted_at.isoformat(),
        "text": sub.text,
        "lines": sub.lines,
        "ready": sub.ready,
        "late": deadline is not None and sub.submitted_at > deadline,
        "source": sub.source,
        "recorded_at": iso_time(sub.recorded_at),
        "label": sub.label,
        "reinstates": sub.reinstates,
        "stands": sub.stands,
        "carried_from": sub.carried_from,
    }


def iso_time(dt: datetime | None) -> str | None:
    """A time as the game file writes it."""
    return dt.isoformat() if dt is not None else None


def read_time(text: str | None) -> datetime | None:
    """A time the game file wrote, back as an aware UTC time."""
    return as_utc(datetime.fromisoformat(text)) if text else None


def phase_record_of(
    game: str,
    ph: PhaseRow | StoredPhase,
    nxt: PhaseRow | StoredPhase | None,
    *,
    settings: Mapping[str, Any],
    ending: Mapping[str, Any] | None,
    submissions: bool = True,
    **about: Any,
) -> dict[str, Any]:
    """One phase as the plain record a report reads (:func:`dippouch.store.history.phase_record`), from rows already
    loaded: the phase, the one after it in its line (``nxt``), the game's settings, and its ending, shown
    only after the last phase processed. ``about`` adds keys about the game (its variant, options)."""
    return {
        "game": game,
        **about,
        "settings": settings,
        "ending": ending if (nxt is None and ph.status == "processed") else None,
        **phase_to_data(ph, submissions=submissions),
        "next_deadline": nxt.deadline.isoformat() if nxt is not None and nxt.deadline else None,
        "next_phase": nxt.name if nxt is not None else None,
    }


def phase_to_data(p: PhaseRow | StoredPhase, *, submissions: bool = True) -> dict[str, Any]:
    """A phase, with its submissions unless not ``submissions``, as the game file and the records hold it (a
    :class:`StoredPhase` carries no submissions: it is read with ``submissions=False``)."""
    if submissions and not isinstance(p, PhaseRow):
        raise TypeError("a StoredPhase carries no submissions: read it with submissions=False")
    subs = p.submissions if isinstance(p, PhaseRow) and submissions else []
    return {
        "id": p.id,
        "branch": p.branch,
        "seq": p.seq,
        "name": p.name,
        "kind": p.kind,
        "status": p.status,
        "position": p.position,
        "opened_at": p.opened_at.isoformat(),
        "deadline": iso_time(p.deadline),
        "processed_at": iso_time(p.processed_at),
        "orders": p.orders,
        "results": p.results,
        "next_position": p.next_position,
        "missed": p.missed,
        "submissions": [submission_to_data(sub, p.deadline) for sub in subs],
    }


def result_data(v: Variant, r: Any, kind: PhaseKind) -> dict[str, Any]:
    """An adjudication result in the adjudication contract's shape (:func:`dippouch.core.jsonio.result_to_json`),
    with its reason's message (``why``: id and values) beside the English."""
    from dippouch.core.jsonio import result_to_json

    out = result_to_json(v, r, kind)
    if out.get("reason"):
        # The reason as a message value beside its English: said in each reader's language where it is shown.
        out["why"] = r.why.to_data()
    return out
