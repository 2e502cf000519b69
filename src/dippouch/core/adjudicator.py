"""Adjudicate one phase: orders in, a result for every order and the next position out.

:func:`adjudicate` picks the phase kind from the variant's calendar and hands over to
:mod:`~dippouch.core.movement`, :mod:`~dippouch.core.retreats` or :mod:`~dippouch.core.adjustments`.
It then works out the next position: the next phase that needs orders (a retreat phase only if some unit
must retreat, an adjustment phase only if some power builds or removes), with supply-centre ownership
updated when the calendar passes into an adjustment step (after the last movement or retreat of the year).

Pure: no I/O, no clock; the only randomness is the ``rng`` a caller passes in for variant lots.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from dippouch.core.adjustments import (
    adjudicate_adjustments,
    adjustment_needed,
    standard_adjustment_needed,
    standard_counting,
)
from dippouch.core.calendar import Calendar, Phase, PhaseKind
from dippouch.core.mapdata import GameMap
from dippouch.core.movement import adjudicate_movement
from dippouch.core.orders import Order
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.retreats import adjudicate_retreats
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = ["adjudicate", "next_position"]


def adjudicate(
    variant: Variant,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
    *,
    rng: random.Random | None = None,
) -> Resolution:
    """Adjudicate the phase ``position`` is in.

    ``orders`` maps a power to its orders in the order submitted: the first order to a unit counts and an
    order for another power's unit is illegal. The result has an :class:`OrderResult` for every submitted
    order (``index`` = its place in the power's list) plus automatic ones (holds of unordered units,
    disbands, civil-disorder removals).
    """
    hooks = hooks_for(variant)
    gmap = variant.map
    orders_in = orders
    kind = variant.calendar.kind(position.phase)
    dislodged: Mapping[int, Dislodged] = {}
    centres: Mapping[int, str] = position.centres
    state: Mapping[str, object] = position.state
    results: list[OrderResult]
    judged, decided = hooks.prepare_orders(position, orders)
    kept: dict[str, list[int]] = {}
    if decided:
        # Orders a hook decided up front (W3K proxies, supply transfers) are reported as decided; the
        # rest are judged as usual and their indices mapped back to the power's submitted list.
        kept = {p: [i for i in range(len(olist)) if (p, i) not in decided] for p, olist in orders.items()}
        orders = {p: [orders[p][i] for i in idx] for p, idx in kept.items()}
    if kind == PhaseKind.MOVEMENT:
        out = adjudicate_movement(gmap, hooks, judged, orders)
        results, units, dislodged = out.results, out.units, out.dislodged
    elif kind == PhaseKind.RETREATS:
        results, units = adjudicate_retreats(gmap, hooks, judged, orders)
    else:
        results, units, centres, state = adjudicate_adjustments(gmap, hooks, judged, orders, variant.power_names, rng)
    if decided:
        results = [
            r._replace(index=kept[r.power][r.index]) if r.index is not None and r.power in kept else r for r in results
        ]
        for (power, i), (word, reason) in sorted(decided.items()):
            results.append(OrderResult(power, orders_in[power][i], Outcome(word), reason=reason, index=i))
    after = next_position(variant, hooks, position, units, dislodged, centres, dict(state))
    after = hooks.phase_end(position, after, results)
    return Resolution(tuple(results), after)


def next_position(
    variant: Variant,
    hooks: RuleHooks,
    before: Position,
    units: Mapping[int, Unit],
    dislodged: Mapping[int, Dislodged],
    centres: Mapping[int, str],
    state: Mapping[str, object],
) -> Position:
    """The position after a phase: advance to the next phase that needs orders, updating ownership on the way."""
    gmap = variant.map
    owners: Mapping[int, str] = centres
    updated = False
    chain = _chain(variant.calendar, before.phase)
    standard = _standard_counting(hooks)
    for phase, kind in chain[:-1]:
        if kind is PhaseKind.RETREATS:
            if dislodged:
                break
        elif kind is PhaseKind.ADJUSTMENTS:
            if not updated:
                changed = dict(centres)
                sc = _centres(gmap)
                for prov, u in units.items():
                    if prov in sc:
                        changed[prov] = u.power
                owners = changed
                updated = True
            if standard:
                if standard_adjustment_needed(units, owners, before.homes):
                    break
            elif adjustment_needed(
                gmap, hooks, Position(phase, units, owners, before.homes, {}, state), variant.power_names
            ):
                break
        else:
            break
    else:
        phase, kind = chain[-1]
    # The mappings handed in are fresh ones the phase built; positions treat them as immutable values.
    return Position(
        phase=phase,
        units=units,
        centres=owners,
        homes=before.homes,
        dislodged=dislodged if dislodged and kind is PhaseKind.RETREATS else {},
        state=state,
    )


_STANDARD_COUNTING: dict[int, tuple[RuleHooks, bool]] = {}


def _standard_counting(hooks: RuleHooks) -> bool:
    """:func:`~dippouch.core.adjustments.standard_counting`, asked once per hooks object."""
    got = _STANDARD_COUNTING.get(id(hooks))
    if got is None or got[0] is not hooks:
        got = _STANDARD_COUNTING[id(hooks)] = (hooks, standard_counting(hooks))
    return got[1]


_CHAINS: dict[int, tuple[Calendar, dict[tuple[int, int], tuple[tuple[Phase, PhaseKind], ...]]]] = {}


def _chain(cal: Calendar, phase: Phase) -> tuple[tuple[Phase, PhaseKind], ...]:
    """The phases after ``phase`` with their kinds, as far as :func:`next_position` may look (two cycles
    and one more), worked out once per calendar and phase: every game passes through the same ones."""
    got = _CHAINS.get(id(cal))
    if got is None or got[0] is not cal:
        got = _CHAINS[id(cal)] = (cal, {})
    memo = got[1]
    key = (phase.year, phase.step)
    chain = memo.get(key)
    if chain is None:
        if len(memo) > 4096:
            memo.clear()
        out = []
        p = phase
        for _ in range(2 * len(cal.steps) + 3):
            p = cal.next(p)
            out.append((p, cal.kind(p)))
        chain = memo[key] = tuple(out)
    return chain


_SC: dict[int, tuple[GameMap, frozenset[int]]] = {}


def _centres(gmap: GameMap) -> frozenset[int]:
    got = _SC.get(id(gmap))
    if got is None or got[0] is not gmap:
        got = (gmap, frozenset(gmap.supply_centres))
        _SC[id(gmap)] = got
    return got[1]
