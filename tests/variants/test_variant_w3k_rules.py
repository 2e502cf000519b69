"""W3K rules through the public API: orders as players write them, ``parse_order`` and ``adjudicate``.

Every worked example of the rulebook is here with the result the rulebook states: Staffordshire (four
cases), Annandale, the Caernarfonshire convoy and the supply transfer; then conversion, proxy orders, the
mercy position, lots, victory and the calendar.
"""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.notation import format_order, parse_order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome, Resolution
from dippouch.core.rules.w3k import Convert, Proxy, SendSupply, draw_powers, winner
from dippouch.core.variant import Variant
from helpers import board, prov


@pytest.fixture(scope="module")
def v() -> Variant:
    return load_variant("w3k")


def position(
    v: Variant, phase: str, units: dict[str, list[str]], centres: dict[str, list[str]] | None = None
) -> Position:
    """A position from unit texts per power ("A lon", "F cae/nc"); centres per power (default: none)."""
    return board(v, phase, units, centres, homes={p: frozenset() for p in v.power_names})


def run(v: Variant, pos: Position, orders: dict[str, list[str]], rng: random.Random | None = None) -> Resolution:
    kind = v.calendar.kind(pos.phase)
    parsed = {p: [parse_order(v, t, phase_kind=kind) for t in texts] for p, texts in orders.items()}
    return adjudicate(v, pos, parsed, rng=rng)


def result(v: Variant, res: Resolution, power: str, index: int) -> Outcome:
    return next(r.result for r in res.results if r.power == power and r.index == index)


def unit_at(v: Variant, res: Resolution, name: str) -> Unit | None:
    return res.next.units.get(prov(v, name))


# ------------------------------------------------------------------ Staffordshire (rulebook, "Unit orders")

STAFFS = {"Crown": ["A ash"], "Newcastle": ["A sta"], "Cumberland": ["A shr"]}


def test_staffordshire_1_equal_strength_bounces(v: Variant) -> None:
    pos = position(v, "Summer 1642", STAFFS)
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Ashby-de-la-Zouch Castle moves to Staffordshire"],
            "Newcastle": ["Army Staffordshire holds"],
            "Cumberland": ["Army Shropshire holds"],
        },
    )
    assert result(v, res, "Crown", 0) == Outcome.FAILS
    assert unit_at(v, res, "Staffordshire") == Unit("Newcastle", "A", prov(v, "sta"))


def test_staffordshire_2_support_from_another_power_dislodges(v: Variant) -> None:
    pos = position(v, "Summer 1642", STAFFS)
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Ashby-de-la-Zouch Castle moves to Staffordshire"],
            "Newcastle": ["Army Staffordshire holds"],
            "Cumberland": ["Army Shropshire supports Army Ashby-de-la-Zouch Castle to Staffordshire"],
        },
    )
    assert result(v, res, "Crown", 0) == Outcome.SUCCEEDS
    assert result(v, res, "Cumberland", 0) == Outcome.GIVEN
    assert unit_at(v, res, "Staffordshire") == Unit("Crown", "A", prov(v, "sta"))
    assert prov(v, "sta") in res.next.dislodged


def test_staffordshire_3_supported_hold_matches_supported_attack(v: Variant) -> None:
    pos = position(v, "Summer 1642", {**STAFFS, "Newcastle": ["A sta", "A che"]})
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Ashby-de-la-Zouch Castle moves to Staffordshire"],
            "Newcastle": ["Army Staffordshire holds", "Army Cheshire supports Army Staffordshire"],
            "Cumberland": ["Army Shropshire supports Army Ashby-de-la-Zouch Castle to Staffordshire"],
        },
    )
    assert result(v, res, "Crown", 0) == Outcome.FAILS
    assert unit_at(v, res, "Staffordshire") == Unit("Newcastle", "A", prov(v, "sta"))


def test_staffordshire_4_attack_on_the_supporter_cuts_support(v: Variant) -> None:
    pos = position(v, "Summer 1642", {**STAFFS, "Newcastle": ["A sta", "A che"]})
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Ashby-de-la-Zouch Castle moves to Staffordshire"],
            "Newcastle": ["Army Staffordshire holds", "Army Cheshire moves to Shropshire"],
            "Cumberland": ["Army Shropshire supports Army Ashby-de-la-Zouch Castle to Staffordshire"],
        },
    )
    assert result(v, res, "Cumberland", 0) == Outcome.CUT
    assert result(v, res, "Crown", 0) == Outcome.FAILS
    assert unit_at(v, res, "Staffordshire") == Unit("Newcastle", "A", prov(v, "sta"))


