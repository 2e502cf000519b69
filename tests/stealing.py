"""How the test workers share the run (scripts/test: ``pytest -n 3 --dist worksteal``): pytest-xdist's work
stealing, except that a file whose tests share something set up once for the file stays on one worker.

xdist's stealing takes the far half of a busy worker's queue, wherever that half begins: a file's module
fixture (a served site, a browser's pages, a database filled once) would then be set up on two workers,
and a test that counts on what an earlier one of its file left behind would find nothing. Here a steal
or the first share begins at a test where such a file begins, never inside one; every other file is split
wherever the half falls. Which files must stay whole is told by the first worker's collection (the
main process collects nothing): a file with a fixture of module or class scope of its own, or a test
marked ``xdist_group``; a file whose shared fixtures are all the cheap ones of :data:`SHARED_CHEAPLY` may
be split."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler.worksteal import MIN_PENDING, WorkStealingScheduling

import durations

WHOLE_FILES = "DIPPOUCH_TEST_WHOLE_FILES"
# Module fixtures whose second setup on another worker costs next to nothing: the process's shared
# Chromium (browsersupport: one per process; the module fixture closes the file's contexts).
SHARED_CHEAPLY = {"chromium"}


def pytest_configure(config: pytest.Config) -> None:
    """The main process names the file its workers (started after this, inheriting the environment) write
    the files that must stay whole to."""
    if hasattr(config, "workerinput") or config.getoption("dist", default=None) != "worksteal":
        return
    handle, name = tempfile.mkstemp(prefix="dippouch-whole-files-", suffix=".json")
    os.close(handle)
    os.environ[WHOLE_FILES] = name
    config.add_cleanup(lambda: Path(name).unlink(missing_ok=True))


def must_stay_whole(item: pytest.Item) -> bool:
    if item.get_closest_marker("xdist_group") is not None:
        return True
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for name, defs in info.name2fixturedefs.items():
        if name in SHARED_CHEAPLY:
            continue
        if any(d.scope in ("module", "class") for d in defs):
            return True
    return False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each file whole, the longest first by the runs recorded (tests/durations.py), the rest in their order.
    The workers share the run by stealing (scripts/test, below): each starts on its share of this list and,
    when done, takes the far half of what a busy one has left, so what runs last must be short.
    A file that must stay on one worker counts with all its tests' time, any other with its slowest test's
    (a file marked ``slow`` and never timed counts as slow). All workers read the same recorded times and
    so collect the same order; the first then writes which files must stay whole, for the main process."""
    timed = durations.file_times(durations.read(durations.PATH))
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    whole = {item.path for item in items if must_stay_whole(item)}

    def key(item: pytest.Item) -> float:
        known = timed.get(durations.file_of(item.nodeid))
        if known is None:
            return durations.SLOW_UNTIMED if item.path in slow else 0.0
        return known[1] if item.path in whole else known[0]

    items.sort(key=key, reverse=True)
    workerinput = getattr(config, "workerinput", None)
    path = os.environ.get(WHOLE_FILES)
    if workerinput is None or path is None or workerinput.get("workerid") != "gw0":
        return
    whole_files = sorted({durations.file_of(item.nodeid) for item in items if item.path in whole})
    new = Path(f"{path}.{os.getpid()}.tmp")
    new.write_text(json.dumps(whole_files), encoding="utf-8")
    new.replace(path)


class WholeFileStealing(WorkStealingScheduling):  # type: ignore[misc]  # xdist is not typed
    """xdist's work stealing (pytest-xdist 3.8), its shares cut where a test may go to another worker."""

    whole: set[str] | None = None
    steal_requested_from_node: Any

    def _may_cut(self, before: int, after: int) -> bool:
        """Whether the test ``after`` may run on another worker than the test ``before`` (indices)."""
        assert self.collection is not None
        if self.whole is None:
            try:
                self.whole = set(json.loads(Path(os.environ[WHOLE_FILES]).read_text(encoding="utf-8")))
            except (KeyError, OSError, ValueError):
                self.whole = set()
        first, second = durations.file_of(self.collection[before]), durations.file_of(self.collection[after])
        return first != second or first not in self.whole

    def _cut(self, tests: list[int], at: int, least: int) -> int:
        """The first place at or after ``at`` (else before it, down to ``least``) where ``tests`` may be
        cut; ``len(tests)`` if there is none."""
        if at >= len(tests):
            return len(tests)
        for i in range(max(at, least, 1), len(tests)):
            if self._may_cut(tests[i - 1], tests[i]):
                return i
        for i in range(min(at, len(tests)) - 1, max(least, 1) - 1, -1):
            if self._may_cut(tests[i - 1], tests[i]):
                return i
        return len(tests)

    def _send_tests(self, node: Any, num: int) -> None:
        super()._send_tests(node, self._cut(self.pending, num, 1))

    def check_schedule(self) -> None:
        nodes_up = [(node, pending) for node, pending in self.node2pending.items() if not node.shutting_down]
        idle = [node for node, pending in nodes_up if len(pending) < MIN_PENDING]
        if not idle:
            return
        if self.pending:
            for i, node in enumerate(idle):
                self._send_tests(node, len(self.pending) // (len(idle) - i))
            idle = [node for node, pending in nodes_up if len(pending) < MIN_PENDING]
            if not idle:
                return
        if self.steal_requested_from_node is not None:
            return
        victim = max(nodes_up, key=lambda np: len(np[1]), default=None)
        stolen: list[int] = []
        if victim is not None and len(victim[1]) > MIN_PENDING:
            # Half of its queue, from a place a cut may be made; the busy worker keeps what it is running
            # and the next.
            queue = victim[1]
            stolen = queue[self._cut(queue, len(queue) - len(queue) // 2, MIN_PENDING) :]
        if not stolen:
            for node in idle:  # nothing to take: they run what they hold and stop
                node.shutdown()
            return
        assert victim is not None
        victim[0].send_steal(stolen)
        self.steal_requested_from_node = victim[0]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist", default=None) != "worksteal":
        return None
    return WholeFileStealing(config, log)
