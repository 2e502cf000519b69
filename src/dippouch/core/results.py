"""What adjudication returns: a result for every order, in DATC v3.2's words, and the next position."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from dippouch.core.orders import Order
from dippouch.core.position import Position

__all__ = ["OrderResult", "Outcome", "Resolution"]


class Outcome(StrEnum):
    """DATC v3.2 resolution terminology (issue 4.E.2), plus the results of builds and disbands.

    Moves: illegal/invalid/fails/succeeds. Supports: illegal/invalid/cut/given. Convoys:
    illegal/invalid/disrupted/available. Holds: stands (or dislodged, reported by the flag).
    """

    ILLEGAL = "illegal"
    INVALID = "invalid"
    FAILS = "fails"
    SUCCEEDS = "succeeds"
    CUT = "cut"
    GIVEN = "given"
    DISRUPTED = "disrupted"
    AVAILABLE = "available"
    STANDS = "stands"
    DISLODGED = "dislodged"


class OrderResult(NamedTuple):
    """The result of one order. A named tuple rather than a frozen dataclass: the adjudicator makes one
    per order on its hot path, and a tuple is built three times faster; it is just as immutable."""

    power: str
    order: Order
    result: Outcome
    dislodged: bool = False
    destroyed: bool = False
    """Dislodged with nowhere to retreat."""
    automatic: bool = False
    """Added by the adjudicator itself (civil-disorder removal, hold for an unordered unit)."""
    reason: str = ""
    """Why, for anything but plain success."""
    index: int | None = None  # type: ignore[assignment]  # (shadows tuple.index on purpose)
    """Index of the order in the power's submitted list; ``None`` for automatic orders."""


@dataclass(frozen=True, slots=True)
class Resolution:
    results: tuple[OrderResult, ...]
    next: Position