def test_support_is_not_cut_by_an_attack_from_the_same_power(v: Variant) -> None:
    # "you cannot cut your own support"
    pos = position(v, "Summer 1642", {**STAFFS, "Cumberland": ["A shr", "A che"]})
    res = run(
        v,
        pos,
        {
            "Crown": ["A ash - sta"],
            "Newcastle": ["A sta H"],
            "Cumberland": ["A shr S A ash - sta", "A che - shr"],
        },
    )
    assert result(v, res, "Cumberland", 0) == Outcome.GIVEN
    assert result(v, res, "Crown", 0) == Outcome.SUCCEEDS


# ------------------------------------------------------------------ Annandale (rulebook, "More detail on movement")

BORDERS = {
    "Cumberland": ["A crl", "A esk"],
    "Newcastle": ["A nhb", "A cah"],
    "Montrose": ["A ann", "A tev", "A mrs"],
}
ALLIES = {
    "Cumberland": ["Army Carlisle supports Army Eskdale to Annandale", "Army Eskdale moves to Annandale"],
    "Newcastle": ["Army Northumberland supports Eskdale", "Army Carham Castle moves to Teesdale"],
}


def test_annandale_allies_force_their_way_in_when_montrose_defends(v: Variant) -> None:
    pos = position(v, "Summer 1642", BORDERS)
    res = run(
        v,
        pos,
        {
            **ALLIES,
            "Montrose": ["Army Annandale holds", "Army Teesdale supports Army Annandale", "Army Merse holds"],
        },
    )
    assert result(v, res, "Montrose", 1) == Outcome.CUT  # Carham's attack cuts the support from Teesdale
    assert result(v, res, "Cumberland", 1) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Annandale & Nithsdale") == Unit("Cumberland", "A", prov(v, "ann"))
    assert prov(v, "ann") in res.next.dislodged


def test_annandale_the_attacked_unit_cannot_cut_the_support_against_itself(v: Variant) -> None:
    pos = position(v, "Summer 1642", BORDERS)
    res = run(v, pos, {**ALLIES, "Montrose": ["Army Annandale moves to Carlisle", "A tev H", "A mrs H"]})
    assert result(v, res, "Cumberland", 0) == Outcome.GIVEN
    assert result(v, res, "Cumberland", 1) == Outcome.SUCCEEDS
    assert prov(v, "ann") in res.next.dislodged


def test_annandale_montrose_attacks_northumberland_instead(v: Variant) -> None:
    pos = position(v, "Summer 1642", BORDERS)
    res = run(
        v,
        pos,
        {
            **ALLIES,
            "Montrose": [
                "Army Annandale holds",
                "Army Merse supports Army Teesdale to Northumberland",
                "Army Teesdale moves to Northumberland",
            ],
        },
    )
    assert result(v, res, "Montrose", 2) == Outcome.SUCCEEDS  # "(succeeds!)"
    assert unit_at(v, res, "Northumberland") == Unit("Montrose", "A", prov(v, "nhb"))
    assert prov(v, "nhb") in res.next.dislodged  # Newcastle "in a difficult position"
    assert unit_at(v, res, "Teviotdale & Liddesdale") == Unit("Newcastle", "A", prov(v, "tev"))


# ------------------------------------------------------------------ the Caernarfonshire convoy (rulebook, "Convoys")

CONVOY = {
    "Crown": ["A cae"],
    "Irish Confederacy": ["F dcb"],
    "Argyll": ["F iri"],
    "Cumberland": ["F mcb", "F swf"],
}
CRUSH_IRISH_SEA = [
    "Fleet Morecombe Bay moves to the Irish Sea",
    "Fleet Solway Firth supports Fleet Morecombe to the Irish Sea",
]


def test_convoy_by_the_confederate_fleet(v: Variant) -> None:
    pos = position(v, "Summer 1642", CONVOY)
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Caernarfonshire moves to Dublin & the Pale"],
            "Irish Confederacy": ["Fleet Dublin & Caernarfon Bays convoys Army Caernarfonshire to Dublin & the Pale"],
        },
    )
    assert result(v, res, "Crown", 0) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Dublin & the Pale") == Unit("Crown", "A", prov(v, "dub"))


