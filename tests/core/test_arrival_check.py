"""The check on arrival says what the adjudicator will do.

Each case was seen in play: an order accepted on arrival and then judged illegal (or failed), or echoed as
an order the adjudicator would not carry out. The arrival check now asks the adjudicator's own legality
rules (core/order_checks.py), so every case here is checked both ways: the verdict on arrival, and the
adjudicator's result for the same line.
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.notation import parse_order
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.results import Outcome
from dippouch.core.variant import Variant
from dippouch.game import LineCheck, check_orders
from helpers import board


def judged(v: Variant, pos: Position, power: str, text: str) -> Outcome:
    """The adjudicator's result for one order given alone."""
    kind = v.calendar.kind(pos.phase)
    res = adjudicate(v, pos, {power: [parse_order(v, text, phase_kind=kind)]})
    (mine,) = [r for r in res.results if r.power == power and r.index == 0]
    return mine.result


def one(v: Variant, pos: Position, power: str, text: str) -> LineCheck:
    (line,) = check_orders(v, pos, power, text)
    return line


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


@pytest.fixture(scope="module")
def w3k() -> Variant:
    return load_variant("w3k")


def test_1897_fleet_build_inland_is_refused_on_arrival() -> None:
    v = load_variant("1897")
    line = one(v, v.start, "Russia", "Build F Moscow")
    assert not line.accepted and str(line.error) == "a fleet cannot be built in Moscow"
    assert judged(v, v.start, "Russia", "Build F Moscow") == Outcome.ILLEGAL
    assert one(v, v.start, "Russia", "Build A Moscow").order == "Build A mos"


def test_standard_fleet_build_inland_is_refused_on_arrival(std: Variant) -> None:
    winter = board(std, "Winter 1901", {"Germany": ["F kie", "A ruh"]}, {"Germany": ["ber", "kie", "mun"]})
    line = one(std, winter, "Germany", "Build F Munich")
    assert not line.accepted and str(line.error) == "a fleet cannot be built in Munich"
    assert judged(std, winter, "Germany", "Build F Munich") == Outcome.ILLEGAL
    assert one(std, winter, "Germany", "Build F Berlin").accepted


def test_w3k_fleet_build_without_its_coast_is_refused_on_arrival(w3k: Variant) -> None:
    winter = board(w3k, "Winter 1643", {"Cumberland": ["A den"]}, {"Cumberland": ["cae", "den"]}, homes={})
    line = one(w3k, winter, "Cumberland", "Build Fleet Caernarfonshire")
    assert not line.accepted and line.error is not None and "name the coast" in str(line.error)
    assert judged(w3k, winter, "Cumberland", "Build Fleet Caernarfonshire") == Outcome.FAILS
    named = one(w3k, winter, "Cumberland", "Build Fleet Caernarfonshire north coast")
    assert named.accepted and named.order == "Build F cae/nc"


def test_echo_shows_the_unit_type_on_the_board(w3k: Variant) -> None:
    pos = board(w3k, "Summer 1642", {"Crown": ["F ipo", "A lon"]}, homes={})
    held = one(w3k, pos, "Crown", "A Isle of Portland H")
    assert held.accepted and held.order == "F ipo H"
    assert held.note is not None and "is a fleet, not an army" in str(held.note)
    moved = one(w3k, pos, "Crown", "F London - Deptford")
    assert moved.accepted and moved.order == "A lon - dep"
    assert moved.note is not None and "is an army, not a fleet" in str(moved.note)
    # What the echo says is what the adjudicator carries out: the army moves.
    res = adjudicate(w3k, pos, {"Crown": [parse_order(w3k, "F London - Deptford")]})
    assert any(
        u.power == "Crown" and u.kind == "A" and w3k.map.locations[u.loc].abbr == "dep" for u in res.next.units.values()
    )


def test_echo_fills_in_the_coasts_the_fleet_stands_on_and_arrives_at(std: Variant) -> None:
    pos = board(std, "Spring 1901", {"Russia": ["F stp/sc"], "France": ["F mao"], "Italy": ["F wes"]})
    assert one(std, pos, "Russia", "F stp - bot").order == "F stp/sc - bot"
    assert one(std, pos, "Italy", "F wes - spa").order == "F wes - spa/sc"  # the one coast it can reach
    both = one(std, pos, "France", "F mao - spa")
    assert not both.accepted and "name the coast" in str(both.error or "")
    assert judged(std, pos, "France", "F mao - spa") == Outcome.ILLEGAL


