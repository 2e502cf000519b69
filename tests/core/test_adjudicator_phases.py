"""The adjudicator beyond DATC's per-order results: the next position, automatic results and reasons.

DATC (tests/core/test_datc.py) checks what every order does; these tests check what the game needs around it:
which phase comes next (retreats and adjustments are skipped when nobody needs them), when supply centres
change hands, that unordered units hold, that units without a retreat are disbanded at once, and that
every failure says why.
"""

from __future__ import annotations

import random

import pytest

import helpers
from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import Phase
from dippouch.core.notation import parse_order
from dippouch.core.orders import Disband, Hold, Order, Retreat, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.variant import Variant
from helpers import prov


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


SPRING, SPRING_R, FALL, FALL_R, WINTER = range(5)


def board(v: Variant, step: int, units: dict[str, list[str]], centres: dict[str, list[str]] | None = None) -> Position:
    return helpers.board(v, Phase(1901, step), units, centres)


def run(v: Variant, pos: Position, orders: dict[str, list[str]], rng: random.Random | None = None) -> Resolution:
    kind = v.calendar.kind(pos.phase)
    parsed: dict[str, list[Order]] = {p: [parse_order(v, t, phase_kind=kind) for t in ts] for p, ts in orders.items()}
    return adjudicate(v, pos, parsed, rng=rng)


def result_of(res: Resolution, power: str, index: int) -> OrderResult:
    return next(r for r in res.results if r.power == power and r.index == index and not r.automatic)


def test_spring_without_dislodgement_goes_straight_to_fall(std: Variant) -> None:
    res = adjudicate(std, std.start, {})
    assert res.next.phase == Phase(1901, FALL)
    assert res.next.units == std.start.units
    assert res.next.centres == std.start.centres
    # Every unit held automatically, and says so.
    assert len(res.results) == 22
    assert all(r.automatic and isinstance(r.order, Hold) and r.result == Outcome.STANDS for r in res.results)
    assert all(r.reason == "no order: holds" for r in res.results)


def test_a_unit_moves_with_its_coast(std: Variant) -> None:
    res = run(std, std.start, {"Russia": ["F stp/sc - bot"], "Turkey": ["F ank - bla"]})
    assert result_of(res, "Russia", 0).result == Outcome.SUCCEEDS
    bot = res.next.units[prov(std, "bot")]
    assert bot == Unit("Russia", "F", std.map.loc("bot"))
    assert prov(std, "stp") not in res.next.units


def test_fall_capture_changes_ownership_before_winter(std: Variant) -> None:
    pos = board(
        std, FALL, {"Germany": ["A ruh", "A mun"], "France": ["A par"]}, {"Germany": ["mun"], "France": ["par"]}
    )
    res = run(std, pos, {"Germany": ["A ruh - hol"]})
    nxt = res.next
    # Germany now owns two centres with two units: no adjustments, straight to Spring 1902.
    assert nxt.centres[prov(std, "hol")] == "Germany"
    assert nxt.phase == Phase(1902, SPRING)


def test_fall_capture_with_a_build_stops_at_winter(std: Variant) -> None:
    pos = board(std, FALL, {"Germany": ["A ruh"]}, {"Germany": ["mun", "ber"]})
    res = run(std, pos, {"Germany": ["A ruh - hol"]})
    assert res.next.phase == Phase(1901, WINTER)
    assert res.next.centres[prov(std, "hol")] == "Germany"


def test_spring_capture_does_not_change_ownership(std: Variant) -> None:
    pos = board(std, SPRING, {"Germany": ["A ruh"]}, {"Germany": ["mun"]})
    res = run(std, pos, {"Germany": ["A ruh - hol"]})
    assert prov(std, "hol") not in res.next.centres
    assert res.next.phase == Phase(1901, FALL)