def test_convoy_through_the_irish_sea_is_disrupted_by_cumberland(v: Variant) -> None:
    pos = position(v, "Summer 1642", CONVOY)
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Caernarfonshire moves to Dublin & the Pale"],
            "Argyll": ["Fleet Irish Sea convoys Army Caernarfonshire to Dublin & the Pale"],
            "Cumberland": CRUSH_IRISH_SEA,
        },
    )
    assert prov(v, "iri") in res.next.dislodged
    assert result(v, res, "Crown", 0) == Outcome.FAILS
    assert unit_at(v, res, "Caernarfonshire") == Unit("Crown", "A", prov(v, "cae"))


def test_convoy_ordered_by_both_fleets_survives_the_loss_of_one(v: Variant) -> None:
    pos = position(v, "Summer 1642", CONVOY)
    res = run(
        v,
        pos,
        {
            "Crown": ["Army Caernarfonshire moves to Dublin & the Pale"],
            "Irish Confederacy": ["Fleet Dublin & Caernarfon Bays convoys Army Caernarfonshire to Dublin & the Pale"],
            "Argyll": ["Fleet Irish Sea convoys Army Caernarfonshire to Dublin & the Pale"],
            "Cumberland": CRUSH_IRISH_SEA,
        },
    )
    assert prov(v, "iri") in res.next.dislodged
    assert result(v, res, "Crown", 0) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Dublin & the Pale") == Unit("Crown", "A", prov(v, "dub"))


# ------------------------------------------------------------------ supply transfer (rulebook, "Transferring supply")

# Player A (Argyll) has supply for 5 builds, Player B (Crown) for 1, Player C (Manchester) owes 1 removal.
SUPPLY_UNITS = {"Argyll": ["A arg"], "Crown": ["A oxf"], "Manchester": ["A cam", "F dea"]}


def supply_position(v: Variant) -> Position:
    centres = {
        "Argyll": ["arg", "ftw", "kis", "gyl", "kty", "isl"],
        "Crown": ["oxf", "gla", "ipo"],
        "Manchester": ["hpv"],
    }
    pos = position(v, "Winter 1643", SUPPLY_UNITS, centres)
    # Player B "warrants 1 build": three centres, two units.
    units = dict(pos.units)
    units[prov(v, "wor")] = Unit("Crown", "A", prov(v, "wor"))
    return pos.with_(units=units)


PLAYER_A = [
    "Build an Army at Fort William",
    "Build a Fleet at Kisimul Castle",
    "Send 1 unit's supply to Player Crown",
    "Send 2 units' supply to Player Manchester",
]
PLAYER_B = ["Build an Army in Glamorganshire", "Build a Fleet in Portland (Dorset)"]
PLAYER_C = ["Build an Army in Hastings & Pevensey"]


def test_supply_example_position_is_as_the_rulebook_says(v: Variant) -> None:
    from dippouch.core.rules.base import hooks_for

    pos = supply_position(v)
    hooks = hooks_for(v)
    assert [hooks.adjustment_delta(pos, p) for p in ("Argyll", "Crown", "Manchester")] == [5, 1, -1]


def test_supply_transfer_lets_the_recipients_build(v: Variant) -> None:
    pos = supply_position(v)
    # Recipients listed first: transfers count whatever order the powers come in.
    res = run(v, pos, {"Manchester": PLAYER_C, "Crown": PLAYER_B, "Argyll": PLAYER_A})
    assert [result(v, res, "Argyll", i) for i in range(4)] == [Outcome.SUCCEEDS] * 4
    assert [result(v, res, "Crown", i) for i in range(2)] == [Outcome.SUCCEEDS] * 2
    assert result(v, res, "Manchester", 0) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Fort William") == Unit("Argyll", "A", prov(v, "ftw"))
    assert unit_at(v, res, "Kisimul Castle") == Unit("Argyll", "F", prov(v, "kis"))
    assert unit_at(v, res, "Glamorganshire") == Unit("Crown", "A", prov(v, "gla"))
    assert unit_at(v, res, "Isle of Portland") == Unit("Crown", "F", prov(v, "ipo"))
    assert unit_at(v, res, "Hastings & Pevensey") == Unit("Manchester", "A", prov(v, "hpv"))
    assert not any(r.automatic for r in res.results)
    assert "w3k_supply" not in res.next.state  # a transfer lasts one Winter


