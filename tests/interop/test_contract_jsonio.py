"""Positions <-> the adjudication contract's JSON: round trips, defaults, and errors that name the bad value."""

from __future__ import annotations

import json

import pytest

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase
from dippouch.core.jsonio import JsonInputError, position_from_json, position_to_json
from dippouch.core.position import Dislodged, Unit

V = load_variant("standard")
M = V.map


def test_start_position_round_trips() -> None:
    data = position_to_json(V, V.start)
    assert data["phase"] == "Spring 1901 Movement"
    assert {"power": "Russia", "unit": "F stp/sc"} in data["units"]
    assert data["supply_centers"]["Russia"] == ["mos", "sev", "stp", "war"]
    assert data["home_centers"]["England"] == ["edi", "lon", "lvp"]
    assert data["dislodged"] == []
    assert "state" not in data
    assert position_from_json(V, json.loads(json.dumps(data))) == V.start


def test_everything_omitted_is_the_start() -> None:
    assert position_from_json(V, {}) == V.start


def test_retreat_phase_with_state_round_trips() -> None:
    pos = V.start.with_(
        phase=Phase(1902, 3),
        units={M.loc("bur"): Unit("France", "A", M.loc("bur"))},
        centres={M.loc("par"): "France", M.loc("mun"): "France"},
        dislodged={
            M.loc("mun"): Dislodged(
                Unit("Germany", "A", M.loc("mun")), frozenset({M.loc("boh"), M.loc("sil")}), M.loc("bur")
            ),
            M.loc("stp"): Dislodged(Unit("Russia", "F", M.loc("stp/sc")), frozenset({M.loc("fin")})),
        },
        state={"anarchy": {"Germany": "grace"}},
    )
    data = position_to_json(V, pos)
    assert data["phase"] == "Fall 1902 Retreats"
    assert data["dislodged"] == [
        {"power": "Germany", "unit": "A mun", "retreats": ["boh", "sil"], "attacker_from": "bur"},
        {"power": "Russia", "unit": "F stp/sc", "retreats": ["fin"]},
    ]
    assert data["state"] == {"anarchy": {"Germany": "grace"}}
    assert position_from_json(V, json.loads(json.dumps(data))) == pos


def test_tolerant_reading() -> None:
    pos = position_from_json(
        V,
        {
            "phase": "fall 1903 movement",
            "units": [
                {"power": "english", "unit": "F North Sea"},
                {"power": "R", "unit": "F St Petersburg (north coast)"},
                {"power": "France", "unit": "Paris"},  # inland: only an army can be there
                {"power": "France", "unit": "Mid-Atlantic Ocean"},  # only a fleet can be at sea
            ],
            "supply_centers": {"England": ["London"]},
        },
    )
    assert pos.phase == Phase(1903, 2)
    assert pos.units[M.loc("nth")] == Unit("England", "F", M.loc("nth"))
    assert pos.units[M.loc("stp")] == Unit("Russia", "F", M.loc("stp/nc"))
    assert pos.units[M.loc("par")] == Unit("France", "A", M.loc("par"))
    assert pos.units[M.loc("mao")] == Unit("France", "F", M.loc("mao"))
    assert pos.centres == {M.loc("lon"): "England"}  # given centres are the complete ownership
    assert pos.homes == V.start.homes


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"units": [{"power": "England", "unit": "F stp"}]}, "units[0].unit: a fleet in St Petersburg stands on"),
        ({"units": [{"power": "Engl", "unit": "F lon"}]}, "units[0].power: no power 'Engl'"),
        ({"units": [{"power": "England", "unit": "A nth"}]}, "units[0].unit: an army cannot stand in North Sea"),
        ({"units": [{"power": "England", "unit": "A Burgandy"}]}, "did you mean Burgundy (bur)?"),
        ({"units": [{"power": "England", "unit": "lon"}]}, "say which unit is in London"),
        (
            {"units": [{"power": "England", "unit": "A lon"}, {"power": "France", "unit": "F lon"}]},
            "units[1]: F lon and A lon of England are both in London",
        ),
        ({"units": "A lon"}, "units: must be a list"),
        ({"units": ["A lon"]}, "units[0]: must be an object"),
        ({"phase": "Sprung 1901"}, "phase: no phase 'Sprung 1901'"),
        ({"phase": 1901}, "phase: must be a phase name"),
        ({"supply_centers": {"England": ["nth"]}}, "supply_centers.England[0]: North Sea is not a supply centre"),
        ({"supply_centers": {"England": ["lon"], "France": ["lon"]}}, "London is also owned by England"),
        ({"dislodged": [{"power": "England", "unit": "A lon"}]}, 'dislodged[0]: needs "retreats"'),
        (
            {"dislodged": [{"power": "England", "unit": "A lon", "retreats": ["Walse"]}]},
            "dislodged[0].retreats[0]: no province 'Walse'; did you mean Wales (wal)?",
        ),
        ({"state": []}, "state: must be a JSON object"),
    ],
)
def test_errors_name_the_bad_value(data: dict[str, object], message: str) -> None:
    with pytest.raises(JsonInputError) as info:
        position_from_json(V, data)
    assert message in str(info.value)
