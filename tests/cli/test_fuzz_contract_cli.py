"""Fuzzing kept in the test suite: the adjudication contract's JSON requests and the CLI's arguments.

Order text is fuzzed in test_notation.py (the reader) and test_arrival_property.py (the arrival check
against the adjudicator, all six variants). Here, with a fixed budget and derandomized so CI runs the same
cases every time:

* contract requests built from the request's own keys with values of every JSON shape, and near-valid
  ones (real variant names, units, phases): every line gets exactly one answer, an ``error`` or
  ``results``, never an internal error, and the answer can always be written as UTF-8;
* the same requests as one JSON Lines stream through ``dippouch adjudicate``: one answer a line, in order;
* CLI argument lists for the game commands, with the typos and junk a coordinator types: each ends with
  status 0, 1 or 2 and never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dbsupport import migrated_sqlite
from dippouch.cli import app, register_commands
from dippouch.contract import encode_response, handle_line

register_commands()
runner = CliRunner()

BUDGET = settings(
    derandomize=True,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

VARIANTS = ["standard", "1897", "hundred3", "hundred", "1000ad", "w3k"]
WORDS = [
    "A",
    "F",
    "D",
    "par",
    "bur",
    "stp/nc",
    "lon",
    "wal",
    "-",
    "S",
    "C",
    "H",
    "Build",
    "Remove",
    "convert",
    "under orders of",
    "Crown",
    "France",
    "\u2019",
    ">",
    "\ud800",
    "Spring 1901 Movement",
    "Winter 999",
]

SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(WORDS + VARIANTS)
)
JSONISH = st.recursive(
    SCALAR,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=15,
)
ORDER_TEXT = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join) | st.text(max_size=40)
UNIT = st.fixed_dictionaries(
    {
        "power": st.sampled_from(["France", "England", "Crown", "Moors", "x"]),
        "unit": st.sampled_from(["A par", "F stp", "F stp/nc", "A xxx", "D ber", "F lon", ""]),
    }
)
REQUEST = st.fixed_dictionaries(
    {"variant": st.sampled_from(VARIANTS) | SCALAR},
    optional={
        "orders": st.dictionaries(
            st.sampled_from(["France", "England", "Crown", "\ud800"]),
            st.lists(ORDER_TEXT, max_size=4) | ORDER_TEXT | JSONISH,
            max_size=3,
        )
        | JSONISH,
        "units": st.lists(UNIT | JSONISH, max_size=4) | JSONISH,
        "supply_centers": st.dictionaries(
            st.sampled_from(["France", "Crown", "y"]),
            st.lists(st.sampled_from(["par", "lon", "zz", ""]), max_size=3),
            max_size=2,
        )
        | JSONISH,
        "home_centers": JSONISH,
        "dislodged": st.lists(JSONISH, max_size=2) | JSONISH,
        "phase": st.sampled_from(
            [
                "Spring 1901 Movement",
                "Fall 1901 Retreats",
                "Winter 1901 Adjustments",
                "Summer 1642 Movement",
                "Winter 999 Adjustments",
                "Sprung 1",
            ]
        )
        | SCALAR,
        "options": st.dictionaries(
            st.sampled_from(["judge_calendar", "build_any_owned", "english_channel", "x"]), JSONISH, max_size=2
        )
        | JSONISH,
        "state": st.dictionaries(
            st.sampled_from(["w3k_converting", "w3k_supply", "w3k_proxies", "anarchy", "z"]), JSONISH, max_size=2
        )
        | JSONISH,
    },
)


def _check_answer(answer: dict[str, Any], line: str) -> None:
    assert isinstance(answer, dict), answer
    assert ("error" in answer) != ("results" in answer), (line[:200], answer)
    assert "internal error" not in json.dumps(answer), (line[:200], answer)
    encoded = encode_response(answer)
    encoded.encode("utf-8")
    assert "\n" not in encoded


@BUDGET
@given(request=REQUEST | JSONISH)
def test_every_contract_request_gets_one_clean_answer(request: Any) -> None:
    line = json.dumps(request)
    _check_answer(handle_line(line), line)


@settings(derandomize=True, deadline=None, max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(requests=st.lists(REQUEST, min_size=1, max_size=12))
def test_a_stream_of_requests_gets_one_answer_a_line_in_order(requests: list[Any]) -> None:
    lines = [json.dumps(r) for r in requests]
    # Interleave a valid request after each, so a lost or extra answer shifts every later one.
    valid = json.dumps({"variant": "standard", "orders": {"England": ["F lon - nth"]}})
    sent = [x for line in lines for x in (line, valid)]
    r = runner.invoke(app, ["adjudicate"], input="".join(x + "\n" for x in sent))
    assert r.exit_code == 0, r.output[-2000:]
    answers = [json.loads(x) for x in r.output.splitlines()]
    assert len(answers) == len(sent)
    for i, (line, answer) in enumerate(zip(sent, answers, strict=True)):
        if line is valid:
            assert "results" in answer, (i, answer)
        else:
            _check_answer(answer, line)


GAME_COMMANDS = [
    "new",
    "submit",
    "status",
    "show",
    "process",
    "extend",
    "pause",
    "resume",
    "rollback",
    "report",
    "history",
    "replay",
    "vote",
    "calendar",
    "games",
    "players",
    "upgrade-variant",
    "variants",
]
ARG = st.sampled_from(
    [
        "g",
        "h",
        "France",
        "Frnace",
        "Crown",
        "w3k",
        "standrd",
        "Spring 1901 Movement",
        "Fall 1901",
        "0d",
        "12d",
        "-3d",
        "99999999d",
        "1s",
        "--force",
        "--all",
        "--ready",
        "--abbrev",
        "--json",
        "--variant",
        "-v",
        "--movement",
        "--now",
        "2026-01-01T00:00",
        "2026-13-45",
        "--option",
        "judge_calendar=1",
        "x=",
        "--id",
        "99999999999999999999",
        "7",
        "-1",
        "--stands",
        "--received",
        "--tz",
        "Mars/Olympus",
        "--at",
        "25:00",
        "--missed",
        "--position",
        "nofile.json",
        "-",
        "",
        " ",
        "\u2019",
        "yes",
    ]
) | st.text(max_size=12)


@settings(
    derandomize=True,
    deadline=None,
    max_examples=80,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(command=st.sampled_from(GAME_COMMANDS), args=st.lists(ARG, max_size=5), stdin=ORDER_TEXT)
def test_cli_arguments_end_in_a_message_never_a_traceback(
    tmp_path: Path, command: str, args: list[str], stdin: str
) -> None:
    # One database for every example: commands act on what came before. Game g is made once, in a copy of the
    # migrated template: no command fuzzed here deletes a game, so making it again each example was refused
    # every time after the first ("already exists") and checked nothing.
    path = tmp_path / "g.db"
    if not path.exists():
        db = migrated_sqlite(path)
        made = runner.invoke(app, ["new", "g", "--db", db, "--now", "2026-01-01T00:00"])
        assert made.exit_code == 0, made.output
    db = f"sqlite:///{path}"
    # Standard input is bytes: text that cannot be UTF-8 (a lone surrogate) arrives as the bytes it would be.
    r = runner.invoke(app, [command, *args, "--db", db], input=stdin.encode("utf-8", "surrogatepass"))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise AssertionError(f"dippouch {command} {args!r}: {r.exception!r}") from r.exception
    assert r.exit_code in (0, 1, 2), (command, args, r.exit_code, r.output[-1000:])
    assert "Traceback" not in r.output