def test_without_the_transfer_b_builds_once_and_c_loses_a_unit_by_lots(v: Variant) -> None:
    pos = supply_position(v)
    res = run(v, pos, {"Argyll": PLAYER_A[:2], "Crown": PLAYER_B, "Manchester": PLAYER_C}, rng=random.Random(7))
    assert result(v, res, "Crown", 0) == Outcome.SUCCEEDS
    assert result(v, res, "Crown", 1) == Outcome.ILLEGAL  # "but not a fleet in Portland"
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL
    assert unit_at(v, res, "Hastings & Pevensey") is None
    drawn = [r for r in res.results if r.automatic and r.power == "Manchester"]
    assert len(drawn) == 1
    assert "drawn by lots" in drawn[0].reason and "A Cambridgeshire, F Port of Deal" in drawn[0].reason
    assert len(res.next.units_of("Manchester")) == 1
    # The same seed draws the same lot: the draw can be audited and replayed.
    again = run(v, pos, {"Argyll": PLAYER_A[:2], "Crown": PLAYER_B, "Manchester": PLAYER_C}, rng=random.Random(7))
    assert [r.order for r in again.results if r.automatic] == [r.order for r in drawn]


def test_lots_without_an_rng_are_seeded_from_the_phase_and_say_so(v: Variant) -> None:
    pos = supply_position(v)
    res1 = run(v, pos, {"Manchester": PLAYER_C})
    res2 = run(v, pos, {"Manchester": PLAYER_C})
    r1 = [r for r in res1.results if r.automatic]
    assert r1 and "seeded with 'w3k Winter 1643 Adjustments Manchester'" in r1[0].reason
    assert [r.order for r in r1] == [r.order for r in res2.results if r.automatic]


def test_lots_draw_differs_with_the_seed(v: Variant) -> None:
    pos = supply_position(v)
    picks = set()
    for seed in range(12):
        res = run(v, pos, {"Manchester": PLAYER_C}, rng=random.Random(seed))
        picks.add(next(r.order for r in res.results if r.automatic))
    assert len(picks) == 2  # both units get drawn for some seed


def test_a_player_may_not_list_both_builds_and_removals(v: Variant) -> None:
    pos = supply_position(v)
    res = run(v, pos, {"Manchester": ["Build an Army in Hastings & Pevensey", "Remove A cam"]}, rng=random.Random(1))
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL
    assert result(v, res, "Manchester", 1) == Outcome.ILLEGAL
    assert "may not list both builds and removals" in next(r.reason for r in res.results if r.index == 1)
    assert any(r.automatic for r in res.results)  # the removal owed is drawn by lots instead


def test_cannot_send_more_supply_than_the_excess(v: Variant) -> None:
    pos = supply_position(v)
    res = run(v, pos, {"Crown": ["Send 2 units' supply to Manchester"], "Manchester": PLAYER_C}, rng=random.Random(1))
    assert result(v, res, "Crown", 0) == Outcome.ILLEGAL
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL


def test_transfer_order_notation_round_trips(v: Variant) -> None:
    o = parse_order(v, "Send 2 units' supply to Player Manchester")
    assert o == SendSupply(2, "Manchester")
    assert format_order(v, o) == "Send 2 supply to Manchester"
    assert parse_order(v, format_order(v, o)) == o


# ------------------------------------------------------------------ building anywhere owned


def test_build_in_any_vacant_owned_centre(v: Variant) -> None:
    pos = position(v, "Winter 1643", {"Crown": ["A oxf"]}, {"Crown": ["oxf", "lon", "dub"]})
    res = run(v, pos, {"Crown": ["Build A dub", "Build F lon"]})
    assert [result(v, res, "Crown", i) for i in range(2)] == [Outcome.SUCCEEDS, Outcome.SUCCEEDS]


# ------------------------------------------------------------------ conversion


