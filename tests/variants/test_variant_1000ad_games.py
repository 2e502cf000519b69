"""Random 1000 AD games from legal orders: the defensive-army and placement rules hold in every phase."""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Order
from dippouch.core.position import Position
from dippouch.core.results import Outcome
from dippouch.core.rules.ad1000 import game_end

V = load_variant("1000ad")
M = V.map


def _check(position: Position) -> None:
    for power in V.power_names:
        ds = [u for u in position.units_of(power) if u.kind == "D"]
        assert len(ds) <= 1, (power, ds)
        for d in ds:
            assert M.province_of(d.loc) in V.homelands[power], (power, M.locations[d.loc].abbr)
    for gone in position.dislodged.values():
        if gone.unit.kind == "D":
            assert gone.retreats <= V.homelands[gone.unit.power]


@pytest.mark.parametrize("seed", range(4))
def test_random_game_keeps_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    position = V.start
    # Winter 999: every power places a random selection of its legal builds, D included.
    orders: dict[str, list[Order]] = {}
    for power in V.power_names:
        builds: list[Order] = [
            o for os_ in legal_orders(V, position, power).values() for o in os_ if isinstance(o, Build)
        ]
        rng.shuffle(builds)
        orders[power] = builds[:15]
    res = adjudicate(V, position, orders)
    placed = {p: len(res.next.units_of(p)) for p in V.power_names}
    for power in V.power_names:
        cost = sum(2 if u.kind == "D" else 1 for u in res.next.units_of(power))
        assert 0 < cost <= len(V.start.homes[power]), (power, cost)
        assert all(M.province_of(u.loc) in V.homelands[power] for u in res.next.units_of(power))
    assert sum(placed.values()) > 40
    position = res.next
    _check(position)
    for _ in range(12):
        kind = V.calendar.kind(position.phase)
        orders = {}
        for power in V.power_names:
            for choices in legal_orders(V, position, power).values():
                orders.setdefault(power, []).append(rng.choice(choices))
            if kind == PhaseKind.ADJUSTMENTS and orders.get(power):
                orders[power] = [rng.choice(orders[power])]
        res = adjudicate(V, position, orders, rng=random.Random(seed))
        assert all(r.result != Outcome.ILLEGAL for r in res.results), [
            (r.power, r.order, r.reason) for r in res.results if r.result == Outcome.ILLEGAL
        ]
        position = res.next
        _check(position)
        game_end(V, position)
