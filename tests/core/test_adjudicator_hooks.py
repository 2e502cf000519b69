"""Rule hooks as the adjudicator uses them: each variant need of docs/rule-hooks.md on a small test variant.

Every variant here extends the standard map through a TOML file written in a temporary folder, selecting
behaviours only by data in ``[rules]``, the way shipped variants do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import Phase
from dippouch.core.errors import VariantError
from dippouch.core.orders import Build, Hold, Move, Order, Support
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.rules.base import MovementSummary, RuleHooks, behaviour, hooks_for, register_hooks
from dippouch.core.variant import Variant

SPRING, FALL, WINTER = 0, 2, 4


def make_variant(tmp_path: Path, name: str, rules: str) -> Variant:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'[variant]\nextends = "standard"\nname = "{name}"\n\n[rules]\n{rules}\n', encoding="utf-8")
    return load_variant(str(path))


def loc(v: Variant, name: str) -> int:
    return v.map.loc(name)


def prov(v: Variant, name: str) -> int:
    return v.map.province_of(v.map.loc(name))


def board(v: Variant, step: int, units: list[tuple[str, str, str]], centres: dict[str, str] | None = None) -> Position:
    placed = {prov(v, n): Unit(p, k, loc(v, n)) for p, k, n in units}
    owned = {prov(v, c): p for c, p in (centres or {}).items()}
    return Position(Phase(1901, step), placed, owned, v.start.homes)


def result_of(res: Resolution, power: str, index: int) -> OrderResult:
    return next(r for r in res.results if r.power == power and r.index == index and not r.automatic)


def test_standard_variant_takes_the_fast_path() -> None:
    assert hooks_for(load_variant("standard")).standard_movement


def test_unit_kind_with_its_own_strength(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "strong", 'unit_strength = { D = 3 }\nmoves_as = { D = "A" }')
    hooks = hooks_for(v)
    assert not hooks.standard_movement
    pos = board(v, SPRING, [("Germany", "D", "mun"), ("Austria", "A", "boh"), ("Austria", "A", "tyr")])
    # Two Austrian armies against a defensive army of strength 3: they bounce off.
    res = adjudicate(
        v,
        pos,
        {
            "Austria": [
                Move("A", loc(v, "boh"), loc(v, "mun")),
                Support("A", loc(v, "tyr"), "A", loc(v, "boh"), prov(v, "mun")),
            ]
        },
    )
    assert result_of(res, "Austria", 0).result == Outcome.FAILS
    assert "(2 vs 3)" in result_of(res, "Austria", 0).reason
    # The D attacks with 3 against a supported hold of 2 and dislodges.
    res = adjudicate(
        v,
        pos,
        {
            "Germany": [Move("D", loc(v, "mun"), loc(v, "boh"))],
            "Austria": [Support("A", loc(v, "tyr"), "A", loc(v, "boh"))],
        },
    )
    assert result_of(res, "Germany", 0).result == Outcome.SUCCEEDS
    assert res.next.dislodged[prov(v, "boh")].unit.power == "Austria"
    assert res.next.units[prov(v, "boh")] == Unit("Germany", "D", prov(v, "boh"))


def test_unit_costs_count_in_adjustments(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "costly", 'unit_costs = { D = 2 }\nmoves_as = { D = "A" }')
    pos = board(v, WINTER, [("Germany", "D", "mun")], {"mun": "Germany", "ber": "Germany", "kie": "Germany"})
    assert hooks_for(v).adjustment_delta(pos, "Germany") == 1
    res = adjudicate(v, pos, {"Germany": [Build("D", loc(v, "ber"))]})
    r = result_of(res, "Germany", 0)
    assert r.result == Outcome.ILLEGAL and "needs 2 centres" in r.reason
    res = adjudicate(v, pos, {"Germany": [Build("A", loc(v, "ber"))]})
    assert result_of(res, "Germany", 0).result == Outcome.SUCCEEDS


def test_build_sites_owned(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "owned", 'build_sites = "owned"')
    pos = board(v, WINTER, [], {"hol": "Germany"})
    res = adjudicate(v, pos, {"Germany": [Build("A", loc(v, "hol"))]})
    assert result_of(res, "Germany", 0).result == Outcome.SUCCEEDS
    std = load_variant("standard")
    res = adjudicate(std, pos, {"Germany": [Build("A", loc(std, "hol"))]})
    r = result_of(res, "Germany", 0)
    assert r.result == Outcome.ILLEGAL and "not a home centre" in r.reason


def test_extra_build_centres_while_owned(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "extra", 'extra_build_centres = { Germany = ["hol"] }')
    owned = board(v, WINTER, [], {"hol": "Germany"})
    res = adjudicate(v, owned, {"Germany": [Build("F", loc(v, "hol"))]})
    assert result_of(res, "Germany", 0).result == Outcome.SUCCEEDS
    lost = board(v, WINTER, [], {"hol": "France", "mun": "Germany"})
    res = adjudicate(v, lost, {"Germany": [Build("A", loc(v, "hol"))]})
    assert result_of(res, "Germany", 0).result == Outcome.ILLEGAL


def test_unknown_behaviour_is_a_clear_error_when_the_file_is_loaded(tmp_path: Path) -> None:
    # A misspelt behaviour used to pass loading and fail only at adjudication, and the list
    # of known values left out "owned". Now loading refuses it, with the closest name and every known one.
    with pytest.raises(VariantError) as e:
        make_variant(tmp_path, "typo", 'build_sites = "owend"')
    text = str(e.value)
    assert "rules.build_sites" in text and "typo.toml:" in text
    assert "did you mean 'owned'?" in text
    assert "Known: home, owned, chosen_homes" in text


# ---------------------------------------------------------------------------------------------- extra orders


@dataclass(frozen=True, slots=True)
class Convert(Order):
    """A test order kind: the unit stays and converts unless attacked (like W3K's conversion)."""

    kind: str | None
    loc: int


@register_hooks("test_adjudicator_convert")
class ConvertHooks(RuleHooks):
    def extra_order_result(
        self, position: Position, power: str, order: Order, summary: MovementSummary
    ) -> tuple[str, str]:
        p = self.variant.map.province_of(order.unit_loc or 0)
        if summary.attacked.get(p):
            return "disrupted", "conversion disrupted by an attack"
        return "succeeds", ""

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        # A proxy: state names the power a unit is handed to for this season.
        handed = position.state.get("proxies", {}).get(str(unit.loc))
        return power == (handed or unit.power)


def test_extra_order_acts_as_hold_and_gets_its_own_result(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "convert", 'hooks = "test_adjudicator_convert"')
    pos = board(
        v, SPRING, [("France", "A", "bur"), ("France", "A", "par"), ("Germany", "A", "mun"), ("Germany", "A", "ruh")]
    )
    quiet = adjudicate(v, pos, {"France": [Convert("A", loc(v, "bur"))]})
    assert result_of(quiet, "France", 0).result == Outcome.SUCCEEDS
    # Attacked but held with support: the unit stays, the conversion is disrupted.
    res = adjudicate(
        v,
        pos,
        {
            "France": [Convert("A", loc(v, "bur")), Support("A", loc(v, "par"), "A", loc(v, "bur"))],
            "Germany": [
                Move("A", loc(v, "mun"), loc(v, "bur")),
                Support("A", loc(v, "ruh"), "A", loc(v, "mun"), prov(v, "bur")),
            ],
        },
    )
    r = result_of(res, "France", 0)
    assert r.result == Outcome.DISRUPTED and r.reason and not r.dislodged
    assert result_of(res, "France", 1).result == Outcome.GIVEN
    assert result_of(res, "Germany", 0).result == Outcome.FAILS
    # Without the hold support it is dislodged.
    res = adjudicate(
        v,
        pos,
        {
            "France": [Convert("A", loc(v, "bur"))],
            "Germany": [
                Move("A", loc(v, "mun"), loc(v, "bur")),
                Support("A", loc(v, "ruh"), "A", loc(v, "mun"), prov(v, "bur")),
            ],
        },
    )
    assert result_of(res, "France", 0).dislodged


def test_proxy_orders_through_may_order(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "proxy", 'hooks = "test_adjudicator_convert"')
    pos = board(v, SPRING, [("France", "A", "bur"), ("Germany", "A", "mun")])
    order = Move("A", loc(v, "bur"), loc(v, "pic"))
    refused = adjudicate(v, pos, {"Germany": [order]})
    assert result_of(refused, "Germany", 0).result == Outcome.ILLEGAL
    handed = pos.with_(state={"proxies": {str(loc(v, "bur")): "Germany"}})
    res = adjudicate(v, handed, {"Germany": [order], "France": [Hold("A", loc(v, "bur"))]})
    assert result_of(res, "Germany", 0).result == Outcome.SUCCEEDS
    assert result_of(res, "France", 0).result == Outcome.ILLEGAL  # the owner gave it away this season
    assert res.next.units[prov(v, "pic")].power == "France"


# ---------------------------------------------------------------------------------------------- lots, phase end


@behaviour("removal_order", "test_adjudicator_lots")
def lots(
    hooks: RuleHooks, position: Position, power: str, count: int, rng: random.Random | None
) -> tuple[list[int], str]:
    assert rng is not None, "lots need the seeded rng the caller passes"
    mine = sorted(p for p, u in position.units.items() if u.power == power)
    drawn = rng.sample(mine, count)
    names = ", ".join(hooks.variant.map.provinces[p].abbr for p in drawn)
    return drawn, f"removed by lot ({names})"


@behaviour("phase_end", "test_adjudicator_count")
def count_phases(hooks: RuleHooks, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
    state = dict(after.state)
    state["phases"] = int(state.get("phases", 0)) + 1
    state["orders"] = len(results)
    return after.with_(state=state)


def test_removals_by_seeded_lot(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "lots", 'removal_order = "test_adjudicator_lots"')
    pos = board(
        v,
        WINTER,
        [("France", "A", "par"), ("France", "A", "bur"), ("France", "A", "pic"), ("France", "F", "bre")],
        {"par": "France"},
    )
    first = adjudicate(v, pos, {}, rng=random.Random(7))
    again = adjudicate(v, pos, {}, rng=random.Random(7))
    assert first.next.units == again.next.units
    auto = [r for r in first.results if r.automatic]
    assert len(auto) == 3 and all(r.reason.startswith("removed by lot (") for r in auto)
    assert len(first.next.units) == 1


def test_phase_end_behaviours_transform_the_next_position(tmp_path: Path) -> None:
    v = make_variant(tmp_path, "counting", 'phase_end = ["test_adjudicator_count", "test_adjudicator_count"]')
    res = adjudicate(v, v.start, {})
    assert res.next.state["phases"] == 2
    assert res.next.state["orders"] == 22


@behaviour("support_left", "test_adjudicator_halved")
def halved(hooks: RuleHooks, supporter: Unit, attackers: Sequence[Unit], attack_strength: object = None) -> int:
    """A strong unit's support loses one point per attack instead of being cut."""
    return max(0, hooks.unit_strength(supporter) - len(attackers))


def test_reduced_support_counts_what_is_left_and_says_so(tmp_path: Path) -> None:
    v = make_variant(
        tmp_path,
        "reduced",
        'unit_strength = { D = 3 }\nmoves_as = { D = "A" }\nsupport_left = "test_adjudicator_halved"',
    )
    pos = board(
        v,
        SPRING,
        [("Germany", "D", "mun"), ("Germany", "A", "bur"), ("France", "A", "mar"), ("Austria", "A", "tyr")],
    )
    # D mun supports A bur to hold (3); Austria attacks Munich (reduces it to 2); France attacks Burgundy
    # with 1: 1 vs hold 1 + 2, it fails.
    orders: dict[str, list[Order]] = {
        "Germany": [Support("D", loc(v, "mun"), "A", loc(v, "bur"))],
        "Austria": [Move("A", loc(v, "tyr"), loc(v, "mun"))],
        "France": [Move("A", loc(v, "mar"), loc(v, "bur"))],
    }
    res = adjudicate(v, pos, orders)
    sup = result_of(res, "Germany", 0)
    assert sup.result == Outcome.GIVEN and sup.reason == "support reduced to 2 by A Tyrolia"
    assert result_of(res, "France", 0).reason == "bounced off A Burgundy (1 vs 3)"
