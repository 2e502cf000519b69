"""The fast path's order makers (slots set through their descriptors, not the frozen dataclass's ``__init__``)
must give orders indistinguishable from the usual ones: same class, equal, same hash, same text."""

from __future__ import annotations

import pickle

from dippouch.catalog import load_variant
from dippouch.core.fast import legal_orders as fast
from dippouch.core.notation import format_order
from dippouch.core.orders import Convoy, Hold, Move, Order, Support

V = load_variant("standard")


def _same(made: Order, usual: Order) -> None:
    assert type(made) is type(usual)
    assert made == usual and usual == made
    assert hash(made) == hash(usual)
    assert repr(made) == repr(usual)
    assert format_order(V, made) == format_order(V, usual)
    assert pickle.loads(pickle.dumps(made)) == usual
    assert made.unit_loc == usual.unit_loc


def test_made_orders_equal_the_usual_ones() -> None:
    lon, nth, bel, yor = (V.map.loc(n) for n in ("lon", "nth", "bel", "yor"))
    _same(fast.new_hold("F", lon), Hold("F", lon))
    _same(fast.new_move("F", lon, nth), Move("F", lon, nth))
    _same(fast.new_move("A", lon, bel, True), Move("A", lon, bel, True))
    _same(fast.new_move("A", lon, bel, False), Move("A", lon, bel))
    _same(fast.new_support("F", nth, "A", lon, None), Support("F", nth, "A", lon, None))
    _same(fast.new_support("F", nth, "A", lon, yor), Support("F", nth, "A", lon, yor))
    _same(fast.new_convoy(nth, lon, bel), Convoy("F", nth, lon, bel))


def test_made_orders_stay_frozen() -> None:
    import dataclasses

    import pytest

    o = fast.new_move("F", 1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.dest = 3  # type: ignore[misc]
    assert o != fast.new_move("F", 1, 3)
    assert o != Hold("F", 1)  # type: ignore[comparison-overlap]  # a move never equals a hold
