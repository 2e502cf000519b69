"""legal_orders, the adjudicator and the legality check agree on what is legal.

On random positions of the standard map, against the adjudicator:

Forward: no generated order is judged illegal. Backward: a sample of orders that are NOT generated (moves,
supports and convoys between random places) are judged illegal, so the generator misses nothing.

On positions of every phase kind of all six variants, against the one legality decision the adjudicator and
the arrival check share (core/order_checks.py), both ways.
"""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import legal_orders
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import format_order
from dippouch.core.order_checks import check_submission
from dippouch.core.orders import Convoy, Move, Order, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome
from order_positions import VARIANTS, candidate_orders, position_pool
from order_positions import variant as pool_variant

V = load_variant("standard")
M = V.map


def random_position(rng: random.Random, fleets_at_sea: int) -> Position:
    """Random units, with extra fleets at sea so convoy routes are common."""
    units: dict[int, Unit] = {}
    seas = [p.id for p in M.provinces if p.kind == ProvinceKind.SEA]
    for p in rng.sample(seas, fleets_at_sea):
        units[p] = Unit(rng.choice(V.power_names), "F", p)
    for _ in range(rng.randint(8, 24)):
        p = rng.randrange(M.province_count)
        prov = M.provinces[p]
        if p in units or prov.kind in (ProvinceKind.IMPASSABLE, ProvinceKind.SEA):
            continue
        options = [("A", p), *(("F", loc) for loc in M.fleet_locations(p))]
        kind, loc = rng.choice(options)
        units[p] = Unit(rng.choice(V.power_names), kind, loc)
    return V.start.with_(units=units)


def judged(pos: Position, power: str, order: Order) -> Outcome:
    res = adjudicate(V, pos, {power: [order]})
    (mine,) = [r for r in res.results if not r.automatic]
    return mine.result


@pytest.mark.parametrize("seed", range(40))
def test_generated_orders_are_never_illegal(seed: int) -> None:
    rng = random.Random(seed)
    pos = random_position(rng, fleets_at_sea=rng.randint(3, 9))
    for power in V.power_names:
        for orders in legal_orders(V, pos, power).values():
            for order in orders:
                verdict = judged(pos, power, order)
                assert verdict != Outcome.ILLEGAL, f"{power}: {format_order(V, order)} judged illegal"


@pytest.mark.parametrize("seed", range(40))
def test_orders_not_generated_are_illegal(seed: int) -> None:
    rng = random.Random(1000 + seed)
    pos = random_position(rng, fleets_at_sea=rng.randint(3, 9))
    provinces = [p.id for p in M.provinces if p.kind != ProvinceKind.IMPASSABLE]
    units = list(pos.units.values())
    checked = 0
    for _ in range(300):
        u = rng.choice(units)
        legal = {o for orders in legal_orders(V, pos, u.power).values() for o in orders}
        what = rng.randrange(3)
        dest = rng.choice(provinces)
        loc = rng.choice(M.fleet_locations(dest) or (dest,)) if u.kind == "F" else dest
        other = rng.choice(units)
        order: Order
        if what == 0:
            order = Move(u.kind, u.loc, loc, via_convoy=rng.random() < 0.3 and u.kind == "A")
        elif what == 1:
            order = Support(u.kind, u.loc, other.kind, other.loc, rng.choice([None, dest]))
        else:
            order = Convoy(u.kind, u.loc, other.loc, dest)
        if order in legal:
            continue
        if isinstance(order, Move) and Move(order.kind, order.loc, order.dest, not order.via_convoy) in legal:
            continue  # a convoy to a non-adjacent province, listed once (without "via convoy"): same order
        checked += 1
        assert judged(pos, u.power, order) == Outcome.ILLEGAL, f"{u.power}: {format_order(V, order)} not listed"
    assert checked > 100


# --- every variant: the legal-order lists and the one legality decision (core/order_checks.py) agree ----------


def _same_order(a: Order, b: Order) -> bool:
    """Equal, or the same convoyed move written with and without "via convoy" (listed once)."""
    if a == b:
        return True
    return isinstance(a, Move) and isinstance(b, Move) and Move(a.kind, a.loc, a.dest, not a.via_convoy) == b


@pytest.mark.parametrize("name", VARIANTS)
def test_legal_lists_and_the_legality_check_agree(name: str) -> None:
    """Forward: every listed order is accepted on its own, as written (the canonical form is the order as
    carried out). Backward: any order the check accepts without a condition (W3K hand-overs and supply are
    decided by other powers' orders) is listed, in the form the check gives it."""
    v = pool_variant(name)
    checked = accepted = 0
    for k, pos in enumerate(position_pool(name)):
        rng = random.Random(f"{name} {k}")
        for power in v.power_names:
            listed = [o for orders in legal_orders(v, pos, power).values() for o in orders]
            for order in rng.sample(listed, min(len(listed), 40)):
                (c,) = check_submission(v, pos, power, [order])
                assert c.accepted and c.note is None, f"{k} {power}: {format_order(v, order)}: {c.problem}"
                assert c.order == order, f"{k} {power}: {format_order(v, order)} carried out as {c.order}"
            for order in candidate_orders(v, pos, power, rng, 40):
                (c,) = check_submission(v, pos, power, [order])
                checked += 1
                if c.accepted and c.note is None:
                    accepted += 1
                    if isinstance(order, Waive) and not listed:
                        continue  # builds due but no vacant site: declining changes nothing, nothing is listed
                    assert any(_same_order(c.order, o) for o in listed), (
                        f"{k} {power}: {format_order(v, order)} accepted as {format_order(v, c.order)}, not listed"
                    )
                if not c.accepted:
                    assert order not in listed
    assert checked > 500 and accepted > 50
