"""Outside bots that misbehave on purpose: whatever the program does, each decision ends by its deadline (plus
a little), the power's units hold, the reason is recorded, and nothing is raised.

Each program is a real Python program run through the real runner; each decision runs in a thread that the
test waits for at most ``timeout + 3`` s (a correctness bound, not a benchmark): a runner stuck past it fails
the test instead of hanging it, and the program is ended so the stuck write returns.
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.bots  # noqa: F401  (registers the commands)
from dippouch.bots.engine import Order, Position, Variant, format_order, parse_order
from dippouch.bots.outside import MAX_DEPTH, OutsideBot, order_limit
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.core.errors import DippouchError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SLACK = 3.0
"""Seconds past the timeout a decision may take before the test calls the runner stuck."""
OPENING = ["A par - bur", "A mar - spa", "F bre - mao"]


def _program(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "bot.py"
    path.write_text("import json, os, sys, time\n" + body, encoding="utf-8")
    return [sys.executable, str(path)]


def _decide(bot: OutsideBot, variant: Variant, position: Position, power: str) -> tuple[list[Order], float]:
    """The bot's orders and the seconds they took, or a test failure if the runner is still busy after
    ``timeout + SLACK`` seconds (any exception the runner raises is raised here)."""
    done: dict[str, list[Order] | BaseException] = {}

    def run() -> None:
        try:
            done["orders"] = bot.orders(variant, position, power, random.Random(0))
        except BaseException as e:  # re-raised in the test's thread
            done["error"] = e

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(bot.timeout + SLACK)
    took = time.monotonic() - started
    if worker.is_alive():
        bot.proc.kill()  # a blocked write then fails, and the thread ends
        worker.join(10)
        pytest.fail(f"the decision was still running {took:.1f} s in, with a timeout of {bot.timeout:g} s")
    if "error" in done:
        raise done["error"]  # type: ignore[misc]
    orders = done["orders"]
    assert isinstance(orders, list)
    return orders, took


def _france(tmp_path: Path, body: str, timeout: float) -> tuple[list[Order], float, OutsideBot]:
    """One decision for France at the start of a standard game; the program is closed after."""
    variant = load_variant("standard")
    bot = OutsideBot(_program(tmp_path, body), timeout=timeout)
    try:
        orders, took = _decide(bot, variant, variant.start, "France")
    finally:
        bot.close()
    return orders, took, bot


def _answer_every_request(answer: str) -> str:
    return f"for line in sys.stdin:\n    sys.stdout.write({answer!r} + '\\n'); sys.stdout.flush()\n"


DEEP_LIST = "'[' * 999_000"
DEEP_ORDERS = "'{\"orders\": ' + '[' * 200_000 + ']' * 200_000 + '}'"

HOSTILE = {
    "a line of 999,000 [": (
        f"for line in sys.stdin:\n    sys.stdout.write({DEEP_LIST} + '\\n'); sys.stdout.flush()\n",
        rf"answered with JSON nested 999,000 levels deep; at most {MAX_DEPTH} are read",
    ),
    "orders nested 200,000 deep": (
        f"for line in sys.stdin:\n    sys.stdout.write({DEEP_ORDERS} + '\\n'); sys.stdout.flush()\n",
        rf"answered with JSON nested 200,001 levels deep; at most {MAX_DEPTH} are read",
    ),
    "30,000 misspelt orders": (
        _answer_every_request(json.dumps({"orders": ["A Parsi - Burgundyy"] * 30_000})),
        rf"answered with 30,000 orders; at most {order_limit(3)} are read for France's 3 units or sites",
    ),
    # Those held before the limits were added: kept here so that they go on holding.
    "silent": ("for line in sys.stdin:\n    time.sleep(60)\n", r"answered too slowly: \d\.\d s, limit 1 s \(0 bytes"),
    "garbage bytes": (
        "for line in sys.stdin:\n    sys.stdout.buffer.write(b'\\x00\\xff{[ garbage\\n'); sys.stdout.flush()\n",
        r"answered with something other than a JSON object: '\\x00\ufffd\{\[ garbage'",
    ),
    "exits": ("sys.stdin.readline()\nsys.exit(3)\n", r"has stopped( \(exit code 3\))?"),
    "answers without orders": (_answer_every_request('{"moves": []}'), r'answered without an "orders" list'),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_program_gets_no_orders_a_reason_and_no_more_than_its_timeout(tmp_path: Path, case: str) -> None:
    body, reason = HOSTILE[case]
    timeout = 1.0 if case == "silent" else 2.0
    orders, took, bot = _france(tmp_path, body, timeout)
    assert orders == []  # France's units hold
    [why] = bot.failures
    assert re.fullmatch(rf"bot python\S* bot\.py {reason}.*", why), why
    assert bot.silent == 1
    assert took < timeout + SLACK


def test_a_program_that_never_reads_its_requests_is_ended_when_one_cannot_be_written_in_time(tmp_path: Path) -> None:
    # It sends 200 answers at once and never reads: the requests fill the pipe (about 30 of them, 2 KB each),
    # and the one that does not fit within the timeout ends it. Before, that write blocked for good.
    answer = json.dumps({"orders": OPENING}) + "\n"
    body = f"sys.stdout.write({answer!r} * 200); sys.stdout.flush()\ntime.sleep(120)\n"
    variant = load_variant("standard")
    bot = OutsideBot(_program(tmp_path, body), timeout=1)
    answered = 0
    try:
        for _ in range(100):
            orders, took = _decide(bot, variant, variant.start, "France")
            assert took < bot.timeout + SLACK
            if bot.failures:
                break
            assert [format_order(variant, o) for o in orders] == OPENING
            answered += 1
        assert orders == [] and answered > 5
        assert bot.failures == [
            f"bot {bot.label} did not take its request within 1 s (it is not reading its input), so it was ended"
        ]
        assert bot.proc.poll() is not None  # ended, not left blocked
        later, took = _decide(bot, variant, variant.start, "France")
        assert later == [] and took < 1
        assert bot.failures[1] == f"bot {bot.label} was ended earlier: it did not take a request within 1 s"
    finally:
        bot.close()


def test_a_silent_program_that_never_reads_is_ended_once_its_requests_fill_the_pipe(tmp_path: Path) -> None:
    # W3K's requests are 7 to 10 KB, so the pipe is full after a few of them.
    variant = load_variant("w3k")
    bot = OutsideBot(_program(tmp_path, "time.sleep(120)\n"), timeout=0.3)
    try:
        for _ in range(40):
            orders, took = _decide(bot, variant, variant.start, "Manchester")
            assert orders == [] and took < bot.timeout + SLACK
            if bot.proc.poll() is not None:
                break
    finally:
        bot.close()
    *slow, ended = bot.failures
    assert slow and all("answered too slowly" in why for why in slow)
    assert ended.endswith("did not take its request within 0.3 s (it is not reading its input), so it was ended")


def test_misspelt_orders_under_the_cap_are_read_no_later_than_the_deadline(tmp_path: Path) -> None:
    # As many misspelt orders as Manchester's ten units allow, each a "did you mean" search over W3K's
    # names (about 2 ms each, 60 ms in all on a quiet machine), against a deadline of half what reading them
    # all takes here and now, at its quickest of three rounds: a loaded machine is slower at both, handing the
    # request to the pipe as reading the orders, where a fixed 30 ms (10 ms before it) was at times spent
    # before the first order was read, and one round slowed by a busy moment made a deadline the read met.
    # The answer is sent ahead together with a first, good one, so that it is already read when the request
    # goes out: only reading its orders takes time.
    variant = load_variant("w3k")
    texts = ["A Northumberlandd - Yorkshiree"] * order_limit(10)
    rounds = []
    for _ in range(3):  # the quickest of three: a round slowed by a busy moment says nothing of the next
        started = time.perf_counter()
        for text in texts:
            with pytest.raises(DippouchError, match="did you mean"):
                parse_order(variant, text, phase_kind="movement")
        rounds.append(time.perf_counter() - started)
    limit = round(max(min(rounds) / 2, 0.03), 3)
    misspelt = json.dumps({"orders": texts})
    body = (
        f"sys.stdout.write({json.dumps({'orders': []})!r} + '\\n' + {misspelt!r} + '\\n'); sys.stdout.flush()\n"
        "for line in sys.stdin:\n    pass\n"
    )
    bot = OutsideBot(_program(tmp_path, body), timeout=30)
    try:
        assert _decide(bot, variant, variant.start, "Manchester")[0] == []
        assert bot.failures == []
        bot.timeout = limit
        orders, _ = _decide(bot, variant, variant.start, "Manchester")
    finally:
        bot.close()
    assert orders == []
    [why] = bot.failures
    assert re.fullmatch(
        rf"bot \S+ bot\.py answered too slowly: its orders were not all read within the limit of {limit:g} s "
        rf"\((\d+) of {order_limit(10)} read\)",
        why,
    ), why
    assert len(bot.dropped) < order_limit(10)


def test_an_order_too_long_to_be_one_is_dropped_unread_and_the_rest_are_kept(tmp_path: Path) -> None:
    body = _answer_every_request(json.dumps({"orders": ["A par - " + "burgundy" * 100, "A mar - spa"]}))
    orders, _, bot = _france(tmp_path, body, 10)
    assert [format_order(load_variant("standard"), o) for o in orders] == ["A mar - spa"]
    assert bot.dropped == ["'A par - burgundyburgundyburgundyburgundy'...: 808 characters; an order has at most 300"]
    assert bot.failures == []


def test_a_program_nested_just_within_the_bound_still_plays(tmp_path: Path) -> None:
    # Its own notes may nest: the answer is read as long as nothing is deeper than the bound.
    notes = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    body = _answer_every_request('{"orders": ["A par - bur"], "notes": ' + notes + ', "why": "[[[[[[[[\\\\\\"[["}')
    orders, _, bot = _france(tmp_path, body, 10)
    assert [format_order(load_variant("standard"), o) for o in orders] == ["A par - bur"]
    assert bot.failures == []


def _deep_program(tmp_path: Path) -> list[str]:
    return _program(
        tmp_path, f"for line in sys.stdin:\n    sys.stdout.write({DEEP_LIST} + '\\n'); sys.stdout.flush()\n"
    )


def test_dippouch_bot_plays_on_when_its_program_answers_too_deep_to_read(tmp_path: Path) -> None:
    cmd = _deep_program(tmp_path)
    r = CliRunner().invoke(
        app, ["bot", "--variant", "standard", "--years", "1", "--timeout", "2", "--power", "France", "--", *cmd]
    )
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output and r.exception is None
    assert "answered with JSON nested 999,000 levels deep; at most 32 are read" in r.output
    assert "its units held" in r.output


def test_dippouch_bot_on_a_stored_game_sends_no_orders_when_its_program_answers_too_deep(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/g.db"
    store_games.create_game(GameStore(db), "g", "standard", now=T0)
    cmd = _deep_program(tmp_path)
    r = CliRunner().invoke(
        app,
        ["bot", "--game", "g", "--power", "France", "--timeout", "2", "--db", db, "--now", T0.isoformat(), "--", *cmd],
    )
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output and r.exception is None
    assert "France sent version 1 for Spring 1901 Movement in g (source bot)" in r.output
    assert "answered with JSON nested 999,000 levels deep" in r.output
    [sub] = store_history.phase_record(GameStore(db), "g", "Spring 1901 Movement", open_ok=True)["submissions"]
    assert sub["power"] == "France" and sub["source"] == "bot" and sub["ready"]
