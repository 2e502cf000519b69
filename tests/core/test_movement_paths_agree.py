"""The standard fast path and the general (hooked) path of the adjudicator agree on random phases.

The fast path settles plain orders inline, decides the decisions that depend on no other one before guess
and check, and answers convoy-route questions by shortcuts; the general path, taken by any variant that
overrides a hook, does none of that. Both must give the same results (words, flags, reasons) and the same
next position, on random legal orders mixed with illegal, repeated and foreign ones.
"""

from __future__ import annotations

import random

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Convoy, Hold, Move, Order, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import RuleHooks, hooks_for, register_hooks
from dippouch.core.variant import Variant
from helpers import canonical, standard_with_hooks


@register_hooks("test_paths_agree_general")
class _GeneralPath(RuleHooks):
    """Standard behaviour through overridden hooks, which turns the fast paths off."""

    def unit_strength(self, unit: Unit) -> int:
        return 1

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        return super().may_order(position, power, unit)


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> tuple[Variant, Variant]:
    fast = load_variant("standard")
    general = standard_with_hooks(tmp_path_factory.mktemp("variants"), "test_paths_agree_general")
    assert hooks_for(fast).standard_movement and not hooks_for(general).standard_movement
    return fast, general


def _noise(variant: Variant, position: Position, rng: random.Random) -> Order:
    """A random, usually impossible, movement order: any unit, any location."""
    locs = range(len(variant.map.locations))
    units = list(position.units.values())
    u = rng.choice(units)
    other = rng.choice(units)
    pick = rng.random()
    if pick < 0.35:
        return Move(u.kind, u.loc, rng.choice(locs), via_convoy=rng.random() < 0.2)
    if pick < 0.7:
        return Support(u.kind, u.loc, other.kind, other.loc, rng.choice([None, rng.choice(locs)]))
    if pick < 0.85:
        return Convoy(u.kind, u.loc, other.loc, rng.choice(locs))
    return Hold(u.kind, u.loc)


@pytest.mark.parametrize("seed", range(6))
def test_fast_and_general_paths_agree(variants: tuple[Variant, Variant], seed: int) -> None:
    fast, general = variants
    rng = random.Random(seed)
    position = fast.start
    movement_phases = 0
    while position.phase.year <= 1912:
        kind = fast.calendar.kind(position.phase)
        orders: dict[str, list[Order]] = {}
        for power in fast.power_names:
            options = legal_orders(fast, position, power)
            chosen: list[Order] = []
            if kind == PhaseKind.ADJUSTMENTS:
                builds = [o for opts in options.values() for o in opts if isinstance(o, (Build, Waive))]
                need = len(position.centres_of(power)) - len(position.units_of(power))
                chosen = rng.sample(builds, min(len(builds), max(need, 0)))
                if need < 0:
                    removals = [o for opts in options.values() for o in opts if not isinstance(o, (Build, Waive))]
                    chosen = rng.sample(removals, min(len(removals), -need))
            else:
                for loc in sorted(options):
                    if options[loc]:
                        chosen.append(rng.choice(options[loc]))
                if kind == PhaseKind.MOVEMENT and position.units:
                    for _ in range(rng.randrange(4)):
                        chosen.insert(rng.randrange(len(chosen) + 1), _noise(fast, position, rng))
            if chosen:
                orders[power] = chosen
        got_fast = adjudicate(fast, position, orders)
        if kind == PhaseKind.MOVEMENT:
            movement_phases += 1
            got_general = adjudicate(general, position, orders)
            assert canonical(got_fast) == canonical(got_general), position.phase
        position = got_fast.next
    assert movement_phases >= 20
