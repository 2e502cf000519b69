"""Positions: the whole state of a game at one phase, as a value.

A position round-trips through JSON (see :mod:`dippouch.core.jsonio`); the adjudication contract's
``next`` is exactly that JSON. Provinces are integer ids of the variant's compiled map.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from dippouch.core.calendar import Phase

_K = TypeVar("_K")
_V = TypeVar("_V")

__all__ = ["Dislodged", "Position", "Unit"]


@dataclass(frozen=True, slots=True)
class Unit:
    power: str
    kind: str
    """``"A"`` army or ``"F"`` fleet; variants may add kinds (1000 AD's defensive army ``"D"``)."""
    loc: int
    """Location id: the province, or the coast a fleet stands on."""


@dataclass(frozen=True, slots=True)
class Dislodged:
    unit: Unit
    retreats: frozenset[int]
    """Location ids the unit may retreat to; empty means it will be destroyed."""
    attacker_from: int | None = None
    """Province the dislodging attack came from, for reports."""


@dataclass(frozen=True, slots=True)
class Position:
    phase: Phase
    units: Mapping[int, Unit]
    """Province id -> the unit standing there (never two in one province)."""
    centres: Mapping[int, str]
    """Supply-centre province id -> owning power; unowned centres are absent."""
    homes: Mapping[str, frozenset[int]]
    """Power -> its home centres (where it may build under the standard rule)."""
    dislodged: Mapping[int, Dislodged] = field(default_factory=dict)
    """Province id -> the unit dislodged there, waiting to retreat."""
    state: Mapping[str, Any] = field(default_factory=dict)
    """Variant state (conversions under way, anarchy counters, ...), JSON-serialisable."""

    def with_(self, **changes: Any) -> Position:
        return replace(self, **changes)

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centres_of(self, power: str) -> list[int]:
        return [p for p, owner in self.centres.items() if owner == power]


SHARED_UNITS: dict[tuple[str, str, int], Unit] = {}
"""(power, kind, location) -> the one :class:`Unit` value the adjudicator hands out for it. Units are
immutable values and a map has only a few hundred, so each is made once and phases copy references; hot
loops read this dict directly and call :func:`shared_unit` only on a miss."""


def shared_unit(power: str, kind: str, loc: int) -> Unit:
    key = (power, kind, loc)
    u = SHARED_UNITS.get(key)
    if u is None:
        u = SHARED_UNITS[key] = Unit(power, kind, loc)
    return u


def fresh_dict(mapping: Mapping[_K, _V]) -> dict[_K, _V]:
    """A new dict with the mapping's items, for a phase to change or keep.

    A dict is cloned with ``dict.copy``, which copies its table whole: ``dict(d)`` re-inserts entry by entry
    once ``d`` has had deletions, as every board after a movement phase has (about six times the cost).
    """
    return mapping.copy() if type(mapping) is dict else dict(mapping)