def test_dislodgement_leads_to_retreats_with_the_legal_places(std: Variant) -> None:
    pos = board(
        std,
        SPRING,
        {"Italy": ["A ven", "A tyr"], "Austria": ["A tri", "A vie", "F alb"]},
    )
    res = run(std, pos, {"Italy": ["A ven - tri", "A tyr S A ven - tri"]})
    assert result_of(res, "Italy", 0).result == Outcome.SUCCEEDS
    held = next(r for r in res.results if r.automatic and r.power == "Austria" and r.order.unit_loc == prov(std, "tri"))
    assert held.dislodged and not held.destroyed and held.result == Outcome.DISLODGED
    assert "dislodged by A Venice" in held.reason
    nxt = res.next
    assert nxt.phase == Phase(1901, SPRING_R)
    d = nxt.dislodged[prov(std, "tri")]
    # Not Venice (the attacker came from there), not Vienna or Albania (occupied), not Tyrolia (occupied).
    assert {std.map.locations[x].abbr for x in d.retreats} == {"bud", "ser"}
    assert d.attacker_from == prov(std, "ven")

    # Retreat phase: the order is a retreat, the unit arrives, the next phase is Fall movement.
    res2 = run(std, nxt, {"Austria": ["A tri R ser"]})
    assert result_of(res2, "Austria", 0).result == Outcome.SUCCEEDS
    assert res2.next.units[prov(std, "ser")] == Unit("Austria", "A", prov(std, "ser"))
    assert res2.next.phase == Phase(1901, FALL)
    assert not res2.next.dislodged


def test_unordered_dislodged_unit_is_disbanded_automatically(std: Variant) -> None:
    pos = board(std, SPRING, {"Italy": ["A ven", "A tyr"], "Austria": ["A tri"]})
    nxt = run(std, pos, {"Italy": ["A ven - tri", "A tyr S A ven - tri"]}).next
    res = adjudicate(std, nxt, {})
    auto = [r for r in res.results if r.automatic]
    assert len(auto) == 1 and isinstance(auto[0].order, Disband) and auto[0].reason == "no retreat ordered"
    assert prov(std, "tri") in res.next.units and res.next.units[prov(std, "tri")].power == "Italy"
    assert len(res.next.units) == 2


def test_unit_with_no_retreat_is_destroyed_at_once(std: Variant) -> None:
    # Tyrolia's army is surrounded: every neighbour occupied except the attacker's origin.
    pos = board(
        std,
        SPRING,
        {
            "Austria": ["A tyr"],
            "Italy": ["A ven", "A pie", "A mun", "A boh", "A vie", "A tri"],
        },
    )
    res = run(std, pos, {"Italy": ["A ven - tyr", "A pie S A ven - tyr"]})
    held = next(r for r in res.results if r.power == "Austria" and isinstance(r.order, Hold))
    assert held.dislodged and held.destroyed
    gone = [r for r in res.results if r.automatic and isinstance(r.order, Disband)]
    assert len(gone) == 1 and gone[0].destroyed and "no retreat" in gone[0].reason
    # Nobody has to retreat, so the retreat phase is skipped.
    assert res.next.phase == Phase(1901, FALL)
    assert not res.next.dislodged


def test_fleet_retreat_to_a_split_coast_needs_no_coast_when_only_one_fits(std: Variant) -> None:
    pos = board(std, SPRING, {"France": ["F bot"], "Russia": ["F bal", "F fin"], "Germany": ["F swe"]})
    nxt = run(std, pos, {"Russia": ["F bal - bot", "F fin S F bal - bot"]}).next
    d = nxt.dislodged[prov(std, "bot")]
    assert std.map.loc("stp/sc") in d.retreats and std.map.loc("stp/nc") not in d.retreats
    res = adjudicate(std, nxt, {"France": [Retreat("F", std.map.loc("bot"), std.map.loc("stp"))]})
    assert result_of(res, "France", 0).result == Outcome.SUCCEEDS
    assert res.next.units[prov(std, "stp")].loc == std.map.loc("stp/sc")


def test_illegal_retreat_says_where_it_could_have_gone(std: Variant) -> None:
    pos = board(std, SPRING, {"Italy": ["A ven", "A tyr"], "Austria": ["A tri"]})
    nxt = run(std, pos, {"Italy": ["A ven - tri", "A tyr S A ven - tri"]}).next
    res = run(std, nxt, {"Austria": ["A tri R ven"]})
    r = result_of(res, "Austria", 0)
    assert r.result == Outcome.ILLEGAL
    assert "legal retreats" in r.reason and "Albania" in r.reason
    assert any(a.automatic and isinstance(a.order, Disband) for a in res.results)


def test_two_retreats_to_one_province_both_fail(std: Variant) -> None:
    pos = board(
        std,
        SPRING,
        {"Germany": ["A mun", "A ber"], "Russia": ["A sil", "A boh", "A pru", "A tyr"], "Austria": ["A vie"]},
    )
    orders = {"Russia": ["A sil - ber", "A pru S A sil - ber", "A tyr - mun", "A boh S A tyr - mun"]}
    nxt = run(std, pos, orders).next
    assert set(nxt.dislodged) == {prov(std, "mun"), prov(std, "ber")}
    res = run(std, nxt, {"Germany": ["A mun R kie", "A ber R kie"]})
    assert result_of(res, "Germany", 0).result == Outcome.FAILS
    assert result_of(res, "Germany", 1).result == Outcome.FAILS
    assert "bounced with A Berlin" in result_of(res, "Germany", 0).reason
    assert prov(std, "kie") not in res.next.units


