"""Bots against each other on every variant: mean centres, solo rate, time per move, illegal orders, a ladder.

Per variant, fixed-seed games between pairs of levels with the seats balanced: in game ``g`` the power at
place ``i`` in the variant's list plays the stronger level when ``i + g`` is even, so over an even number
of games each level plays each power equally often. Pairings: ``random`` v ``hold``, ``heuristic`` v
``random``, ``search`` v ``heuristic``. A game ends by the variant's rules or after ``--years`` game years
(a turn of the calendar: Hundred's ten-year cycle of two turns counts one).

Printed per variant and level: mean centres a power of that level ends with, solo rate (games a power of
that level won alone), CPU time per movement decision of one power (mean, 95th percentile and worst), illegal orders (orders not
among the engine's legal orders plus results the adjudicator judged illegal; the goal is none). Then the
goals: heuristic's centres over random's (goal 3x), search's share of games won against heuristic (more
centres per power than heuristic's powers in that game; goal 60%), and a W3K power's decision times
(heuristic under 100 ms, search under 2 s). Finally a ladder: Elo ratings fitted to every pairwise result
between powers of different levels within a game (more centres wins, equal draws), all variants together,
anchored at random = 1000; ``--markdown`` prints it as the table in docs/bots.md.

    .venv/bin/python benchmarks/bench_bots.py                      # the default run, a few minutes
    .venv/bin/python benchmarks/bench_bots.py --games 2 --years 2 --variants standard --budget 0.05
    .venv/bin/python benchmarks/bench_bots.py --variants w3k --save w3k.json   # one variant a process, then
    .venv/bin/python benchmarks/bench_bots.py --ladder-from *.json --markdown  # the ladder of them all
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from dippouch.bots import make_bot
from dippouch.bots.base import settle
from dippouch.bots.play import PlayedGame, play_game
from dippouch.catalog import load_variant

VARIANTS = ("standard", "hundred3", "hundred", "1897", "1000ad", "w3k")
PAIRINGS = (("random", "hold"), ("heuristic", "random"), ("search", "heuristic"))
CLOCK = time.process_time
"""Decisions are timed, and the search level's budget measured, in CPU time of this process: the figures
then hold on a busy machine (the shared 2-core machine runs eight people's work at once)."""


@dataclass
class LevelFigures:
    centres: list[float] = field(default_factory=list)
    solos: int = 0
    games: int = 0
    seconds: list[float] = field(default_factory=list)


@dataclass
class VariantFigures:
    name: str
    levels: dict[str, LevelFigures] = field(default_factory=lambda: defaultdict(LevelFigures))
    illegal: int = 0
    games: int = 0
    search_wins: int = 0
    search_games: int = 0
    pair_centres: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    """(level, opponent level) -> mean centres per power of ``level`` in each game of that pairing."""


def seats_for(powers: tuple[str, ...], strong: str, weak: str, game: int) -> dict[str, str]:
    return {p: strong if (i + game) % 2 == 0 else weak for i, p in enumerate(powers)}


def run_variant(
    name: str, games: int, years: int, budget: float, seed: int, results: list[tuple[str, str, float]]
) -> VariantFigures:
    variant = load_variant(name)
    settle(variant)  # as the worker does: the tables built, and frozen out of the collector's way
    figures = VariantFigures(name)
    for strong, weak in PAIRINGS:
        for g in range(games):
            levels = seats_for(variant.power_names, strong, weak, g)
            bots = {level: make_bot(level, budget=budget, clock=CLOCK) for level in set(levels.values())}
            seats = {p: bots[lv] for p, lv in levels.items()}
            record = play_game(variant, seats, seed + g, max_years=years, clock=CLOCK)
            _count(figures, record, levels, strong, weak, results)
    return figures


def _count(
    figures: VariantFigures,
    record: PlayedGame,
    levels: dict[str, str],
    strong: str,
    weak: str,
    results: list[tuple[str, str, float]],
) -> None:
    figures.games += 1
    figures.illegal += record.illegal
    per_level: dict[str, list[int]] = defaultdict(list)
    for power, level in levels.items():
        per_level[level].append(record.centres[power])
    for level, counts in per_level.items():
        f = figures.levels[level]
        f.centres.extend(counts)
        f.games += 1
        f.solos += record.winner is not None and levels[record.winner] == level
        f.seconds.extend(record.move_seconds.get(level, []))
    means = {level: statistics.fmean(c) for level, c in per_level.items()}
    figures.pair_centres[(strong, weak)].append(means.get(strong, 0.0))
    figures.pair_centres[(weak, strong)].append(means.get(weak, 0.0))
    if strong == "search":
        figures.search_games += 1
        figures.search_wins += means.get("search", 0.0) > means.get("heuristic", 0.0)
    powers = list(levels)
    for i, a in enumerate(powers):
        for b in powers[i + 1 :]:
            if levels[a] == levels[b]:
                continue
            ca, cb = record.centres[a], record.centres[b]
            results.append((levels[a], levels[b], 1.0 if ca > cb else 0.0 if ca < cb else 0.5))


def elo(results: list[tuple[str, str, float]], anchor: str = "random", rounds: int = 500) -> dict[str, float]:
    """Elo ratings that best explain the pairwise scores: the Bradley-Terry model fitted by its MM iteration
    (Hunter 2004; a draw counts half a win to each side), shown on Elo's scale (400 points = odds of 10 to 1).
    One virtual draw between every two levels that met (a common prior) keeps a level that never lost finite."""
    levels = sorted({x for a, b, _ in results for x in (a, b)})
    met = {tuple(sorted((a, b))) for a, b, _ in results}
    results = [*results, *((a, b, 0.5) for a, b in met)]
    wins: dict[str, float] = dict.fromkeys(levels, 0.0)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for a, b, score in results:
        wins[a] += score
        wins[b] += 1.0 - score
        games[(a, b)] += 1
        games[(b, a)] += 1
    gamma = dict.fromkeys(levels, 1.0)
    for _ in range(rounds):
        new = {}
        for lv in levels:
            denominator = sum(n / (gamma[lv] + gamma[other]) for (one, other), n in games.items() if one == lv)
            new[lv] = wins[lv] / denominator if denominator else gamma[lv]
        norm = new.get(anchor, 1.0) or 1.0
        gamma = {lv: g / norm for lv, g in new.items()}
    return {lv: round(1000 + 400 * math.log10(max(g, 1e-12))) for lv, g in gamma.items()}


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank): 1 decision in 20 took longer."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{1000 * statistics.fmean(values):.1f} / {1000 * p95(values):.1f} / {1000 * max(values):.0f} ms"


