"""The scripted W3K season of the golden comparisons (issue 53): each power's orders for a phase, drawn from one
seed, so the same season is played again by any version of the code, the one before messages were values too.

Only names both that code and today's have are used here: the golden files were recorded by running the tests'
own scripts with the old code first on the path."""

from __future__ import annotations

import random

from dippouch.catalog import load_variant
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.notation import format_order
from dippouch.core.orders import Move, Order, Support
from dippouch.game import may_submit, position_from_data
from dippouch.store import GameStore
from dippouch.store import history as store_history

GARBLED = ["A bristle - lundy", "F nowhere H", "A cork S", "build army", "A x - y - z", "F lon C A"]
"""Lines no reader makes sense of: every kind of refusal the arrival check has."""


def season_orders(rng: random.Random, store: GameStore, game: str, phase: str | None) -> dict[str, str]:
    """Each power's text for the open phase: most of its legal orders, some another's, some impossible, some
    misspelt."""
    variant = load_variant("w3k")
    rec = store_history.phase_record(store, game, phase, open_ok=True, submissions=False)
    pos = position_from_data(variant, rec["position"])
    kind = variant.calendar.kind(pos.phase)
    legal = all_legal_orders(variant, pos)
    occupied = {i for i in range(len(variant.map.locations)) if variant.map.province_of(i) in pos.units}
    every = [o for p in legal.values() for os_ in p.values() for o in os_]
    out: dict[str, str] = {}
    for power, by_unit in legal.items():
        if not by_unit or not may_submit(variant, pos, power):
            continue
        chosen = {loc: _pick(rng, os_, occupied) for loc, os_ in by_unit.items() if os_}
        for move in [o for o in chosen.values() if isinstance(o, Move)]:
            # Another unit of the power supports the move where it can: attacks that dislodge.
            for loc, os_ in by_unit.items():
                backing = [o for o in os_ if isinstance(o, Support) and (o.target, o.dest) == (move.loc, move.dest)]
                if backing and not isinstance(chosen.get(loc), Move):
                    chosen[loc] = backing[0]
                    break
        lines = [format_order(variant, o, phase_kind=kind) for o in chosen.values()]
        if every and rng.random() < 0.6:
            lines.append(format_order(variant, rng.choice(every), phase_kind=kind))
        if lines and rng.random() < 0.5:
            lines.insert(0, rng.choice(lines))  # a second order for one unit: the first counts
        if rng.random() < 0.5:
            lines.append(rng.choice(GARBLED))
        rng.shuffle(lines)
        out[power] = "\n".join(lines)
    return out


def _pick(rng: random.Random, options: list[Order], occupied: set[int]) -> Order:
    """Attacks on occupied provinces, other moves and supports more often than their share, so units bounce,
    cut and dislodge."""
    attacks = [o for o in options if isinstance(o, Move) and o.dest in occupied]
    if attacks and rng.random() < 0.5:
        return rng.choice(attacks)
    moving = [o for o in options if isinstance(o, Move) or (isinstance(o, Support) and o.dest is not None)]
    return rng.choice(moving if moving and rng.random() < 0.8 else options)
