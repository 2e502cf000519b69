"""The adjudication contract end to end: ``dippouch adjudicate`` reading JSON Lines, one response a line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import dippouch.cli.adjudicate  # noqa: F401  (registers the command)
from dippouch.cli import app
from helpers import adjudicate_lines as run
from helpers import adjudicate_one as one
from helpers import results_by_input as by_input


def units(position: dict[str, Any]) -> set[tuple[str, str]]:
    return {(u["power"], u["unit"]) for u in position["units"]}


def test_empty_orders_adjudicate_the_first_phase() -> None:
    response = one({"variant": "standard", "orders": {}})
    results = response["results"]
    assert len(results) == 22
    assert all(r["automatic"] and r["input"] is None and r["result"] == "stands" for r in results)
    assert {
        "power": "Russia",
        "input": None,
        "order": "F stp/sc H",
        "unit": {"type": "F", "location": "stp/sc"},
        "result": "stands",
        "dislodged": False,
        "destroyed": False,
        "automatic": True,
        "reason": results[[r["order"] for r in results].index("F stp/sc H")]["reason"],
    } in results
    nxt = response["next"]
    assert nxt["variant"] == "standard"
    assert nxt["phase"] == "Fall 1901 Movement"  # no one dislodged: the retreat phase is skipped
    assert ("Russia", "F stp/sc") in units(nxt) and len(nxt["units"]) == 22
    assert nxt["dislodged"] == []
    assert nxt["supply_centers"]["Russia"] == ["mos", "sev", "stp", "war"]


def test_movement_request_in_the_issue_shape() -> None:
    response = one(
        {
            "variant": "standard",
            "phase": "Spring 1901 Movement",
            "units": [
                {"power": "England", "unit": "F North Sea"},
                {"power": "England", "unit": "A London"},
                {"power": "Russia", "unit": "F stp/sc"},
            ],
            "supply_centers": {"England": ["lon", "lvp"]},
            "home_centers": {"England": ["lon", "lvp", "edi"]},
            "orders": {
                "England": ["F North Sea Convoys A London - Belgium", "A London - Belgium"],
                "Russia": ["F stp/sc - bot"],
            },
        }
    )
    got = by_input(response)
    convoy = got["F North Sea Convoys A London - Belgium"]
    assert convoy == {
        "power": "England",
        "input": "F North Sea Convoys A London - Belgium",
        "order": "F nth C A lon - bel",
        "unit": {"type": "F", "location": "nth"},
        "result": "available",
        "dislodged": False,
        "destroyed": False,
        "automatic": False,
        "reason": convoy["reason"],
    }
    assert got["A London - Belgium"]["order"] == "A lon - bel"
    assert got["A London - Belgium"]["result"] == "succeeds"
    assert got["F stp/sc - bot"]["result"] == "succeeds"
    assert units(response["next"]) == {("England", "F nth"), ("England", "A bel"), ("Russia", "F bot")}
    assert response["next"]["supply_centers"] == {"England": ["lon", "lvp"]}  # Spring: no change of ownership
    assert response["next"]["home_centers"]["England"] == ["edi", "lon", "lvp"]


def test_unreadable_order_is_illegal_and_the_unit_holds() -> None:
    response = one({"variant": "standard", "orders": {"France": ["A Par - Burgandy", "Bogus words"]}})
    got = by_input(response)
    bad = got["A Par - Burgandy"]
    assert bad["result"] == "illegal" and bad["order"] is None
    assert bad["reason"] == "no province 'Burgandy'; did you mean Burgundy (bur)?"
    assert bad["unit"] == {"type": "A", "location": "par"}
    assert got["Bogus words"]["result"] == "illegal" and got["Bogus words"]["unit"] is None
    # The army holds: its automatic hold is folded into the illegal entry, not reported twice.
    assert not [r for r in response["results"] if r["automatic"] and r["unit"] == {"type": "A", "location": "par"}]
    assert ("France", "A par") in units(response["next"])


def test_orders_may_be_a_pasted_block() -> None:
    response = one(
        {"variant": "standard", "orders": {"French": "A Par - Bur  # go\n\n// support\nA Mar S A Par - Bur\n"}}
    )
    got = by_input(response)
    assert got["A Par - Bur"]["result"] == "succeeds"
    assert got["A Mar S A Par - Bur"]["order"] == "A mar S A par - bur"


def test_retreat_request() -> None:
    response = one(
        {
            "variant": "standard",
            "phase": "Fall 1901 Retreats",
            "units": [{"power": "France", "unit": "A mun"}, {"power": "Austria", "unit": "A tyr"}],
            "dislodged": [
                {"power": "Germany", "unit": "A mun", "retreats": ["boh", "kie", "ruh", "sil"]},
                {"power": "Germany", "unit": "F kie", "retreats": []},
            ],
            "orders": {"Germany": ["A Mun - Boh"]},
        }
    )
    got = by_input(response)
    assert got["A Mun - Boh"]["order"] == "A mun R boh"  # a move in a retreat phase is a retreat
    assert got["A Mun - Boh"]["result"] == "succeeds"
    destroyed = [r for r in response["results"] if r["automatic"]]
    # The fleet with nowhere to go is disbanded by the adjudicator itself.
    assert [(r["power"], r["unit"], r["input"], r["order"]) for r in destroyed] == [
        ("Germany", {"type": "F", "location": "kie"}, None, "F kie D")
    ]
    nxt = response["next"]
    assert ("Germany", "A boh") in units(nxt) and ("Germany", "F kie") not in units(nxt)
    assert nxt["phase"] == "Winter 1901 Adjustments"
    assert nxt["supply_centers"]["France"] == sorted(["bre", "mar", "par", "mun"])  # Fall: ownership changes


def test_adjustment_request() -> None:
    response = one(
        {
            "variant": "standard",
            "phase": "Winter 1901 Adjustments",
            "units": [
                {"power": "Russia", "unit": "A mos"},
                {"power": "Turkey", "unit": "A con"},
                {"power": "Turkey", "unit": "A bul"},
                {"power": "Turkey", "unit": "F bla"},
            ],
            "supply_centers": {"Russia": ["mos", "sev", "stp", "war"], "Turkey": ["con", "ank"]},
            "orders": {"Russia": ["Build F stp/nc", "B A war", "Build A mos"]},
        }
    )
    got = by_input(response)
    assert got["Build F stp/nc"] == {
        "power": "Russia",
        "input": "Build F stp/nc",
        "order": "Build F stp/nc",
        "unit": {"type": "F", "location": "stp/nc"},
        "result": "succeeds",
        "dislodged": False,
        "destroyed": False,
        "automatic": False,
        "reason": got["Build F stp/nc"]["reason"],
    }
    assert got["B A war"]["result"] == "succeeds"
    assert got["Build A mos"]["result"] in ("fails", "illegal")  # occupied
    # Turkey owes one removal and ordered none: civil disorder removes one unit, automatically.
    removals = [r for r in response["results"] if r["automatic"] and r["power"] == "Turkey"]
    assert len(removals) == 1 and removals[0]["input"] is None and removals[0]["order"].startswith("Remove ")
    nxt = response["next"]
    assert nxt["phase"] == "Spring 1902 Movement"
    assert {("Russia", "F stp/nc"), ("Russia", "A war"), ("Russia", "A mos")} <= units(nxt)
    assert len([u for u in nxt["units"] if u["power"] == "Turkey"]) == 2


def test_errors_do_not_stop_the_stream() -> None:
    responses = run(
        {"variant": "standard", "orders": {}},
        "this is not json",
        "[1, 2]",
        {"variant": "standrd"},
        {"variant": "standard", "units": [{"power": "England", "unit": "A Burgandy"}]},
        {"variant": "standard", "orders": {"Engand": ["F lon - nth"]}},
        {"variant": "standard", "ordres": {}},
        {"variant": "standard", "phase": "Sprung 1901"},
        "",
        {"variant": "standard", "orders": {"England": ["F lon - nth"]}},
    )
    assert len(responses) == 9  # the blank line gets no answer
    assert "results" in responses[0] and "results" in responses[-1]
    errors = [r["error"] for r in responses[1:-1]]
    assert errors[0].startswith("not valid JSON")
    assert "must be a JSON object" in errors[1]
    assert "did you mean 'standard'?" in errors[2]
    assert errors[3] == "units[0].unit: no province 'Burgandy'; did you mean Burgundy (bur)?"
    assert errors[4].startswith("orders.Engand: no power 'Engand'") and "England" in errors[4]
    assert "unknown key 'ordres'" in errors[5]
    assert errors[6].startswith("phase: no phase 'Sprung 1901'")


def test_next_round_trips_through_several_phases() -> None:
    """Spring, Fall with a dislodgement, its retreat, Winter builds: each ``next`` fed back with orders."""
    r1 = one({"variant": "standard", "orders": {"Germany": ["A mun - bur"], "England": ["F lon - nth"]}})
    assert r1["next"]["phase"] == "Fall 1901 Movement"
    r2 = one({**r1["next"], "orders": {"France": ["A mar - bur", "A par S A mar - bur"], "England": ["F nth - nwy"]}})
    assert by_input(r2)["A mar - bur"]["result"] == "succeeds"
    nxt = r2["next"]
    assert nxt["phase"] == "Fall 1901 Retreats"
    (dislodged,) = nxt["dislodged"]
    assert dislodged["power"] == "Germany" and dislodged["unit"] == "A bur"
    assert "mar" not in dislodged["retreats"] and "par" not in dislodged["retreats"]  # attacker's origin, occupied
    assert {"bel", "gas", "pic", "ruh", "mun"} <= set(dislodged["retreats"])
    dislodged_results = [r for r in r2["results"] if r["dislodged"]]
    assert [r["unit"] for r in dislodged_results] == [{"type": "A", "location": "bur"}]
    r3 = one({**nxt, "orders": {"Germany": ["A Bur R Ruh"]}})
    assert by_input(r3)["A Bur R Ruh"]["result"] == "succeeds"
    nxt = r3["next"]
    assert nxt["phase"] == "Winter 1901 Adjustments"
    assert "nwy" in nxt["supply_centers"]["England"]
    assert nxt["dislodged"] == []
    r4 = one({**nxt, "orders": {"England": ["Build F lon"]}})
    assert by_input(r4)["Build F lon"]["result"] == "succeeds"
    nxt = r4["next"]
    assert nxt["phase"] == "Spring 1902 Movement"
    assert {("England", "F lon"), ("England", "F nwy"), ("Germany", "A ruh"), ("France", "A bur")} <= units(nxt)
    r5 = one({**nxt, "orders": {"England": ["F nwy - bar"]}})
    assert by_input(r5)["F nwy - bar"]["result"] == "succeeds"
    assert r5["next"]["phase"] == "Fall 1902 Movement"


def test_file_argument(tmp_path: Path) -> None:
    f = tmp_path / "requests.jsonl"
    f.write_text(json.dumps({"variant": "standard", "orders": {}}) + "\nnot json\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["adjudicate", str(f)])
    assert result.exit_code == 0
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert "results" in lines[0] and "error" in lines[1]


def test_responses_are_flushed_line_by_line() -> None:
    """A caller can hold a conversation: each answer arrives before the next request is written."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "adjudicate"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps({"variant": "standard", "orders": {}}) + "\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        proc.stdin.write(json.dumps({**first["next"], "orders": {"France": ["A par - bur"]}}) + "\n")
        proc.stdin.flush()
        second = json.loads(proc.stdout.readline())
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert first["next"]["phase"] == "Fall 1901 Movement"
    assert by_input(second)["A par - bur"]["result"] == "succeeds"
    assert proc.returncode == 0


