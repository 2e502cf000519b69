"""Outside bots: a program speaking JSON lines plays a power with the engine's legal orders only."""

from __future__ import annotations

import json
import random
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dippouch.cli.bots  # noqa: F401  (registers the commands)
from dippouch.bots.engine import Order, format_order, legal_orders
from dippouch.bots.outside import OutsideBot, request
from dippouch.bots.seats import play_outside
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "json_bot.py"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _program(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "bot.py"
    path.write_text("import json, sys, time\n" + body, encoding="utf-8")
    return [sys.executable, str(path)]


def _france_opening(bot: OutsideBot) -> list[Order]:
    """The program's orders for France at the start of a standard game; the program is closed after."""
    variant = load_variant("standard")
    try:
        return bot.orders(variant, variant.start, "France", random.Random(0))
    finally:
        bot.close()


def test_the_request_lists_the_position_and_every_legal_order_in_canonical_notation() -> None:
    variant = load_variant("standard")
    message, by_text = request(variant, variant.start, "France")
    assert message["type"] == "orders" and message["power"] == "France" and message["kind"] == "movement"
    assert message["phase"] == "Spring 1901 Movement"
    assert "A par - bur" in message["legal"]["par"] and "F bre - mao" in message["legal"]["bre"]
    assert len(by_text) == sum(len(v) for v in legal_orders(variant, variant.start, "France").values())
    assert {"power": "France", "unit": "A par"} in message["position"]["units"]
    assert "bel" in message["centres"]
    json.dumps(message)  # JSON through and through


def test_the_example_bot_plays_france_with_legal_orders() -> None:
    variant = load_variant("standard")
    bot = OutsideBot([sys.executable, str(EXAMPLE)], timeout=20)
    try:
        orders = bot.orders(variant, variant.start, "France", random.Random(0))
    finally:
        bot.close()
    legal = {o for os_ in legal_orders(variant, variant.start, "France").values() for o in os_}
    assert len(orders) == 3 and all(o in legal for o in orders)
    assert bot.dropped == [] and bot.silent == 0


def test_dippouch_bot_plays_a_practice_game_with_the_example_program() -> None:
    r = CliRunner().invoke(
        app, ["bot", "--variant", "hundred3", "--years", "1", "--power", "England", "--", sys.executable, str(EXAMPLE)]
    )
    assert r.exit_code == 0, r.output
    assert "England" in r.output and "(program)" in r.output and "(heuristic)" in r.output
    assert "dropped" not in r.output and "no usable answer" not in r.output


def test_orders_that_are_not_legal_are_dropped_and_reported_never_sent(tmp_path: Path) -> None:
    cmd = _program(
        tmp_path,
        "for line in sys.stdin:\n"
        "    r = json.loads(line)\n"
        "    if r['type'] != 'orders': break\n"
        "    print(json.dumps({'orders': ['A par - mun', 'A Paris nowhere', 'A mar - spa']}), flush=True)\n",
    )
    variant = load_variant("standard")
    bot = OutsideBot(cmd, timeout=20)
    try:
        orders = bot.orders(variant, variant.start, "France", random.Random(0))
    finally:
        bot.close()
    assert len(orders) == 1  # A mar - spa
    assert bot.dropped[0] == "'A par - mun': not a legal order for France now"
    assert bot.dropped[1].startswith("'A Paris nowhere': ")


def test_a_silent_program_gives_no_orders_after_its_timeout(tmp_path: Path) -> None:
    cmd = _program(tmp_path, "for line in sys.stdin:\n    time.sleep(30)\n")
    variant = load_variant("standard")
    bot = OutsideBot(cmd, timeout=0.5)
    try:
        assert bot.orders(variant, variant.start, "France", random.Random(0)) == []
    finally:
        bot.close()
    assert bot.silent == 1


ANSWER = json.dumps({"orders": ["A par - bur", "A mar - spa", "F bre - mao"]})


def _running(pid: int) -> bool:
    """Whether process ``pid`` is still running (a zombie left for its new parent to reap is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("child", ["sleep 90", "a child that ignores SIGTERM"])
def test_what_the_program_started_is_ended_with_it(tmp_path: Path, child: str) -> None:
    """A program that starts a process in the background and answers normally: once the run is over, nothing
    it started is left running, even a process that ignores SIGTERM (security review, finding 15)."""
    pids = tmp_path / "pids"
    start = (
        "['sleep', '90']"
        if child == "sleep 90"
        else "[sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(90)']"
    )
    cmd = _program(
        tmp_path,
        "import subprocess\n"
        f"kid = subprocess.Popen({start})\n"
        f"open({str(pids)!r}, 'w').write(str(kid.pid))\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line)['type'] != 'orders': break\n"
        f"    print({ANSWER!r}, flush=True)\n",
    )
    started = time.monotonic()
    orders = _france_opening(OutsideBot(cmd, timeout=20))
    assert len(orders) == 3
    kid = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _running(kid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(kid), f"{child} is still running after the bot's run"
    assert time.monotonic() - started < 10


def test_a_program_that_trickles_its_answer_is_cut_off_at_the_deadline_and_its_units_hold(tmp_path: Path) -> None:
    # A byte every 0.2 s: the whole answer would take 15 s; the deadline is for the whole answer, not its first byte.
    cmd = _program(
        tmp_path,
        f"answer = {ANSWER!r} + '\\n'\n"
        "for line in sys.stdin:\n"
        "    for ch in answer:\n"
        "        sys.stdout.write(ch); sys.stdout.flush(); time.sleep(0.2)\n",
    )
    bot = OutsideBot(cmd, timeout=3)
    assert _france_opening(bot) == []
    assert bot.silent == 1
    [why] = bot.failures
    assert re.fullmatch(
        r"bot python\S* bot\.py answered too slowly: \d+\.\d s, limit 3 s \([\d,]+ bytes of its answer had come\)", why
    ), why


def test_a_late_answer_is_skipped_not_taken_as_the_answer_to_the_next_request(tmp_path: Path) -> None:
    # The first answer stops half-way for 4 s (past the 1 s deadline); the second comes at once.
    cmd = _program(
        tmp_path,
        "first = True\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line)['type'] != 'orders': break\n"
        "    if first:\n"
        '        sys.stdout.write(\'{"orders": ["A par\'); sys.stdout.flush(); time.sleep(4)\n'
        "        sys.stdout.write(' - bur\"]}\\n'); sys.stdout.flush(); first = False\n"
        "    else:\n"
        "        print(json.dumps({'orders': ['A par - pic']}), flush=True)\n",
    )
    variant = load_variant("standard")
    bot = OutsideBot(cmd, timeout=1)
    try:
        assert bot.orders(variant, variant.start, "France", random.Random(0)) == []
        bot.timeout = 30
        second = bot.orders(variant, variant.start, "France", random.Random(0))
    finally:
        bot.close()
    assert [format_order(variant, o) for o in second] == ["A par - pic"]
    assert len(bot.failures) == 1 and "answered too slowly" in bot.failures[0]


def test_an_answer_line_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    cmd = _program(
        tmp_path,
        "for line in sys.stdin:\n    sys.stdout.write('x' * 1_500_000 + '\\n'); sys.stdout.flush()\n",
    )
    bot = OutsideBot(cmd, timeout=30)
    assert _france_opening(bot) == []
    assert bot.failures == [f"bot {bot.label} answered with a line longer than 1,000,000 bytes"]


def test_dippouch_bot_reports_why_the_program_gave_no_orders(tmp_path: Path) -> None:
    cmd = _program(tmp_path, "for line in sys.stdin:\n    print('not json', flush=True)\n")
    r = CliRunner().invoke(app, ["bot", "--variant", "standard", "--years", "1", "--power", "France", "--", *cmd])
    assert r.exit_code == 0, r.output
    assert "answered with something other than a JSON object: 'not json'" in r.output


def test_a_program_that_cannot_start_is_a_clear_error() -> None:
    r = CliRunner().invoke(app, ["bot", "--", "/no/such/bot-program"])
    assert r.exit_code == 2
    assert "cannot start the bot program '/no/such/bot-program'" in r.output
    assert "Traceback" not in r.output


def test_an_outside_bot_sends_a_stored_games_orders_as_a_bot_version(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/g.db"
    store = GameStore(db)
    store_games.create_game(store, "g", "standard", now=T0)
    bot = OutsideBot([sys.executable, str(EXAMPLE)], timeout=20)
    try:
        move = play_outside(store, "g", "germany", bot, now=T0)
    finally:
        bot.close()
    assert move is not None and move.power == "Germany" and move.version == 1
    sub = store_history.phase_record(store, "g", "Spring 1901 Movement", open_ok=True)["submissions"][0]
    assert sub["source"] == "bot" and sub["ready"] and sub["power"] == "Germany"
