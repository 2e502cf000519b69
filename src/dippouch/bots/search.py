"""The ``search`` level: the heuristic's order sets, weighed by adjudicating them against sampled replies.

In a movement phase it makes candidate order sets for its power (the heuristic's own, and variations with
its values jittered), samples replies for every other power the same way (each from that power's own point
of view), adjudicates every candidate against every reply with the real adjudicator, scores the position
each leads to, and plays the candidate with the best mean score. Replies are taken one at a time for all
candidates, so that when the time budget runs out every candidate has been weighed against the same
replies. Retreats and adjustments are the heuristic's (there is little to search there).

The score of a position for a power: centres it owns or stands on, minus centres it owns that another
power stands on, plus the spread value of the provinces its units reach, minus its dislodged units.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence

from dippouch.bots.engine import (
    Order,
    PhaseKind,
    Position,
    Variant,
    adjudicate,
    all_legal_orders,
)
from dippouch.bots.heuristic import HeuristicBot, Values

CENTRE = 10.0
LOST = 6.0
DISLODGED = 5.0


class SearchBot:
    """Sampled look-ahead over the heuristic's candidates within ``budget`` seconds a movement decision."""

    name = "search"

    def __init__(self, budget: float = 0.5, candidates: int = 10, replies: int = 6, noise: float = 0.4) -> None:
        self.budget = budget
        self.candidates = candidates
        self.replies = replies
        self.plain = HeuristicBot()
        self.noisy = HeuristicBot(noise=noise)
        self.last_evaluations = 0
        """Adjudications the last decision made (for the benchmark)."""

    def orders(self, variant: Variant, position: Position, power: str, rng: random.Random) -> list[Order]:
        started = time.perf_counter()
        deadline = started + self.budget
        if variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT:
            return self.plain.orders(variant, position, power, rng)
        legal = all_legal_orders(variant, position)
        mine = legal.get(power)
        if not mine:
            return []
        own = self.plain.orders_from(variant, position, power, mine, rng)
        cands: list[list[Order]] = [own]
        seen = {frozenset(own)}
        for _ in range(self.candidates * 3):
            if len(cands) >= self.candidates or time.perf_counter() > started + self.budget * 0.3:
                break
            c = self.noisy.orders_from(variant, position, power, mine, rng)
            if frozenset(c) not in seen:
                seen.add(frozenset(c))
                cands.append(c)
        if len(cands) == 1:
            return own
        others = [p for p in variant.power_names if p != power and legal.get(p)]
        values = Values(variant, position, power)
        totals = [0.0] * len(cands)
        self.last_evaluations = 0
        for r in range(self.replies):
            if time.perf_counter() > deadline:
                break
            bot = self.plain if r == 0 else self.noisy
            reply = {p: bot.orders_from(variant, position, p, legal[p], rng) for p in others}
            scores = []
            for c in cands:
                if time.perf_counter() > deadline:
                    break
                after = adjudicate(variant, position, {**reply, power: c}).next
                scores.append(_score(after, power, values))
                self.last_evaluations += 1
            if len(scores) < len(cands):
                break  # a reply not weighed against every candidate would favour some
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
        best = max(range(len(cands)), key=lambda i: (totals[i], i == 0))
        return cands[best]


def _score(after: Position, power: str, values: Values) -> float:
    gmap = values.gmap
    centres: Mapping[int, str] = after.centres
    score = 0.0
    held: set[int] = set()
    for prov, unit in after.units.items():
        if unit.power == power:
            score += values.of(unit.kind, prov)
            if gmap.provinces[prov].supply_centre:
                held.add(prov)
        elif centres.get(prov) == power:
            score -= LOST
    owned = {p for p, o in centres.items() if o == power}
    score += CENTRE * len(owned | held)
    dislodged: Sequence[object] = [d for d in after.dislodged.values() if d.unit.power == power]
    return score - DISLODGED * len(dislodged)
