"""1897 played through the public API: the opening builds and both worked examples of the rulebook.

Orders are text (``parse_order``) and every phase goes through ``adjudicate``; the tests check results,
ownership, home centres and phase names as the rulebook states them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order, parse_order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome, Resolution
from dippouch.core.variant import Variant

# A choice for every power in Winter 1897, for the examples that follow only one or two of them.
OPENING = {
    "Austria": ["Build A tri"],
    "England": ["Build A lon"],
    "France": ["Build A par"],
    "Germany": ["Build A mun"],
    "Italy": ["Build A ven"],
    "Russia": ["Build A war"],
    "Turkey": ["Build A con"],
}


def play(v: Variant, pos: Position, orders: Mapping[str, Sequence[str]], phase: str) -> Resolution:
    """Adjudicate ``orders`` (text) in ``pos``, first checking that ``pos`` is the phase named."""
    assert v.calendar.name(pos.phase) == phase
    kind = v.calendar.kind(pos.phase)
    parsed = {p: [parse_order(v, t, phase_kind=kind) for t in ts] for p, ts in orders.items()}
    return adjudicate(v, pos, parsed)


def outcomes(v: Variant, res: Resolution) -> dict[str, Outcome]:
    return {f"{r.power}: {format_order(v, r.order)}": r.result for r in res.results if not r.automatic}


def owned(v: Variant, pos: Position, power: str) -> set[str]:
    return {v.map.provinces[p].abbr for p in pos.centres_of(power)}


def homes(v: Variant, pos: Position, power: str) -> set[str]:
    return {v.map.provinces[p].abbr for p in pos.homes.get(power, frozenset())}


def units(v: Variant, pos: Position, power: str) -> set[str]:
    return {f"{u.kind} {v.map.locations[u.loc].abbr}" for u in pos.units_of(power)}


@pytest.fixture
def v() -> Variant:
    return load_variant("1897")


def test_opening_each_power_builds_one_unit_and_owns_only_that_centre(v: Variant) -> None:
    res = play(v, v.start, OPENING | {"England": ["Build F lon"], "Russia": ["Build F sev"]}, "Winter 1897 Adjustments")
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    nxt = res.next
    assert v.calendar.name(nxt.phase) == "Spring 1898 Movement"
    assert units(v, nxt, "England") == {"F lon"}
    assert units(v, nxt, "Russia") == {"F sev"}
    assert owned(v, nxt, "England") == {"lon"}
    assert owned(v, nxt, "Russia") == {"sev"}
    assert len(nxt.centres) == 7  # every other centre, regular homes included, is unowned
    # Regular home centres stay where builds go until 1899.
    assert homes(v, nxt, "England") == {"edi", "lon", "lvp"}


@pytest.mark.parametrize(
    ("power", "order", "reason"),
    [
        ("Russia", "Build A stp", "St Petersburg"),  # rule 2: Russia may not choose St Petersburg
        ("Russia", "Build F stp/sc", "St Petersburg"),
        ("England", "Build A nwy", "Norway"),  # not a regular home centre
        ("France", "Build A ber", "Berlin"),  # another power's home centre
        ("Austria", "Build F vie", "Vienna"),  # fleets only on a coast
        ("Germany", "Build A ruh", "Ruhr"),  # not a centre at all
    ],
)
def test_opening_refuses_other_sites(v: Variant, power: str, order: str, reason: str) -> None:
    res = play(v, v.start, {power: [order]}, "Winter 1897 Adjustments")
    [r] = [r for r in res.results if r.power == power]
    assert r.result in (Outcome.ILLEGAL, Outcome.FAILS)
    assert reason in r.reason
    assert not res.next.units_of(power)
    assert not res.next.centres_of(power)


def test_opening_allows_exactly_one_build(v: Variant) -> None:
    res = play(v, v.start, {"Russia": ["Build A mos", "Build A war"]}, "Winter 1897 Adjustments")
    got = outcomes(v, res)
    assert got["Russia: Build A mos"] == Outcome.SUCCEEDS
    assert got["Russia: Build A war"] == Outcome.ILLEGAL
    assert owned(v, res.next, "Russia") == {"mos"}


def test_opening_legal_orders_list_the_choices(v: Variant) -> None:
    legal = legal_orders(v, v.start, "Russia")
    texts = {format_order(v, o) for orders in legal.values() for o in orders}
    assert texts == {"Build A mos", "Build A sev", "Build F sev", "Build A war", "Waive"}


def test_a_power_that_orders_no_build_waives_it(v: Variant) -> None:
    res = play(v, v.start, {"England": ["Build A lon"]}, "Winter 1897 Adjustments")
    assert not res.next.units_of("France")
    assert not res.next.centres_of("France")


def test_england_example(v: Variant) -> None:
    # Winter 1897: Build A Lon
    res = play(v, v.start, OPENING, "Winter 1897 Adjustments")
    assert owned(v, res.next, "England") == {"lon"}
    # Spring 1898: A Lon - Yor; Fall 1898: A Yor - Lvp
    res = play(v, res.next, {"England": ["A Lon - Yor"]}, "Spring 1898 Movement")
    assert outcomes(v, res) == {"England: A lon - yor": Outcome.SUCCEEDS}
    res = play(v, res.next, {"England": ["A Yor - Lvp"]}, "Fall 1898 Movement")
    assert outcomes(v, res) == {"England: A yor - lvp": Outcome.SUCCEEDS}
    # "Having two centers and one unit, she builds a fleet in London in Winter 1898"
    assert owned(v, res.next, "England") == {"lon", "lvp"}
    res = play(v, res.next, {"England": ["Build F Lon"]}, "Winter 1898 Adjustments")
    assert outcomes(v, res) == {"England: Build F lon": Outcome.SUCCEEDS}
    # Spring 1899: A Lpl - Edi, F Lon - NTH
    res = play(v, res.next, {"England": ["A Lpl - Edi", "F Lon - NTH"]}, "Spring 1899 Movement")
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    # Fall 1899: F Nth - Nwy, A Edi H
    res = play(v, res.next, {"England": ["F Nth - Nwy", "A Edi H"]}, "Fall 1899 Movement")
    assert outcomes(v, res)["England: F nth - nwy"] == Outcome.SUCCEEDS
    # Winter 1899: "England's home supply centers are Edi, Lon, Lvp, and Nwy"
    w1899 = res.next
    assert v.calendar.name(w1899.phase) == "Winter 1899 Adjustments"
    assert homes(v, w1899, "England") == {"edi", "lon", "lvp", "nwy"}
    # "she may build units in any of these ... including during the immediately following Winter 1899 builds"
    res = play(v, w1899, {"England": ["Build A lvp", "Build F lon"]}, "Winter 1899 Adjustments")
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    assert homes(v, res.next, "England") == {"edi", "lon", "lvp", "nwy"}
    # Every other power held its one centre: that is its only home now.
    assert homes(v, w1899, "France") == {"par"}
    assert homes(v, w1899, "Russia") == {"war"}


def test_austria_example(v: Variant) -> None:
    # Winter 1897: Austria builds A Tri; Germany "began with an army in Munich"
    res = play(v, v.start, OPENING, "Winter 1897 Adjustments")
    # Spring 1898: A Tri - Ser. Germany takes Kiel so that it can build a second army in Munich.
    res = play(v, res.next, {"Austria": ["A Tri - Ser"], "Germany": ["A Mun - Kie"]}, "Spring 1898 Movement")
    # Fall 1898: A Ser H
    res = play(v, res.next, {"Austria": ["A Ser H"], "Germany": ["A Kie H"]}, "Fall 1898 Movement")
    assert owned(v, res.next, "Austria") == {"tri", "ser"}
    assert owned(v, res.next, "Germany") == {"mun", "kie"}
    # Winter 1898: Austria builds A Tri; Germany "built a second one there"
    res = play(v, res.next, {"Austria": ["Build A Tri"], "Germany": ["Build A Mun"]}, "Winter 1898 Adjustments")
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    # Spring 1899: A Tri - Ser, A Ser - Rum; Germany A Mun - Tyr
    res = play(
        v, res.next, {"Austria": ["A Tri - Ser", "A Ser - Rum"], "Germany": ["A Mun - Tyr"]}, "Spring 1899 Movement"
    )
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    # Fall 1899: A Ser - Gre, A Rum H; Germany A Tyr - Tri
    res = play(v, res.next, {"Austria": ["A Ser - Gre", "A Rum H"], "Germany": ["A Tyr - Tri"]}, "Fall 1899 Movement")
    assert outcomes(v, res)["Germany: A tyr - tri"] == Outcome.SUCCEEDS
    w1899 = res.next
    assert v.calendar.name(w1899.phase) == "Winter 1899 Adjustments"
    # "Austria's home centers become Serbia, Greece, and Rumania, while Germany's include Munich and Trieste."
    assert homes(v, w1899, "Austria") == {"gre", "rum", "ser"}
    assert {"mun", "tri"} <= homes(v, w1899, "Germany")
    assert "tri" not in homes(v, w1899, "Austria")
    # "With three centers and two units, Austria may build one unit in his only open home center, Serbia."
    legal = legal_orders(v, w1899, "Austria")
    assert {format_order(v, o) for os in legal.values() for o in os} == {"Build A ser", "Waive"}
    res = play(
        v, w1899, {"Austria": ["Build A Tri", "Build A Vie", "Build A Gre", "Build A Ser"]}, "Winter 1899 Adjustments"
    )
    got = outcomes(v, res)
    assert got["Austria: Build A tri"] == Outcome.ILLEGAL
    assert got["Austria: Build A vie"] == Outcome.ILLEGAL
    assert got["Austria: Build A gre"] == Outcome.ILLEGAL  # occupied
    assert got["Austria: Build A ser"] == Outcome.SUCCEEDS
    # From now on a newly captured centre is not a home centre.
    assert homes(v, res.next, "Austria") == {"gre", "rum", "ser"}


def test_winter_1899_is_not_skipped_when_only_new_homes_can_take_a_build(v: Variant) -> None:
    """Austria's only vacant build site in Winter 1899 is Serbia, which was never a regular home centre.

    Every other power is balanced, so the winter happens only because the new homes count already.
    """
    gmap = v.map
    pos = Position(
        phase=v.calendar.parse("Fall 1899 Movement"),
        units={gmap.province(n).id: Unit("Austria", "A", gmap.loc(n)) for n in ("ser", "rum")},
        centres={gmap.province(n).id: "Austria" for n in ("ser", "rum")},
        homes=v.start.homes,
    )
    res = play(v, pos, {"Austria": ["A Ser - Gre", "A Rum H"]}, "Fall 1899 Movement")
    w1899 = res.next
    assert v.calendar.name(w1899.phase) == "Winter 1899 Adjustments"
    assert homes(v, w1899, "Austria") == {"gre", "rum", "ser"}
    res = play(v, w1899, {"Austria": ["Build F ser"]}, "Winter 1899 Adjustments")
    assert outcomes(v, res) == {"Austria: Build F ser": Outcome.ILLEGAL}  # inland
    res = play(v, w1899, {"Austria": ["Build A ser"]}, "Winter 1899 Adjustments")
    assert outcomes(v, res) == {"Austria: Build A ser": Outcome.SUCCEEDS}


def test_homes_are_redefined_even_when_winter_1899_is_skipped(v: Variant) -> None:
    start = play(v, v.start, {"England": ["Build A lon"]}, "Winter 1897 Adjustments").next
    pos = start.with_(phase=v.calendar.parse("Fall 1899 Movement"))
    res = play(v, pos, {"England": ["A lon H"]}, "Fall 1899 Movement")
    assert v.calendar.name(res.next.phase) == "Spring 1900 Movement"
    assert homes(v, res.next, "England") == {"lon"}
    assert homes(v, res.next, "Russia") == set()


@pytest.mark.parametrize(("option", "ok"), [(False, False), (True, True)])
def test_option_build_any_owned_before_1899(option: bool, ok: bool) -> None:
    v = load_variant("1897", {"build_any_owned": option})
    res = play(v, v.start, {"England": ["Build F lon"]}, "Winter 1897 Adjustments")
    res = play(v, res.next, {"England": ["F lon - nth"]}, "Spring 1898 Movement")
    res = play(v, res.next, {"England": ["F nth - nwy"]}, "Fall 1898 Movement")
    assert owned(v, res.next, "England") == {"lon", "nwy"}
    # England owns London and Norway with one unit, in Norway: one build.
    w1898 = res.next
    assert v.calendar.name(w1898.phase) == "Winter 1898 Adjustments"
    got = play(v, w1898, {"England": ["Build A lon"]}, "Winter 1898 Adjustments")
    assert outcomes(v, got) == {"England: Build A lon": Outcome.SUCCEEDS}
    # Give England Holland as well (owned, vacant, not a regular home centre): only the option builds there.
    w = w1898.with_(centres={**w1898.centres, v.map.province("hol").id: "England"})
    got = play(v, w, {"England": ["Build F hol"]}, "Winter 1898 Adjustments")
    assert (outcomes(v, got)["England: Build F hol"] == Outcome.SUCCEEDS) is ok
    # From Winter 1899 on the option changes nothing: homes decide.
    w = w.with_(phase=v.calendar.parse("Winter 1900 Adjustments"), homes={"England": frozenset()})
    got = play(v, w, {"England": ["Build F hol"]}, "Winter 1900 Adjustments")
    assert outcomes(v, got)["England: Build F hol"] == Outcome.ILLEGAL
