"""1000 AD builds: ``legal_orders`` and the adjudicator agree on every build, defensive armies (D) above all.

A D costs two centres, a power may have one at a time, and it is built only inside its power's homeland;
Magyars and Polacks may also build in Lombardy (outside the homeland) while they own it. The property test
``test_legal_orders_are_never_judged_illegal[1000ad]`` was once seen to fail on a ``Build D vit`` that
``legal_orders`` offered and the adjudicator refused; these tests pin each of those limits in both places,
then check both directions (every build offered is accepted alone, every build accepted alone is offered)
on seeded random adjustment positions that, unlike the property test's, hold defensive armies already and
powers in anarchy.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant
from helpers import board

V: Variant = load_variant("1000ad")
M = V.map
MAG = "Magyars and Polacks"
VIK = "Vikings"
WINTER = V.calendar.parse("Winter 1003")


def prov(abbr: str) -> int:
    return M.province_of(M.loc(abbr))


def position(
    units: Mapping[str, list[str]], centres: Mapping[str, list[str]], state: Mapping[str, object] | None = None
) -> Position:
    return board(V, WINTER, units, centres, state=state)


def builds(pos: Position, power: str) -> set[tuple[str, str]]:
    return {
        (o.kind or "", M.locations[o.loc].abbr)
        for listed in legal_orders(V, pos, power).values()
        for o in listed
        if isinstance(o, Build)
    }


def alone(pos: Position, power: str, order: Order) -> tuple[Outcome, str]:
    res = adjudicate(V, pos, {power: [order]})
    r = next(r for r in res.results if not r.automatic)
    return r.result, r.reason


# Magyars and Polacks own five home centres, four of them occupied by their own armies: one build.
MAG_UNITS = {MAG: ["A cra", "A dan", "A elb", "A ess"]}
MAG_HOMES = ["cra", "dan", "elb", "ess", "vit"]


def test_one_build_left_offers_no_d() -> None:
    pos = position(MAG_UNITS, {MAG: MAG_HOMES})
    assert hooks_for(V).adjustment_delta(pos, MAG) == 1
    assert builds(pos, MAG) == {("A", "vit")}
    outcome, reason = alone(pos, MAG, Build("D", prov("vit")))
    assert outcome == Outcome.ILLEGAL and "needs 2 centres" in reason


def test_two_builds_offer_a_d_in_the_homeland_and_it_is_built() -> None:
    pos = position(MAG_UNITS, {MAG: [*MAG_HOMES, "lin"]})
    assert ("D", "vit") in builds(pos, MAG) and ("D", "lin") in builds(pos, MAG)
    assert alone(pos, MAG, Build("D", prov("vit")))[0] == Outcome.SUCCEEDS


def test_a_second_d_is_neither_offered_nor_built() -> None:
    pos = position({MAG: ["D cra", "A dan", "A elb"]}, {MAG: [*MAG_HOMES, "lin", "ode"]})
    assert hooks_for(V).adjustment_delta(pos, MAG) == 3
    assert not {b for b in builds(pos, MAG) if b[0] == "D"}
    outcome, reason = alone(pos, MAG, Build("D", prov("vit")))
    assert outcome == Outcome.ILLEGAL and "at most 1" in reason


def test_lombardy_is_a_build_site_outside_the_homeland_so_no_d_there() -> None:
    pos = position(MAG_UNITS, {MAG: [*MAG_HOMES, "lom", "lin"]})
    offered = builds(pos, MAG)
    assert ("A", "lom") in offered and ("D", "lom") not in offered
    assert alone(pos, MAG, Build("D", prov("lom")))[0] == Outcome.ILLEGAL


def test_vit_is_no_build_site_of_the_vikings_even_when_they_own_it() -> None:
    pos = position({VIK: []}, {VIK: ["vit", "osl", "ber"]})
    assert all(where != "vit" for _, where in builds(pos, VIK))
    assert alone(pos, VIK, Build("D", prov("vit")))[0] == Outcome.ILLEGAL


def test_a_power_in_civil_disorder_builds_nothing() -> None:
    pos = position(MAG_UNITS, {MAG: [*MAG_HOMES, "lin"]}, {"anarchy": {MAG: "disorder"}})
    assert builds(pos, MAG) == set()
    assert alone(pos, MAG, Build("D", prov("vit")))[0] == Outcome.ILLEGAL


def random_adjustments(seed: int) -> Position:
    """Random units (a third of the armies made defensive armies), owners and anarchy, in a Winter."""
    rng = random.Random(seed)
    density = rng.uniform(0.05, 0.8)
    units: dict[int, Unit] = {}
    for p in M.provinces:
        if rng.random() >= density:
            continue
        options = [("A", p.id)] if M.can_hold("A", p.id) else []
        options += [("F", loc) for loc in M.fleet_locations(p.id)]
        if options:
            kind, loc = rng.choice(options)
            power = rng.choice(V.power_names)
            if kind == "A" and rng.random() < 0.3:
                kind = "D"
            units[p.id] = Unit(power, kind, loc)
    centres = {c: rng.choice(V.power_names) for c in M.supply_centres if rng.random() < 0.9}
    anarchy = {pw: rng.choice(("grace", "disorder")) for pw in V.power_names if rng.random() < 0.15}
    year = V.calendar.start.year + 3 + rng.randrange(5)
    return Position(
        Phase(year, WINTER.step), units, centres, V.start.homes, state={"anarchy": anarchy} if anarchy else {}
    )


@pytest.mark.parametrize("seed", range(40))
def test_every_build_offered_is_accepted_alone_and_every_d_accepted_is_offered(seed: int) -> None:
    pos = random_adjustments(seed)
    assert V.calendar.kind(pos.phase) == PhaseKind.ADJUSTMENTS
    for power in V.power_names:
        offered = {o for listed in legal_orders(V, pos, power).values() for o in listed if isinstance(o, Build)}
        for o in offered:
            outcome, reason = alone(pos, power, o)
            assert outcome == Outcome.SUCCEEDS, (power, o, reason)
        # The other way round for defensive armies, on every vacant homeland province.
        for site in V.homelands.get(power, frozenset()):
            if site in pos.units:
                continue
            d = Build("D", site)
            if alone(pos, power, d)[0] == Outcome.SUCCEEDS:
                assert d in offered, (power, M.provinces[site].abbr)