def test_reasons_name_the_cause(std: Variant) -> None:
    pos = board(std, SPRING, {"Germany": ["A mun", "A ber"], "Russia": ["A war", "A sil", "A pru"]})
    res = run(
        std,
        pos,
        {"Germany": ["A mun - sil", "A ber S A mun - sil"], "Russia": ["A war - boh", "A pru - ber", "A sil H"]},
    )
    assert result_of(res, "Germany", 1).result == Outcome.CUT
    assert result_of(res, "Germany", 1).reason == "support cut by A Prussia"
    move = result_of(res, "Germany", 0)
    assert move.result == Outcome.FAILS and move.reason == "bounced off A Silesia (1 vs 1)"
    illegal = result_of(res, "Russia", 0)
    assert illegal.result == Outcome.ILLEGAL
    assert illegal.reason == "Bohemia is not next to Warsaw and no fleets could convoy there"
    bounce = run(std, board(std, SPRING, {"Germany": ["A mun"], "Austria": ["A vie"]}), {})
    assert all(r.result == Outcome.STANDS for r in bounce.results)
    two = run(
        std,
        board(std, SPRING, {"Germany": ["A mun"], "Austria": ["A vie"]}),
        {"Germany": ["A mun - boh"], "Austria": ["A vie - boh"]},
    )
    assert result_of(two, "Germany", 0).reason == "bounced with A Vienna (1 vs 1)"
    assert prov(std, "boh") not in two.next.units


def test_order_for_a_foreign_unit_is_illegal_and_the_unit_holds(std: Variant) -> None:
    res = run(std, std.start, {"Germany": ["F lon - nth"]})
    r = result_of(res, "Germany", 0)
    assert r.result == Outcome.ILLEGAL and "belongs to England" in r.reason
    held = [x for x in res.results if x.automatic and x.power == "England" and x.order.unit_loc == prov(std, "lon")]
    assert len(held) == 1 and held[0].result == Outcome.STANDS


def test_first_order_to_a_unit_counts(std: Variant) -> None:
    res = run(std, std.start, {"France": ["A par - bur", "A par - pic"]})
    assert result_of(res, "France", 0).result == Outcome.SUCCEEDS
    second = result_of(res, "France", 1)
    assert second.result == Outcome.ILLEGAL and "first one counts" in second.reason
    assert res.next.units[prov(std, "bur")].power == "France"


def test_every_order_gets_exactly_one_result_and_unit_count_is_kept(std: Variant) -> None:
    orders = {
        "France": ["A par - bur", "A mar - bur", "F bre - mao"],
        "Germany": ["A mun - bur", "A ber - kie", "F kie - den"],
    }
    res = run(std, std.start, orders)
    for power, texts in orders.items():
        assert sorted(r.index or 0 for r in res.results if r.power == power and not r.automatic) == list(
            range(len(texts))
        )
    assert len(res.next.units) == 22


# ---------------------------------------------------------------------------------------------- adjustments


def winter(v: Variant, units: dict[str, list[str]], centres: dict[str, list[str]]) -> Position:
    return board(v, WINTER, units, centres)


def test_builds_waive_and_too_many(std: Variant) -> None:
    pos = winter(std, {"Russia": ["A war"]}, {"Russia": ["war", "mos", "sev", "stp"]})
    res = run(std, pos, {"Russia": ["Build A mos", "Waive", "Build F stp/nc", "Build A sev"]})
    words = [result_of(res, "Russia", i).result for i in range(4)]
    assert words == [Outcome.SUCCEEDS, Outcome.SUCCEEDS, Outcome.SUCCEEDS, Outcome.ILLEGAL]
    assert "no builds left" in result_of(res, "Russia", 3).reason
    assert res.next.units[prov(std, "stp")].loc == std.map.loc("stp/nc")
    assert res.next.phase == Phase(1902, SPRING)
    assert len(res.next.units_of("Russia")) == 3


def test_waive_is_an_order_without_a_unit(std: Variant) -> None:
    pos = winter(std, {}, {"Russia": ["mos"]})
    res = adjudicate(std, pos, {"Russia": [Waive()]})
    assert result_of(res, "Russia", 0).result == Outcome.SUCCEEDS
    assert not res.next.units


