"""``dippouch adjudicate`` for Hundred and Hundred3: their own phase names, options and rules over JSON."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import adjudicate_lines as run
from helpers import adjudicate_one as one
from helpers import results_by_input as by_input


def test_hundred_turns_and_the_first_adjustment() -> None:
    first = one({"variant": "hundred", "orders": {"England": ["A Aqu-Cat"]}})
    assert by_input(first)["A Aqu-Cat"]["order"] == "A guy - ara"
    assert first["next"]["phase"] == "1430 Movement"
    second = one({**first["next"], "orders": {}})
    assert second["next"]["phase"] == "1430 Adjustments"
    assert second["next"]["home_centers"] == {"Burgundy": [], "England": [], "France": []}
    third = one({**second["next"], "orders": {"France": ["Remove A par"]}})
    assert by_input(third)["Remove A par"]["result"] == "succeeds"
    assert third["next"]["phase"] == "1435 Movement"
    assert {"power": "France", "unit": "A pro"} in third["next"]["units"]


def test_judge_labels_option_over_json() -> None:
    first = one({"variant": "hundred", "options": {"judge_calendar": True}, "orders": {}})
    assert first["next"]["phase"] == "Fall 1425 Movement"
    assert first["next"]["options"] == {"judge_calendar": True}
    second = one({**first["next"], "orders": {}})
    assert second["next"]["phase"] == "Winter 1425 Adjustments"
    third = one({**second["next"], "orders": {"France": ["Remove A pro"]}})
    assert third["next"]["phase"] == "Spring 1426 Movement"


def test_phase_names_are_read_in_each_calendar() -> None:
    got = one({"variant": "hundred3", "phase": "1440 Movement", "orders": {}})
    assert got["next"]["phase"] == "1445 Movement"  # nobody has anything to adjust
    got = one({"variant": "hundred3", "phase": "1435 Movement", "orders": {}})
    assert got["next"]["phase"] == "1440 Movement"
    (bad,) = run({"variant": "hundred3", "phase": "1435 Adjustments", "orders": {}})
    assert "1440" in bad["error"] and "phase" in bad["error"]
    (bad,) = run({"variant": "hundred3", "phase": "Spring 1425 Movement", "orders": {}})
    assert "error" in bad
    got = one({"variant": "hundred3", "options": {"judge_calendar": True}, "phase": "Fall 1430 Movement"})
    assert got["next"]["phase"] == "Spring 1431 Movement"


def test_rule_6d_option_and_the_london_calais_examples() -> None:
    start = one({"variant": "hundred", "options": {"english_channel": True}, "orders": {}})
    units = {(u["power"], u["unit"]) for u in start["next"]["units"]}
    assert ("England", "F ech") in units and ("England", "F dev") not in units
    assert "dev" in start["next"]["supply_centers"]["England"]
    example2 = one(
        {
            "variant": "hundred3",
            "phase": "1425 Movement",
            "units": [
                {"power": "England", "unit": "A lon"},
                {"power": "England", "unit": "F dov"},
                {"power": "Burgundy", "unit": "A fla"},
            ],
            "orders": {"England": ["LON-CAL", "DOV s LON-CAL"], "Burgundy": ["FLA-CAL"]},
        }
    )
    got = by_input(example2)
    assert got["LON-CAL"]["result"] == "succeeds"
    assert got["DOV s LON-CAL"]["result"] == "given"
    assert got["FLA-CAL"]["result"] == "fails"


def test_the_installed_command() -> None:
    request = json.dumps({"variant": "hundred3", "orders": {"France": ["A Paris - Artois"]}})
    proc = subprocess.run(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "adjudicate"],
        input=request + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    response = json.loads(proc.stdout)
    assert response["next"]["phase"] == "1430 Movement"
    [r] = [r for r in response["results"] if r["input"]]
    assert r["order"] == "A par - cal" and r["result"] == "fails"  # England's A Calais holds
