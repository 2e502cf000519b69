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
from dippouch.core.messages import Msg, msg
from dippouch.core.order_checks import retreat_problem
from dippouch.core.orders import Disband, Order
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.rules.base import RuleHooks

__all__ = ["adjudicate_retreats"]

I18N_DOMAIN = "rules"
"""The catalogue of the retreats' reasons (:mod:`dippouch.core.messages`)."""

# Enum members read as ``Outcome.X`` go through the enum metaclass's ``__getattr__`` hook (Python 3.11),
# about 900 machine instructions a read; the hot paths read these module constants instead.
_FAILS = Outcome.FAILS
_ILLEGAL = Outcome.ILLEGAL
_SUCCEEDS = Outcome.SUCCEEDS
_NO_RETREAT = msg("no retreat ordered")


def _text(gmap: GameMap, u: Unit) -> str:
    return gmap.unit_label(u.kind, u.loc)


class _Row:
    __slots__ = ("index", "order", "outcome", "power", "prov", "reason", "to")

    def __init__(self, power: str, index: int, order: Order) -> None:
        self.power = power
        self.index = index
        self.order = order
        self.outcome: Outcome | None = None
        self.reason: Msg | str = ""
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
            why, prov, to = retreat_problem(gmap, hooks, position, power, order)
            if why:
                row.outcome, row.reason = _ILLEGAL, why
                continue
            d = dislodged[prov]
            if prov in chosen:
                row.outcome = _ILLEGAL
                row.reason = msg("%(unit)s already has an order; the first one counts", unit=_text(gmap, d.unit))
                continue
            row.prov = prov
            if to >= 0:
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
                    reason = msg("bounced with %(units)s; the unit is disbanded", units=names)
                else:
                    outcome = _SUCCEEDS
                    u = dislodged[row.prov].unit
                    units[q] = Unit(u.power, u.kind, row.to)
        results.append(OrderResult(row.power, row.order, outcome, reason=reason, index=row.index))
    for prov, d in dislodged.items():
        if prov not in chosen:
            u = d.unit
            results.append(OrderResult(u.power, Disband(u.kind, u.loc), _SUCCEEDS, automatic=True, reason=_NO_RETREAT))
    return results, units
