"""Hundred and Hundred3 rules played through ``parse_order`` and ``adjudicate``.

The London-Calais examples of the rulebook, build anywhere, the mercenary, when ownership changes in a
five-year calendar, and civil disorder without home centres.
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
from dippouch.game import check_victory, game_end


def play(v: Variant, pos: Position, orders: Mapping[str, Sequence[str]]) -> Resolution:
    kind = v.calendar.kind(pos.phase)
    parsed = {p: [parse_order(v, t, phase_kind=kind) for t in ts] for p, ts in orders.items()}
    return adjudicate(v, pos, parsed)


def outcomes(v: Variant, res: Resolution) -> dict[str, Outcome]:
    return {f"{r.power}: {format_order(v, r.order)}": r.result for r in res.results if not r.automatic}


def board(
    v: Variant, phase: str, units: Mapping[str, Sequence[str]], centres: Mapping[str, str] | None = None
) -> Position:
    """A position from text: ``{"England": ["F lon", "A cal"]}``; centres as at the start unless given."""
    gmap = v.map
    placed: dict[int, Unit] = {}
    for power, texts in units.items():
        for t in texts:
            kind, loc = t.split()
            lid = gmap.loc(loc)
            placed[gmap.province_of(lid)] = Unit(power, kind, lid)
    owners = v.start.centres if centres is None else {gmap.province(c).id: p for c, p in centres.items()}
    return Position(v.calendar.parse(phase), placed, dict(owners), v.start.homes)


def where(v: Variant, pos: Position) -> dict[str, str]:
    return {v.map.provinces[p].abbr: f"{u.power} {u.kind}" for p, u in pos.units.items()}


# ---------------------------------------------------------------------------------------- London-Calais


@pytest.mark.parametrize("lon_kind", ["A", "F"])
@pytest.mark.parametrize("dover", [None, "Burgundy", "France"])
def test_example_1_all_bounce(lon_kind: str, dover: str | None) -> None:
    """E: LON-CAL. B: FLA-CAL. Result: all bounce (whatever stands in the Strait of Dover)."""
    v = load_variant("hundred3")
    units = {"England": [f"{lon_kind} lon"], "Burgundy": ["A fla"]}
    if dover:
        units.setdefault(dover, []).append("F dov")
    res = play(v, board(v, "1425 Movement", units), {"England": [f"{lon_kind} lon - cal"], "Burgundy": ["A fla - cal"]})
    assert outcomes(v, res) == {
        f"England: {lon_kind} lon - cal": Outcome.FAILS,
        "Burgundy: A fla - cal": Outcome.FAILS,
    }
    assert "cal" not in where(v, res.next)


@pytest.mark.parametrize("lon_kind", ["A", "F"])
def test_example_2_supported_from_dover(lon_kind: str) -> None:
    """E: LON-CAL, DOV s LON-CAL. B: FLA-CAL. Result: LON-CAL succeeds."""
    v = load_variant("hundred3")
    pos = board(v, "1425 Movement", {"England": [f"{lon_kind} lon", "F dov"], "Burgundy": ["A fla"]})
    res = play(
        v, pos, {"England": [f"{lon_kind} lon - cal", f"F dov S {lon_kind} lon - cal"], "Burgundy": ["A fla - cal"]}
    )
    got = outcomes(v, res)
    assert got[f"England: {lon_kind} lon - cal"] == Outcome.SUCCEEDS
    assert got[f"England: F dov S {lon_kind} lon - cal"] == Outcome.GIVEN
    assert got["Burgundy: A fla - cal"] == Outcome.FAILS
    assert where(v, res.next)["cal"] == f"England {lon_kind}"


@pytest.mark.parametrize("lon_kind", ["A", "F"])
def test_example_3_calais_holds(lon_kind: str) -> None:
    """E: LON s CAL, CAL H. F: PAR-CAL, DOV s PAR-CAL. Result: CAL holds."""
    v = load_variant("hundred3")
    pos = board(v, "1425 Movement", {"England": [f"{lon_kind} lon", "A cal"], "France": ["A par", "F dov"]})
    res = play(
        v, pos, {"England": [f"{lon_kind} lon S A cal", "A cal H"], "France": ["A par - cal", "F dov S A par - cal"]}
    )
    got = outcomes(v, res)
    assert got[f"England: {lon_kind} lon S A cal"] == Outcome.GIVEN
    assert got["France: A par - cal"] == Outcome.FAILS
    assert where(v, res.next)["cal"] == "England A"
    assert not res.next.dislodged


def test_army_crosses_without_a_fleet_and_past_an_enemy_fleet() -> None:
    v = load_variant("hundred3")
    pos = board(v, "1425 Movement", {"England": ["A lon"], "France": ["F dov"]})
    res = play(v, pos, {"England": ["A lon - cal"], "France": ["F dov H"]})
    assert outcomes(v, res)["England: A lon - cal"] == Outcome.SUCCEEDS
    pos = board(v, "1425 Movement", {"Burgundy": ["A cal"]}, centres={})
    res = play(v, pos, {"Burgundy": ["A cal - lon"]})
    assert outcomes(v, res)["Burgundy: A cal - lon"] == Outcome.SUCCEEDS
    # It is a plain move, listed among the army's legal moves.
    moves = {format_order(v, o) for o in legal_orders(v, pos, "Burgundy")[v.map.province("cal").id]}
    assert "A cal - lon" in moves


def test_dover_attack_does_not_cut_the_london_calais_border() -> None:
    """Attacking the Strait does not stop London supporting into Calais: the border is direct."""
    v = load_variant("hundred3")
    pos = board(v, "1425 Movement", {"England": ["F lon", "A nmd", "F ech"], "Burgundy": ["A cal", "F fla"]})
    res = play(
        v,
        pos,
        {"England": ["F lon S A nmd - cal", "A nmd - cal", "F ech - dov"], "Burgundy": ["A cal H", "F fla - dov"]},
    )
    got = outcomes(v, res)
    assert got["England: F lon S A nmd - cal"] == Outcome.GIVEN
    assert got["England: A nmd - cal"] == Outcome.SUCCEEDS
    assert res.next.dislodged


# ---------------------------------------------------------------------------------------- Builds


def test_build_anywhere_in_an_owned_vacant_centre() -> None:
    """Rule 7's example: France may build in London if it is vacant and France owns it."""
    v = load_variant("hundred")
    centres = {c: "France" for c in ("lon", "par", "dau", "orl", "tou")} | {"cal": "England"}
    pos = board(v, "1430 Adjustments", {"France": ["A par", "A dau"]}, centres)
    assert v.calendar.kind(pos.phase).value == "adjustments"
    res = play(v, pos, {"France": ["Build F lon", "Build A cal", "Build A pro", "Build A par", "Build A orl"]})
    assert outcomes(v, res) == {
        "France: Build F lon": Outcome.SUCCEEDS,
        "France: Build A cal": Outcome.ILLEGAL,  # England's
        "France: Build A pro": Outcome.ILLEGAL,  # not a centre
        "France: Build A par": Outcome.ILLEGAL,  # occupied
        "France: Build A orl": Outcome.SUCCEEDS,
    }
    sites = {format_order(v, o) for os in legal_orders(v, pos, "France").values() for o in os}
    assert "Build F lon" in sites and "Build A tou" in sites and "Build A pro" not in sites