def report(figures: VariantFigures, out: list[str]) -> None:
    out.append(f"\n== {figures.name}: {figures.games} games, illegal orders: {figures.illegal}")
    out.append(f"  {'level':<10} {'mean centres':>12} {'solo rate':>10}   CPU time per move (mean / p95 / worst)")
    for level in ("hold", "random", "heuristic", "search"):
        f = figures.levels.get(level)
        if f is None:
            continue
        solo = f"{f.solos}/{f.games}"
        out.append(f"  {level:<10} {statistics.fmean(f.centres):>12.2f} {solo:>10}   {_ms(f.seconds)}")
    h = figures.pair_centres.get(("heuristic", "random"), [])
    rnd = figures.pair_centres.get(("random", "heuristic"), [])
    if h and rnd:
        ratio = statistics.fmean(h) / max(1e-9, statistics.fmean(rnd))
        out.append(f"  heuristic v random: {ratio:.2f}x the centres (goal 3x) {'MET' if ratio >= 3 else 'NOT MET'}")
    if figures.search_games:
        share = figures.search_wins / figures.search_games
        out.append(
            f"  search v heuristic: more centres in {figures.search_wins}/{figures.search_games} games "
            f"({100 * share:.0f}%; goal 60%) {'MET' if share >= 0.6 else 'NOT MET'}"
        )
    if figures.name == "w3k":
        for level, goal in (("heuristic", 0.1), ("search", 2.0)):
            f = figures.levels.get(level)
            if f is not None and f.seconds:
                worst = max(f.seconds)
                out.append(
                    f"  W3K {level} move: worst {1000 * worst:.0f} ms, p95 {1000 * p95(f.seconds):.1f} ms "
                    f"over {len(f.seconds)} decisions (goal < {1000 * goal:.0f} ms) "
                    f"{'MET' if worst < goal else 'NOT MET'}"
                )


def ladder_lines(ratings: dict[str, float], results: list[tuple[str, str, float]], markdown: bool) -> list[str]:
    games: dict[str, int] = defaultdict(int)
    for a, b, _ in results:
        games[a] += 1
        games[b] += 1
    ordered = sorted(ratings, key=lambda lv: -ratings[lv])
    if markdown:
        lines = ["| level | Elo | pairwise results |", "| --- | ---: | ---: |"]
        lines += [f"| `{lv}` | {ratings[lv]:.0f} | {games[lv]} |" for lv in ordered]
        return lines
    return [f"  {lv:<10} {ratings[lv]:>6.0f}   ({games[lv]} pairwise results)" for lv in ordered]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="games per pairing and variant (even balances seats)")
    ap.add_argument("--years", type=int, default=8, help="game years before a game is stopped")
    ap.add_argument("--budget", type=float, default=0.25, help="search level's CPU seconds per movement decision")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated variants")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--markdown", action="store_true", help="print the ladder as a Markdown table")
    ap.add_argument("--save", metavar="FILE", help="also write the pairwise results to FILE (JSON)")
    ap.add_argument(
        "--ladder-from", metavar="FILE", nargs="+", help="play nothing: the ladder of results saved by --save"
    )
    args = ap.parse_args(argv)
    if args.ladder_from:
        saved: list[tuple[str, str, float]] = []
        for path in args.ladder_from:
            saved += [(str(a), str(b), float(x)) for a, b, x in json.loads(Path(path).read_text())["results"]]
        print(f"== ladder (Elo, random = 1000; {len(saved)} pairwise results from {len(args.ladder_from)} file(s))")
        print("\n".join(ladder_lines(elo(saved), saved, args.markdown)))
        return 0
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in names if v not in VARIANTS]
    if unknown or args.games < 1 or args.years < 1 or args.budget <= 0:
        what = f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}" if unknown else ""
        ap.error(what or "--games and --years must be at least 1 and --budget above 0")
    results: list[tuple[str, str, float]] = []
    started = time.perf_counter()
    total_illegal = 0
    for name in names:
        out: list[str] = []
        figures = run_variant(name, args.games, args.years, args.budget, args.seed, results)
        total_illegal += figures.illegal
        report(figures, out)
        print("\n".join(out), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps({"variants": names, "results": results}))
    ratings = elo(results)
    print(f"\n== ladder (Elo, random = 1000; {len(results)} pairwise results, all variants)")
    print("\n".join(ladder_lines(ratings, results, args.markdown)))
    print(f"\nillegal orders in all games: {total_illegal}; {time.perf_counter() - started:.0f} s in all")
    return 0 if total_illegal == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
