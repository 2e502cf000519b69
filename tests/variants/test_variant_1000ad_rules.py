"""1000 AD's rules, each with a position and orders written out, adjudicated by the real adjudicator."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import all_legal_orders, legal_orders
from dippouch.core.notation import format_order, parse_order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome, Resolution
from dippouch.core.rules.ad1000 import defensive_support_left, game_end
from dippouch.core.variant import Variant

V: Variant = load_variant("1000ad")
M = V.map
BRI, FRA, MOO, BYZ, VIK, MAG, POL = V.power_names


def pos(
    phase: str,
    units: Mapping[str, list[str]],
    centres: Mapping[str, str] | None = None,
    state: Mapping[str, object] | None = None,
) -> Position:
    """A position: units as "A lon" per power; ``centres`` changes owners ("lom": power) from the start."""
    us: dict[int, Unit] = {}
    for power, texts in units.items():
        for t in texts:
            kind, where = t.split()
            loc = M.loc(where)
            assert M.province_of(loc) not in us, t
            us[M.province_of(loc)] = Unit(power, kind, loc)
    owners = dict(V.start.centres)
    for abbr, power in (centres or {}).items():
        if power:
            owners[M.province(abbr).id] = power
        else:
            owners.pop(M.province(abbr).id, None)
    return Position(V.calendar.parse(phase), us, owners, V.start.homes, state=dict(state or {}))


def run(position: Position, orders: Mapping[str, list[str]]) -> Resolution:
    kind = V.calendar.kind(position.phase)
    parsed = {p: [parse_order(V, t, phase_kind=kind) for t in ts] for p, ts in orders.items()}
    return adjudicate(V, position, parsed)


def result(res: Resolution, text: str) -> tuple[Outcome, bool, str]:
    for r in res.results:
        if format_order(V, r.order) == text:
            return r.result, r.dislodged, r.reason
    raise AssertionError(f"no result for {text!r}: {[format_order(V, r.order) for r in res.results]}")


def unit_at(p: Position, abbr: str) -> str | None:
    u = p.units.get(M.province(abbr).id)
    return f"{u.power} {u.kind} {M.locations[u.loc].abbr}" if u else None


# ------------------------------------------------------------------------------------------ Winter 999


def test_game_opens_with_winter_999_then_spring_1000() -> None:
    assert V.calendar.name(V.start.phase) == "Winter 999 Adjustments"
    res = run(V.start, {BRI: ["Build F lon", "Build A yor"]})
    assert res.next.phase == V.calendar.parse("Spring 1000 Movement")
    assert unit_at(res.next, "lon") == "British F lon"


def test_placements_anywhere_in_the_homeland_army_or_fleet() -> None:
    res = run(
        V.start,
        {
            BYZ: [
                "Build A apu",  # homeland, not a centre: allowed in Winter 999
                "Build F var/ec",  # split coast named
                "Build F var/wc",  # second unit in the same province
                "Build A cro",  # Croatia is outside the Byzantine homeland
                "Build F dra",  # fleets only on coasts
                "Build F cre",
            ],
            VIK: ["Build F hve", "Build A dov", "Build F jel"],
        },
    )
    assert result(res, "Build A apu")[0] == Outcome.SUCCEEDS
    assert result(res, "Build F var/ec")[0] == Outcome.SUCCEEDS
    assert result(res, "Build F var/wc")[0] == Outcome.ILLEGAL
    assert result(res, "Build A cro")[0] == Outcome.ILLEGAL
    assert result(res, "Build F dra")[0] == Outcome.ILLEGAL
    assert result(res, "Build F cre")[0] == Outcome.SUCCEEDS
    assert [result(res, t)[0] for t in ("Build F hve", "Build A dov", "Build F jel")] == [Outcome.SUCCEEDS] * 3
    assert unit_at(res.next, "var") == "Byzantines F var/ec"


def test_placements_limited_to_home_centre_count() -> None:
    builds = [f"Build A {x}" for x in ("liv", "lov", "kur", "kon", "vil", "smo", "dvi", "pol", "dsr")]
    res = run(V.start, {POL: [*builds, "Waive"]})
    assert [result(res, b)[0] for b in builds] == [Outcome.SUCCEEDS] * 9
    assert len(res.next.units_of(POL)) == 9
    # A tenth order has nothing left to build with.
    assert res.results[-1].result == Outcome.ILLEGAL


def test_defensive_army_placed_in_winter_999_costs_two() -> None:
    # 9 home centres: a D (2) and seven armies (7) use them all; an eighth army is refused.
    orders = [
        "Build D mer",
        *[f"Build A {x}" for x in ("abe", "dum", "yor", "mth", "wal", "mal", "wwa")],
        "Build A lon",
    ]
    res = run(V.start, {BRI: orders})
    assert result(res, "Build D mer")[0] == Outcome.SUCCEEDS
    assert result(res, "Build A wwa")[0] == Outcome.SUCCEEDS
    assert result(res, "Build A lon")[0] == Outcome.ILLEGAL
    assert unit_at(res.next, "mer") == "British D mer"


def test_only_one_defensive_army_at_a_time() -> None:
    res = run(V.start, {MAG: ["Build D vie", "Build D pra", "Build 3D cra"]})
    assert result(res, "Build D vie")[0] == Outcome.SUCCEEDS
    assert result(res, "Build D pra")[0] == Outcome.ILLEGAL
    assert result(res, "Build D pra")[2] == "Magyars and Polacks already has 1 D; at most 1 at a time"
    assert result(res, "Build D cra")[0] == Outcome.ILLEGAL
    # Later, while the D lives, no second one; once it is gone, a new one may be built.
    later = pos("Winter 1001 Adjustments", {MAG: ["D vie", "A ess"]})
    assert result(run(later, {MAG: ["Build D pra"]}), "Build D pra")[0] == Outcome.ILLEGAL
    gone = pos("Winter 1001 Adjustments", {MAG: ["A ess"]})
    assert result(run(gone, {MAG: ["Build D pra"]}), "Build D pra")[0] == Outcome.SUCCEEDS


def test_units_kept_back_are_built_later_on_home_centres() -> None:
    # The British place five units and keep four back; nothing changes hands in 1000.
    res = run(V.start, {BRI: ["Build F lon", "Build A yor", "Build A mer", "Build A wal", "Build F abe"]})
    spring = res.next
    fall = run(spring, {}).next
    assert V.calendar.name(fall.phase) == "Fall 1000 Movement"
    winter = run(fall, {}).next
    assert V.calendar.name(winter.phase) == "Winter 1000 Adjustments"
    res = run(winter, {BRI: ["Build A dum", "Build F mal", "Build A mth", "Build F wwa"], BYZ: ["Build A apu"]})
    for b in ("Build A dum", "Build F mal", "Build A mth", "Build F wwa"):
        assert result(res, b)[0] == Outcome.SUCCEEDS
    # After the opening, only home centres: Apulia (homeland, no centre) is no longer a build site.
    assert result(res, "Build A apu")[0] == Outcome.ILLEGAL


# ------------------------------------------------------------------------------------------ Lombardy


def test_lombardy_is_a_build_centre_of_the_magyars_and_polacks_while_they_own_it() -> None:
    w = pos("Winter 1002 Adjustments", {MAG: ["A ess"]}, centres={"lom": MAG})
    res = run(w, {MAG: ["Build F lom"]})
    assert result(res, "Build F lom")[0] == Outcome.SUCCEEDS
    res = run(w, {MAG: ["Build A lom"]})
    assert result(res, "Build A lom")[0] == Outcome.SUCCEEDS
    # A defensive army may not be built there: Lombardy is outside their homeland.
    res = run(w, {MAG: ["Build D lom"]})
    assert result(res, "Build D lom")[0] == Outcome.ILLEGAL
    # Nobody else builds in Lombardy, not even its owner.
    f = pos("Winter 1002 Adjustments", {FRA: ["A par"]}, centres={"lom": FRA})
    assert result(run(f, {FRA: ["Build A lom"]}), "Build A lom")[0] == Outcome.ILLEGAL
    # Not while someone else owns it.
    n = pos("Winter 1002 Adjustments", {MAG: ["A ess"]}, centres={"lom": FRA, "par": ""})
    assert result(run(n, {MAG: ["Build F lom"]}), "Build F lom")[0] == Outcome.ILLEGAL


# ------------------------------------------------------------------------------------------ the defensive army


def test_defensive_army_moves_only_inside_its_homeland() -> None:
    p = pos("Spring 1001 Movement", {FRA: ["D rou", "D par"]})
    res = run(p, {FRA: ["D rou - maa", "D par - try"]})
    assert result(res, "D rou - maa")[0] == Outcome.ILLEGAL
    assert result(res, "D par - try")[0] == Outcome.SUCCEEDS
    assert unit_at(res.next, "rou") == "Franks D rou"


def test_defensive_army_strength_three_attacks_and_holds() -> None:
    # D par - nor against A nor supported once: 3 beats 2.
    p = pos("Spring 1001 Movement", {FRA: ["D par"], BRI: ["A nor", "A bri"]})
    res = run(p, {FRA: ["D par - nor"], BRI: ["A nor H", "A bri S A nor"]})
    assert result(res, "D par - nor")[0] == Outcome.SUCCEEDS
    assert result(res, "A nor H")[1] is True
    # Holding, it withstands an attack of three and falls to four.
    q = pos("Spring 1001 Movement", {FRA: ["D par"], BRI: ["A nor", "A rou", "A try", "A nan"]})
    three = run(q, {BRI: ["A nor - par", "A rou S A nor - par", "A try S A nor - par"]})
    assert result(three, "A nor - par")[0] == Outcome.FAILS
    four = run(q, {BRI: ["A nor - par", "A rou S A nor - par", "A try S A nor - par", "A nan S A nor - par"]})
    assert result(four, "A nor - par")[0] == Outcome.SUCCEEDS
    assert unit_at(four.next, "par") == "British A par"


def test_defensive_army_retreats_only_inside_its_homeland() -> None:
    # Rouen's neighbours: nor (the attacker), par, try, maa, fri; only par and try are Frankish homeland.
    q = pos("Spring 1001 Movement", {FRA: ["D rou"], BRI: ["A nor", "A par", "A maa", "F enc"]})
    orders = {BRI: ["A nor - rou", "A par S A nor - rou", "A maa S A nor - rou", "F enc S A nor - rou"]}
    res = run(q, orders)
    d = res.next.dislodged[M.province("rou").id]
    assert d.retreats == frozenset({M.province("try").id})  # not Frisia, outside the homeland
    # With Troyes taken too, nowhere is left: the D is destroyed at once.
    q2 = pos("Spring 1001 Movement", {FRA: ["D rou"], BRI: ["A nor", "A par", "A maa", "F enc", "A try"]})
    res = run(q2, orders)
    assert res.next.dislodged == {}
    assert unit_at(res.next, "rou") == "British A rou"
    assert not any(u.kind == "D" for u in res.next.units.values())


def test_defensive_army_supports_only_inside_or_into_its_homeland() -> None:
    p = pos("Spring 1001 Movement", {FRA: ["D rou", "A par", "A maa", "A fri"]})
    res = run(
        p,
        {FRA: ["D rou S A maa - try", "A maa - try", "A par H", "A fri H"]},
    )
    assert result(res, "D rou S A maa - try")[0] == Outcome.GIVEN  # into the homeland
    res = run(p, {FRA: ["D rou S A par - maa", "A par - maa"]})
    assert result(res, "D rou S A par - maa")[0] == Outcome.ILLEGAL  # out of the homeland
    res = run(p, {FRA: ["D rou S A fri", "A fri H"]})
    assert result(res, "D rou S A fri")[0] == Outcome.ILLEGAL  # a hold outside the homeland
    res = run(p, {FRA: ["D rou S A par", "A par H"]})
    assert result(res, "D rou S A par")[0] == Outcome.GIVEN


@pytest.mark.parametrize(
    ("attacks", "table_row", "left"),
    [
        (["A wal - mer"], "u", 2),
        (["A wal - mer", "A mth S A wal - mer"], "u S by u", 1),
        (["A wal - mer", "A yor - mer"], "u + u", 2),
        (["A wal - mer", "A mth S A wal - mer", "A dum S A wal - mer"], "u S by u & u", 0),
        (["A wal - mer", "A yor - mer", "A dum - mer"], "u + u + u", 2),
        (["A wal - mer", "A mth S A wal - mer", "A yor - mer"], "u S by u + u", 1),
    ],
)
def test_rule_8_table(attacks: list[str], table_row: str, left: int) -> None:
    """The D in Mercia supports A lon to hold while the Franks attack the D (the table's row) and London.

    London holds with 1 + what is left of the support, so an attack on London of strength ``1 + left``
    bounces and one of ``2 + left`` dislodges: together they pin the support left exactly.
    """
    attackers = ["A wal", "A mth", "A dum", "A yor", "F enc", "F nth", "A mal", "A wwa"]
    p = pos("Spring 1001 Movement", {BRI: ["D mer", "A lon"], FRA: attackers})
    london_supports = ["F nth S F enc - lon", "A mal S F enc - lon", "A wwa S F enc - lon"]
    for strength, dislodged in ((1 + left, False), (2 + left, True)):
        orders = {BRI: ["D mer S A lon", "A lon H"], FRA: [*attacks, "F enc - lon", *london_supports[: strength - 1]]}
        res = run(p, orders)
        assert result(res, "A lon H")[1] is dislodged, (table_row, strength)
        assert result(res, "D mer S A lon")[0] == (Outcome.CUT if left == 0 else Outcome.GIVEN), table_row


@pytest.mark.parametrize(
    ("strengths", "left"), [([1], 2), ([2], 1), ([1, 1], 2), ([3], 0), ([1, 1, 1], 2), ([2, 1], 1), ([], 3), ([4], 0)]
)
def test_rule_8_as_a_function(strengths: list[int], left: int) -> None:
    assert defensive_support_left(3, strengths) == left


def test_own_attacks_do_not_reduce_the_support() -> None:
    p = pos("Spring 1001 Movement", {BRI: ["D mer", "A lon", "A wal"], FRA: ["F enc", "F nth", "A mal"]})
    res = run(
        p,
        {
            BRI: ["D mer S A lon", "A lon H", "A wal - mer"],
            FRA: ["F enc - lon", "F nth S F enc - lon", "A mal S F enc - lon"],
        },
    )
    assert result(res, "D mer S A lon")[0] == Outcome.GIVEN
    assert result(res, "A lon H")[1] is False


def test_ordinary_supports_still_cut_by_any_attack() -> None:
    p = pos("Spring 1001 Movement", {BRI: ["A mer", "A lon"], FRA: ["A wal", "F enc", "F nth"]})
    res = run(p, {BRI: ["A mer S A lon", "A lon H"], FRA: ["A wal - mer", "F enc - lon", "F nth S F enc - lon"]})
    assert result(res, "A mer S A lon")[0] == Outcome.CUT
    assert result(res, "A lon H")[1] is True


# ------------------------------------------------------------------------------------------ anarchy


LOST = dict.fromkeys(["lis", "tol", "val", "and", "mor", "ora", "alg", "bon", "gaf"], FRA)
"""The Moors' home centres, all in Frankish hands."""


def _moors_without_homes() -> Position:
    return pos(
        "Fall 1004 Movement", {MOO: ["A nav", "F sar"], FRA: ["A tol"]}, centres={**LOST, "nav": MOO, "sar": MOO}
    )


def test_losing_every_home_centre_starts_one_season_of_grace() -> None:
    p = _moors_without_homes()
    res = run(p, {MOO: ["A nav H"], FRA: ["A tol H"]})
    assert res.next.state.get("anarchy") == {MOO: "grace"}
    assert V.calendar.name(res.next.phase) == "Winter 1004 Adjustments"


def test_grace_retaking_a_home_centre_averts_anarchy() -> None:
    p = _moors_without_homes()
    winter = run(p, {}).next
    spring = run(winter, {}).next
    assert spring.state.get("anarchy") == {MOO: "grace"}
    p2 = spring.with_(units={**spring.units, M.province("cas").id: Unit(MOO, "A", M.province("cas").id)})
    res = run(p2, {MOO: ["A cas - val"]})
    assert result(res, "A cas - val")[0] == Outcome.SUCCEEDS
    assert "anarchy" not in res.next.state


def test_failed_grace_means_civil_disorder_units_hold_builds_nothing() -> None:
    p = _moors_without_homes()
    spring = run(run(p, {}).next, {}).next
    fall = run(spring, {MOO: ["A nav - ara"]}).next  # Aragon is no home centre: the attempt fails
    assert fall.state["anarchy"] == {MOO: "disorder"}
    # Orders are refused, the units hold.
    res = run(fall, {MOO: ["A ara - cas"]})
    assert result(res, "A ara - cas")[0] == Outcome.ILLEGAL
    assert unit_at(res.next, "ara") == "Moors A ara"
    # In civil disorder it builds nothing even with centres to spare ...
    w = pos("Winter 1005 Adjustments", {MOO: ["A ara"]}, centres={**LOST, "nav": MOO, "sar": MOO}, state=fall.state)
    res = run(w, {MOO: ["Build A nav"]})
    assert result(res, "Build A nav")[0] == Outcome.ILLEGAL
    # ... and removals are made for it.
    w2 = pos(
        "Winter 1005 Adjustments", {MOO: ["A ara", "F sar", "A cas"]}, centres={**LOST, "nav": MOO}, state=fall.state
    )
    res = run(w2, {})
    removed = [r for r in res.results if r.automatic and r.power == MOO]
    assert len(removed) == 2
    # It still counts as remaining while it has a centre; then it is gone from the record.
    assert res.next.state["anarchy"] == {MOO: "disorder"}


DISORDER = {"anarchy": {MOO: "disorder"}}


def _disorder_winter() -> Position:
    """Winter: the Moors in civil disorder own one centre (nav) and have three units, so owe two removals."""
    return pos(
        "Winter 1005 Adjustments", {MOO: ["A ara", "F sar", "A cas"]}, centres={**LOST, "nav": MOO}, state=DISORDER
    )


def test_civil_disorder_refuses_removal_orders_and_removes_by_the_rule() -> None:
    w = _disorder_winter()
    by_rule = run(w, {})
    # The Moors' own choice (cas and sar) is refused; the rule picks the same units as with no orders.
    res = run(w, {MOO: ["Remove A cas", "Remove F sar"]})
    sent = [r for r in res.results if not r.automatic]
    assert [(format_order(V, r.order), r.result) for r in sent] == [
        ("A cas D", Outcome.ILLEGAL),
        ("F sar D", Outcome.ILLEGAL),
    ]
    for r in sent:
        assert r.reason == (
            "Moors: in civil disorder, no orders are taken; nothing is built and removals are made by the "
            "civil-disorder rule"
        )
    auto = sorted(format_order(V, r.order) for r in res.results if r.automatic)
    assert auto == sorted(format_order(V, r.order) for r in by_rule.results if r.automatic)
    assert auto == ["A ara D", "F sar D"]  # sar is farthest from nav; ara and cas tie, ara first by name
    assert all("civil disorder" in r.reason for r in res.results if r.automatic)
    assert res.next.units == by_rule.next.units
    assert unit_at(res.next, "cas") == "Moors A cas"


def test_civil_disorder_refuses_builds_and_waives_with_the_reason() -> None:
    w = pos("Winter 1005 Adjustments", {MOO: ["A ara"]}, centres={**LOST, "nav": MOO, "sar": MOO}, state=DISORDER)
    res = run(w, {MOO: ["Build A nav", "Waive"]})
    assert [r.result for r in res.results if r.power == MOO] == [Outcome.ILLEGAL, Outcome.ILLEGAL]
    assert all("in civil disorder" in r.reason for r in res.results if r.power == MOO)
    assert res.next.units == w.units


def test_civil_disorder_refuses_retreats_with_the_reason_and_disbands() -> None:
    p = pos("Spring 1006 Movement", {MOO: ["A ara"], FRA: ["A cas", "A nav"]}, centres=LOST, state=DISORDER)
    p = p.with_(centres={**p.centres, M.province("sar").id: MOO})
    moved = run(p, {FRA: ["A cas - ara", "A nav S A cas - ara"]})
    assert result(moved, "A cas - ara")[0] == Outcome.SUCCEEDS
    retreat = moved.next
    assert V.calendar.name(retreat.phase) == "Spring 1006 Retreats"
    res = run(retreat, {MOO: ["A ara R bar"]})
    word, _, why = result(res, "A ara R bar")
    assert word == Outcome.ILLEGAL and "dislodged units are disbanded" in why
    assert [format_order(V, r.order) for r in res.results if r.automatic] == ["A ara D"]


def test_civil_disorder_reason_in_movement_and_other_powers_unaffected() -> None:
    p = pos("Spring 1006 Movement", {MOO: ["A ara"], FRA: ["A tol"]}, centres={**LOST, "nav": MOO}, state=DISORDER)
    res = run(p, {MOO: ["A ara - cas"], FRA: ["A tol - val"]})
    word, _, why = result(res, "A ara - cas")
    assert word == Outcome.ILLEGAL and why == "Moors: in civil disorder, no orders are taken; the units hold"
    assert result(res, "A tol - val")[0] == Outcome.SUCCEEDS
    assert unit_at(res.next, "ara") == "Moors A ara"
    # In grace (not yet in disorder) the same orders are judged as usual.
    res = run(p.with_(state={"anarchy": {MOO: "grace"}}), {MOO: ["A ara - cas"]})
    assert result(res, "A ara - cas")[0] == Outcome.SUCCEEDS


def test_civil_disorder_leaves_no_legal_orders_to_offer() -> None:
    """A UI or bot asks ``legal_orders``: a power whose orders are all refused is offered none, in any phase."""
    winter = _disorder_winter()
    assert legal_orders(V, winter, MOO) == {}
    assert all_legal_orders(V, winter)[MOO] == {}
    spring = pos("Spring 1006 Movement", {MOO: ["A ara"], FRA: ["A tol"]}, centres={**LOST, "nav": MOO}, state=DISORDER)
    assert legal_orders(V, spring, MOO) == {}
    assert legal_orders(V, spring, FRA)  # the others are offered theirs
    # In grace the same power is offered its orders as usual.
    grace = spring.with_(state={"anarchy": {MOO: "grace"}})
    assert set(legal_orders(V, grace, MOO)) == {M.loc("ara")}


# ------------------------------------------------------------------------------------------ the end


def _counts(spec: Mapping[str, int]) -> Position:
    """A position where each power owns the given number of centres (filled from a fixed list of centres)."""
    pool = [p for p in M.supply_centres]
    owners: dict[int, str] = {}
    for power, n in spec.items():
        for _ in range(n):
            owners[pool.pop()] = power
    return Position(V.calendar.parse("Winter 1005 Adjustments"), {}, owners, V.start.homes)


@pytest.mark.parametrize(
    ("power", "need"),
    [(BRI, 25), (FRA, 25), (POL, 25), (VIK, 28), (MOO, 28), (MAG, 28), (BYZ, 31)],
)
def test_victory_targets(power: str, need: int) -> None:
    others = [p for p in V.power_names if p != power][:4]
    below = _counts({power: need - 1, **dict.fromkeys(others, 2)})
    assert game_end(V, below) is None
    at = _counts({power: need, **dict.fromkeys(others, 2)})
    end = game_end(V, at)
    assert end is not None and end.kind == "victory" and end.powers == (power,)


def test_three_remaining_rank_by_size() -> None:
    end = game_end(V, _counts({VIK: 20, MOO: 24, BYZ: 22}))
    assert end is not None and end.kind == "ranked"
    assert end.powers == (MOO, BYZ, VIK)
    assert game_end(V, _counts({VIK: 20, MOO: 24, BYZ: 22, BRI: 1})) is None


def test_power_in_anarchy_still_remains() -> None:
    p = _counts({VIK: 20, MOO: 24, BYZ: 22, BRI: 1})
    p = p.with_(state={"anarchy": {BRI: "disorder"}})
    assert game_end(V, p) is None


def test_game_ends_after_winter_1015_in_a_draw_of_the_survivors() -> None:
    p = _counts({VIK: 10, MOO: 10, BYZ: 10, BRI: 10, FRA: 5})
    assert game_end(V, p.with_(phase=V.calendar.parse("Winter 1015 Adjustments"))) is None
    end = game_end(V, p.with_(phase=V.calendar.parse("Spring 1016 Movement")))
    assert end is not None and end.kind == "last_year"
    assert set(end.powers) == {VIK, MOO, BYZ, BRI, FRA}


def test_defensive_army_may_be_convoyed_between_parts_of_its_homeland_only() -> None:
    p = pos("Spring 1001 Movement", {VIK: ["D osl", "F vik"]})
    res = run(p, {VIK: ["D osl - jel", "F vik C D osl - jel"]})
    assert result(res, "D osl - jel")[0] == Outcome.SUCCEEDS
    q = pos("Spring 1001 Movement", {VIK: ["D jel", "F nth"]})
    res = run(q, {VIK: ["D jel - fri", "F nth C D jel - fri"]})
    assert result(res, "D jel - fri")[0] == Outcome.ILLEGAL


def test_an_uncut_defensive_army_supports_with_three() -> None:
    # A par - nor with D rou's support: 1 + 3 = 4 beats A nor held with two supports (3) ...
    p = pos("Spring 1001 Movement", {FRA: ["D rou", "A par"], BRI: ["A nor", "A bri", "A nan"]})
    orders = {FRA: ["D rou S A par - nor", "A par - nor"], BRI: ["A nor H", "A bri S A nor", "A nan S A nor"]}
    res = run(p, orders)
    assert result(res, "A par - nor")[0] == Outcome.SUCCEEDS
    # ... and one unsupported attack on the D leaves 1 + 2 = 3: a standoff.
    p2 = pos("Spring 1001 Movement", {FRA: ["D rou", "A par"], BRI: ["A nor", "A bri", "A nan", "A maa"]})
    res = run(p2, {**orders, BRI: [*orders[BRI], "A maa - rou"]})
    assert result(res, "D rou S A par - nor")[0] == Outcome.GIVEN
    assert result(res, "A par - nor")[0] == Outcome.FAILS
