"""A person's reliability, from what the games already store: how often they sent orders on time, late or not
at all, and how many seats they left in civil disorder.

Pure arithmetic on counts the store gathers (:mod:`dippouch.store.reliability`), so the rule is written once
and tested without a database. A person with no phase and no seat behind them has no score (``None``): a
newcomer is neither reliable nor unreliable, and a game asking a minimum says so to them rather than guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ABANDON_WEIGHT", "LATE_CREDIT", "Mark", "Record", "meets", "score", "tally"]

LATE_CREDIT = 50
"""Percent of an on-time phase a late one earns: half: the orders came, but the game waited for them (or went on without them)."""

ABANDON_WEIGHT = 5
"""A seat left in civil disorder weighs as five missed phases: the game lost a player, not one turn."""


@dataclass(frozen=True)
class Mark:
    """One phase a person's seat had to act in: what they did about it."""

    on_time: bool
    """Orders that stood were received by the deadline."""
    late: bool
    """Orders came only after the deadline."""


@dataclass(frozen=True)
class Record:
    """A person's record across all their seats."""

    on_time: int = 0
    late: int = 0
    missed: int = 0
    seats: int = 0
    """Seats they have held (now or before)."""
    abandoned: int = 0
    """Seats they left in civil disorder (or the coordinator freed from them)."""

    @property
    def phases(self) -> int:
        return self.on_time + self.late + self.missed

    def __add__(self, other: Record) -> Record:
        return Record(
            self.on_time + other.on_time,
            self.late + other.late,
            self.missed + other.missed,
            self.seats + other.seats,
            self.abandoned + other.abandoned,
        )


def tally(marks: Iterable[Mark], *, abandoned: bool = False) -> Record:
    """One seat's record from its phases (each counted once: on time, else late, else missed)."""
    on_time = late = missed = 0
    for m in marks:
        if m.on_time:
            on_time += 1
        elif m.late:
            late += 1
        else:
            missed += 1
    return Record(on_time, late, missed, 1, 1 if abandoned else 0)


def score(record: Record) -> int | None:
    """Reliability in percent (0-100), rounded down; ``None`` for someone with no record yet.

    ``(on time + late / 2) / (phases + ABANDON_WEIGHT x seats abandoned)``, in whole numbers (no rounding
    drift): every phase counts, a late one half, and a seat abandoned costs as much as several missed phases even when it was abandoned
    early (a player who leaves after two turns is not 100 % reliable)."""
    weight = record.phases + ABANDON_WEIGHT * record.abandoned
    if weight == 0:
        return None
    return (100 * record.on_time + LATE_CREDIT * record.late) // weight


def meets(reliability: int | None, minimum: int) -> bool:
    """Whether a person with ``reliability`` may join a game asking ``minimum`` percent: a minimum of 0 asks
    nothing; any other minimum needs a record that reaches it (a newcomer has none to show)."""
    if minimum <= 0:
        return True
    return reliability is not None and reliability >= minimum
