"""What every bot level shares: the interface, the adjustment counts and the baselines (``hold``, ``random``).

A bot is asked for one power's orders in one phase and answers with orders taken from the engine's legal
orders for that power (never made up), so a bot cannot send an order the adjudicator would call illegal
for its shape. Counts that legality alone does not settle (how many builds, how many removals) come from
the variant's own adjustment rule through :func:`~dippouch.bots.engine.adjustment_delta` and the rule
hooks' ``builds_used`` and ``unit_cost``, never from centres minus units.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from dippouch.bots.engine import (
    Build,
    Disband,
    Hold,
    Order,
    PhaseKind,
    Position,
    Variant,
    adjustment_delta,
    check_submission,
    hooks_for,
    legal_orders,
    prepare,
)
from dippouch.bots.memory import Memory

Legal = Mapping[int, Sequence[Order]]
"""Location (or build site) id -> the legal orders there, as :func:`legal_orders` lists them."""


class Bot(Protocol):
    """One level of play. ``orders`` is called once per power and phase; it must be deterministic for a
    given ``rng`` state so that fixed-seed games replay. ``memory``: what the power's earlier movement phases
    came to (:mod:`dippouch.bots.memory`), for a level that learns from it; the others ignore it."""

    name: str

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]: ...


def choose_adjustments(
    variant: Variant,
    position: Position,
    power: str,
    legal: Legal,
    score: Callable[[Order], float],
    on_chosen: Callable[[Build], None] | None = None,
) -> list[Order]:
    """Builds or removals up to exactly what the variant's adjustment rule allows, best ``score`` first.

    Builds: one order per site, each using ``builds_used`` of the allowance (a 1000 AD triple army uses two),
    never more than the allowance; orders that build nothing (waive, W3K's supply transfers) are left out, so
    builds not chosen are waived by the rules. A build is kept only if the arrival check accepts it after the
    ones chosen before it (:func:`check_submission`): limits on a set of builds (1000 AD's one triple army at a
    time) are rules of the set, not of one site. The builds are chosen one at a time, ``on_chosen`` told of
    each and the rest scored again: a build's worth depends on the ones before it (a second fleet where the
    first already made half the units fleets). Removals: units of lowest score first until their cost covers
    what is owed.
    """
    delta = adjustment_delta(variant, position, power)
    hooks = hooks_for(variant)
    chosen: list[Order] = []
    if delta > 0:
        builds = [(site, o) for site, options in legal.items() for o in options if isinstance(o, Build)]
        used_sites: set[int] = set()
        left = delta
        while left > 0:
            ranked = sorted(((score(o), site, o) for site, o in builds if site not in used_sites), key=lambda t: -t[0])
            for _, site, order in ranked:
                cost = hooks.builds_used(order)
                if not 0 < cost <= left:
                    continue
                if not check_submission(variant, position, power, [*chosen, order])[-1].accepted:
                    continue
                chosen.append(order)
                used_sites.add(site)
                left -= cost
                if on_chosen is not None:
                    on_chosen(order)
                break
            else:
                break
    elif delta < 0:
        removals = sorted(
            (o for options in legal.values() for o in options if isinstance(o, Disband)),
            key=score,
        )
        owed = -delta
        for removal in removals:
            if owed <= 0:
                break
            unit = position.units.get(variant.map.province_of(removal.loc))
            chosen.append(removal)
            owed -= hooks.unit_cost(unit.kind) if unit is not None else 1
    return chosen


class HoldBot:
    """Every unit holds, every dislodged unit disbands, builds are waived and removals left to the rules."""

    name = "hold"

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        kind = variant.calendar.kind(position.phase)
        legal = legal_orders(variant, position, power)
        out: list[Order] = []
        for options in legal.values():
            pick = (
                next((o for o in options if isinstance(o, Hold)), None)
                if kind is PhaseKind.MOVEMENT
                else next((o for o in options if isinstance(o, Disband)), None)
                if kind is PhaseKind.RETREATS
                else None
            )
            if pick is not None:
                out.append(pick)
        return out


class RandomBot:
    """A uniformly random legal order for every unit; in adjustments random sites and kinds, to the count."""

    name = "random"

    def orders(
        self, variant: Variant, position: Position, power: str, rng: random.Random, memory: Memory | None = None
    ) -> list[Order]:
        legal = legal_orders(variant, position, power)
        if variant.calendar.kind(position.phase) is PhaseKind.ADJUSTMENTS:
            return choose_adjustments(variant, position, power, legal, lambda o: rng.random())
        return [rng.choice(list(legal[loc])) for loc in sorted(legal) if legal[loc]]


def settle(variant: Variant) -> None:
    """Ready ``variant`` for bots in a long-running process (the worker, the benchmark), once per variant.

    Builds the per-map legal-order tables now (:func:`prepare`), then hands every object alive to the
    garbage collector's permanent generation (``gc.freeze``, after a full collection so no garbage is kept).
    Why: the tables are tens of thousands of objects that live as long as the process, and every full
    collection walked all of them again (18 to 67 ms on W3K with the search level's look-ahead in the heap,
    against a heuristic decision of 2 ms typical: one falling inside a decision multiplies its time).
    Frozen, they are left out of every later collection (1 to 4 ms then). Done once per variant copy (the store builds one per stored copy), so a worker freezes
    a bounded amount."""
    if variant.derived.get("bots.settled"):
        return
    prepare(variant)
    gc.collect()
    gc.freeze()
    variant.derived["bots.settled"] = True
