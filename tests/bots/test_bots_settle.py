"""A variant settled for bots in a long-running process: its legal-order tables built once and moved out of
the garbage collector's walks (the worker and the benchmark do this before bots play)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from dippouch.bots.base import settle
from dippouch.catalog import load_variant


@pytest.fixture
def collector() -> Iterator[None]:
    """The test process's collector as it was before (nothing stays frozen)."""
    yield
    gc.unfreeze()


def _tracked(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_a_settled_variants_tables_are_built_and_left_out_of_collections(collector: None) -> None:
    variant = load_variant("hundred3")
    variant.derived.pop("bots.settled", None)
    gc.unfreeze()
    settle(variant)
    tables = variant.map.derived["legal.fast"]
    assert gc.get_freeze_count() > 0
    assert not _tracked(tables)  # a full collection no longer walks it
    frozen = gc.get_freeze_count()
    fresh = [[n] for n in range(100)]  # made after: the next settle of the same variant freezes nothing more
    settle(variant)
    # Frozen objects may still die (and leave the count) while settle runs; none may join it.
    assert gc.get_freeze_count() <= frozen
    assert _tracked(fresh)
