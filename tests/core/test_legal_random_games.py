"""Random games from legal orders in every shipped variant: the adjudicator never calls a generated order
illegal, and every generated order reads back to itself in its phase, in the short form and with full names."""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order, parse_order
from dippouch.core.orders import Order
from dippouch.core.results import Outcome
from test_shelf_sample import heavy_variants

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("chaos")


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("seed", range(3))
def test_random_game(name: str, seed: int) -> None:
    variant = load_variant(name)
    rng = random.Random(seed)
    position = variant.start
    read_back: set[tuple[Order, PhaseKind]] = set()  # an order offered again in a later phase reads the same
    for _ in range(20):
        kind = variant.calendar.kind(position.phase)
        orders: dict[str, list[Order]] = {}
        for power in variant.power_names:
            legal = legal_orders(variant, position, power)
            for choices in legal.values():
                for o in choices:
                    if (o, kind) in read_back:
                        continue
                    read_back.add((o, kind))
                    text = format_order(variant, o, phase_kind=kind)
                    assert parse_order(variant, text, phase_kind=kind) == o, text
                    # The form reports and receipts use, with full names, reads back to the same order too.
                    long = format_order(variant, o, phase_kind=kind, full=True)
                    assert parse_order(variant, long, phase_kind=kind) == o, long
                orders.setdefault(power, []).append(rng.choice(choices))
            if kind == PhaseKind.ADJUSTMENTS and legal:
                # Each listed build or removal is legal on its own; together they may exceed what is due,
                # so a power gives one of them and the adjudicator settles the rest (civil disorder).
                orders[power] = [rng.choice(orders[power])]
        resolution = adjudicate(variant, position, orders, rng=random.Random(seed))
        for r in resolution.results:
            assert r.result != Outcome.ILLEGAL, (
                f"{variant.calendar.name(position.phase)}: {r.power} {format_order(variant, r.order)}: {r.reason}"
            )
        position = resolution.next
