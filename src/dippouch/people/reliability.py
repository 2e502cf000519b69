"""A person's reliability, from what the games already store: how often they sent orders on time, late or not
at all in the phases they held, and how many seats they abandoned.

Pure arithmetic on counts the store gathers (:mod:`dippouch.store.people.reliability`), so the rule is written once
and tested without a database. A person with no phase and no seat behind them has no score (``None``): a
newcomer is neither reliable nor unreliable, and a game asking a minimum says so to them rather than guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "ABANDON_WEIGHT",
    "LATE_CREDIT",
    "PROBATION_SEATS",
    "Mark",
    "Record",
    "abandoned",
    "is_newcomer",
    "meets",
    "on_probation",
    "score",
    "tally",
]

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
    excused: bool = False
    """The person had recorded, before the orders were taken, that they were away that day: whoever ordered
    the seat then (a stand-in, standing orders, a proxy ally, or nobody) did it in their absence, and the
    holiday rules of the rulebooks hold an announced absence against nobody."""

    @property
    def missed(self) -> bool:
        """Nothing came at all."""
        return not self.on_time and not self.late


@dataclass(frozen=True)
class Record:
    """A person's record across all their seats."""

    on_time: int = 0
    late: int = 0
    missed: int = 0
    seats: int = 0
    """Seats they have held (now or before)."""
    abandoned: int = 0
    """Seats they abandoned (:func:`abandoned`), each once."""
    excused: int = 0
    """Phases of their seats that fell in an absence they had announced: counted neither for nor against."""

    @property
    def phases(self) -> int:
        """The phases that judge them: on time, late or missed (never the excused ones)."""
        return self.on_time + self.late + self.missed

    def __add__(self, other: Record) -> Record:
        return Record(
            self.on_time + other.on_time,
            self.late + other.late,
            self.missed + other.missed,
            self.seats + other.seats,
            self.abandoned + other.abandoned,
            self.excused + other.excused,
        )


def tally(marks: Iterable[Mark], *, abandoned: bool = False) -> Record:
    """One seat's record from its phases (each counted once: excused, else on time, else late, else missed)."""
    on_time = late = missed = excused = 0
    for m in marks:
        if m.excused:
            excused += 1
        elif m.on_time:
            on_time += 1
        elif m.late:
            late += 1
        else:
            missed += 1
    return Record(on_time, late, missed, 1, 1 if abandoned else 0, excused)


def abandoned(last_missed: bool, *, disorder: bool, freed: bool, handed_over: bool) -> bool:
    """Whether a person abandoned a seat; whichever of the reasons hold, the seat counts once.

    ``disorder``: their time on the seat ended (or stands) in civil disorder, the game's own missed-phase
    limit reached; ``freed``: the coordinator offered it to the replacement pool (the person left, or asked
    to be replaced); ``handed_over`` with ``last_missed``: the seat was given to someone else (a person, a
    bot) after a phase they sent nothing for, however the hand-over came. A seat handed over after orders
    that came is a hand-over, not an abandonment: a coordinator's swap, a game's re-seating.

    Judged on what the game did, absence or not: an absence excuses the phases it covers, not the loss of
    the seat (what keeps a seat through a holiday is the game's absence policy)."""
    return disorder or freed or (handed_over and last_missed)


def score(record: Record) -> int | None:
    """Reliability in percent (0-100), rounded down; ``None`` for someone with no record yet.

    ``(on time + late / 2) / (phases + ABANDON_WEIGHT x seats abandoned)``, in whole numbers (no rounding
    drift): every phase counts, a late one half, and a seat abandoned costs as much as several missed phases even when it was abandoned
    early (a player who leaves after two turns is not 100 % reliable). Excused phases are in neither part."""
    weight = record.phases + ABANDON_WEIGHT * record.abandoned
    if weight == 0:
        return None
    return (100 * record.on_time + LATE_CREDIT * record.late) // weight


PROBATION_SEATS = 3
"""A person with fewer seats than this on their record, no phase missed and no seat abandoned, is on probation:
a game asking a reliability lets them in. Without it a newcomer could never qualify (no game asking one would take them, and
only such games would give them the record it asks: the players' trial, issue 55)."""


def is_newcomer(record: Record) -> bool:
    """Whether ``record`` is too short to judge: fewer seats than :data:`PROBATION_SEATS`, however they went. A
    game not for newcomers (``GameSettings.newcomers`` off) turns these away, a clean record or not: its creator
    asked for people who have been through a few games."""
    return record.seats < PROBATION_SEATS


def on_probation(record: Record) -> bool:
    """Whether ``record`` is a newcomer's: too few seats to judge, no phase missed and no seat left behind."""
    return is_newcomer(record) and record.missed == 0 and record.abandoned == 0


def meets(reliability: int | None, minimum: int, *, probation: bool = False) -> bool:
    """Whether a person with ``reliability`` may join a game asking ``minimum`` percent: a minimum of 0 asks
    nothing; any other minimum needs a record that reaches it, or a newcomer on probation (:func:`on_probation`),
    who has none yet to show."""
    if minimum <= 0 or probation:
        return True
    return reliability is not None and reliability >= minimum
