"""A power's legal orders once the other powers' orders sent so far are counted (W3K's proxy orders): a unit
handed to a power is offered to it with the orders its owner could give it, and nothing else changes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dippouch.catalog import load_variant
from dippouch.core.legal_orders import legal_orders, legal_orders_given
from dippouch.core.notation import format_order, parse_order
from dippouch.core.order_checks import check_submission
from dippouch.core.orders import Order
from dippouch.core.variant import Variant
from helpers import board


def _texts(v: Variant, table: Mapping[int, Sequence[Order]], loc: int) -> list[str]:
    return sorted(format_order(v, o) for o in table.get(loc, ()))


def test_a_unit_handed_over_is_offered_to_its_new_commander_with_its_owners_orders() -> None:
    v = load_variant("w3k")
    pos = v.start
    dep = v.map.loc("dep")
    handed = {"Protectorate": [parse_order(v, "Army Deptford is under the orders of Manchester")]}
    before = legal_orders(v, pos, "Manchester")
    after = legal_orders_given(v, pos, "Manchester", handed)
    assert dep not in before
    owners = [o for o in legal_orders(v, pos, "Protectorate")[dep] if type(o).__name__ != "Proxy"]
    assert _texts(v, after, dep) == sorted(format_order(v, o) for o in owners)
    assert "A dep - lon" in _texts(v, after, dep)
    # The rest of Manchester's list is as it was; a hand-over to another power gives Manchester nothing.
    assert {k: _texts(v, after, k) for k in before} == {k: _texts(v, before, k) for k in before}
    other = {"Protectorate": [parse_order(v, "Army Deptford is under the orders of Crown")]}
    assert dep not in legal_orders_given(v, pos, "Manchester", other)
    # Every order offered for the handed unit is one the arrival check accepts (with its note).
    for o in after[dep]:
        (checked,) = check_submission(v, pos, "Manchester", [o])
        assert checked.accepted and "hands the unit over to Manchester" in (checked.note or ""), (o, checked)


def test_a_powers_own_draft_does_not_change_its_own_list() -> None:
    v = load_variant("w3k")
    own = {"Protectorate": [parse_order(v, "Army Deptford is under the orders of Manchester")]}
    got = legal_orders_given(v, v.start, "Protectorate", own)
    want = legal_orders(v, v.start, "Protectorate")
    assert {k: _texts(v, got, k) for k in want} == {k: _texts(v, want, k) for k in want} and got.keys() == want.keys()


def test_without_orders_decided_before_the_phase_the_lists_are_the_plain_legal_orders() -> None:
    v = load_variant("standard")
    sent = {"Germany": [parse_order(v, "A mun - bur")]}
    got = legal_orders_given(v, v.start, "France", sent)
    want = legal_orders(v, v.start, "France")
    assert {k: _texts(v, got, k) for k in want} == {k: _texts(v, want, k) for k in want}


def test_supply_sent_in_winter_is_counted_in_the_recipients_builds() -> None:
    v = load_variant("w3k")
    crown = ["A bri", "A glo", "A wil", "A oxf", "A gla", "A wwk"]  # six units on six centres: no build
    winter = board(
        v,
        "Winter 1643 Adjustments",
        {"Crown": crown, "Protectorate": ["F enn", "A dep"]},
        {
            "Crown": ["bri", "gla", "glo", "oxf", "wil", "wor"],
            "Protectorate": ["ayl", "brs", "cty", "dep", "enn", "sut"],
        },
    )
    assert legal_orders(v, winter, "Crown") == {}
    sent = {"Protectorate": [parse_order(v, "Send 2 supply to Crown", phase_kind="adjustments")]}
    got = legal_orders_given(v, winter, "Crown", sent)
    assert [v.map.provinces[k].abbr for k in got] == ["wor"]
    assert "Build A wor" in _texts(v, got, v.map.loc("wor"))
