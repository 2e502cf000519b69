"""A unit designation or an order read once is answered from the variant's table (core.notation.parse_unit,
parse_order): the same answer as reading it afresh, never an error kept, never more than the bound, made again
after a syntax registration."""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core import notation
from dippouch.core.calendar import PhaseKind
from dippouch.core.jsonio import position_from_json, position_to_json
from dippouch.core.legal_orders import legal_orders
from dippouch.core.lookup import SYNTAX_GENERATION
from dippouch.core.notation import OrderParseError, format_order, parse_order, parse_unit


@pytest.mark.parametrize("name", ["standard", "w3k", "1000ad"])
def test_every_name_reads_as_when_read_afresh(name: str) -> None:
    v = load_variant(name)
    texts = list(v.map.names)[:400] + [f"A {loc.abbr}" for loc in v.map.locations if loc.coast is None][:100]
    first = {t: parse_unit(v, t) for t in texts}
    assert {t: parse_unit(v, t) for t in texts} == first
    assert {t: notation._parse_unit(v, t) for t in texts} == first
    # A stored position read back is the position written.
    data = position_to_json(v, v.start)
    assert position_from_json(v, data) == v.start
    assert position_from_json(v, data) == v.start


def test_an_unreadable_text_is_refused_every_time_and_not_kept() -> None:
    v = load_variant("standard")
    for _ in range(2):
        with pytest.raises(OrderParseError):
            parse_unit(v, "A xyzzy")
    assert "A xyzzy" not in notation._units_read(v)


def test_no_more_than_the_bound_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    v = load_variant("standard")
    v.derived.pop("notation.units", None)
    monkeypatch.setattr(notation, "_UNITS_KEPT", 3)
    texts = ["A par", "F lon", "A mun", "F stp/sc", "A vie"]
    answers = [parse_unit(v, t) for t in texts]
    assert len(notation._units_read(v)) == 3
    assert answers == [notation._parse_unit(v, t) for t in texts]
    assert parse_unit(v, "F stp/sc") == answers[3]  # read again, past the bound
    v.derived.pop("notation.units", None)


def test_a_syntax_registration_starts_a_new_table() -> None:
    v = load_variant("standard")
    parse_unit(v, "A par")
    before = notation._units_read(v)
    assert "A par" in before
    SYNTAX_GENERATION[0] += 1
    try:
        after = notation._units_read(v)
        assert after is not before and after == {}
        assert parse_unit(v, "A par") == notation._parse_unit(v, "A par")
    finally:
        SYNTAX_GENERATION[0] -= 1
        v.derived.pop("notation.units", None)
        v.derived.pop("notation.lexicon", None)


def _fresh(v: object, text: str, kind: PhaseKind | None) -> object:
    return notation._read(v, text, kind, notation._parse)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["standard", "w3k"])
def test_every_legal_order_reads_as_when_read_afresh(name: str) -> None:
    v = load_variant(name)
    kind = v.calendar.kind(v.start.phase)
    texts = [
        format_order(v, order, phase_kind=kind)
        for power in v.power_names
        for orders in legal_orders(v, v.start, power).values()
        for order in orders
    ][:3000]
    first = [parse_order(v, t, phase_kind=kind) for t in texts]
    assert [parse_order(v, t, phase_kind=kind.value) for t in texts] == first  # the kind named by its text too
    assert [_fresh(v, t, kind) for t in texts] == first


def test_an_order_is_kept_per_phase_kind() -> None:
    v = load_variant("standard")
    moved = parse_order(v, "A par - bur", phase_kind=PhaseKind.MOVEMENT)
    retreat = parse_order(v, "A par - bur", phase_kind=PhaseKind.RETREATS)
    assert type(moved).__name__ == "Move" and type(retreat).__name__ == "Retreat"
    assert parse_order(v, "A par - bur", phase_kind=PhaseKind.RETREATS) == retreat


def test_an_unreadable_order_is_refused_every_time_and_not_kept() -> None:
    v = load_variant("standard")
    for _ in range(2):
        with pytest.raises(OrderParseError):
            parse_order(v, "A par - xyzzy")
    assert not [k for k in notation._orders_read(v) if k[0] == "A par - xyzzy"]


def test_a_full_order_table_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    v = load_variant("standard")
    v.derived.pop("notation.orders", None)
    monkeypatch.setattr(notation, "_ORDERS_KEPT", 2)
    texts = ["A par - bur", "F lon - nth", "A mun H", "F bre - mao"]
    answers = [parse_order(v, t) for t in texts]
    assert len(notation._orders_read(v)) <= 2
    assert answers == [_fresh(v, t, None) for t in texts]
    v.derived.pop("notation.orders", None)


def test_a_syntax_registration_starts_a_new_order_table() -> None:
    v = load_variant("standard")
    parse_order(v, "A par - bur")
    before = notation._orders_read(v)
    SYNTAX_GENERATION[0] += 1
    try:
        assert notation._orders_read(v) is not before
    finally:
        SYNTAX_GENERATION[0] -= 1
        v.derived.pop("notation.orders", None)
        v.derived.pop("notation.lexicon", None)
