"""The DumbBot family's movement orders (bots/province_value.py), which the search level samples the others'
replies from: legal, one per unit, no convoys, never two units of one power into one province, a unit that
would go where another of its power goes supporting it instead, reproducible from a seed, and finished on
every position (units that would wait on each other in a ring stop waiting)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from dippouch.bots.base import RandomBot
from dippouch.bots.engine import (
    Move,
    PhaseKind,
    Position,
    Support,
    Variant,
    adjudicate,
    all_legal_orders,
    format_order,
    parse_order,
)
from dippouch.bots.heuristic import captures
from dippouch.bots.province_value import movement_orders, worths
from dippouch.catalog import load_variant


def _positions(variant: Variant, seed: int, phases: int) -> Iterator[Position]:
    """The movement phases of a game of random orders (armies scattered, rings and crowds of units)."""
    rng = random.Random(seed)
    position = variant.start
    bot = RandomBot()
    for _ in range(phases):
        if variant.calendar.kind(position.phase) is PhaseKind.MOVEMENT:
            yield position
        legal = all_legal_orders(variant, position)
        orders = {p: bot.orders(variant, position, p, random.Random(rng.random())) for p in legal}
        position = adjudicate(variant, position, orders, rng=random.Random(rng.random())).next


@pytest.mark.parametrize("name", ["standard", "1000ad", "w3k"])
def test_orders_are_legal_one_per_unit_and_never_two_into_one_province(name: str) -> None:
    variant = load_variant(name)
    prov_of = variant.map.province_of
    seen_supports = 0
    for position in _positions(variant, 7, 24):
        legal = all_legal_orders(variant, position)
        fall = captures(variant, position)
        for power, mine in legal.items():
            worth = worths(variant, position, power, fall)
            for seed in range(3):
                orders = movement_orders(variant, position, power, mine, worth, random.Random(seed))
                allowed = {o for options in mine.values() for o in options}
                assert set(orders) <= allowed
                assert sorted(o.unit_loc for o in orders if o.unit_loc is not None) == sorted(mine)
                assert not any(isinstance(o, Move) and o.via_convoy for o in orders)
                into = Counter(prov_of(o.dest) for o in orders if isinstance(o, Move))
                assert all(k == 1 for k in into.values()), into
                moves = {prov_of(o.loc): prov_of(o.dest) for o in orders if isinstance(o, Move)}
                for o in orders:
                    if isinstance(o, Support) and o.dest is not None:
                        seen_supports += 1
                        assert moves.get(prov_of(o.target)) == prov_of(o.dest)  # supports its own unit's move
    assert seen_supports > 0


def test_the_same_seed_gives_the_same_orders_and_neutral_centres_draw_the_opening() -> None:
    variant = load_variant("standard")
    start = variant.start
    legal = all_legal_orders(variant, start)
    worth = worths(variant, start, "France", captures(variant, start))
    first = movement_orders(variant, start, "France", legal["France"], worth, random.Random(3))
    assert first == movement_orders(variant, start, "France", legal["France"], worth, random.Random(3))
    # Spring 1901: the neutral centres (each worth a power of 12 centres) are worth more than France's own
    # homes and than Germany's, and the openings take units towards them.
    value = worth.value
    spa, bel, mun = (variant.map.province_of(variant.map.loc(x)) for x in ("spa", "bel", "mun"))
    assert value[spa] > value[mun] and value[bel] > value[mun]
    texts: Counter[str] = Counter()
    for seed in range(40):
        for o in movement_orders(variant, start, "France", legal["France"], worth, random.Random(seed)):
            texts[format_order(variant, o, phase_kind=PhaseKind.MOVEMENT)] += 1
    assert texts["A mar - spa"] >= 30 and texts["F bre - mao"] >= 30  # towards Spain, Portugal


def test_a_unit_next_to_where_its_own_unit_goes_against_competition_supports_it() -> None:
    variant = load_variant("standard")
    start = variant.start
    # Autumn 1901, France: A Burgundy and A Picardy, Belgium free; Germany's army in Ruhr reaches Belgium too.
    orders = {
        "France": ["A par - pic", "A mar - bur", "F bre - mao"],
        "Germany": ["A mun - ruh", "F kie - den", "A ber - kie"],
    }
    parsed = {p: [parse_order(variant, o, phase_kind=PhaseKind.MOVEMENT) for o in os_] for p, os_ in orders.items()}
    position = adjudicate(variant, start, parsed).next
    legal = all_legal_orders(variant, position)
    worth = worths(variant, position, "France", captures(variant, position))
    bel = variant.map.province_of(variant.map.loc("bel"))
    assert worth.competition[bel] == 1
    supported = 0
    for seed in range(40):
        got = movement_orders(variant, position, "France", legal["France"], worth, random.Random(seed))
        texts = {format_order(variant, o, phase_kind=PhaseKind.MOVEMENT) for o in got}
        if "A pic - bel" in texts and "A bur - bel" not in texts:
            supported += "A bur S A pic - bel" in texts
        if "A bur - bel" in texts:
            supported += "A pic S A bur - bel" in texts
    assert supported > 0
