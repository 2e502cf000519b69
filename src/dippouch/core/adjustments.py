"""Adjustment phases: builds and removals, executed top to bottom as DATC 4.D.4-4.D.6 prefer.

Each power's orders run in the order given; one that cannot be executed is reported and skipped, so the
first legal builds or removals are the ones used (6.I.1, 6.J.1). Removals still owed afterwards are made
by the civil-disorder rule of :meth:`RuleHooks.removal_order`.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Callable, Iterable, Mapping, Sequence

from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.order_checks import adjustment_verdict as _one
from dippouch.core.orders import Build, Disband, Order, Waive
from dippouch.core.position import SHARED_UNITS, Position, Unit, fresh_dict, shared_unit
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.rules.base import AdjustmentContext, RuleHooks

__all__ = ["adjudicate_adjustments", "adjustment_needed", "standard_adjustment_needed", "standard_counting"]

# Enum members read as ``Outcome.X`` go through the enum metaclass's ``__getattr__`` hook (Python 3.11),
# about 900 machine instructions a read; the hot paths read these module constants instead.
_FAILS = Outcome.FAILS
_ILLEGAL = Outcome.ILLEGAL
_SUCCEEDS = Outcome.SUCCEEDS


def adjustment_needed(gmap: GameMap, hooks: RuleHooks, position: Position, powers: Sequence[str]) -> bool:
    """Whether anybody has something to do: removals owed, or a build with a vacant site to build on."""
    if hooks.is_standard("adjustment_delta"):
        # The standard count in one pass over centres and units (this runs after every Fall).
        counts: dict[str, int] = {}
        centres = position.centres
        units = position.units
        for owner in centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        if hooks.is_standard("unit_cost") and not hooks._costs:
            for u in units.values():
                counts[u.power] = counts.get(u.power, 0) - 1
        else:
            cost = hooks.unit_cost
            for u in units.values():
                counts[u.power] = counts.get(u.power, 0) - cost(u.kind)
        plain_sites = hooks.is_standard("build_sites") and not hooks._extra_sites
        homes = position.homes
        for power, v in counts.items():
            if v < 0:
                return True
            if v > 0:
                if plain_sites:
                    # Standard build sites: owned home centres, here without building the frozenset.
                    if any(p not in units and centres.get(p) == power for p in homes.get(power, ())):
                        return True
                elif any(p not in units for p in hooks.build_sites(position, power)):
                    return True
        return False
    for power in powers:
        delta = hooks.adjustment_delta(position, power)
        if delta < 0:
            return True
        if delta > 0 and any(p not in position.units for p in hooks.build_sites(position, power)):
            return True
    return False


def standard_counting(hooks: RuleHooks) -> bool:
    """Whether adjustments count as the standard rules do: the standard ``adjustment_delta``, ``unit_cost``
    and ``build_sites`` with no unit costs or extra build centres. Then :func:`standard_adjustment_needed`
    answers :func:`adjustment_needed` from the mappings alone."""
    return (
        hooks.is_standard("adjustment_delta")
        and hooks.is_standard("unit_cost")
        and not hooks._costs
        and hooks.is_standard("build_sites")
        and not hooks._extra_sites
    )


def standard_adjustment_needed(
    units: Mapping[int, Unit], centres: Mapping[int, str], homes: Mapping[str, frozenset[int]]
) -> bool:
    """:func:`adjustment_needed` under :func:`standard_counting`, without a position made to ask it."""
    counts = standard_count(units, centres)
    for power, v in counts.items():
        if v < 0:
            return True
        if v > 0:
            # A loop, not any(): a generator would make cells of this function's locals on every call.
            for p in homes.get(power, ()):
                if p not in units and centres.get(p) == power:
                    return True
    return False


def _count_in_python(counts: dict[str, int], items: Iterable[str]) -> None:
    for x in items:
        counts[x] = counts.get(x, 0) + 1


_count_into: Callable[[dict[str, int], Iterable[str]], None] = getattr(collections, "_count_elements", _count_in_python)
"""``counts[x] += 1`` for each ``x``, in C: the helper ``collections.Counter`` counts with (a ``Counter`` made
per count would cost more than the loop it replaces, for some thirty units and centres). It is private to
CPython's ``collections``; where it is missing, the same loop in Python does the same."""


