"""Standard-map positions written as the bots' tests read them: ``{"France": "A par, F bre"}`` and
``{"France": "par bre mar"}``. Shared by the bots' tests (tests/bots/test_bot_adapt.py,
tests/bots/test_search_terms.py), so that a change to how a position is built is made once."""

from __future__ import annotations

from dippouch.bots.engine import Position, Unit
from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase

V = load_variant("standard")


def province(abbr: str) -> int:
    """The province named ``abbr`` (a coast names its province)."""
    return V.map.province_of(V.map.loc(abbr))


def position(units: dict[str, str], centres: dict[str, str], step: int = 0, year: int = 1902) -> Position:
    """A position from "A par, F bre" per power and "par bre" centres per power, the standard homes."""
    placed: dict[int, Unit] = {}
    for power, text in units.items():
        for item in text.split(","):
            kind, where = item.split()
            loc = V.map.loc(where)
            placed[V.map.province_of(loc)] = Unit(power, kind, loc)
    owned = {province(c): power for power, text in centres.items() for c in text.split()}
    return Position(Phase(year, step), placed, owned, V.start.homes)
