"""Random legal games on the standard map, played by dippouch and by MILA's ``diplomacy`` 1.1.2, timed.

Each engine plays its own games from the same seeds with the same policy: every unit that needs an order
gets one chosen uniformly from that engine's own list of legal orders; in adjustments a power builds on (or
removes from) as many randomly chosen places as it is entitled to. The games differ once the engines' lists
differ, so the figures compare engines on statistically alike games, not on identical ones.

Three timers per engine, reported as phases per second:

(a) adjudication alone: only the call that resolves a phase whose orders are already chosen and submitted
    (dippouch: ``adjudicate``; MILA: ``Game.process()``, and separately its inner ``Game._process()``, which
    leaves out MILA's history bookkeeping; the ratio uses the faster of the two, to be fair to MILA);
(b) legal-order generation: dippouch ``legal_orders`` for every power; MILA ``get_all_possible_orders()``
    plus ``get_orderable_locations()`` (what a player needs to know which lists are theirs);
(c) both: (a) + (b).

Neither engine's map set-up is timed: MILA builds its map (and loads its convoy-path cache) when a ``Game`` is
made, dippouch compiles the variant and, unless ``--lazy-tables``, builds its per-map legal-order tables
(``legal_orders.prepare``: each unit's hold, moves and supports of its neighbours, facts of the map alone). Caches
that depend on positions (dippouch's convoy caches, keyed by where fleets stand) start empty in every run.

A fourth line, the whole game loop (choice of orders and MILA's order submission included), is informative.

Run through ``benchmarks/run``, which sets up a venv with both packages.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

END_YEAR = 1920
#: CPU time of this process by default: the figures then hold on a busy machine (wall time with --wall).
CLOCK = time.process_time
_VARIANTS: dict[str, Any] = {}
#: Build dippouch's per-map legal-order tables (``legal_orders.prepare``) when the variant is loaded, before any timer,
#: as MILA builds its map when a ``Game`` is made, before its timers. ``--lazy-tables`` turns it off.
PREPARE = True


@dataclass
class Timings:
    engine: str
    games: int = 0
    phases: int = 0
    adjudication: float = 0.0
    adjudication_inner: float | None = None
    legal: float = 0.0
    loop: float = 0.0
    phase_kinds: dict[str, int] = field(default_factory=dict)
    legal_count: int = 0
    """Legal orders listed in movement phases, to show both engines list a like amount."""
    adjudication_by_kind: dict[str, float] = field(default_factory=dict)

    def count(self, kind: str, adjudication: float) -> None:
        self.phases += 1
        self.adjudication += adjudication
        self.phase_kinds[kind] = self.phase_kinds.get(kind, 0) + 1
        self.adjudication_by_kind[kind] = self.adjudication_by_kind.get(kind, 0.0) + adjudication

    @property
    def best_adjudication(self) -> float:
        if self.adjudication_inner is not None:
            return min(self.adjudication, self.adjudication_inner)
        return self.adjudication


# --- dippouch --------------------------------------------------------------------------------------------


def play_dippouch(
    seeds: list[int], end_year: int, t: Timings | None = None, record: list[tuple[Any, Any]] | None = None
) -> Timings:
    from dippouch.catalog import load_variant
    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders, prepare
    from dippouch.core.orders import Build, Order, Waive

    variant = _VARIANTS.get("standard")
    if variant is None:
        variant = _VARIANTS["standard"] = load_variant("standard")
        if PREPARE:
            prepare(variant)
    powers = variant.power_names
    victory = int(variant.victory.get("centres", 18))
    t = t or Timings("dippouch")
    clock = CLOCK
    for seed in seeds:
        rng = random.Random(seed)
        position = variant.start
        t.games += 1
        loop0 = clock()
        while position.phase.year <= end_year:
            kind = variant.calendar.kind(position.phase)
            t0 = clock()
            legal = {p: legal_orders(variant, position, p) for p in powers}
            t.legal += clock() - t0
            if kind == PhaseKind.MOVEMENT:
                t.legal_count += sum(len(x) for options in legal.values() for x in options.values())
            orders: dict[str, list[Order]] = {}
            for p in powers:
                options = legal[p]
                if not options:
                    continue
                if kind == PhaseKind.ADJUSTMENTS:
                    orders[p] = _dippouch_adjustments(variant, position, p, options, rng, Build, Waive)
                else:
                    orders[p] = [rng.choice(options[loc]) for loc in sorted(options) if options[loc]]
            if record is not None:
                record.append((position, orders))
            t0 = clock()
            resolution = adjudicate(variant, position, orders)
            t.count(kind.value[0].upper(), clock() - t0)
            position = resolution.next
            counts: dict[str, int] = {}
            for owner in position.centres.values():
                counts[owner] = counts.get(owner, 0) + 1
            if counts and max(counts.values()) >= victory:
                break
        t.loop += clock() - loop0
    return t


def _dippouch_adjustments(
    variant: Any, position: Any, power: str, options: dict[int, list[Any]], rng: random.Random, build: Any, waive: Any
) -> list[Any]:
    """Build on, or remove from, as many random places as the power is entitled to."""
    need = len(position.centres_of(power)) - len(position.units_of(power))
    places = sorted(options)
    rng.shuffle(places)
    chosen: list[Any] = []
    if need > 0:
        for loc in places[:need]:
            builds = [o for o in options[loc] if isinstance(o, (build, waive))]
            if builds:
                chosen.append(rng.choice(builds))
    elif need < 0:
        for loc in places[:-need]:
            if options[loc]:
                chosen.append(rng.choice(options[loc]))
    return chosen


def profile_dippouch(seeds: list[int], end_year: int) -> None:
    """cProfile adjudication and legal-order generation separately, on the phases of recorded games."""
    import cProfile
    import pstats

    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.legal_orders import legal_orders

    recorded: list[tuple[Any, Any]] = []
    play_dippouch(seeds, end_year, record=recorded)
    variant = _VARIANTS["standard"]
    powers = variant.power_names

    def adjudicate_all() -> None:
        for position, orders in recorded:
            adjudicate(variant, position, orders)

    def legal_all() -> None:
        for position, _ in recorded:
            for p in powers:
                legal_orders(variant, position, p)

    for label, fn in (("adjudication", adjudicate_all), ("legal-order generation", legal_all)):
        prof = cProfile.Profile()
        prof.runcall(fn)
        stats = pstats.Stats(prof)
        total = stats.total_tt  # type: ignore[attr-defined]
        print(f"== {label}: {len(recorded)} phases, {total:.3f} s under the profiler; functions by own time")
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
        for (filename, line, name), (_cc, ncalls, tottime, cumtime, _callers) in rows[:15]:
            where = filename.split("/src/")[-1] if "/src/" in filename else filename
            print(f"  {tottime / total:6.1%} own {cumtime / total:6.1%} cum {ncalls:>8} calls  {name} ({where}:{line})")


# --- MILA ------------------------------------------------------------------------------------------------


def play_mila(seeds: list[int], end_year: int, t: Timings | None = None) -> Timings:
    from diplomacy import Game

    t = t or Timings("MILA diplomacy", adjudication_inner=0.0)
    clock = CLOCK
    inner = Game._process
    spent = [0.0]

    def timed_inner(self: Any) -> Any:
        t0 = clock()
        out = inner(self)
        spent[0] += clock() - t0
        return out

    # Game has __slots__, so the inner resolution step is timed by wrapping the class's method for this run.
    Game._process = timed_inner
    try:
        for seed in seeds:
            _play_one_mila(Game, seed, end_year, t, clock)
    finally:
        Game._process = inner
    t.adjudication_inner = (t.adjudication_inner or 0.0) + spent[0]
    return t


def _play_one_mila(game_class: Any, seed: int, end_year: int, t: Timings, clock: Callable[[], float]) -> None:
    rng = random.Random(seed)
    game = game_class()
    t.games += 1
    loop0 = clock()
    while not game.is_game_done and int(game.get_current_phase()[1:-1]) <= end_year:
        phase = game.get_current_phase()
        kind = phase[-1]
        t0 = clock()
        possible = game.get_all_possible_orders()
        orderable = game.get_orderable_locations()
        t.legal += clock() - t0
        if kind == "M":
            t.legal_count += sum(len(possible[loc]) for locs in orderable.values() for loc in locs)
        for power_name in sorted(orderable):
            locs = orderable[power_name]
            if not locs:
                continue
            if kind == "A":
                orders = _mila_adjustments(game, power_name, locs, possible, rng)
            else:
                orders = [rng.choice(sorted(possible[loc])) for loc in locs if possible[loc]]
            game.set_orders(power_name, orders)
        t0 = clock()
        game.process()
        t.count(kind, clock() - t0)
    t.loop += clock() - loop0


def _mila_adjustments(
    game: Any, power_name: str, locs: list[str], possible: dict[str, list[str]], rng: Any
) -> list[str]:
    power = game.get_power(power_name)
    need = len(power.centers) - len(power.units)
    places = sorted(locs)
    rng.shuffle(places)
    chosen: list[str] = []
    if need > 0:
        for loc in places[:need]:
            if possible[loc]:
                chosen.append(rng.choice(sorted(possible[loc])))
    elif need < 0:
        for loc in places[:-need]:
            if possible[loc]:
                chosen.append(rng.choice(sorted(possible[loc])))
    return chosen


# --- report ----------------------------------------------------------------------------------------------


def _rate(phases: int, seconds: float) -> float:
    return phases / seconds if seconds > 0 else float("inf")


def report(ours: Timings | None, mila: Timings | None) -> None:
    rows = [t for t in (ours, mila) if t is not None]
    for t in rows:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(t.phase_kinds.items()))
        per_m = t.legal_count / max(1, t.phase_kinds.get("M", 0))
        print(
            f"{t.engine}: {t.games} games, {t.phases} phases ({kinds}), whole loop {t.loop:.2f} s, "
            f"{per_m:.0f} legal orders per movement phase"
        )
        by_kind = ", ".join(f"{k} {_rate(n, t.adjudication_by_kind[k]):,.0f}" for k, n in sorted(t.phase_kinds.items()))
        how = " (process())" if t.adjudication_inner is not None else ""
        print(f"  adjudication{how} phases/s by kind (A adjustments, M movement, R retreats): {by_kind}")
    if mila is not None and mila.adjudication_inner is not None:
        print(
            f"MILA adjudication: process() {_rate(mila.phases, mila.adjudication):,.0f} phases/s, "
            f"_process() only {_rate(mila.phases, mila.adjudication_inner):,.0f} phases/s (the faster is used)"
        )
    header = f"{'':32}" + "".join(f"{t.engine:>18}" for t in rows) + ("   ratio" if len(rows) == 2 else "")
    print(header)
    lines: list[tuple[str, Callable[[Any], float]]] = [
        ("(a) adjudication", lambda t: _rate(t.phases, t.best_adjudication)),
        ("(b) legal-order generation", lambda t: _rate(t.phases, t.legal)),
        ("(c) both", lambda t: _rate(t.phases, t.best_adjudication + t.legal)),
        ("whole game loop (informative)", lambda t: _rate(t.phases, t.loop)),
    ]
    for label, fn in lines:
        values = [fn(t) for t in rows]
        text = f"{label:32}" + "".join(f"{v:>12,.0f} ph/s" for v in values)
        if len(values) == 2:
            text += f"  {values[0] / values[1]:6.1f}x"
        print(text)


LINES = ("(a) adjudication", "(b) legal-order generation", "(c) both")


def ratios(ours: Timings, mila: Timings) -> dict[str, float]:
    """The three ratios of one run, keyed by their line's label."""

    def rate_a(t: Timings) -> float:
        return _rate(t.phases, t.best_adjudication)

    def rate_b(t: Timings) -> float:
        return _rate(t.phases, t.legal)

    def rate_c(t: Timings) -> float:
        return _rate(t.phases, t.best_adjudication + t.legal)

    return {label: fn(ours) / fn(mila) for label, fn in zip(LINES, (rate_a, rate_b, rate_c), strict=True)}


