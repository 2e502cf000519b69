"""The fast path's per-map caches are shared between positions (groups of fleets, army entries, convoy orders and
supports of convoyed moves keyed by what they depend on). A key that left out something the orders depend on
would show only when a later position reuses an entry made for an earlier one, so these tests walk fleets and
armies around the seas step by step in one process and hold every step against the general path."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from dippouch.catalog import load_variant
from dippouch.core import legal_orders as legal
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.position import Unit

V = load_variant("standard")
M = V.map
SEAS = [p.id for p in M.provinces if p.kind == ProvinceKind.SEA]
COASTS = [p.id for p in M.provinces if p.kind == ProvinceKind.COAST]


def _start(rng: random.Random) -> dict[int, Unit]:
    units: dict[int, Unit] = {}
    for s in rng.sample(SEAS, rng.randint(3, 12)):
        units[s] = Unit(rng.choice(V.power_names), "F", s)
    for r in rng.sample(COASTS, rng.randint(4, 14)):
        if rng.random() < 0.7:
            units[r] = Unit(rng.choice(V.power_names), "A", r)
        else:
            units[r] = Unit(rng.choice(V.power_names), "F", rng.choice(M.fleet_locations(r)))
    return units


def _step(rng: random.Random, units: dict[int, Unit]) -> dict[int, Unit]:
    """One fleet or army moves, appears or goes: fleets' groups change, armies meet groups seen before."""
    units = dict(units)
    fleets = [p for p in units if p in SEAS]
    armies = [p for p, u in units.items() if u.kind == "A"]
    roll = rng.random()
    if roll < 0.45 and fleets:
        s = rng.choice(fleets)
        free = [q for q in M.fleet_reach[s] if q in SEAS and q not in units]
        if free:
            q = rng.choice(free)
            units[q] = Unit(units.pop(s).power, "F", q)
    elif roll < 0.6:
        free = [q for q in SEAS if q not in units]
        if free:
            q = rng.choice(free)
            units[q] = Unit(rng.choice(V.power_names), "F", q)
    elif roll < 0.7 and fleets:
        del units[rng.choice(fleets)]
    elif armies:
        free = [q for q in COASTS if q not in units]
        if free:
            q = rng.choice(free)
            units[q] = Unit(units.pop(rng.choice(armies)).power, "A", q)
    return units


def _as_sets(everyone: Mapping[str, Mapping[int, Sequence[object]]]) -> dict[str, dict[int, frozenset[str]]]:
    return {pw: {loc: frozenset(map(repr, orders)) for loc, orders in got.items()} for pw, got in everyone.items()}


@pytest.mark.parametrize("seed", range(6))
def test_cached_entries_reused_across_positions_match_the_general_path(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(1000 + seed)
    units = _start(rng)
    for _ in range(60):
        pos = V.start.with_(units=units)
        fast = all_legal_orders(V, pos)
        monkeypatch.setattr(legal, "_FORCE_GENERAL", True)
        general = all_legal_orders(V, pos)
        monkeypatch.setattr(legal, "_FORCE_GENERAL", False)
        assert _as_sets(fast) == _as_sets(general)
        for got in fast.values():
            for orders in got.values():
                assert len(set(orders)) == len(orders), "an order listed twice"
                assert repr(orders[0]).startswith("Hold("), "a unit's list starts with its hold"
        units = _step(rng, units)
