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
from dataclasses import fields
from types import MappingProxyType

from dippouch.core.adjustments import (
    adjudicate_adjustments,
    adjustment_needed,
    standard_adjustment_needed,
    standard_counting,
)
from dippouch.core.calendar import Calendar, Phase, PhaseKind
from dippouch.core.mapdata import GameMap
from dippouch.core.messages import Msg
from dippouch.core.movement import adjudicate_movement
from dippouch.core.orders import Order
from dippouch.core.position import Dislodged, Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.retreats import adjudicate_retreats
from dippouch.core.rules.base import RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = ["adjudicate", "next_position"]

# Enum members read as ``PhaseKind.X`` go through the enum metaclass's ``__getattr__`` hook (Python 3.11),
# about 900 machine instructions a read; the hot paths read these module constants instead.
_ADJUSTMENTS = PhaseKind.ADJUSTMENTS
_MOVEMENT = PhaseKind.MOVEMENT
_RETREATS = PhaseKind.RETREATS


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
    got: tuple[RuleHooks, tuple[bool, bool, bool]] | None = variant.derived.get("adjudicator.hooks")
    if got is None:
        hooks = hooks_for(variant)
        got = variant.derived["adjudicator.hooks"] = (hooks, _flags(hooks))
    hooks, flags = got
    gmap = variant.map
    orders_in = orders
    kind = variant.calendar.steps[position.phase.step].kind
    dislodged: Mapping[int, Dislodged] = {}
    centres: Mapping[int, str] = position.centres
    state: Mapping[str, object] = position.state
    results: list[OrderResult]
    judged: Position = position
    decided: Mapping[tuple[str, int], tuple[str, Msg | str]] = _NOTHING_DECIDED
    if not flags[2]:
        judged, decided = hooks.prepare_orders(position, orders)
    kept: dict[str, list[int]] = {}
    if decided:
        kept, orders = _undecided(orders, decided)
    if kind is _MOVEMENT:
        out = adjudicate_movement(gmap, hooks, judged, orders)
        results, units, dislodged = out.results, out.units, out.dislodged
    elif kind is _RETREATS:
        results, units = adjudicate_retreats(gmap, hooks, judged, orders)
    else:
        results, units, centres, state = adjudicate_adjustments(gmap, hooks, judged, orders, variant.power_names, rng)
    if decided:
        results = _with_decided(results, orders_in, decided, kept)
    after = next_position(variant, hooks, position, units, dislodged, centres, dict(state))
    if not flags[1]:
        after = hooks.phase_end(position, after, results)
    return _resolution(tuple(results), after)


def _undecided(
    orders: Mapping[str, Sequence[Order]], decided: Mapping[tuple[str, int], tuple[str, Msg | str]]
) -> tuple[dict[str, list[int]], dict[str, list[Order]]]:
    """Orders a hook decided up front (W3K proxies, supply transfers) are reported as decided; the rest are
    judged as usual. Returns, per power, the submitted indices of the rest and the rest themselves. (Out of
    :func:`adjudicate`, whose locals its comprehensions would otherwise turn into cells.)"""
    kept = {p: [i for i in range(len(olist)) if (p, i) not in decided] for p, olist in orders.items()}
    return kept, {p: [orders[p][i] for i in idx] for p, idx in kept.items()}


def _with_decided(
    results: list[OrderResult],
    orders: Mapping[str, Sequence[Order]],
    decided: Mapping[tuple[str, int], tuple[str, Msg | str]],
    kept: dict[str, list[int]],
) -> list[OrderResult]:
    """The results of the orders judged, their indices mapped back to the submitted lists, and those decided."""
    out = [r._replace(index=kept[r.power][r.index]) if r.index is not None and r.power in kept else r for r in results]
    for (power, i), (word, reason) in sorted(decided.items()):
        out.append(OrderResult(power, orders[power][i], Outcome(word), reason=reason, index=i))
    return out


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
    chain, last = _chain(variant.calendar, before.phase)
    for phase, kind in chain:
        if kind is _RETREATS:
            if dislodged:
                break
        elif kind is _ADJUSTMENTS:
            if not updated:
                changed = dict(centres)
                for prov in _centres(gmap).intersection(units):
                    changed[prov] = units[prov].power
                owners = changed
                updated = True
            standard = _flags(hooks)[0]
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
        phase, kind = last
    # The mappings handed in are fresh ones the phase built; positions treat them as immutable values.
    return _position(phase, units, owners, before.homes, dislodged if dislodged and kind is _RETREATS else {}, state)


