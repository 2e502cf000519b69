"""The coach's cost (issue 58): CPU seconds to analyse one movement phase of a standard game (the search bot's
orders for every power, and what they and the played orders expected), at the worker's budget and others, over
games of 1901-1910 played by the heuristic bot; with the turning points each game gave.

    .venv/bin/python benchmarks/bench_coach.py [GAMES] [BUDGETS]   (default 2 games; budgets 0.05,0.25)

CPU seconds are the process's own (time.process_time), so a busy machine's wall time does not count; the bot's
budget is measured in CPU seconds too (play.coach gives it that clock).
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from dippouch.bots.heuristic import HeuristicBot
from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import all_legal_orders
from dippouch.core.notation import format_order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.play.coach import BUDGET, analyse_phase, turning_points


def game(v: Variant, seed: int) -> list[tuple[Position, dict[str, list[str]]]]:
    """The movement phases of a game of 1901-1910 the heuristic bot played, each with the orders played."""
    rng = random.Random(seed)
    bot = HeuristicBot(noise=0.3)
    pos = v.start
    out: list[tuple[Position, dict[str, list[str]]]] = []
    while pos.phase.year <= 1910:
        legal = all_legal_orders(v, pos)
        orders = {p: bot.orders(v, pos, p, random.Random(rng.getrandbits(64))) for p in v.power_names if legal.get(p)}
        if v.calendar.kind(pos.phase) is PhaseKind.MOVEMENT:
            out.append((pos, {p: [format_order(v, o) for o in os_] for p, os_ in orders.items()}))
        pos = adjudicate(v, pos, orders, rng=random.Random(rng.getrandbits(64))).next
    return out


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    budgets = [float(b) for b in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0.05, BUDGET]
    v = load_variant("standard")
    played = [game(v, seed) for seed in range(1, games + 1)]
    phases = sum(len(g) for g in played)
    print(f"{games} games of 1901-1910, {phases} movement phases")
    for budget in budgets:
        seconds: list[float] = []
        turns = []
        wall = time.perf_counter()
        for g, moves in enumerate(played):
            looks = []
            for i, (pos, orders) in enumerate(moves):
                look = analyse_phase(v, pos, orders, phase_id=i, budget=budget, salt=str(g))
                seconds.append(look.seconds)
                looks.append(look)
            turns.append(len(turning_points(looks)))
        wall = time.perf_counter() - wall
        print(
            f"budget {budget:g} s a power: {statistics.mean(seconds):.2f} s CPU a phase (median "
            f"{statistics.median(seconds):.2f}, max {max(seconds):.2f}), {sum(seconds) / games:.1f} s CPU a game of "
            f"{phases / games:.0f} phases on average ({wall:.1f} s wall in all); turning points a game: {turns}"
        )


if __name__ == "__main__":
    main()
