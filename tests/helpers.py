"""Small builders shared by the tests: positions written as unit texts, so a test reads like a board."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dippouch.core.calendar import Phase
from dippouch.core.position import Position, Unit
from dippouch.core.variant import Variant


def prov(v: Variant, name: str) -> int:
    """Province id of an abbreviation, name, alias or coast."""
    return v.map.province_of(v.map.loc(name))


def place(v: Variant, units: Mapping[str, Iterable[str]]) -> dict[int, Unit]:
    """Units from texts per power: ``{"England": ["F lon", "A yor"], "Russia": ["F stp/sc"]}``."""
    placed: dict[int, Unit] = {}
    for power, texts in units.items():
        for text in texts:
            kind, where = text.split()
            loc = v.map.loc(where)
            placed[v.map.province_of(loc)] = Unit(power, kind, loc)
    return placed


def owned(v: Variant, centres: Mapping[str, Iterable[str]] | None) -> dict[int, str]:
    """Centre ownership from province names per power."""
    return {prov(v, c): power for power, cs in (centres or {}).items() for c in cs}


def board(
    v: Variant,
    phase: Phase | str,
    units: Mapping[str, Iterable[str]],
    centres: Mapping[str, Iterable[str]] | None = None,
    *,
    homes: Mapping[str, frozenset[int]] | None = None,
    state: Mapping[str, object] | None = None,
) -> Position:
    """A position; ``phase`` is a Phase or a phase name; homes default to the variant's start."""
    when = v.calendar.parse(phase) if isinstance(phase, str) else phase
    return Position(
        when,
        place(v, units),
        owned(v, centres),
        dict(v.start.homes if homes is None else homes),
        state=dict(state or {}),
    )
