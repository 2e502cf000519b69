"""Dropping a variant frees it, with every table the core derived from it.

The core derives tables from a variant, its map, its calendar and its rule hooks (legal orders, the
adjudicator's set-up, notation's lexicon, civil-disorder distances...). Kept in module dictionaries keyed by
``id()``, they held every variant ever built, so a server building user variants grew without bound. Each
variant here is built by the core from data, used until every cache is filled (legal orders listed, a phase
adjudicated, orders read and written), then dropped; afterwards only a handful may still be alive (the
legal-order generator keeps the last position it worked out, with its variant).
"""

from __future__ import annotations

import gc
import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import all_legal_orders, prepare
from dippouch.core.notation import format_order, parse_orders
from dippouch.core.order_checks import check_submission
from dippouch.core.variant import Variant, build_variant


def _alive(before: set[int]) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Variant) and id(o) not in before)


def _use(variant: Variant, rng: random.Random) -> None:
    """Fill every cache the core keeps for a variant: two phases played on its own legal orders."""
    position = variant.start
    prepare(variant)
    for _ in range(2):
        everyone = all_legal_orders(variant, position)
        orders = {p: [rng.choice(opts[loc]) for loc in sorted(opts)] for p, opts in everyone.items() if opts}
        for power, chosen in orders.items():
            text = "\n".join(format_order(variant, o) for o in chosen)
            parse_orders(variant, text)
            check_submission(variant, position, power, chosen)
        position = adjudicate(variant, position, orders, rng=rng).next


#: Variants built and dropped per test: any table that keeps more than the three allowed leaves at least
#: four of these alive, so a dozen fails on a leak as sixty did (the tables held every variant ever built,
#: and a bounded one keeps 64: either way more than three).
BUILT = 12


def test_variants_built_used_and_dropped_leave_at_most_three_alive() -> None:
    data = {name: dict(load_variant(name).data) for name in ("standard", "w3k")}
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, Variant)}
    rng = random.Random(5)
    for i in range(BUILT):
        name = "w3k" if i % 3 == 0 else "standard"
        variant = build_variant(data[name], f"{name} #{i}", None, {})
        _use(variant, rng)
        del variant
    assert _alive(before) <= 3


def test_the_catalog_keeps_what_it_caches_and_no_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog's bounded cache of built variants lets go of what it evicts. Its bound is made small here
    (the eviction is the same whatever the bound; filling 64 entries only took time), and five variants
    more than it holds are built, so a cache that kept what it evicts leaves more alive than allowed."""
    from dippouch import catalog

    monkeypatch.setattr(catalog, "KEPT_VARIANTS", 8)
    data = dict(load_variant("standard").data)
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, Variant)}
    rng = random.Random(6)
    for i in range(catalog.KEPT_VARIANTS + 5):
        changed = {**data, "variant": {**data["variant"], "description": f"copy {i}"}}
        variant = catalog.variant_from_data(changed, source=f"copy {i}")
        _use(variant, rng)
        del variant
    assert _alive(before) <= catalog.KEPT_VARIANTS + 3


def test_variants_drawn_and_dropped_are_freed() -> None:
    """The renderer keeps the parts of a picture that depend only on the map and the options on the variant
    drawn, so they go with it (a module cache keyed by ``id()`` held the last 64 variants drawn)."""
    from dippouch.render import render_svg
    from dippouch.render.geometry import load_geometry

    standard = load_variant("standard")
    geo = load_geometry(standard)
    data = dict(standard.data)
    gc.collect()
    before = {id(o) for o in gc.get_objects() if isinstance(o, Variant)}
    for i in range(BUILT):
        variant = build_variant(data, f"standard #{i}", None, {})
        assert "<svg" in render_svg(variant, variant.start, geometry=geo)
        del variant
    assert _alive(before) <= 3
