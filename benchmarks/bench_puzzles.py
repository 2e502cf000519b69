"""The puzzle generator's cost: positions searched a second, puzzles found a second, adjudications a corner,
and one answer's check (what a puzzle page's POST costs), on the recorded corpus in tests/data/puzzles.

    .venv/bin/python benchmarks/bench_puzzles.py [POSITIONS]   (default 160: the corpus's first ten games)

CPU seconds are the process's own (time.process_time), so a busy machine's wall time does not count.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

from dippouch.core import adjudicator
from dippouch.play import puzzles as pz

CORPUS = Path(__file__).parents[1] / "tests" / "data" / "puzzles" / "corpus.jsonl.gz"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 160
    sources = list(itertools.islice(pz.corpus_sources(CORPUS), n))
    calls = [0]
    real = adjudicator.adjudicate

    def counted(*args: object, **kw: object) -> object:
        calls[0] += 1
        return real(*args, **kw)  # type: ignore[arg-type]

    vars(pz)["adjudicate"] = counted  # counted where play.puzzles calls it
    cpu, wall = time.process_time(), time.perf_counter()
    found = list(pz.find_puzzles(sources))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    vars(pz)["adjudicate"] = real
    print(f"generate: {len(sources)} positions, {len(found)} puzzles, {cpu:.1f} s CPU ({wall:.1f} s wall)")
    print(
        f"  {len(sources) / cpu:.2f} positions/s, {cpu / max(len(found), 1):.2f} s CPU a puzzle, "
        f"{calls[0]} adjudications ({calls[0] / cpu:.0f}/s)"
    )
    checks = []
    for p in found[:10]:
        orders = pz.read_answer(p, "\n".join(p.answer))
        t = time.process_time()
        assert pz.check_answer(p, orders).solved
        checks.append(time.process_time() - t)
    if checks:
        checks.sort()
        print(
            f"check an answer: median {checks[len(checks) // 2] * 1000:.0f} ms CPU, max {checks[-1] * 1000:.0f} ms "
            f"({len(checks)} puzzles, every reply)"
        )


if __name__ == "__main__":
    main()