def test_every_variant_adjudicates_its_first_phase_from_nothing() -> None:
    from dippouch.catalog import load_variant, variant_names

    names = variant_names()
    responses = run(*({"variant": name, "orders": {}} for name in names))
    assert len(responses) == len(names)
    for name, response in zip(names, responses, strict=True):
        assert "error" not in response, (name, response)
        v = load_variant(name)
        assert response["next"]["variant"] == name
        assert response["next"]["phase"] != v.calendar.name(v.start.phase)
        assert all(r["automatic"] and r["input"] is None for r in response["results"])


def test_undecodable_bytes_and_a_closed_reader_do_not_crash() -> None:
    cmd = [sys.executable, "-c", "from dippouch.cli import main; main()", "adjudicate"]
    request = json.dumps({"variant": "standard", "orders": {"France": ["A Par - Bur"]}}).encode()
    bad = b'{"variant": "standard", "orders": {"France": ["A Par - B\xffr"]}}'
    done = subprocess.run(cmd, input=bad + b"\n" + request + b"\n", capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == b""
    first, second = (json.loads(line) for line in done.stdout.decode("utf-8").splitlines())
    assert by_input(first)["A Par - B\ufffdr"]["result"] == "illegal"
    assert by_input(second)["A Par - Bur"]["result"] == "succeeds"
    # A reader that stops early (like `head`) ends the stream without a traceback.
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    proc.stdout.close()
    _, err = proc.communicate(input=(request + b"\n") * 50, timeout=60)
    assert b"Traceback" not in err