def play_two_turns(v: Variant, orders_1425: Mapping[str, Sequence[str]]) -> Resolution:
    res = play(v, v.start, orders_1425)
    assert v.calendar.name(res.next.phase) == "1430 Movement"
    return play(v, res.next, {})


def test_mercenary_france_removes_a_unit_of_its_choice_at_the_first_adjustment() -> None:
    v = load_variant("hundred")
    res = play_two_turns(v, {})
    pos = res.next
    assert v.calendar.name(pos.phase) == "1430 Adjustments"
    assert len(pos.units_of("France")) == 5 and len(pos.centres_of("France")) == 4
    # France keeps the mercenary and discharges the army in Paris instead (rule 6a).
    res = play(v, pos, {"France": ["Remove A par"]})
    assert set(outcomes(v, res).values()) == {Outcome.SUCCEEDS}
    assert not [r for r in res.results if r.automatic and r.power == "France"]
    left = where(v, res.next)
    assert left["pro"] == "France A" and "par" not in left
    assert len(res.next.units_of("France")) == 4
    assert v.calendar.name(res.next.phase) == "1435 Movement"


def test_mercenary_removed_in_civil_disorder_if_france_orders_nothing() -> None:
    v = load_variant("hundred")
    pos = play_two_turns(v, {}).next
    res = play(v, pos, {})
    auto = [r for r in res.results if r.automatic and r.power == "France"]
    # Farthest from an owned centre goes: Provence is the only French unit not standing on one.
    assert [(format_order(v, r.order, phase_kind="adjustments"), r.result) for r in auto] == [
        ("Remove A pro", Outcome.SUCCEEDS)
    ]
    assert len(res.next.units_of("France")) == 4
    assert v.map.province("pro").id not in res.next.units


