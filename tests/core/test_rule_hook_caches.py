"""Tables the rule hooks derive from a map live on that map, so no other map can ever be handed them.

Kept in a module dictionary keyed by ``id()``, a table had to hold its map too (a freed map's id may be
handed to the next one allocated) and so held every map ever played. Kept on the map, a later map at the
same address starts without it, and a table is made from the map it is asked for.
"""

from __future__ import annotations

import pickle

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.position import Position, Unit


def test_civil_disorder_distances_are_made_from_the_map_they_are_kept_on() -> None:
    v = load_variant("standard")
    m = v.map

    def p(abbr: str) -> int:
        return m.province_of(m.loc(abbr))

    # Two centres, three armies: one removal, the farthest from an owned centre (Warsaw, not Belgium).
    units = {p(a): Unit("England", "A", m.loc(a)) for a in ("lon", "bel", "war")}
    pos = Position(v.calendar.parse("Winter 1901"), units, {p("lon"): "England", p("edi"): "England"}, v.start.homes)
    m.derived.pop("rules.any_adjacency", None)
    fresh = adjudicate(v, pos, {})
    removed = [m.provinces[m.province_of(r.order.unit_loc or 0)].abbr for r in fresh.results if r.automatic]
    assert removed == ["war"]
    table = m.derived["rules.any_adjacency"]
    assert p("lon") in table[p("wal")] and p("nth") in table[p("lon")]  # armies' and fleets' borders both
    # The table is the map's own: the same map read back from a pickle starts without it.
    assert "rules.any_adjacency" not in pickle.loads(pickle.dumps(m)).derived
