"""The stall sampler (``DIPPOUCH_STALL_TRACE``) names what a busy thread ran while a request was slow."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from dippouch.web.http.stalls import Sampler


def _spin_for_the_test(until: float) -> None:
    while time.perf_counter() < until:
        sum(range(1000))


def test_a_slow_request_is_written_with_the_busy_thread_and_not_the_idle_ones(tmp_path: Path) -> None:
    trace = tmp_path / "stalls.jsonl"
    sampler = Sampler(trace)
    sampler.start()
    idle = threading.Event()
    waiting = threading.Thread(target=idle.wait, name="idle-one", daemon=True)
    waiting.start()
    started = time.perf_counter()
    busy = threading.Thread(target=_spin_for_the_test, args=(started + 0.3,), name="busy-one")
    busy.start()
    busy.join()
    ended = time.perf_counter()
    sampler.slow("GET", "/games/g", 200, started, ended)
    sampler.stop()
    idle.set()

    (line,) = (json.loads(text) for text in trace.read_text().splitlines())
    assert line["request"] == "GET /games/g" and line["status"] == 200 and line["ms"] >= 300
    assert line["samples"] > 10
    busy_seen = [t for t in line["threads"] if t["thread"].startswith("busy-one ")]
    assert busy_seen and busy_seen[0]["samples"] > 10
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
