"""Each test's time in the runs recorded, for the next run to order its files by (tests/conftest.py): two
workers that steal work from each other finish together only if the tests left at the end are short ones.

The run writes ``test-artifacts/durations.json`` (git-ignored; each test's seconds, setup and teardown
included, kept from earlier runs for the tests this run did not run). A clean clone has no such file: it
orders by ``tests/file-times.json``, each file's slowest test and total in a full run, written by
``python tests/durations.py`` from a recorded run and committed now and then."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATH = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts")) / "durations.json"
COMMITTED = Path(__file__).resolve().parent / "file-times.json"
# A file marked slow that no run has timed yet goes among the slow ones: a guess, not a measure.
SLOW_UNTIMED = 30.0


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def read(path: Path) -> dict[str, float]:
    """The tests' recorded seconds by node id (none if no run wrote the file or it cannot be read: the order
    is then a guess, never an error)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}


def file_times(tests: dict[str, float]) -> dict[str, tuple[float, float]]:
    """Each file's slowest test and all its tests' seconds: of this machine's runs, or else the committed
    ones."""
    if not tests:
        committed = read_committed(COMMITTED)
        return committed
    times: dict[str, tuple[float, float]] = {}
    for nodeid, seconds in tests.items():
        name = file_of(nodeid)
        slowest, total = times.get(name, (0.0, 0.0))
        times[name] = (max(slowest, seconds), total + seconds)
    return times


def read_committed(path: Path) -> dict[str, tuple[float, float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): (float(v[0]), float(v[1])) for k, v in data.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return {}


def record(path: Path, times: dict[str, float], root: Path) -> None:
    """``times`` written over the tests' times in ``path``, dropping those of files that are gone. Written
    to a new file and renamed, so that a run started meanwhile reads the old times or the new, never half."""
    merged = {k: v for k, v in read(path).items() if (root / file_of(k)).exists()}
    merged.update({k: round(v, 3) for k, v in times.items()})
    path.parent.mkdir(parents=True, exist_ok=True)
    new = path.with_suffix(f".{os.getpid()}.tmp")
    new.write_text(json.dumps(merged, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    new.replace(path)


def main() -> None:
    """Writes tests/file-times.json from this machine's recorded runs."""
    tests = read(PATH)
    if not tests:
        sys.exit(f"no tests' times in {PATH}: run the tests first")
    times = sorted(file_times(tests).items())
    # A file a line: its slowest test's seconds and all its tests'.
    lines = [f"{json.dumps(k)}: [{v[0]:.1f}, {v[1]:.1f}]" for k, v in times]
    COMMITTED.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    slowest = dict(times)
    print(f"{len(slowest)} files' times written to {COMMITTED}")


if __name__ == "__main__":
    main()
