"""Rows as plain data: a phase as a report and the game file read it, a result as the adjudication
contract writes it, and times as the game file writes them (ISO 8601, UTC).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.game import as_utc
from dippouch.store.models import PhaseRow

__all__ = ["iso_time", "phase_record_of", "phase_to_data", "read_time", "result_data"]


def iso_time(dt: datetime | None) -> str | None:
    """A time as the game file writes it."""
    return dt.isoformat() if dt is not None else None


def read_time(text: str | None) -> datetime | None:
    """A time the game file wrote, back as an aware UTC time."""
    return as_utc(datetime.fromisoformat(text)) if text else None


def phase_record_of(
    game: str,
    ph: PhaseRow,
    nxt: PhaseRow | None,
    *,
    settings: Mapping[str, Any],
    ending: Mapping[str, Any] | None,
    submissions: bool = True,
    **about: Any,
) -> dict[str, Any]:
    """One phase as the plain record a report reads (:meth:`GameStore.phase_record`), from rows already
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


def phase_to_data(p: PhaseRow, *, submissions: bool = True) -> dict[str, Any]:
    """A phase, with its submissions unless not ``submissions``, as the game file and the records hold it."""
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
        "submissions": [
            {
                "id": sub.id,
                "power": sub.power,
                "version": sub.version,
                "submitted_at": sub.submitted_at.isoformat(),
                "text": sub.text,
                "lines": sub.lines,
                "ready": sub.ready,
                "late": p.deadline is not None and sub.submitted_at > p.deadline,
                "source": sub.source,
                "recorded_at": iso_time(sub.recorded_at),
                "label": sub.label,
                "reinstates": sub.reinstates,
                "stands": sub.stands,
                "carried_from": sub.carried_from,
            }
            for sub in (p.submissions if submissions else ())
        ],
    }


def result_data(v: Variant, r: Any, kind: PhaseKind) -> dict[str, Any]:
    """An adjudication result in the adjudication contract's shape (:func:`dippouch.core.jsonio.result_to_json`)."""
    from dippouch.core.jsonio import result_to_json

    return result_to_json(v, r, kind)
