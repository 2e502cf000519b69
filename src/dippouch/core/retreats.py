"""Retreat phases: each dislodged unit retreats to one of its legal provinces or is disbanded.

The legal retreats were worked out at the end of the movement phase (not the attacker's origin unless
the attack came by convoy, not a province left empty by a standoff, not occupied) and are stored in
:attr:`Position.dislodged`. Here only the orders are judged: supports, convoys and moves of other units
are illegal (6.H.1-6.H.4), two or more retreats to one province all fail (6.H.7, 6.H.8), and a unit
without a successful retreat is disbanded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dippouch.core.mapdata import GameMap
from dippouch.core.orders import Disband, Move, Order, Retreat
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.rules.base import RuleHooks

__all__ = ["adjudicate_retreats"]

# Enum members read as ``Outcome.X`` go through the enum metaclass's ``__getattr__`` hook (Python 3.11),
# about 900 machine instructions a read; the hot paths read these module constants instead.
_FAILS = Outcome.FAILS
_ILLEGAL = Outcome.ILLEGAL
_SUCCEEDS = Outcome.SUCCEEDS


def _text(gmap: GameMap, u: Unit) -> str:
    return f"{u.kind} {gmap.locations[u.loc].abbr}"


class _Row:
    __slots__ = ("index", "order", "outcome", "power", "prov", "reason", "to")

    def __init__(self, power: str, index: int, order: Order) -> None:
        self.power = power
        self.index = index
        self.order = order
        self.outcome: Outcome | None = None
        self.reason = ""
        self.prov = -1
        self.to = -1
        """Location retreated to, for a legal retreat."""


def adjudicate_retreats(
    gmap: GameMap, hooks: RuleHooks, position: Position, orders: Mapping[str, Sequence[Order]]
) -> tuple[list[OrderResult], dict[int, Unit]]:
    """Results of every retreat order (plus automatic disbands) and the units after the phase."""
    dislodged = position.dislodged
    rows: list[_Row] = []
    chosen: set[int] = set()
    arrivals: dict[int, list[_Row]] = {}
    for power, olist in orders.items():
        for i, order in enumerate(olist):
            row = _Row(power, i, order)
            rows.append(row)
            loc = order.unit_loc
            dest = (
                order.dest if isinstance(order, Retreat) or (isinstance(order, Move) and not order.via_convoy) else -1
            )
            if loc is None or (dest < 0 and not isinstance(order, Disband)):
                row.outcome, row.reason = _ILLEGAL, "only retreats and disbands are ordered in a retreat phase"
                continue
            prov = gmap.province_of(loc)
            d = dislodged.get(prov)
            if d is None:
                row.outcome, row.reason = _ILLEGAL, f"no dislodged unit in {gmap.provinces[prov].abbr}"
                continue
            if not hooks.may_order(position, power, d.unit):
                row.outcome, row.reason = _ILLEGAL, f"{_text(gmap, d.unit)} belongs to {d.unit.power}"
                continue
            if prov in chosen:
                row.outcome = _ILLEGAL
                row.reason = f"{_text(gmap, d.unit)} already has an order; the first one counts"
                continue
            row.prov = prov
            if dest >= 0:
                to = _retreat_location(gmap, d.retreats, dest)
                if to < 0:
                    options = ", ".join(sorted(gmap.locations[x].abbr for x in d.retreats)) or "none"
                    row.outcome = _ILLEGAL
                    row.reason = f"cannot retreat to {gmap.locations[dest].abbr} (legal retreats: {options})"
                    continue
                row.to = to
                arrivals.setdefault(gmap.province_of(to), []).append(row)
            chosen.add(prov)

    units = dict(position.units)
    results: list[OrderResult] = []
    for row in rows:
        outcome, reason = row.outcome, row.reason
        if outcome is None:
            if row.to < 0:
                outcome = _SUCCEEDS
            else:
                q = gmap.province_of(row.to)
                others = [r for r in arrivals[q] if r is not row]
                if others:
                    outcome = _FAILS
                    names = ", ".join(_text(gmap, dislodged[r.prov].unit) for r in others)
                    reason = f"bounced with {names}; the unit is disbanded"
                else:
                    outcome = _SUCCEEDS
                    u = dislodged[row.prov].unit
                    units[q] = Unit(u.power, u.kind, row.to)
        results.append(OrderResult(row.power, row.order, outcome, reason=reason, index=row.index))
    for prov, d in dislodged.items():
        if prov not in chosen:
            u = d.unit
            results.append(
                OrderResult(u.power, Disband(u.kind, u.loc), _SUCCEEDS, automatic=True, reason="no retreat ordered")
            )
    return results, units


def _retreat_location(gmap: GameMap, allowed: frozenset[int], dest: int) -> int:
    """The location a retreat order names, if it is allowed: a missing coast is filled in when only one fits."""
    if dest in allowed:
        return dest
    prov = gmap.province_of(dest)
    if prov in allowed:  # an army ordered with a coast: coasts mean nothing to armies (6.B.12)
        return prov
    coasts = gmap.provinces[prov].coasts
    if dest == prov and coasts:
        fits = [c for c in coasts if c in allowed]
        if len(fits) == 1:
            return fits[0]
    return -1
