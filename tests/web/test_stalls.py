"""The stall sampler (``DIPPOUCH_STALL_TRACE``) names what a busy thread ran while a request was slow."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from dippouch.web.http.stalls import Sampler


def _spin_for_the_test(sampler: Sampler, started: float, looks: int = 14, most: float = 30.0) -> None:
    """Busy until the sampler has seen this thread spinning ``looks`` times since ``started``: counting every look
    since ``started`` gave a loaded machine's CI run 14 looks of which the thread, slow to begin, was in 8."""
    me = f"{threading.current_thread().name} "
    while time.perf_counter() < started + most:
        sum(range(1000))
        seen = 0
        # A plain loop, not a generator: the thread's commonest stack is to be this function's own frame.
        for at, look in list(sampler.looks):
            for thread, where in look:
                if at >= started and thread.startswith(me) and "_spin_for_the_test" in where:
                    seen += 1
        if seen >= looks:
            return


def _busy_request(sampler: Sampler, name: str) -> tuple[dict[str, Any], float]:
    """A request during which thread ``name`` spins (:func:`_spin_for_the_test`), written by the sampler, which
    stops then: its line, and how long it took in ms."""
    started = time.perf_counter()
    busy = threading.Thread(target=_spin_for_the_test, args=(sampler, started), name=name)
    busy.start()
    busy.join()
    ended = time.perf_counter()
    sampler.slow("GET", "/games/g", 200, started, ended)
    sampler.stop()
    (line,) = (json.loads(text) for text in sampler.path.read_text().splitlines())
    return line, round((ended - started) * 1000, 1)


def test_a_slow_request_is_written_with_the_busy_thread_and_not_the_idle_ones(tmp_path: Path) -> None:
    sampler = Sampler(tmp_path / "stalls.jsonl")
    sampler.start()
    idle = threading.Event()
    waiting = threading.Thread(target=idle.wait, name="idle-one", daemon=True)
    waiting.start()
    line, ms = _busy_request(sampler, "busy-one")
    idle.set()

    assert line["request"] == "GET /games/g" and line["status"] == 200
    assert line["ms"] == ms
    assert line["samples"] > 10
    busy_seen = [t for t in line["threads"] if t["thread"].startswith("busy-one ")]
    assert busy_seen and busy_seen[0]["samples"] > 10, line["threads"]
    assert "_spin_for_the_test" in busy_seen[0]["stacks"][0]["where"]
    assert not [t for t in line["threads"] if t["thread"].startswith("idle-one ")]


def test_a_request_outside_the_samples_kept_has_none(tmp_path: Path) -> None:
    sampler = Sampler(tmp_path / "stalls.jsonl")
    sampler.start()
    time.sleep(0.05)
    sampler.stop()
    later = time.perf_counter() + 10
    sampler.slow("POST", "/x", 500, later, later + 1)
    (line,) = (json.loads(text) for text in (tmp_path / "stalls.jsonl").read_text().splitlines())
    assert line["samples"] == 0 and line["threads"] == []


def test_a_thread_begun_as_another_ended_is_named(tmp_path: Path) -> None:
    """The sampler learns the threads' names again when it meets a thread it does not know: it did only when
    their number changed, so a thread begun as another ended (the same number) was written "?"."""
    sampler = Sampler(tmp_path / "stalls.jsonl")
    done = threading.Event()
    first = threading.Thread(target=done.wait, name="first-one", daemon=True)
    first.start()
    sampler.start()
    while len(sampler.looks) < 3:
        time.sleep(0.01)
    done.set()
    first.join()
    line, _ = _busy_request(sampler, "second-one")
    spinning = [t["thread"].split()[0] for t in line["threads"] if "_spin_for_the_test" in t["stacks"][0]["where"]]
    assert spinning == ["second-one"], line["threads"]  # (a thread Python did not start, xdist's, is "?")
