"""benchmarks/bench_web_workers.py runs end to end (tiny: 12 games with 3-second phases, 2 workers, a few
seconds of load): the figures in benchmarks/README.md come from a script that works, and what it counts as
an error or a stale page is counted."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

import dippouch
from benchsupport import bench_script
from conftest import in_ci


def _bench() -> Any:
    return bench_script("bench_web_workers")


def test_bench_web_workers_runs_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    admin = os.environ.get("DIPPOUCH_TEST_POSTGRES_URL")
    if not admin:
        if in_ci():
            pytest.fail("DIPPOUCH_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL tests")
        pytest.skip("no PostgreSQL server: set DIPPOUCH_TEST_POSTGRES_URL or run scripts/test")
    args = ["--postgres", admin, "--games", "12", "--keyed", "2", "--phase-seconds", "3", "--seconds", "5"]
    args += ["--warmup", "1", "--clients", "6", "--page-rate", "20", "--submit-rate", "4", "--check-pages", "5"]
    # One second of pages alone, not the default ten: the round's figures are not this test's, that it is
    # measured and counted is.
    args += ["--play-rate", "1", "--pages-alone", "1"]
    # Two web processes, the second on "another" checkout's code (this one's own src, as another is named).
    src = str(Path(dippouch.__file__).resolve().parents[1])
    args += ["--web", "2", "--beside", src]
    code = _bench().main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    page = re.search(r"^game page .* \((\d+) requests, (\d+) errors", out, re.M)
    post = re.search(r"^submission .* \((\d+) requests, (\d+) errors, (\d+) refused", out, re.M)
    assert page and post, out
    assert int(page.group(1)) > 50 and int(page.group(2)) == 0
    assert int(post.group(1)) > 10 and int(post.group(2)) == 0
    # The pages' maps, fetched as a browser does (each address once: they are marked immutable).
    maps = re.search(r"^its map .* \((\d+) requests, (\d+) errors", out, re.M)
    assert maps and int(maps.group(1)) > 0 and int(maps.group(2)) == 0, out
    # The seats' own pages, by their keys (--play-rate).
    play = re.search(r"^player page .* \((\d+) requests, (\d+) errors", out, re.M)
    assert play and int(play.group(1)) > 0 and int(play.group(2)) == 0, out
    # How many phases the workers process in the five seconds is the benchmark's figure, not this test's: on a
    # machine loaded by the rest of the suite (load average 16) it was 0 of 12. The line is there, counted.
    done = re.search(
        r"^workers: (\d+) phases processed .*; (\d+) past their deadline at the end; 0 worker errors", out, re.M
    )
    assert done and int(done.group(1)) + int(done.group(2)) >= 12, out
    assert "pages afterwards: 5 of 5 show the phase the database has open" in out
    alone = re.search(r"^game pages alone \(workers running\): .* \((\d+) requests, (\d+) errors[;)]", out, re.M)
    assert alone and int(alone.group(1)) > 0 and int(alone.group(2)) == 0, out
    # Where those pages came from, read off the web processes' /metrics: every one of them counted once.
    split = re.search(
        r"^  their pages: (\d+) from .*, (\d+) held .*, (\d+) kept .*, (\d+) made by their reader", out, re.M
    )
    assert split and sum(int(n) for n in split.groups()) == int(alone.group(1)), out
    # Each process's own figure, its pages counted once, by where they came from.
    each = re.findall(
        r"^  web process (\d) \((.+)\): ([\d.]+) ms/request \((\d+) pages: (\d+) memory, (\d+) held, (\d+) kept, "
        r"(\d+) made\)$",
        out,
        re.M,
    )
    assert [(i, who) for i, who, *_ in each] == [("0", "this checkout"), ("1", "/".join(Path(src).parts[-2:]))], out
    assert sum(int(n) for _, _, _, n, *_ in each) == int(alone.group(1)), out
    assert all(int(n) == sum(map(int, came)) for _, _, _, n, *came in each), out


def test_a_tree_beside_needs_a_process_of_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    src = str(Path(dippouch.__file__).resolve().parents[1])
    with pytest.raises(SystemExit):
        _bench().main(["--postgres", "postgresql://unused/x", "--web", "1", "--beside", src])
    assert "--web must be more" in capsys.readouterr().err


def test_an_error_answer_is_counted_as_an_error() -> None:
    """The tally's rules: a refusal for a power with nothing to order is counted apart, anything else is an
    error (so "0 errors" above means something)."""
    import asyncio

    bench = _bench()
    tally = bench.Tally()

    async def serve_and_ask() -> None:
        answers = iter(
            [
                (400, b'{"error": "France has nothing to order in Winter 1901 Adjustments"}'),
                (400, b'{"error": "no province \'xyz\'"}'),
                (500, b'{"error": "internal error"}'),
                (200, b"ok"),
            ]
        )

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await reader.readline() not in (b"\r\n", b""):
                pass
            status, body = next(answers)
            writer.write(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n%s" % (status, len(body), body))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            for _ in range(4):
                await bench.open_loop([port], 1, 0.05, 20.0, [("GET", "/x", b"", {})], 5.0, tally)

    asyncio.run(serve_and_ask())
    assert tally.refused == 1
    assert len(tally.errors) == 2 and "500" in tally.errors[1], tally.errors
    assert len(tally.latencies) == 4
