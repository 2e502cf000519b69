"""Busy sample phases for pictures, tests and the benchmark: a short game of random legal orders.

A map must be looked at with plenty on it (moves, supports, convoys, a failed and an illegal order, a
dislodged unit, builds and removals), and the README's pictures, the render tests and the benchmark all
want such phases without a database. :func:`sample_phases` plays one, seeded, so it is the same every time.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.jsonio import result_to_json
from dippouch.core.legal_orders import legal_orders
from dippouch.core.notation import format_order
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Support
from dippouch.core.position import Position
from dippouch.core.variant import Variant

__all__ = ["SamplePhase", "result_dicts", "sample_phases"]


@dataclass(frozen=True, slots=True)
class SamplePhase:
    position: Position
    orders: Mapping[str, Sequence[str]]
    """Canonical order texts per power, as the store keeps them."""
    results: Sequence[Mapping[str, Any]]
    """Result dicts in the store's shape."""
    after: Position


def result_dicts(variant: Variant, kind: PhaseKind, results: Sequence[Any]) -> list[dict[str, Any]]:
    """Adjudicator results in the shape ``dippouch.store.history.phase_record`` gives them."""
    return [result_to_json(variant, r, kind) for r in results]


def _weight(o: Order) -> float:
    if isinstance(o, Move):
        return 6.0
    if isinstance(o, Support):
        return 4.0 if o.dest is not None else 1.5
    if isinstance(o, Convoy):
        return 8.0
    if isinstance(o, Hold):
        return 0.6
    return 1.0


def _pick(rng: random.Random, options: Sequence[Order]) -> Order:
    return rng.choices(list(options), weights=[_weight(o) for o in options])[0]


def sample_phases(variant: Variant, *, seed: int = 1, phases: int = 12, illegal: bool = True) -> list[SamplePhase]:
    """``phases`` phases of a seeded random game from the variant's start, each with orders for every
    unit. Supports and convoys are chosen often, so the pictures are busy; with ``illegal``, each movement
    phase also carries one order the adjudicator refuses (a move to a province far away)."""
    rng = random.Random(seed)
    pos = variant.start
    out: list[SamplePhase] = []
    gmap = variant.map
    for _ in range(phases):
        kind = variant.calendar.kind(pos.phase)
        orders: dict[str, list[Order]] = {}
        options: dict[int, list[Order]] = {}
        for power in variant.power_names:
            legal = legal_orders(variant, pos, power)
            for loc, opts in legal.items():
                options[gmap.province_of(loc) if kind != PhaseKind.ADJUSTMENTS else loc] = opts
            chosen: list[Order] = []
            if kind == PhaseKind.ADJUSTMENTS:
                sites = list(legal.items())
                rng.shuffle(sites)
                for _loc, opts in sites:
                    builds = [o for o in opts if isinstance(o, Build | Disband)]
                    if builds:
                        chosen.append(rng.choice(builds))
            else:
                for _loc, opts in sorted(legal.items()):
                    if opts:
                        chosen.append(_pick(rng, opts))
            orders[power] = chosen
        if kind == PhaseKind.MOVEMENT:
            _coordinate(rng, gmap, orders, options)
        if illegal and kind == PhaseKind.MOVEMENT:
            # One order that cannot be right, as players get wrong: an army told to go two provinces away.
            for power in variant.power_names:
                for u in sorted(
                    (u for u in pos.units.values() if u.power == power and u.kind == "A"), key=lambda u: u.loc
                ):
                    here = gmap.province_of(u.loc)
                    near = gmap.army_adj[here]
                    beyond = sorted({q for p in near for q in gmap.army_adj[p]} - near - {here})
                    if not beyond:
                        continue
                    orders[power] = [Move("A", u.loc, rng.choice(beyond))] + [
                        o for o in orders[power] if o.unit_loc is None or gmap.province_of(o.unit_loc) != here
                    ]
                    break
                else:
                    continue
                break
        res = adjudicate(variant, pos, orders, rng=random.Random(seed))
        texts = {p: [format_order(variant, o, phase_kind=kind) for o in os] for p, os in orders.items() if os}
        out.append(SamplePhase(pos, texts, result_dicts(variant, kind, res.results), res.next))
        pos = res.next
    return out


def _coordinate(
    rng: random.Random, gmap: Any, orders: dict[str, list[Order]], options: Mapping[int, list[Order]]
) -> None:
    """Most supports and convoys made to match: the supported unit is given the move supported (or told to
    hold), as allies would agree, so the sample shows supports given and cut rather than mostly void ones."""
    by_prov: dict[int, tuple[str, int]] = {}
    for power, os in orders.items():
        for i, o in enumerate(os):
            if o.unit_loc is not None:
                by_prov[gmap.province_of(o.unit_loc)] = (power, i)
    anchored: set[int] = set()
    for power in list(orders):
        for o in list(orders[power]):
            if not isinstance(o, Support | Convoy) or rng.random() > 0.8 or o.unit_loc is None:
                continue
            tp = gmap.province_of(o.target)
            if tp in anchored or gmap.province_of(o.unit_loc) in anchored or tp not in by_prov:
                continue
            dest = None if o.dest is None else gmap.province_of(o.dest)
            fits = [
                x
                for x in options.get(tp, [])
                if (
                    isinstance(x, Move)
                    and dest is not None
                    and gmap.province_of(x.dest) == dest
                    and x.via_convoy == isinstance(o, Convoy)
                )
                or (dest is None and isinstance(x, Hold))
            ]
            if not fits:
                continue
            who, i = by_prov[tp]
            orders[who][i] = fits[0]
            anchored |= {tp, gmap.province_of(o.unit_loc)}
