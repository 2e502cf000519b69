"""A stored phase's report in the Judge's plain-text layout: the record read from the store, written by
:func:`dippouch.report.phase_report`. Here, above both, so that the store stores and the report writes, and
neither imports the other."""

from __future__ import annotations

from dippouch.report import phase_report
from dippouch.store.db import Database
from dippouch.store.history import phase_record
from dippouch.store.variant_copy import variant_of

__all__ = ["stored_report"]


def stored_report(
    db: Database, name: str, phase: str | None = None, phase_id: int | None = None, *, full: bool = True
) -> str:
    """A phase's report (the latest by default): full names, or abbreviations if not ``full``."""
    # With the submissions: a report names the lines a power sent that were not accepted (never the others).
    rec = phase_record(db, name, phase, phase_id)
    return phase_report(variant_of(db, name), rec, full=full)