def test_conversion_takes_two_consecutive_movement_seasons(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Ormond": ["A dro"]}, {"Ormond": ["dro"]})
    res = run(v, pos, {"Ormond": ["Army Drogheda converts"]})
    assert result(v, res, "Ormond", 0) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Drogheda") == Unit("Ormond", "A", prov(v, "dro"))
    assert res.next.state.get("w3k_converting") == {"dro": "A"}
    res2 = run(v, res.next, {"Ormond": ["A dro convert"]})
    assert unit_at(v, res2, "Drogheda") == Unit("Ormond", "F", prov(v, "dro"))
    assert "w3k_converting" not in res2.next.state
    # And back: a fleet becomes an army the same way.
    res3 = run(v, res2.next, {"Ormond": ["F dro convert"]})
    res4 = run(v, res3.next, {"Ormond": ["F dro convert"]})
    assert unit_at(v, res4, "Drogheda") == Unit("Ormond", "A", prov(v, "dro"))


def test_conversion_spans_winter_between_autumn_and_spring(v: Variant) -> None:
    pos = position(
        v, "Autumn 1642", {"Ormond": ["A dro"], "Crown": ["A oxf"]}, {"Ormond": ["dro"], "Crown": ["oxf", "lon"]}
    )
    res = run(v, pos, {"Ormond": ["A dro convert"]})
    assert v.calendar.name(res.next.phase) == "Winter 1643 Adjustments"
    winter = run(v, res.next, {"Crown": ["Build A lon"]})
    assert v.calendar.name(winter.next.phase) == "Spring 1643 Movement"
    spring = run(v, winter.next, {"Ormond": ["A dro convert"]})
    assert unit_at(v, spring, "Drogheda") == Unit("Ormond", "F", prov(v, "dro"))


def test_an_attack_disrupts_conversion_even_when_it_fails(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Ormond": ["A dro", "A mea"], "Crown": ["A lou"]}, {"Ormond": ["dro"]})
    first = run(v, pos, {"Ormond": ["A dro convert"]})
    res = run(v, first.next, {"Ormond": ["A dro convert", "A mea S A dro"], "Crown": ["A lou - dro"]})
    assert result(v, res, "Crown", 0) == Outcome.FAILS  # supported to hold, not dislodged
    assert result(v, res, "Ormond", 0) == Outcome.DISRUPTED
    assert result(v, res, "Ormond", 1) == Outcome.GIVEN  # a converting unit may be supported to hold
    assert unit_at(v, res, "Drogheda") == Unit("Ormond", "A", prov(v, "dro"))
    assert "w3k_converting" not in res.next.state  # it must start again


def test_a_converting_unit_gives_no_support(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Ormond": ["A dro", "A mea"], "Crown": ["A lou"]}, {"Ormond": ["dro"]})
    res = run(v, pos, {"Ormond": ["A dro convert", "A mea - lou"], "Crown": ["A lou H"]})
    assert result(v, res, "Ormond", 1) == Outcome.FAILS  # no support from Drogheda: 1 against 1


def test_conversion_needs_an_owned_coastal_centre(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Ormond": ["A dro", "A tip", "A lou"]}, {"Ormond": ["tip"]})
    res = run(v, pos, {"Ormond": ["A dro convert", "A tip convert", "A lou convert"]})
    assert [result(v, res, "Ormond", i) for i in range(3)] == [Outcome.ILLEGAL] * 3
    reasons = [next(r.reason for r in res.results if r.index == i) for i in range(3)]
    assert "does not own Drogheda" in reasons[0]
    assert "not a coastal supply centre" in reasons[1]


def test_an_army_converting_on_a_split_coast_names_its_coast(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Cumberland": ["A cae"]}, {"Cumberland": ["cae"]})
    bare = run(v, pos, {"Cumberland": ["A cae convert"]})
    assert result(v, bare, "Cumberland", 0) == Outcome.ILLEGAL
    res = run(v, pos, {"Cumberland": ["Convert Army Caernarfonshire to Fleet (North Coast)"]})
    res2 = run(v, res.next, {"Cumberland": ["A cae convert to F cae/nc"]})
    assert unit_at(v, res2, "Caernarfonshire") == Unit("Cumberland", "F", v.map.loc("cae/nc"))
    assert parse_order(v, "A cae convert to F cae/nc") == Convert("A", prov(v, "cae"), v.map.loc("cae/nc"))


# ------------------------------------------------------------------ proxy orders


def test_proxy_order_lets_another_power_order_the_unit(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"]})
    res = run(
        v,
        pos,
        {
            "Protectorate": ["Army London is under the orders of Manchester"],
            "Manchester": ["Army London to Surrey"],
        },
    )
    assert result(v, res, "Protectorate", 0) == Outcome.SUCCEEDS
    assert result(v, res, "Manchester", 0) == Outcome.SUCCEEDS
    assert unit_at(v, res, "Surrey") == Unit("Protectorate", "A", prov(v, "sry"))
    assert "w3k_proxies" not in res.next.state  # a hand-over lasts one season


def test_command_offered_reads_the_same(v: Variant) -> None:
    o = parse_order(v, "Command of Army London is offered to Player Manchester")
    assert o == Proxy("A", prov(v, "lon"), "Manchester")
    assert parse_order(v, format_order(v, o)) == o


def test_without_the_owners_consent_the_proxy_order_is_ignored(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"]})
    res = run(v, pos, {"Manchester": ["Army London to Surrey"]})
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL
    assert unit_at(v, res, "London") == Unit("Protectorate", "A", prov(v, "lon"))


def test_the_owner_cannot_also_order_a_unit_it_handed_over(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"]})
    res = run(
        v, pos, {"Protectorate": ["A lon under orders of Manchester", "A lon - mdx"], "Manchester": ["A lon - sry"]}
    )
    assert result(v, res, "Protectorate", 1) == Outcome.ILLEGAL
    assert unit_at(v, res, "Surrey") is not None


def test_only_the_owner_can_hand_a_unit_over(v: Variant) -> None:
    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"]})
    res = run(v, pos, {"Manchester": ["A lon under orders of Crown"], "Crown": ["A lon - sry"]})
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL
    assert result(v, res, "Crown", 0) == Outcome.ILLEGAL


# ------------------------------------------------------------------ the mercy position


def test_mercy_position_keeps_one_unit_without_centres(v: Variant) -> None:
    from dippouch.core.rules.base import hooks_for

    hooks = hooks_for(v)
    one = position(v, "Winter 1643", {"Hamilton": ["F abd"]})
    two = position(v, "Winter 1643", {"Hamilton": ["F abd", "A mar"]})
    assert hooks.adjustment_delta(one, "Hamilton") == 0  # keeps its one unit, cannot build
    assert hooks.adjustment_delta(two, "Hamilton") == -1
    first = position(v, "Winter 1643", {"Hamilton": ["F abd"]}, {"Hamilton": ["abd"]})
    second = position(v, "Winter 1643", {"Hamilton": ["F abd"]}, {"Hamilton": ["abd", "bfm"]})
    assert hooks.adjustment_delta(first, "Hamilton") == 0  # the first centre makes up the deficit
    assert hooks.adjustment_delta(second, "Hamilton") == 1  # the second allows a build


def test_mercy_position_removal_leaves_one_unit(v: Variant) -> None:
    pos = position(v, "Winter 1643", {"Hamilton": ["F abd", "A mar"], "Crown": ["A oxf"]}, {"Crown": ["oxf", "lon"]})
    res = run(v, pos, {"Crown": ["Build A lon"]}, rng=random.Random(3))
    assert len(res.next.units_of("Hamilton")) == 1


# ------------------------------------------------------------------ calendar, victory, draws


def test_calendar_starts_in_summer_1642_and_first_adjusts_in_winter_1643(v: Variant) -> None:
    cal = v.calendar
    assert cal.name(v.start.phase) == "Summer 1642 Movement"
    res = run(v, v.start, {})
    assert cal.name(res.next.phase) == "Autumn 1642 Movement"
    names = []
    p = res.next.phase
    for _ in range(7):
        p = cal.next(p)
        names.append(cal.name(p))
    assert names[:3] == ["Autumn 1642 Retreats", "Winter 1643 Adjustments", "Spring 1643 Movement"]


def test_victory_needs_55_centres_and_a_capital_of_each_kingdom(v: Variant) -> None:
    centres = [p.abbr for p in v.map.provinces if p.supply_centre]
    no_irish_capital = [c for c in centres if c not in ("dub", "bel")][:55]
    pos = position(v, "Winter 1650", {"Crown": ["A oxf"]}, {"Crown": no_irish_capital})
    assert winner(v, pos) is None
    with_dublin = [*no_irish_capital[:54], "dub"]
    assert {"lon", "edi"} <= set(with_dublin)
    pos = position(v, "Winter 1650", {"Crown": ["A oxf"]}, {"Crown": with_dublin})
    assert winner(v, pos) == "Crown"
    pos = position(v, "Winter 1650", {"Crown": ["A oxf"]}, {"Crown": with_dublin[:54]})
    assert winner(v, pos) is None


def test_a_draw_only_between_powers_holding_both_capitals_of_a_kingdom(v: Variant) -> None:
    pos = position(
        v,
        "Winter 1650",
        {"Crown": ["A oxf"], "Ormond": ["F dub"], "Argyll": ["A arg"]},
        {"Crown": ["lon", "yor"], "Ormond": ["dub", "bel"], "Argyll": ["edi"]},
    )
    assert draw_powers(v, pos) is None  # Argyll holds only one Scottish capital
    pos = position(
        v,
        "Winter 1650",
        {"Crown": ["A oxf"], "Ormond": ["F dub"], "Argyll": ["A arg"]},
        {"Crown": ["lon", "yor"], "Ormond": ["dub", "bel"], "Argyll": ["edi", "gls"]},
    )
    assert draw_powers(v, pos) == ["Crown", "Argyll", "Ormond"]


def test_the_game_layer_applies_the_w3k_victory_and_draw_rules(v: Variant) -> None:
    from dippouch.game import GameSettings, check_victory, draw_reached

    centres = [p.abbr for p in v.map.provinces if p.supply_centre and p.abbr not in ("dub", "bel")][:55]
    pos = position(v, "Winter 1650", {"Crown": ["A oxf"]}, {"Crown": centres})
    assert check_victory(v, pos) is None  # 55 centres but no Irish capital
    two = position(
        v, "Winter 1650", {"Crown": ["A oxf"], "Argyll": ["A arg"]}, {"Crown": ["lon", "yor"], "Argyll": ["edi"]}
    )
    votes = {"Crown": True, "Argyll": True}
    assert draw_reached(v, two, GameSettings(), votes) is None
    two = two.with_(centres={**two.centres, prov(v, "gls"): "Argyll"})
    ending = draw_reached(v, two, GameSettings(), votes)
    assert ending is not None and ending.powers == ("Crown", "Argyll")


def test_the_game_layer_accepts_w3k_submissions(v: Variant) -> None:
    from dippouch.game import check_orders

    pos = position(v, "Summer 1642", {"Protectorate": ["A lon"], "Ormond": ["A dro"]}, {"Ormond": ["dro"]})
    checks = check_orders(v, pos, "Manchester", "Army London to Surrey")
    assert [c.error for c in checks] == [None]  # counts only if the Protectorate hands the unit over
    checks = check_orders(v, pos, "Protectorate", "Army London is under the orders of Manchester")
    assert [c.error for c in checks] == [None]
    checks = check_orders(v, pos, "Ormond", "Army Drogheda converts")
    assert [c.error for c in checks] == [None]
    winter = supply_position(v)
    checks = check_orders(v, winter, "Crown", "\n".join(PLAYER_B))
    assert [c.error for c in checks] == [None, None]  # the second build counts on Argyll's supply
    checks = check_orders(v, winter, "Argyll", "\n".join(PLAYER_A))
    assert [c.error for c in checks] == [None] * 4


def test_a_waiver_that_counts_only_with_supply_leaves_the_removal_owed_to_be_ordered(v: Variant) -> None:
    """Manchester owes a removal; a Waive counts only if supply is sent, so it must not use up the removal:
    the check accepts "Remove A cam" after it, and the adjudicator (no supply sent) carries that out."""
    from dippouch.game import check_orders

    pos = supply_position(v)
    lines = ["Waive", "Remove A cam"]
    waive, remove = check_orders(v, pos, "Manchester", "\n".join(lines))
    assert waive.accepted and waive.note is not None and "counts only if another power sends" in waive.note
    assert remove.accepted, remove.error
    res = run(v, pos, {"Manchester": lines}, rng=random.Random(1))
    assert result(v, res, "Manchester", 0) == Outcome.ILLEGAL
    assert result(v, res, "Manchester", 1) == Outcome.SUCCEEDS
