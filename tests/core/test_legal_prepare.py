"""``legal_orders.prepare`` builds the per-map tables up front; what ``legal_orders`` lists must not depend on whether
they were built that way or as units first came up."""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core import legal_orders as legal
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import all_legal_orders, prepare
from dippouch.core.position import Position
from dippouch.core.variant import Variant


def _forget(variant: Variant) -> None:
    """Drop the map's tables, so the next call builds them afresh (other tests only pay to rebuild them)."""
    variant.map.derived.pop("legal.fast", None)
    legal._LAST[0] = None


def _positions(variant: Variant, seed: int, phases: int) -> list[Position]:
    """Positions of a random game played with the variant's own legal orders."""
    rng = random.Random(seed)
    position = variant.start
    seen = [position]
    for _ in range(phases):
        everyone = all_legal_orders(variant, position)
        if variant.calendar.kind(position.phase) == PhaseKind.ADJUSTMENTS:
            orders = {p: [rng.choice(opts[loc]) for loc in sorted(opts)][:1] for p, opts in everyone.items() if opts}
        else:
            orders = {p: [rng.choice(opts[loc]) for loc in sorted(opts)] for p, opts in everyone.items() if opts}
        position = adjudicate(variant, position, orders).next
        seen.append(position)
    return seen


@pytest.mark.parametrize("name", ["standard", "w3k"])
def test_prepared_tables_list_exactly_what_lazy_ones_do(name: str) -> None:
    variant = load_variant(name)
    positions = _positions(variant, seed=11, phases=24)
    _forget(variant)
    lazy = [all_legal_orders(variant, p) for p in positions]
    _forget(variant)
    prepare(variant)
    fast = variant.map.derived["legal.fast"]
    assert all(fast.units[c] is not None for c, ok in enumerate(fast.plausible) if ok)
    assert [all_legal_orders(variant, p) for p in positions] == lazy  # same orders, in the same order


def test_prepare_twice_keeps_the_tables() -> None:
    variant = load_variant("standard")
    prepare(variant)
    fast = variant.map.derived["legal.fast"]
    first = list(fast.units)
    prepare(variant)
    assert variant.map.derived["legal.fast"] is fast
    assert all(a is b for a, b in zip(fast.units, first, strict=True))


def test_prepare_builds_no_fast_tables_for_a_variant_with_its_own_movement_rules() -> None:
    variant = load_variant("1000ad")  # defensive triple armies: movement goes through the rule hooks
    _forget(variant)
    prepare(variant)
    assert "legal.fast" not in variant.map.derived
    assert any(all_legal_orders(variant, variant.start).values())  # and legal orders are still listed