def repeat(argv: list[str], times: int) -> int:
    """Run the benchmark ``times`` times, each in a fresh interpreter, and sum up the spread of the ratios.

    The host these figures come from is shared: one run's figures can move by a third with the load of its
    neighbours. Each run starts cold (no caches, like a coordinator's process), and the summary gives the
    median and the range rather than the best run.
    """
    import json
    import subprocess

    runs: list[dict[str, float]] = []
    for i in range(times):
        out = subprocess.run(
            [sys.executable, __file__, *argv, "--ratios-json"], check=True, capture_output=True, text=True
        ).stdout
        lines = out.splitlines()
        print(f"-- run {i + 1} of {times}")
        print("\n".join(line for line in lines if not line.startswith("{")))
        runs.append(json.loads(next(line for line in lines if line.startswith("{"))))
    print(f"== {times} runs, each in a fresh process: ratio to MILA, median (lowest-highest)")
    for label in LINES:
        values = sorted(r[label] for r in runs)
        mid = len(values) // 2
        median = values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
        print(f"{label:32}{median:6.1f}x  ({values[0]:.1f}x-{values[-1]:.1f}x)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10, help="games per engine (default 10)")
    ap.add_argument("--seed", type=int, default=1, help="first seed; game i uses seed+i (default 1)")
    ap.add_argument("--end-year", type=int, default=END_YEAR, help=f"last year played (default {END_YEAR})")
    ap.add_argument("--engine", choices=("both", "dippouch", "mila"), default="both")
    ap.add_argument("--profile", action="store_true", help="cProfile the dippouch games, print the top functions")
    ap.add_argument("--wall", action="store_true", help="time by the wall clock instead of this process's CPU time")
    ap.add_argument(
        "--repeat", type=int, default=1, help="run this many times, each in a fresh process; sum up the ratios"
    )
    ap.add_argument(
        "--lazy-tables",
        action="store_true",
        help="build dippouch's per-map legal-order tables inside the timed calls, as units first come up "
        "(by default they are built with the variant, before the timers, as MILA builds its map)",
    )
    ap.add_argument("--ratios-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.repeat > 1 and args.engine != "both":
        ap.error("--repeat sums up the ratios to MILA, so it needs --engine both")
    if args.repeat > 1:
        rest = list(sys.argv[1:] if argv is None else argv)
        for i, arg in enumerate(rest):
            if arg == "--repeat":
                del rest[i : i + 2]
                break
            if arg.startswith("--repeat="):
                del rest[i]
                break
        return repeat(rest, args.repeat)
    global CLOCK, PREPARE
    CLOCK = time.perf_counter if args.wall else time.process_time
    PREPARE = not args.lazy_tables
    seeds = [args.seed + i for i in range(args.games)]
    import os

    clock = "wall clock" if args.wall else "process CPU time"
    print(
        f"python {platform.python_version()} on {platform.machine()}, nproc {os.cpu_count()}; "
        f"{len(seeds)} games per engine to {args.end_year}, seeds {seeds[0]}..{seeds[-1]}; timed by {clock}; "
        f"dippouch's per-map legal-order tables built {'in the timed calls' if args.lazy_tables else 'before timing'}"
    )
    if args.profile:
        profile_dippouch(seeds, args.end_year)
        return 0
    ours = Timings("dippouch") if args.engine in ("both", "dippouch") else None
    mila = Timings("MILA diplomacy", adjudication_inner=0.0) if args.engine in ("both", "mila") else None
    # Engines take turns game by game, so a change in machine load affects both alike. Before each game the
    # objects alive so far (both engines' map tables, MILA's large convoy-path cache) are frozen out of the
    # garbage collector's sight: otherwise each engine pays for scanning the other's long-lived data.
    for seed in seeds:
        for timings, play in ((ours, play_dippouch), (mila, play_mila)):
            if timings is None:
                continue
            gc.collect()
            gc.freeze()
            play([seed], args.end_year, timings)
            gc.unfreeze()
    report(ours, mila)
    if args.ratios_json and ours is not None and mila is not None:
        import json

        print(json.dumps(ratios(ours, mila)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