def test_wrong_coast_for_the_fleet_is_a_certain_failure_refused_on_arrival(std: Variant) -> None:
    # 6.B.11: the fleet is on the north coast; an order from the south coast is legal as written but fails.
    pos = board(std, "Spring 1901", {"France": ["F spa/nc"]})
    line = one(std, pos, "France", "F spa/sc - gol")
    assert not line.accepted and "naming a coast does not move the fleet" in str(line.error or "")
    assert judged(std, pos, "France", "F spa/sc - gol") == Outcome.FAILS


def test_w3k_convert_inland_is_refused_on_arrival(w3k: Variant) -> None:
    pos = board(w3k, "Summer 1642", {"Crown": ["A wil", "F bri"]}, {"Crown": ["wil", "bri"]}, homes={})
    line = one(w3k, pos, "Crown", "A Wiltshire convert")
    assert not line.accepted and str(line.error or "").startswith("Wiltshire is not a coastal supply centre")
    assert judged(w3k, pos, "Crown", "A Wiltshire convert") == Outcome.ILLEGAL
    ok = one(w3k, pos, "Crown", "Fleet Bristol converts")
    assert ok.accepted and ok.order == "F bri convert"


def test_w3k_order_for_a_unit_not_handed_over_says_what_it_depends_on(w3k: Variant) -> None:
    pos = board(w3k, "Summer 1642", {"Protectorate": ["A dep"], "Crown": ["A sry"]}, homes={})
    line = one(w3k, pos, "Crown", "A Deptford - London")
    assert line.accepted and line.order == "A dep - lon"
    note = line.note or ""
    assert "counts only if Protectorate hands the unit over to Crown this season" in note
    assert "otherwise it is judged illegal" in note
    # What the note promises: illegal without the hand-over, carried out with it.
    assert judged(w3k, pos, "Crown", "A Deptford - London") == Outcome.ILLEGAL
    handed = adjudicate(
        w3k,
        pos,
        {
            "Protectorate": [parse_order(w3k, "Army Deptford is under the orders of Crown")],
            "Crown": [parse_order(w3k, "A Deptford - London")],
        },
    )
    assert next(r for r in handed.results if r.power == "Crown" and r.index == 0).result == Outcome.SUCCEEDS
    # A move the unit could not make even if handed over is refused with the reason.
    far = one(w3k, pos, "Crown", "A Deptford - Wiltshire")
    assert not far.accepted and "Wiltshire is not next to Deptford" in str(far.error or "")


def test_w3k_owner_cannot_order_a_unit_it_hands_over_in_the_same_orders(w3k: Variant) -> None:
    pos = board(w3k, "Summer 1642", {"Protectorate": ["A dep"]}, homes={})
    lines = check_orders(w3k, pos, "Protectorate", "Army Deptford is under the orders of Crown\nA dep - lon")
    assert lines[0].accepted
    assert not lines[1].accepted and "under another power's orders" in str(lines[1].error or "")


def test_w3k_supply_transfer_checks_on_arrival(w3k: Variant) -> None:
    # Crown owns three centres and has one unit: two units' excess supply.
    winter = board(w3k, "Winter 1643", {"Crown": ["A glo"]}, {"Crown": ["glo", "oxf", "wor"]}, homes={})
    lines = check_orders(
        w3k, winter, "Crown", "Send 3 supply to Manchester\nSend 1 supply to Crown\nSend 2 supply to Manchester"
    )
    assert not lines[0].accepted and "2 units of excess supply, not 3" in str(lines[0].error or "")
    assert not lines[1].accepted and "cannot send supply to 'Crown'" in str(lines[1].error or "")
    assert lines[2].accepted
    # Builds beyond one's own count may be covered by supply another power sends: accepted with a note.
    recipient = board(w3k, "Winter 1643", {"Manchester": ["A cam"]}, {"Manchester": ["cam"]}, homes={})
    build = one(w3k, recipient, "Manchester", "Build A Cambridge")
    assert not build.accepted and "occupied" in str(build.error or "")
    recipient = board(w3k, "Winter 1643", {"Manchester": ["A suf"]}, {"Manchester": ["cam"]}, homes={})
    build = one(w3k, recipient, "Manchester", "Build A Cambridge")
    assert build.accepted and "counts only if another power sends Manchester supply" in str(build.note or "")
    # Builds and removals may not be listed together (whatever is owed is drawn by lots).
    short = board(w3k, "Winter 1643", {"Crown": ["A glo", "A wil"]}, {"Crown": ["glo", "oxf"]}, homes={})
    mixed = check_orders(w3k, short, "Crown", "Build A Oxfordshire\nRemove A Wiltshire")
    assert not any(ln.accepted for ln in mixed) and all(
        "both builds and removals" in str(ln.error or "") for ln in mixed
    )