def test_mercenary_kept_when_france_gains_a_centre() -> None:
    v = load_variant("hundred")
    res = play(v, v.start, {"France": ["A orl - brt"]})
    # Ownership does not change after the 1425 turn: Brittany is taken only when the 1430 turn ends.
    assert v.calendar.name(res.next.phase) == "1430 Movement"
    assert len(res.next.centres_of("France")) == 4
    res = play(v, res.next, {"France": ["A brt H"]})
    assert v.map.province("brt").id in res.next.centres_of("France")
    # Five centres, five units: nobody has anything to adjust, so the adjustment phase is skipped.
    assert v.calendar.name(res.next.phase) == "1435 Movement"
    assert len(res.next.units_of("France")) == 5


def test_hundred3_france_has_no_mercenary() -> None:
    v = load_variant("hundred3")
    res = play_two_turns(v, {})
    assert v.calendar.name(res.next.phase) == "1435 Movement"


def test_judge_calendar_labels_the_same_game() -> None:
    v = load_variant("hundred", {"judge_calendar": True})
    res = play(v, v.start, {})
    assert v.calendar.name(res.next.phase) == "Fall 1425 Movement"
    res = play(v, res.next, {})
    assert v.calendar.name(res.next.phase) == "Winter 1425 Adjustments"
    res = play(v, res.next, {"France": ["Remove A pro"]})
    assert v.calendar.name(res.next.phase) == "Spring 1426 Movement"


def test_ownership_changes_only_before_adjustments() -> None:
    v = load_variant("hundred3")
    # England takes Paris in 1435 (a turn without adjustments) and leaves it in 1440: Paris stays French.
    pos = board(v, "1435 Movement", {"England": ["A nmd"]})
    res = play(v, pos, {"England": ["A nmd - par"]})
    assert where(v, res.next)["par"] == "England A"
    assert res.next.centres[v.map.province("par").id] == "France"
    res = play(v, res.next, {"England": ["A par - nmd"]})
    assert res.next.centres[v.map.province("par").id] == "France"
    # Staying there through the 1440 turn takes it.
    res = play(v, pos, {"England": ["A nmd - par"]})
    res = play(v, res.next, {"England": ["A par H"]})
    assert res.next.centres[v.map.province("par").id] == "England"
    assert v.calendar.name(res.next.phase) == "1440 Adjustments"


def test_victory_with_nine_centres_on_reaching_an_adjustment_phase() -> None:
    v = load_variant("hundred")
    assert v.victory["centres"] == 9
    # England holds its five centres and walks into four more during the 1440 turn.
    centres = {c: "England" for c in ("cal", "dev", "guy", "lon", "nmd")}
    centres |= {c: "France" for c in ("par", "orl", "dau", "tou")}
    pos = board(v, "1440 Movement", {"England": ["A cal", "A guy", "A nmd", "F lon", "A lux", "A dij"]}, centres)
    res = play(v, pos, {"England": ["A guy - tou", "A nmd - par", "A lux H", "A dij H"]})
    nxt = res.next
    assert v.calendar.name(nxt.phase) == "1440 Adjustments"
    assert len(nxt.centres_of("England")) == 9
    assert check_victory(v, nxt) == "England"
    ending = game_end(v, nxt)
    assert ending is not None and ending.kind == "victory" and ending.powers == ("England",)
    # Eight is not enough.
    res = play(v, pos, {"England": ["A guy - tou", "A nmd H", "A lux H", "A dij H"]})
    assert len(res.next.centres_of("England")) == 8
    assert check_victory(v, res.next) is None
