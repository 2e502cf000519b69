"""What the server was doing while a request was slow (``DIPPOUCH_STALL_TRACE``): a benchmark's question.

A rare request of a quarter of a second among thousands of 10 ms ones (benchmarks/README.md, issue 52) leaves no
mark in any total: the write lock's trace and the collector's account for it only in part. :class:`Sampler`
looks at every thread's stack a few hundred times a second and keeps the last seconds of what it saw; when a
request took longer than :data:`SLOW` (:class:`~dippouch.web.http.middleware.Latency` asks), the trace file gets one
JSON line: the request, and what each thread was running while it waited (the innermost dippouch frames, counted by
sample). A gap between two samples is time the sampler could not run: the interpreter lock held by one thread
the whole time (a C extension, a full collection), and is written as such.

Off by default; a sampler costs the server a few percent of one CPU, so it is a measuring tool, never left on.
"""

from __future__ import annotations

import json
import sys
import sysconfig
import threading
import time
import traceback
from collections import Counter, deque
from pathlib import Path
from types import FrameType

__all__ = ["SLOW", "Sampler", "sampler", "start"]

SLOW = 0.1
"""A request slower than this (seconds, wall) is written with what the threads were doing meanwhile."""

INTERVAL = 0.004
"""Seconds between two looks at the threads."""

KEPT = 5.0
"""Seconds of looks kept: a request slower than this is written with its last seconds only."""

GAP = 0.05
"""A pause of the sampler itself longer than this is written as a stall of the whole interpreter."""

_STDLIB = sysconfig.get_paths()["stdlib"] + "/"


def _where(frame: FrameType | None, depth: int = 4) -> str:
    """The innermost frame of a stack (what it is doing: inside SQLite's driver, a lock's wait) and the innermost
    few of dippouch's own frames (what for)."""
    names: list[str] = []
    while frame is not None and len(names) <= depth:
        path = frame.f_code.co_filename
        short = path.rsplit("site-packages/", 1)[-1].rsplit("/src/", 1)[-1].removeprefix(_STDLIB)
        if not names or short.startswith("dippouch/"):
            names.append(f"{short}:{frame.f_code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(names)


def _idle(where: str) -> bool:
    """A thread waiting for work (the thread pool's idle threads, the event loop waiting in its C code), which
    says nothing about a stall."""
    innermost = where.split(" < ", 1)[0]
    return innermost.startswith(
        ("threading.py:", "queue.py:", "concurrent/futures/thread.py:", "selectors.py:", "asyncio/runners.py:run:")
    )


class Sampler:
    """The thread that looks at the others, and the file it writes slow requests to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.looks: deque[tuple[float, tuple[tuple[str, str], ...]]] = deque(maxlen=int(KEPT / INTERVAL))
        self.gaps: deque[tuple[float, float]] = deque(maxlen=1000)
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="stall-sampler", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()

    def _run(self) -> None:
        me = threading.get_ident()
        last = time.perf_counter()
        while not self.stopped.wait(INTERVAL):
            now = time.perf_counter()
            if now - last > GAP:
                self.gaps.append((last, now))
            last = now
            frames = sys._current_frames()
            # The names read at every look (7 us with 40 threads): a thread begun as another ended, which kept
            # their number, was written "?", or with the ended one's name where it took its id.
            names = {t.ident: t.name for t in threading.enumerate()}
            look = tuple(
                (f"{names.get(ident, '?')} {ident % 10_000:04d}", _where(frame))
                for ident, frame in frames.items()
                if ident != me
            )
            self.looks.append((now, look))

    def slow(self, method: str, path: str, status: int, started: float, ended: float) -> None:
        """Write what each thread did between ``started`` and ``ended`` (``time.perf_counter``): the threads
        busiest first, each with its commonest stacks, and the stacks seen right after each gap."""
        by_thread: dict[str, Counter[str]] = {}
        samples = 0
        after_gaps: list[dict[str, object]] = []
        gaps = [(a, b) for a, b in list(self.gaps) if b > started and a < ended]
        for at, look in list(self.looks):
            if not started <= at <= ended:
                continue
            samples += 1
            busy = [(thread, where) for thread, where in look if not _idle(where)]
            for thread, where in busy:
                by_thread.setdefault(thread, Counter())[where] += 1
            for a, b in gaps:
                if at == b:
                    after_gaps.append({"at_ms": round((a - started) * 1000), "ms": round((b - a) * 1000), "busy": busy})
        busiest = sorted(by_thread.items(), key=lambda item: -sum(item[1].values()))
        line = {
            "at": time.time(),
            "request": f"{method} {path}",
            "status": status,
            "ms": round((ended - started) * 1000, 1),
            "samples": samples,
            "gaps": after_gaps,
            "threads": [
                {
                    "thread": thread,
                    "samples": sum(stacks.values()),
                    "stacks": [{"where": where, "samples": n} for where, n in stacks.most_common(4)],
                }
                for thread, stacks in busiest[:8]
            ],
        }
        try:
            with self.lock, self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")
        except OSError:
            traceback.print_exc()


_SAMPLER: Sampler | None = None


def sampler() -> Sampler | None:
    """The running sampler, if ``DIPPOUCH_STALL_TRACE`` started one."""
    return _SAMPLER


def start(path: Path | None) -> Sampler | None:
    """Start the process's sampler once (``serve``'s start-up, when the setting names a file)."""
    global _SAMPLER
    if path is not None and _SAMPLER is None:
        _SAMPLER = Sampler(path)
        _SAMPLER.start()
    return _SAMPLER
