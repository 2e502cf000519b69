"""Whose turn it is: who must act in a phase, how many builds or disbands, and civil disorder."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from dippouch.core.calendar import PhaseKind
from dippouch.core.orders import Build, Order
from dippouch.core.position import Position
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant


def legal_table(variant: Variant, position: Position, power: str) -> Mapping[int, Sequence[Order]]:
    """A power's legal orders by unit, which the line checks and the turn's questions both read."""
    from dippouch.core.legal_orders import legal_orders

    return legal_orders(variant, position, power)


def adjustment_delta(variant: Variant, position: Position, power: str) -> int:
    """Builds (positive) or removals owed (negative), as the adjudicator counts them: the variant's
    ``adjustment_delta`` hook (centres minus unit costs by default; 1897's opening winter gives one build
    to powers that own nothing yet)."""
    return hooks_for(variant).adjustment_delta(position, power)


def powers_to_act(variant: Variant, position: Position) -> list[str]:
    """The powers that must send orders before a phase can be processed early (everyone ready)."""
    kind = variant.calendar.kind(position.phase)
    hooks = hooks_for(variant)
    # A power the rules keep from giving orders (1000 AD's civil disorder), or whose units they let nobody
    # order, has nothing to send: its removals are made for it.
    refused = {p for p in variant.power_names if hooks.orders_refused(position, p) is not None}
    may_order = hooks.may_order
    if kind == PhaseKind.MOVEMENT:
        return [
            p
            for p in variant.power_names
            if p not in refused and any(may_order(position, p, u) for u in position.units_of(p))
        ]
    if kind == PhaseKind.RETREATS:
        return sorted(
            {
                d.unit.power
                for d in position.dislodged.values()
                if d.unit.power not in refused and may_order(position, d.unit.power, d.unit)
            }
        )
    out = []
    for p in variant.power_names:
        if p in refused:
            continue
        delta = adjustment_delta(variant, position, p)
        if delta < 0:
            out.append(p)
        elif delta > 0:
            table = legal_table(variant, position, p)
            if any(isinstance(o, Build) for os_ in table.values() for o in os_):
                out.append(p)
    return out


def may_submit(variant: Variant, position: Position, power: str) -> bool:
    """Whether ``power`` may send orders now: it must act (:func:`powers_to_act`), or, in an adjustment
    phase, it could build with supply another power sends it (W3K: a power with no builds of its own may
    be sent supply, and must be able to order the builds)."""
    if power in powers_to_act(variant, position):
        return True
    hooks = hooks_for(variant)
    if variant.calendar.kind(position.phase) != PhaseKind.ADJUSTMENTS or hooks.orders_refused(position, power):
        return False
    alive = bool(position.units_of(power) or position.centres_of(power))
    return alive and hooks.supply_note(position, power) is not None


def civil_disorder_streak(missed: Iterable[bool]) -> int:
    """How many of the most recent movement phases (oldest first in ``missed``) were missed in a row."""
    streak = 0
    for m in missed:
        streak = streak + 1 if m else 0
    return streak