_last_count: tuple[dict[int, Unit], dict[int, str], dict[str, int]] | None = None
"""The last :func:`standard_count`, with copies of the mappings it counted (one tuple, replaced whole)."""


def standard_count(units: Mapping[int, Unit], centres: Mapping[int, str]) -> dict[str, int]:
    """Centres owned minus units, per power (a fresh dict; only powers owning or holding something).

    The same board is counted three times in a row: after a Fall, to see whether an adjustment phase is
    needed, by :func:`legal.legal_orders <dippouch.core.legal_orders.legal_orders>` for that phase, and by the
    phase itself. The last count is kept with copies of its mappings, and a count of equal
    mappings is copied from it: comparing two dicts runs in C (and the units compare by identity, being
    shared values), about a tenth of counting them again in Python. Copies rather than the mappings
    themselves, so a mapping changed in place since cannot be mistaken for the one counted.
    """
    global _last_count
    last = _last_count
    if last is not None and last[1] == centres and last[0] == units:
        return dict(last[2])
    # Both tallies run in C (the units' powers listed by a comprehension, cheaper than an attrgetter called
    # per unit); only the few powers holding units are then visited in Python.
    counts: dict[str, int] = {}
    _count_into(counts, centres.values())
    held: dict[str, int] = {}
    _count_into(held, [u.power for u in units.values()])
    for power, k in held.items():
        counts[power] = counts.get(power, 0) - k
    _last_count = (fresh_dict(units), fresh_dict(centres), counts.copy())
    return counts


def _deltas(hooks: RuleHooks, position: Position, powers: Sequence[str]) -> dict[str, int]:
    """Builds (positive) or removals owed (negative) per power, in one pass under the standard count."""
    if not hooks.is_standard("adjustment_delta"):
        return {p: hooks.adjustment_delta(position, p) for p in powers}
    out = dict.fromkeys(powers, 0)
    for owner in position.centres.values():
        out[owner] = out.get(owner, 0) + 1
    if hooks.is_standard("unit_cost") and not hooks._costs:
        for u in position.units.values():
            out[u.power] = out.get(u.power, 0) - 1
        return out
    cost = hooks.unit_cost
    for u in position.units.values():
        out[u.power] = out.get(u.power, 0) - cost(u.kind)
    return out


def adjudicate_adjustments(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
    powers: Sequence[str],
    rng: random.Random | None,
) -> tuple[list[OrderResult], dict[int, Unit], Mapping[int, str], dict[str, object]]:
    """Results, units after the phase, centre ownership and variant state after the phase."""
    if _standard_builds(hooks):
        done = _standard_phase(gmap, hooks, position, orders, powers, rng)
        if done is not None:
            return done
    ctx = AdjustmentContext(
        position=position,
        delta=_deltas(hooks, position, powers),
        centres=dict(position.centres),
        state=dict(position.state),
    )
    units: dict[int, Unit] = dict(position.units)
    results: list[OrderResult] = []
    for power, olist in orders.items():
        ctx.delta.setdefault(power, 0)
        for i, order in enumerate(olist):
            outcome, reason = _one(gmap, hooks, ctx, units, power, order)
            results.append(OrderResult(power, order, outcome, reason=reason, index=i))
    for power in powers:
        owed = -ctx.delta.get(power, 0)
        if owed <= 0:
            continue
        now = position.with_(units=units, centres=ctx.centres)
        provs, why = hooks.removal_order(now, power, owed, rng)
        for prov in provs:
            u = units.pop(prov)
            ctx.delta[power] += hooks.unit_cost(u.kind)
            results.append(OrderResult(power, Disband(u.kind, u.loc), _SUCCEEDS, automatic=True, reason=why))
    return results, units, ctx.centres, ctx.state


def _standard_builds(hooks: RuleHooks) -> bool:
    """Whether builds and removals follow the standard rules throughout (counting, sites, buildable kinds,
    unit kinds): then :func:`_standard_phase` may settle them without positions made for hooks. Asked once
    per hooks object."""
    got: bool | None = hooks.derived.get("adjustments.standard_builds")
    if got is None:
        got = hooks.derived["adjustments.standard_builds"] = (
            standard_counting(hooks)
            and hooks.is_standard("may_build_kind")
            and hooks.is_standard("movement_kind")
            and not hooks._moves_as
        )
    return got


