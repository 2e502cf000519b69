"""Start-up time of the ``dippouch`` command, as a coordinator feels it.

Targets: ``dippouch --help`` and the commands that touch no database under 0.3 s; a W3K ``submit`` under
0.6 s. Each command runs as its own process, as typed at a shell, ``--repeat`` times after one warm-up run;
the script prints the median and lowest wall-clock time and the median CPU time (user + system) of the
process. CPU time is the steadier figure on a shared machine: wall time also counts the time other work
holds the cores.

Byte-code caching is switched on for the runs (``PYTHONDONTWRITEBYTECODE`` is removed from the
environment and the caches go to a temporary ``PYTHONPYCACHEPREFIX``), as in any installed copy: without
it Python compiles every module from source on every start, which is not what a user sees.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = str(Path(sys.executable).parent / "dippouch")

# (label, arguments, standard input, target in seconds)
CASES: list[tuple[str, list[str], str | None, float | None]] = [
    ("--help", ["--help"], None, 0.3),
    ("--version", ["--version"], None, 0.3),
    ("variants", ["variants"], None, 0.3),
    ("variants w3k", ["variants", "w3k"], None, 0.3),
    ("adjudicate --help", ["adjudicate", "--help"], None, 0.3),
    ("submit (W3K)", ["submit", "bench", "Crown"], "A Wiltshire - Berkshire\nF Bristol convert\n", 0.6),
    ("status (W3K)", ["status", "bench"], None, None),
]


def _run(args: list[str], stdin: str | None, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([COMMAND, *args], input=stdin, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"dippouch {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs of each command (after one warm-up run)")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "DIPPOUCH_VARIANT_PATH")}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env["DIPPOUCH_CACHE_DIR"] = str(Path(tmp) / "cache")  # built variants: filled by each warm-up run
        env["DIPPOUCH_DATABASE_URL"] = f"sqlite:///{Path(tmp) / 'bench.db'}"
        env["DIPPOUCH_SETTINGS"] = str(Path(tmp) / "settings.toml")
        _run(["new", "bench", "--variant", "w3k"], None, env)
        print(
            f"dippouch start-up, {opts.repeat} runs each after a warm-up (seconds; load average {os.getloadavg()[0]:.1f})"
        )
        print(f"{'command':<20} {'wall median':>11} {'wall min':>9} {'CPU median':>10} {'target':>7}  met (CPU)")
        for label, args, stdin, target in CASES:
            _run(args, stdin, env)
            walls, cpus = [], []
            for _ in range(opts.repeat):
                w, c = _run(args, stdin, env)
                walls.append(w)
                cpus.append(c)
            cpu = statistics.median(cpus)
            met = "" if target is None else ("yes" if cpu < target else "NO")
            shown = "" if target is None else f"{target:.1f}"
            print(f"{label:<20} {statistics.median(walls):>11.3f} {min(walls):>9.3f} {cpu:>10.3f} {shown:>7}  {met}")


if __name__ == "__main__":
    main()
