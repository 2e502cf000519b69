"""DATC v3.2 chapter 6: every one of the 176 cases, every order's resolution.

The cases live in tests/data/datc_v3_2.toml (our own transcription into canonical short orders). Each case
sets up the position, adjudicates the phase, and checks for every order the DATC result word and the
dislodged/destroyed tags; cases with a RETREATS part adjudicate the retreat phase from the movement
phase's output; adjustment cases also check the automatic (civil-disorder) removals.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.notation import format_order, parse_order, parse_unit
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome, Resolution
from dippouch.core.rules.base import RuleHooks, hooks_for, register_hooks
from dippouch.core.variant import Variant
from helpers import standard_with_hooks

DATA = Path(__file__).parents[1] / "data" / "datc_v3_2.toml"
CASES: list[dict[str, Any]] = tomllib.loads(DATA.read_text(encoding="utf-8"))["case"]


@register_hooks("test_datc_general_path")
class GeneralPathHooks(RuleHooks):
    """The standard rules through the general (hooked) code path: overriding a hook, even with the same
    behaviour, turns off the adjudicator's fast paths, so DATC checks the paths variants use too."""

    def unit_strength(self, unit: Unit) -> int:
        return 1

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        return super().may_order(position, power, unit)

    def adjustment_delta(self, position: Position, power: str) -> int:
        return super().adjustment_delta(position, power)


@pytest.fixture(scope="module", params=["fast path", "general path"])
def standard(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Variant:
    if request.param == "fast path":
        v = load_variant("standard")
        assert hooks_for(v).standard_movement
        return v
    v = standard_with_hooks(tmp_path_factory.mktemp("variants"), "test_datc_general_path")
    assert not hooks_for(v).standard_movement
    return v


def _phase(variant: Variant, kind: PhaseKind) -> Phase:
    cal = variant.calendar
    for i, step in enumerate(cal.steps):
        if step.kind == kind and step.season in ("Fall", "Winter"):
            return Phase(1901, i)
    raise AssertionError(kind)


def _position(variant: Variant, case: dict[str, Any]) -> Position:
    gmap = variant.map
    units: dict[int, Unit] = {}
    for text in case["units"]:
        power, _, unit = text.partition(": ")
        kind, loc = parse_unit(variant, unit)
        assert kind is not None
        prov = gmap.province_of(loc)
        assert prov not in units, f"two units in {unit}"
        units[prov] = Unit(power, kind, loc)
    centres: dict[int, str] = {}
    for text in case.get("centres", []):
        power, _, prov_name = text.partition(": ")
        centres[gmap.province_of(gmap.loc(prov_name))] = power
    kind = PhaseKind.MOVEMENT if case["phase"] == "movement" else PhaseKind.ADJUSTMENTS
    # Fall, so that a movement phase is followed by the retreat phase DATC's retreat cases need.
    return Position(_phase(variant, kind), units, centres, variant.start.homes)


def _check(variant: Variant, expected: list[dict[str, Any]], res: Resolution, kind: PhaseKind, cid: str) -> None:
    orders_by_power: dict[str, int] = {}
    by_key = {(r.power, r.index): r for r in res.results if not r.automatic}
    assert len(by_key) == len(expected), f"{cid}: {len(by_key)} results for {len(expected)} orders"
    for exp in expected:
        i = orders_by_power.get(exp["power"], 0)
        orders_by_power[exp["power"]] = i + 1
        got = by_key[(exp["power"], i)]
        where = f"{cid} {exp['power']}: {exp['order']}"
        assert got.result == Outcome(exp["result"]), f"{where}: {got.result} ({got.reason}), expected {exp['result']}"
        assert got.dislodged == exp.get("dislodged", False), f"{where}: dislodged={got.dislodged}"
        assert got.destroyed == exp.get("destroyed", False), f"{where}: destroyed={got.destroyed}"
        if got.result not in (Outcome.SUCCEEDS, Outcome.GIVEN, Outcome.AVAILABLE, Outcome.STANDS):
            assert got.reason, f"{where}: no reason given for {got.result}"


def _orders(variant: Variant, items: list[dict[str, Any]], kind: PhaseKind) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for item in items:
        out.setdefault(item["power"], []).append(parse_order(variant, item["order"], phase_kind=kind))
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_case(standard: Variant, case: dict[str, Any]) -> None:
    variant = standard
    pos = _position(variant, case)
    kind = variant.calendar.kind(pos.phase)
    orders = _orders(variant, case.get("orders", []), kind)
    res = adjudicate(variant, pos, orders)
    _check(variant, case.get("orders", []), res, kind, case["id"])

    if kind == PhaseKind.ADJUSTMENTS:
        auto = sorted(
            f"{r.power}: {format_order(variant, r.order, phase_kind=kind)}" for r in res.results if r.automatic
        )
        expected_auto = sorted(
            f"{a.partition(': ')[0]}: Remove {a.partition(': ')[2]}" for a in case.get("automatic", [])
        )
        assert auto == expected_auto, f"{case['id']}: automatic removals {auto}, expected {expected_auto}"
        return

    # Destroyed units are disbanded automatically; the others wait in the next position.
    destroyed = {(r.power, r.order.unit_loc) for r in res.results if r.destroyed}
    for p, d in res.next.dislodged.items():
        assert d.retreats, f"{case['id']}: unit without retreats kept in {p}"
    if case.get("retreats"):
        nxt = res.next
        if variant.calendar.kind(nxt.phase) != PhaseKind.RETREATS:
            # Every dislodged unit was destroyed (6.H.15): DATC still lists the retreat orders given, so
            # judge them against a retreat phase with nobody left to retreat.
            assert destroyed, f"{case['id']}: no retreat phase"
            nxt = nxt.with_(phase=variant.calendar.next(pos.phase), dislodged={})
        rorders = _orders(variant, case["retreats"], PhaseKind.RETREATS)
        res2 = adjudicate(variant, nxt, rorders)
        _check(variant, case["retreats"], res2, PhaseKind.RETREATS, case["id"] + " retreats")
        # Every dislodged unit either retreated (it is on the board) or was disbanded.
        for prov, d in nxt.dislodged.items():
            retreated = any(u.power == d.unit.power and u.kind == d.unit.kind for u in res2.next.units.values())
            disbanded = any(
                r.power == d.unit.power
                and r.order.unit_loc == d.unit.loc
                and (r.automatic or r.result != Outcome.SUCCEEDS or type(r.order).__name__ == "Disband")
                for r in res2.results
            )
            assert retreated or disbanded, f"{case['id']}: dislodged unit in {prov} vanished"


def test_case_count() -> None:
    assert len(CASES) == 176
    assert len({c["id"] for c in CASES}) == 176