def _build_at(gmap: GameMap) -> dict[tuple[str, int], int]:
    """``(unit kind, location)`` -> where the unit stands once built, for every build the map allows under the
    standard rules (an army named with a coast stands in the province; a fleet in a split-coast province
    needs its coast named). A build missing here is refused by :func:`_one`, which says why."""
    got: dict[tuple[str, int], int] | None = gmap.derived.get("adjustments.build_at")
    if got is None:
        table: dict[tuple[str, int], int] = {}
        for loc in gmap.locations:
            prov = gmap.provinces[loc.province]
            if gmap.can_hold("A", prov.id):
                table[("A", loc.id)] = prov.id
            named = not (prov.coasts and loc.id == prov.id)
            if named and prov.kind == ProvinceKind.COAST and gmap.can_hold("F", loc.id):
                table[("F", loc.id)] = loc.id
        got = gmap.derived["adjustments.build_at"] = table
    return got


_new_tuple = tuple.__new__
_UNITS = SHARED_UNITS


def _standard_phase(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
    powers: Sequence[str],
    rng: random.Random | None,
) -> tuple[list[OrderResult], dict[int, Unit], Mapping[int, str], dict[str, object]] | None:
    """:func:`adjudicate_adjustments` for standard builds and removals: an order that can be carried out is
    settled inline, anything else goes to :func:`_one`, which judges it in full and says why. The centre
    ownership is not changed, so it is handed on as is. ``None`` at the first order of another kind than
    build, waive or disband (a variant's): the general path then judges the whole phase (nothing done here
    is seen outside)."""
    centres = position.centres
    units = fresh_dict(position.units)
    delta = dict.fromkeys(powers, 0)
    delta.update(standard_count(units, centres))
    built: set[int] = set()
    ctx: AdjustmentContext | None = None
    loc_prov = gmap.province_of
    build_at = _build_at(gmap)
    homes = position.homes
    made = _UNITS
    results: list[OrderResult] = []
    append = results.append
    succeeds = _SUCCEEDS
    for power, olist in orders.items():
        have = delta.get(power)
        if have is None:
            have = delta[power] = 0
        for i, order in enumerate(olist):
            t = type(order)
            if t is Build:
                b: Build = order  # type: ignore[assignment]
                prov = loc_prov(b.loc)
                where = build_at.get((b.kind, b.loc), -1)
                if (
                    have > 0
                    and where >= 0
                    and centres.get(prov) == power
                    and prov in homes.get(power, ())
                    and prov not in built
                    and prov not in units
                ):
                    new = made.get((power, b.kind, where))
                    units[prov] = new if new is not None else shared_unit(power, b.kind, where)
                    built.add(prov)
                    have = delta[power] = have - 1
                    append(_new_tuple(OrderResult, (power, order, succeeds, False, False, False, "", i)))
                    continue
            elif t is Waive:
                if have > 0:
                    have = delta[power] = have - 1
                    append(_new_tuple(OrderResult, (power, order, succeeds, False, False, False, "", i)))
                    continue
            elif t is Disband:
                if have < 0:
                    prov = loc_prov(order.loc)  # type: ignore[attr-defined]
                    gone = units.get(prov)
                    if gone is not None and gone.power == power and prov not in built:
                        del units[prov]
                        have = delta[power] = have + 1
                        append(_new_tuple(OrderResult, (power, order, succeeds, False, False, False, "", i)))
                        continue
            else:
                return None
            if ctx is None:
                ctx = AdjustmentContext(position=position, delta=delta, centres=dict(centres), built=built)
            outcome, reason = _one(gmap, hooks, ctx, units, power, order)
            have = delta[power]
            append(_new_tuple(OrderResult, (power, order, outcome, False, False, False, reason, i)))
    for power in powers:
        owed = -delta.get(power, 0)
        if owed <= 0:
            continue
        now = position.with_(units=units, centres=centres)
        provs, why = hooks.removal_order(now, power, owed, rng)
        for prov in provs:
            u = units.pop(prov)
            delta[power] += 1
            append(OrderResult(power, Disband(u.kind, u.loc), _SUCCEEDS, automatic=True, reason=why))
    return results, units, centres if ctx is None else ctx.centres, dict(position.state)