_POSITION_FIELDS = ("phase", "units", "centres", "homes", "dislodged", "state")
assert tuple(f.name for f in fields(Position)) == _POSITION_FIELDS, "update _position for Position's new fields"
_set_phase, _set_units, _set_centres, _set_homes, _set_dislodged, _set_state = (
    Position.__dict__[name].__set__ for name in _POSITION_FIELDS
)
_new_object = object.__new__


def _position(
    phase: Phase,
    units: Mapping[int, Unit],
    centres: Mapping[int, str],
    homes: Mapping[str, frozenset[int]],
    dislodged: Mapping[int, Dislodged],
    state: Mapping[str, object],
) -> Position:
    """``Position(...)`` filled through its slots: a frozen dataclass's ``__init__`` goes through
    ``object.__setattr__`` per field, which costs twice as much, and every phase makes one."""
    p: Position = _new_object(Position)
    _set_phase(p, phase)
    _set_units(p, units)
    _set_centres(p, centres)
    _set_homes(p, homes)
    _set_dislodged(p, dislodged)
    _set_state(p, state)
    return p


assert tuple(f.name for f in fields(Resolution)) == ("results", "next"), "update _resolution for Resolution's fields"
_set_results, _set_next = Resolution.__dict__["results"].__set__, Resolution.__dict__["next"].__set__


def _resolution(results: tuple[OrderResult, ...], after: Position) -> Resolution:
    """``Resolution(results, after)`` filled through its slots, as :func:`_position` does."""
    r: Resolution = _new_object(Resolution)
    _set_results(r, results)
    _set_next(r, after)
    return r


_NOTHING_DECIDED: Mapping[tuple[str, int], tuple[str, str]] = MappingProxyType({})


def _flags(hooks: RuleHooks) -> tuple[bool, bool, bool]:
    """(:func:`~dippouch.core.adjustments.standard_counting`, no phase-end behaviour, the standard
    ``prepare_orders``), asked once per hooks object: a phase with none of them calls no hook around it."""
    got: tuple[bool, bool, bool] | None = hooks.derived.get("adjudicator.flags")
    if got is None:
        quiet_end = hooks.is_standard("phase_end") and not hooks._phase_end
        got = hooks.derived["adjudicator.flags"] = (
            standard_counting(hooks),
            quiet_end,
            hooks.is_standard("prepare_orders"),
        )
    return got


_ChainT = tuple[tuple[tuple[Phase, PhaseKind], ...], tuple[Phase, PhaseKind]]


def _chain(cal: Calendar, phase: Phase) -> _ChainT:
    """The phases after ``phase`` with their kinds, as far as :func:`next_position` may look (two cycles
    and one more), worked out once per calendar and phase: every game passes through the same ones. Split
    into the phases it may stop at and the last, where it stops in any case."""
    memo: dict[int, _ChainT] | None = cal.derived.get("adjudicator.chains")
    if memo is None:
        memo = cal.derived["adjudicator.chains"] = {}
    # One int per phase (a step is below the step count), cheaper to hash than a (year, step) tuple.
    key = phase.year * len(cal.steps) + phase.step
    chain = memo.get(key)
    if chain is None:
        if len(memo) > 4096:
            memo.clear()
        out = []
        p = phase
        for _ in range(2 * len(cal.steps) + 3):
            p = cal.next(p)
            out.append((p, cal.kind(p)))
        chain = memo[key] = (tuple(out[:-1]), out[-1])
    return chain


def _centres(gmap: GameMap) -> frozenset[int]:
    got: frozenset[int] | None = gmap.derived.get("adjudicator.centres")
    if got is None:
        got = gmap.derived["adjudicator.centres"] = frozenset(gmap.supply_centres)
    return got
