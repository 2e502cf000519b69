"""The standard adjustment fast path and the general (hooked) one agree; a count is never reused for a changed board.

Standard builds, waives and removals are settled inline (``adjustments._standard_phase``) and anything else
goes to the full judgement; a variant overriding a build hook with the same behaviour takes the general path
throughout. Both must give the same results and next position on random adjustment phases, with legal
orders mixed with impossible, repeated and surplus ones. The "is an adjustment phase needed" check after a
Fall leaves its count for the adjustment phase that follows; a board changed in place since must be counted
again.
"""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.adjustments import _standard_builds, standard_adjustment_needed
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Disband, Order, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import RuleHooks, hooks_for, register_hooks
from dippouch.core.variant import Variant
from helpers import canonical, standard_with_hooks


@register_hooks("test_adjustment_paths_general")
class _GeneralBuilds(RuleHooks):
    """Standard behaviour through an overridden build hook, which turns the adjustment fast path off."""

    def may_build_kind(self, position: Position, power: str, kind: str, loc: int) -> bool:
        return super().may_build_kind(position, power, kind, loc)


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> tuple[Variant, Variant]:
    general = standard_with_hooks(tmp_path_factory.mktemp("variants"), "test_adjustment_paths_general")
    return load_variant("standard"), general


def _noise(variant: Variant, position: Position, power: str, rng: random.Random) -> Order:
    """A random, usually impossible, adjustment order: a build on one of the power's home centres (vacant or
    not, coast named or not) or anywhere, a removal of any unit, a waive."""
    gmap = variant.map
    locs = range(len(gmap.locations))
    pick = rng.random()
    if pick < 0.3:
        home = rng.choice(sorted(position.homes[power]))
        return Build(rng.choice("AF"), rng.choice([home, *gmap.provinces[home].coasts]))
    if pick < 0.5:
        return Build(rng.choice("AF"), rng.choice(locs))
    if pick < 0.85 and position.units:
        u = rng.choice(list(position.units.values()))
        return Disband(u.kind, u.loc)
    return Waive()


@pytest.mark.parametrize("seed", range(8))
def test_fast_and_general_adjustment_paths_agree(variants: tuple[Variant, Variant], seed: int) -> None:
    fast, general = variants
    assert _standard_builds(hooks_for(fast)) and not _standard_builds(hooks_for(general))
    rng = random.Random(seed)
    position = fast.start
    compared = 0
    while position.phase.year <= 1920:
        kind = fast.calendar.kind(position.phase)
        orders: dict[str, list[Order]] = {}
        for power in fast.power_names:
            options = legal_orders(fast, position, power)
            if kind == PhaseKind.ADJUSTMENTS:
                offered = [o for opts in options.values() for o in opts]
                chosen = rng.sample(offered, min(len(offered), rng.randrange(5)))
                for _ in range(rng.randrange(4)):
                    chosen.insert(rng.randrange(len(chosen) + 1), _noise(fast, position, power, rng))
                if chosen and rng.random() < 0.3:
                    chosen.append(rng.choice(chosen))  # the same order twice
            else:
                chosen = [rng.choice(options[loc]) for loc in sorted(options) if options[loc]]
            if chosen:
                orders[power] = chosen
        got = adjudicate(fast, position, orders, rng=random.Random(seed))
        if kind == PhaseKind.ADJUSTMENTS:
            compared += 1
            assert canonical(got) == canonical(adjudicate(general, position, orders, rng=random.Random(seed))), (
                position.phase
            )
        position = got.next
    assert compared >= 8


def test_a_board_changed_in_place_is_counted_again() -> None:
    variant = load_variant("standard")
    gmap = variant.map

    def prov(abbr: str) -> int:
        return gmap.province_of(gmap.loc(abbr))

    units = {prov(a): Unit("France", "A", gmap.loc(a)) for a in ("par", "mar")}
    centres = {prov(a): "France" for a in ("par", "mar", "bre")}
    # France owns three centres and has two units: one build. The check counts this board...
    assert standard_adjustment_needed(units, centres, variant.start.homes)
    # ...then the same dicts change in place (France loses Brest and Marseilles): now one removal is owed.
    del centres[prov("bre")]
    centres[prov("mar")] = "Italy"
    winter = Position(variant.calendar.parse("Winter 1901"), units, centres, variant.start.homes)
    res = adjudicate(variant, winter, {"France": [Build("A", gmap.loc("bre"))]})
    assert [r.result for r in res.results if not r.automatic] == ["illegal"]
    assert [(r.power, r.result) for r in res.results if r.automatic] == [("France", "succeeds")]
    assert len(res.next.units) == 1


def test_counting_helper_and_its_python_stand_in_agree() -> None:
    """The C counting helper is private to CPython: the Python loop used where it is missing counts alike."""
    from dippouch.core.adjustments import _count_in_python, _count_into

    items = ["England", "France", "England", "Russia", "England"]
    fast: dict[str, int] = {"France": 2}
    slow: dict[str, int] = {"France": 2}
    _count_into(fast, iter(items))
    _count_in_python(slow, iter(items))
    assert fast == slow == {"France": 3, "England": 3, "Russia": 1}
