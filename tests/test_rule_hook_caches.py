"""Per-map caches of the rule hooks survive a map's id being reused by another map.

``id()`` of a freed object may be handed to the next one allocated, so a cache keyed by a map's id must
keep the map itself and check it (as the adjudicator's and legal-order tables do); one that did not would
hand a later map the civil-disorder distances of an earlier one, and a removal would depend on which
variants happened to be loaded and freed before (a flaky test at best).
"""

from __future__ import annotations

import pytest

from dippouch.core.adjudicator import adjudicate
from dippouch.core.position import Position, Unit
from dippouch.core.rules import base
from dippouch.core.variant import load_variant


def test_civil_disorder_distances_ignore_a_table_left_by_another_map_at_the_same_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    v = load_variant("standard")
    m = v.map

    def p(abbr: str) -> int:
        return m.province_of(m.loc(abbr))

    # Two centres, three armies: one removal, the farthest from an owned centre (Warsaw, not Belgium).
    units = {p(a): Unit("England", "A", m.loc(a)) for a in ("lon", "bel", "war")}
    pos = Position(v.calendar.parse("Winter 1901"), units, {p("lon"): "England", p("edi"): "England"}, v.start.homes)
    monkeypatch.delitem(base._ADJ_CACHE, id(m), raising=False)
    fresh = adjudicate(v, pos, {})
    removed = [m.provinces[m.province_of(r.order.unit_loc or 0)].abbr for r in fresh.results if r.automatic]
    assert removed == ["war"]
    # What a freed map without edges could have left under the same id (as an uncheckable bare table): with it
    # every unit would be equally far and Belgium, first by name, would go.
    stale = tuple(frozenset[int]() for _ in range(m.province_count))
    monkeypatch.setitem(base._ADJ_CACHE, id(m), stale)  # type: ignore[arg-type]
    again = adjudicate(v, pos, {})
    assert [r for r in again.results if r.automatic] == [r for r in fresh.results if r.automatic]
