"""Whole games played by bots, phase by phase, with the figures the benchmark and the tests need.

Each power's orders are asked of its seat's bot, checked to be among the engine's legal orders (a bot that
sent anything else would be a bug: it is counted, never silently sent), adjudicated, and the game ends by
the variant's own rules (:func:`~dippouch.bots.engine.game_end`) or at a year limit.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from dippouch.bots.base import Bot
from dippouch.bots.engine import (
    Order,
    Outcome,
    PhaseKind,
    Position,
    Variant,
    adjudicate,
    all_legal_orders,
    game_end,
)
from dippouch.bots.memory import Memory, remember


@dataclass
class PlayedGame:
    """What one game came to."""

    seats: dict[str, str]
    """Power -> the level that played it."""
    centres: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    ending: str = "year limit"
    years: int = 0
    phases: int = 0
    illegal: int = 0
    """Orders a bot sent that were not among the legal orders, plus results the adjudicator judged illegal."""
    move_seconds: dict[str, list[float]] = field(default_factory=dict)
    """Level -> seconds each of its movement-phase decisions took (one power, one phase)."""
    final: Position | None = None
    yearly: list[tuple[int, dict[str, int]]] = field(default_factory=list)
    """Each power's centres at the end of every game year played, and where the game ended by its rules: how a
    game went, for a trace."""


def play_game(
    variant: Variant,
    seats: Mapping[str, Bot],
    seed: int,
    *,
    max_years: int = 10,
    clock: Callable[[], float] = time.perf_counter,
) -> PlayedGame:
    """Play from the variant's start until it ends by its rules or ``max_years`` game years have been played
    (a game year is a turn of the calendar: Hundred's five-year turns count one each)."""
    rng = random.Random(seed)
    record = PlayedGame({p: seats[p].name for p in variant.power_names})
    position = variant.start
    first_year = position.phase.year
    cycle = max(1, variant.calendar.cycle_years)
    tick = clock
    memories: dict[str, Memory] = {}  # each power's failed moves, for the levels that learn from them
    while position.phase.year < first_year + max_years * cycle:
        kind = variant.calendar.kind(position.phase)
        legal = all_legal_orders(variant, position)
        orders: dict[str, list[Order]] = {}
        for power in variant.power_names:
            if not legal.get(power):
                continue
            bot = seats[power]
            started = tick()
            chosen = bot.orders(variant, position, power, random.Random(rng.getrandbits(64)), memories.get(power))
            if kind is PhaseKind.MOVEMENT:
                record.move_seconds.setdefault(bot.name, []).append(tick() - started)
            allowed = {o for options in legal[power].values() for o in options}
            record.illegal += sum(1 for o in chosen if o not in allowed)
            orders[power] = [o for o in chosen if o in allowed]
        resolution = adjudicate(variant, position, orders, rng=random.Random(rng.getrandbits(64)))
        if kind is PhaseKind.MOVEMENT:
            memories = {p: remember(variant, memories.get(p), p, resolution.results) for p in variant.power_names}
        record.illegal += sum(1 for r in resolution.results if r.result is Outcome.ILLEGAL and not r.automatic)
        if resolution.next.phase.year != position.phase.year:
            record.yearly.append((position.phase.year, _centres(variant, resolution.next)))
        position = resolution.next
        record.phases += 1
        ending = game_end(variant, position)
        if ending is not None:
            record.ending = ending.kind
            if ending.kind == "victory":
                record.winner = ending.powers[0]
            if not record.yearly or record.yearly[-1][0] != position.phase.year:
                record.yearly.append((position.phase.year, _centres(variant, position)))
            break
    record.years = (position.phase.year - first_year) // cycle
    record.centres = _centres(variant, position)
    record.final = position
    return record


def _centres(variant: Variant, position: Position) -> dict[str, int]:
    return {p: len(position.centres_of(p)) for p in variant.power_names}
