"""Every variant's names work in orders: each abbreviation, name and alias, in every order shape."""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant, variant_names
from dippouch.core.notation import OrderParseError, format_order, parse_order, parse_unit
from dippouch.core.orders import Build, Convoy, Hold, Move, Order, Retreat, Support
from dippouch.core.rules.w3k.hand_over import Proxy
from test_shelf_sample import heavy_variants


@pytest.mark.parametrize("name", variant_names())
def test_every_name_reads_as_its_location(name: str) -> None:
    v = load_variant(name)
    for key, lid in v.map.names.items():
        assert parse_unit(v, key) == (None, lid), key
        assert parse_unit(v, key.upper()) == (None, lid), key
    for loc in v.map.locations:
        assert parse_unit(v, loc.name) == (None, loc.id), loc.name


@pytest.mark.parametrize("name", heavy_variants("youngstown"))  # the six and one shelf variant: 1500 orders each
def test_orders_with_any_names(name: str) -> None:
    v = load_variant(name)
    rng = random.Random(name)
    names = list(v.map.names.items())
    for _ in range(1500):
        (n1, l1), (n2, l2), (n3, l3) = rng.sample(names, 3)
        cases: list[tuple[str, Order]] = [
            (f"A {n1} - {n2}", Move("A", l1, l2)),
            (f"{n1} -> {n2} via convoy", Move(None, l1, l2, True)),
            (f"F {n1} S A {n2} - {n3}", Support("F", l1, "A", l2, l3)),
            (f"A {n1} supports {n2}", Support("A", l1, None, l2, None)),
            (f"Fleet {n1} convoys Army {n2} to {n3}", Convoy("F", l1, l2, l3)),
            (f"Army {n1} moves to {n2}", Move("A", l1, l2)),
            (f"Build F {n1}", Build("F", l1)),
            (f"{n1} H", Hold(None, l1)),
            (f"A {n1} R {n2}", Retreat("A", l1, l2)),
        ]
        for text, want in cases:
            got = parse_order(v, text)
            assert got == want, text
            assert parse_order(v, format_order(v, got)) == got


def test_only_the_error_shown_searches_for_what_was_meant(monkeypatch: pytest.MonkeyPatch) -> None:
    """W3K's syntax for conversions and hand-overs first tries to read a unit; on a build line that try fails,
    and its error is never shown. Such tries, and readings after the first, do no "did you mean" search (it
    cost every W3K build line some 15 ms); a misspelt name still gets its suggestion."""
    import difflib

    v = load_variant("w3k")
    calls: list[str] = []
    real = difflib.get_close_matches

    def counted(word: str, possibilities: list[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
        calls.append(word)
        return real(word, possibilities, n=n, cutoff=cutoff)

    monkeypatch.setattr(difflib, "get_close_matches", counted)
    assert parse_order(v, "Build F iom") == Build("F", v.map.names["iom"])
    assert isinstance(parse_order(v, "Army Deptford is under the orders of Manchester"), Proxy)
    assert calls == []
    with pytest.raises(OrderParseError) as e:
        parse_order(v, "Build F Lancashyre")
    assert "Lancashire (lan)" in e.value.suggestions, str(e.value)
    assert calls