def test_build_fleet_without_coast_fails_and_says_which(std: Variant) -> None:
    pos = winter(std, {}, {"Russia": ["stp"]})
    res = run(std, pos, {"Russia": ["Build F stp"]})
    r = result_of(res, "Russia", 0)
    assert (
        r.result == Outcome.FAILS
        and "St Petersburg (north coast)" in r.reason
        and "St Petersburg (south coast)" in r.reason
    )


def test_removal_when_builds_are_due_is_illegal(std: Variant) -> None:
    pos = winter(std, {"France": ["A par"]}, {"France": ["par", "bre"]})
    res = run(std, pos, {"France": ["Remove A par"]})
    assert result_of(res, "France", 0).result == Outcome.ILLEGAL
    assert prov(std, "par") in res.next.units


def test_civil_disorder_removes_farthest_units_with_a_reason(std: Variant) -> None:
    pos = winter(std, {"France": ["A par", "A mun", "F nao"]}, {"France": ["par"]})
    res = adjudicate(std, pos, {}, rng=random.Random(1))
    auto = [r for r in res.results if r.automatic]
    assert {std.map.locations[r.order.unit_loc or 0].abbr for r in auto} == {"mun", "nao"}
    assert all(isinstance(r.order, Disband) and "civil disorder" in r.reason for r in auto)
    assert set(res.next.units) == {prov(std, "par")}


def test_adjustments_skipped_when_nobody_needs_them(std: Variant) -> None:
    # Germany gains Holland but has no vacant home centre: nothing to do in Winter.
    pos = board(
        std,
        FALL,
        {"Germany": ["A ruh", "A mun", "A ber", "F kie"]},
        {"Germany": ["mun", "ber", "kie"]},
    )
    res = run(std, pos, {"Germany": ["A ruh - hol"]})
    assert res.next.centres[prov(std, "hol")] == "Germany"
    assert res.next.phase == Phase(1902, SPRING)


def test_retreat_in_fall_then_ownership_then_winter(std: Variant) -> None:
    pos = board(
        std,
        FALL,
        {"Italy": ["A ven", "A tyr"], "Austria": ["A tri"]},
        {"Austria": ["tri", "vie"], "Italy": ["ven", "rom"]},
    )
    res = run(std, pos, {"Italy": ["A ven - tri", "A tyr S A ven - tri"]})
    # Ownership waits until the retreats are done.
    assert res.next.phase == Phase(1901, FALL_R)
    assert res.next.centres[prov(std, "tri")] == "Austria"
    res2 = run(std, res.next, {"Austria": ["A tri R vie"]})
    assert res2.next.centres[prov(std, "tri")] == "Italy"
    assert res2.next.centres[prov(std, "ven")] == "Italy"
    # Italy 3 centres, 2 units; Austria 1 centre (vie), 1 unit: Italy builds, so Winter comes.
    assert res2.next.phase == Phase(1901, WINTER)


def test_army_build_ignores_a_coast_and_fleet_build_inland_is_illegal(std: Variant) -> None:
    pos = winter(std, {}, {"Russia": ["stp", "mos"]})
    res = run(std, pos, {"Russia": ["Build A stp/nc", "Build F mos"]})
    assert result_of(res, "Russia", 0).result == Outcome.SUCCEEDS
    assert res.next.units[prov(std, "stp")] == Unit("Russia", "A", prov(std, "stp"))
    inland = result_of(res, "Russia", 1)
    assert inland.result == Outcome.ILLEGAL and inland.reason == "a fleet cannot be built in Moscow"


def test_move_from_the_wrong_coast_fails_and_the_fleet_can_be_dislodged(std: Variant) -> None:
    # F spa stands on the north coast; its order names the south coast (DATC 6.B.11: the move fails). A
    # support of that move is judged against the real fleet, which cannot reach Marseilles: illegal. The
    # fleet cannot leave, so a supported attack on Spain dislodges it.
    pos = board(std, SPRING, {"France": ["F spa/nc", "A gas"], "Italy": ["A mar", "A por"]})
    orders = {"France": ["F spa/sc - mar", "A gas S F spa/sc - mar"], "Italy": ["A mar - spa", "A por S A mar - spa"]}
    res = run(std, pos, orders)
    wrong = result_of(res, "France", 0)
    assert wrong.result == Outcome.FAILS and "naming a coast does not move the fleet" in wrong.reason
    assert wrong.dislodged
    assert result_of(res, "France", 1).result == Outcome.ILLEGAL
    assert result_of(res, "Italy", 0).result == Outcome.SUCCEEDS