def test_retreat_echo_fills_in_the_coast(std: Variant) -> None:
    from dippouch.core.position import Dislodged, Unit

    m = std.map
    pos = board(std, "Spring 1901", {"France": []})
    pos = pos.with_(
        phase=std.calendar.parse("Spring 1901 Retreats"),
        dislodged={
            m.province_of(m.loc("gol")): Dislodged(Unit("France", "F", m.loc("gol")), frozenset({m.loc("spa/sc")}))
        },
    )
    line = one(std, pos, "France", "F gol R spa")
    assert line.accepted and line.order == "F lyo R spa/sc"


def test_two_retreats_to_one_province_are_accepted_with_a_warning(std: Variant) -> None:
    from dippouch.core.position import Dislodged, Unit

    m = std.map
    pos = board(std, "Spring 1901", {"France": []})
    pos = pos.with_(
        phase=std.calendar.parse("Spring 1901 Retreats"),
        dislodged={
            m.province_of(m.loc("bur")): Dislodged(Unit("France", "A", m.loc("bur")), frozenset({m.loc("pic")})),
            m.province_of(m.loc("bel")): Dislodged(Unit("France", "A", m.loc("bel")), frozenset({m.loc("pic")})),
        },
    )
    lines = check_orders(std, pos, "France", "A bur R pic\nA bel R pic")
    assert all(ln.accepted and "both fail" in str(ln.note or "") for ln in lines)
    res = adjudicate(std, pos, {"France": [parse_order(std, ln.order or "", phase_kind="retreats") for ln in lines]})
    assert [r.result for r in res.results if not r.automatic] == [Outcome.FAILS, Outcome.FAILS]


def test_a_second_order_for_a_unit_is_refused_and_points_at_the_first_in_movement_and_retreats(std: Variant) -> None:
    from dippouch.core.order_checks import check_submission
    from dippouch.core.position import Dislodged, Unit

    m = std.map
    spring = std.start
    orders = [parse_order(std, t) for t in ("A par - bur", "A mar H", "A par - pic")]
    first, _, second = check_submission(std, spring, "France", orders)
    assert first.accepted and second.first == 0
    assert str(second.problem) == "A Paris already has an order; the first one counts"
    assert judged_all(std, spring, "France", orders)[2] == Outcome.ILLEGAL

    retreats = board(std, "Spring 1901", {"France": []}).with_(
        phase=std.calendar.parse("Spring 1901 Retreats"),
        dislodged={
            m.province_of(m.loc("bur")): Dislodged(Unit("France", "A", m.loc("bur")), frozenset({m.loc("pic")}))
        },
    )
    orders = [parse_order(std, t, phase_kind="retreats") for t in ("A bur R pic", "A bur D")]
    first, second = check_submission(std, retreats, "France", orders)
    assert first.accepted and second.first == 0
    assert str(second.problem) == "A Burgundy already has an order; the first one counts"
    assert judged_all(std, retreats, "France", orders)[1] == Outcome.ILLEGAL


def judged_all(v: Variant, pos: Position, power: str, orders: list[Order]) -> list[Outcome]:
    """The adjudicator's results for one power's orders, in the order given."""
    res = adjudicate(v, pos, {power: orders})
    got = {r.index: r.result for r in res.results if r.power == power and not r.automatic}
    return [got[i] for i in range(len(orders))]
