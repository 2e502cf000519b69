"""Dropping a variant frees it, with every table the core derived from it.

The core derives tables from a variant, its map, its calendar and its rule hooks (legal orders, the
adjudicator's set-up, notation's lexicon, civil-disorder distances...). Kept in module dictionaries keyed by
``id()``, they held every variant ever built, so a server building user variants grew without bound. Each
variant here is built by the core from data, used until every cache is filled (legal orders listed, a phase
adjudicated, orders read and written), then dropped; afterwards only a handful may still be alive (the
legal-order generator keeps the last position it worked out, with its variant).

Every variant made while a test runs is followed by a weak reference taken in its constructor (the core's one
way to make one, :func:`dippouch.core.variant.build_variant`). A scan of every object in the process found them
before: a second or more a scan, in a test process that has run a few hundred tests.
"""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import all_legal_orders, prepare
from dippouch.core.notation import format_order, parse_orders
from dippouch.core.order_checks import check_submission
from dippouch.core.variant import Variant, build_variant


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[weakref.ref[Variant]]]:
    """A weak reference to every variant made while the test runs, in the order made."""
    refs: list[weakref.ref[Variant]] = []
    init = Variant.__init__

    def followed(self: Variant, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        refs.append(weakref.ref(self))

    monkeypatch.setattr(Variant, "__init__", followed)
    yield refs


def _alive(made: list[weakref.ref[Variant]], at_least: int) -> int:
    """How many of the variants ``made`` are still alive, once the collector has freed what it can; the test
    made ``at_least`` (else the references were not taken, and nothing would be counted alive)."""
    assert len(made) >= at_least, f"{len(made)} variants followed, {at_least} made"
    gc.collect()
    return sum(1 for r in made if r() is not None)


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


def test_variants_built_used_and_dropped_leave_at_most_three_alive(made: list[weakref.ref[Variant]]) -> None:
    data = {name: dict(load_variant(name).data) for name in ("standard", "w3k")}
    del made[:]  # the catalog's own, if it built them now
    rng = random.Random(5)
    for i in range(BUILT):
        name = "w3k" if i % 3 == 0 else "standard"
        variant = build_variant(data[name], f"{name} #{i}", None, {})
        _use(variant, rng)
        del variant
    assert _alive(made, BUILT) <= 3


def test_the_catalog_keeps_what_it_caches_and_no_more(
    monkeypatch: pytest.MonkeyPatch, made: list[weakref.ref[Variant]]
) -> None:
    """The catalog's bounded cache of built variants lets go of what it evicts. Its bound is made small here
    (the eviction is the same whatever the bound; filling 64 entries only took time), and five variants
    more than it holds are built, so a cache that kept what it evicts leaves more alive than allowed."""
    from dippouch import catalog

    monkeypatch.setattr(catalog, "KEPT_VARIANTS", 8)
    data = dict(load_variant("standard").data)
    del made[:]
    rng = random.Random(6)
    for i in range(catalog.KEPT_VARIANTS + 5):
        changed = {**data, "variant": {**data["variant"], "description": f"copy {i}"}}
        variant = catalog.variant_from_data(changed, source=f"copy {i}")
        _use(variant, rng)
        del variant
    assert _alive(made, catalog.KEPT_VARIANTS + 5) <= catalog.KEPT_VARIANTS + 3


def test_variants_drawn_and_dropped_are_freed(made: list[weakref.ref[Variant]]) -> None:
    """The renderer keeps the parts of a picture that depend only on the map and the options on the variant
    drawn, so they go with it (a module cache keyed by ``id()`` held the last 64 variants drawn)."""
    from dippouch.render import render_svg
    from dippouch.render.geometry import load_geometry

    standard = load_variant("standard")
    geo = load_geometry(standard)
    data = dict(standard.data)
    del made[:]
    for i in range(BUILT):
        variant = build_variant(data, f"standard #{i}", None, {})
        assert "<svg" in render_svg(variant, variant.start, geometry=geo)
        del variant
    assert _alive(made, BUILT) <= 3
