"""1000 AD through the outside interfaces: `dippouch adjudicate` (JSON contract) and the game store."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.contract import serve_stream
from dippouch.core.position import Position
from dippouch.core.rules.ad1000 import game_end as core_game_end
from dippouch.game import game_end
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
V = load_variant("1000ad")


def ask(*requests: dict[str, Any]) -> list[dict[str, Any]]:
    out = io.StringIO()
    serve_stream([json.dumps(r) for r in requests], out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_contract_winter_999_placements_then_a_defensive_army_in_spring() -> None:
    (first,) = ask(
        {
            "variant": "1000ad",
            "orders": {
                "British": ["Build 3D Mercia", "Build F London", "Build A yor"],
                "Franks": ["Build A Paris", "Build F bri"],
                "Magyars and Polacks": ["Build D vie", "Build D pra", "Build F lom"],
            },
        }
    )
    results = {r["input"]: r["result"] for r in first["results"]}
    assert results == {
        "Build 3D Mercia": "succeeds",
        "Build F London": "succeeds",
        "Build A yor": "succeeds",
        "Build A Paris": "succeeds",
        "Build F bri": "succeeds",
        "Build D vie": "succeeds",
        "Build D pra": "illegal",  # one defensive army at a time
        "Build F lom": "illegal",  # Lombardy is neutral at the start
    }
    nxt = first["next"]
    assert isinstance(nxt, dict)
    assert nxt["phase"] == "Spring 1000 Movement"
    assert {"power": "British", "unit": "D mer"} in nxt["units"]
    # Spring 1000: the D may not leave the homeland; the army may.
    nxt["orders"] = {"Magyars and Polacks": ["D vie - dra"], "British": ["D mer - yor", "A yor - dum"]}
    (second,) = ask(nxt)
    got = {r["input"]: r["result"] for r in second["results"]}
    assert got["D vie - dra"] == "illegal"
    assert got["D mer - yor"] == "succeeds"
    assert got["A yor - dum"] == "succeeds"


def test_contract_rule_8_reduced_support() -> None:
    request = {
        "variant": "1000ad",
        "phase": "Spring 1001 Movement",
        "units": [
            {"power": "British", "unit": "D mer"},
            {"power": "British", "unit": "A lon"},
            {"power": "Franks", "unit": "A wal"},
            {"power": "Franks", "unit": "F enc"},
            {"power": "Franks", "unit": "F nth"},
            {"power": "Franks", "unit": "A mal"},
        ],
        "orders": {
            "British": ["3D Mercia S A London", "A lon H"],
            "Franks": ["A wal - mer", "F enc - lon", "F nth S F enc - lon", "A mal S F enc - lon"],
        },
    }
    (res,) = ask(request)
    by_input = {r["input"]: r for r in res["results"]}
    # One unsupported attack on the D leaves a support of 2: London holds with 3 against 3.
    assert by_input["3D Mercia S A London"]["result"] == "given"
    assert by_input["F enc - lon"]["result"] == "fails"
    assert by_input["A lon H"]["dislodged"] is False


def test_contract_anarchy_state_round_trips() -> None:
    homes = ["lis", "tol", "val", "and", "mor", "ora", "alg", "bon", "gaf"]
    request = {
        "variant": "1000ad",
        "phase": "Fall 1004 Movement",
        "units": [{"power": "Moors", "unit": "A nav"}, {"power": "Franks", "unit": "A tol"}],
        # Complete ownership: the Franks hold their own home centres and the Moors'.
        "supply_centers": {
            "Moors": ["nav"],
            "Franks": [*homes, "par", "bri", "nor", "rou", "nan", "try", "lyo", "bor", "tou", "rho"],
        },
        "orders": {},
    }
    (res,) = ask(request)
    nxt = res["next"]
    assert isinstance(nxt, dict)
    assert nxt["state"] == {"anarchy": {"Moors": "grace"}}
    # Winter (Franks build), then Spring: the Moors fail to retake a home centre.
    while nxt["phase"] != "Spring 1005 Movement":
        nxt["orders"] = {}
        (res,) = ask(nxt)
        nxt = res["next"]
        assert isinstance(nxt, dict)
    nxt["orders"] = {"Moors": ["A nav H"]}
    (res,) = ask(nxt)
    nxt = res["next"]
    assert isinstance(nxt, dict)
    assert nxt["state"] == {"anarchy": {"Moors": "disorder"}}
    nxt["orders"] = {"Moors": ["A nav - ara"]}
    (res,) = ask(nxt)
    assert res["results"][0]["result"] == "illegal"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    s = GameStore(migrated_sqlite(tmp_path / "games.db"))
    yield s
    s.close()


def test_game_opens_with_placements_and_keeps_units_back(store: GameStore) -> None:
    store_games.create_game(store, "g", "1000ad", now=T0)
    status = store_status.status(store, "g", now=T0)
    assert status.phase == "Winter 999 Adjustments"
    assert all(p.must_act for p in status.powers)
    check = store_submissions.submit(store, "g", "Byzantines", "Build A cro", now=T0)
    assert check.lines[0].error is not None  # outside the homeland: refused at submission
    store_submissions.submit(store, "g", "Byzantines", "Build A apu\nBuild F var/ec\nBuild 3D edi", now=T0)
    store_submissions.submit(store, "g", "Vikings", "Build F hve", now=T0)
    assert store_processing.process(store, "g", now=T0, force=True) == ["Winter 999 Adjustments"]
    status = store_status.status(store, "g", now=T0)
    assert status.phase == "Spring 1000 Movement"
    units = {p.power: p.units for p in status.powers}
    assert units["Byzantines"] == 3 and units["Vikings"] == 1 and units["British"] == 0
    assert stored_report(store, "g", "Winter 999 Adjustments").startswith("Winter 999 Adjustments results")


def _owning(spec: dict[str, int]) -> Position:
    pool = list(V.map.supply_centres)
    owners: dict[int, str] = {}
    for power, n in spec.items():
        for _ in range(n):
            owners[pool.pop()] = power
    return Position(V.calendar.parse("Spring 1006 Movement"), {}, owners, V.start.homes)


@pytest.mark.parametrize(
    "spec",
    [
        {"British": 25, "Moors": 20, "Vikings": 20, "Franks": 5},
        {"British": 24, "Moors": 27, "Vikings": 20, "Franks": 5},
        {"Byzantines": 30, "Moors": 20, "Vikings": 20, "Franks": 5},
        {"Byzantines": 31, "Moors": 20, "Vikings": 20, "Franks": 5},
        {"Byzantines": 30, "Moors": 20, "Vikings": 20},
    ],
)
def test_game_layer_ends_the_game_as_the_rules_say(spec: dict[str, int]) -> None:
    p = _owning(spec)
    core, game = core_game_end(V, p), game_end(V, p)
    want = (core.kind, core.powers) if core else None
    got = (game.kind, game.powers) if game else None
    assert got == want


def test_a_power_in_civil_disorder_is_not_waited_for() -> None:
    from dippouch.core.position import Unit
    from dippouch.game import powers_to_act

    m = V.map
    units = {m.loc("nav"): Unit("Moors", "A", m.loc("nav")), m.loc("par"): Unit("Franks", "A", m.loc("par"))}
    p = Position(V.calendar.parse("Spring 1006 Movement"), units, dict(V.start.centres), V.start.homes)
    assert powers_to_act(V, p) == ["Franks", "Moors"]
    assert powers_to_act(V, p.with_(state={"anarchy": {"Moors": "disorder"}})) == ["Franks"]
    assert powers_to_act(V, p.with_(state={"anarchy": {"Moors": "grace"}})) == ["Franks", "Moors"]


def _moors_in_disorder_in_winter() -> Position:
    """Winter: the Moors, in civil disorder, own nav only and have three units (two removals owed)."""
    from dippouch.core.position import Unit

    m = V.map
    units = {m.province(a).id: Unit("Moors", k, m.loc(a)) for k, a in (("A", "ara"), ("F", "sar"), ("A", "cas"))}
    centres = dict(V.start.centres)
    for h in ("lis", "tol", "val", "and", "mor", "ora", "alg", "bon", "gaf"):
        centres[m.province(h).id] = "Franks"
    centres[m.province("nav").id] = "Moors"
    phase = V.calendar.parse("Winter 1005 Adjustments")
    return Position(phase, units, centres, V.start.homes, state={"anarchy": {"Moors": "disorder"}})


def test_game_layer_refuses_removals_from_a_power_in_civil_disorder() -> None:
    from dippouch.game import check_orders, powers_to_act

    w = _moors_in_disorder_in_winter()
    checks = check_orders(V, w, "Moors", "Remove A cas\nRemove F sar\nRemove A Burgandy")
    want = (
        "Moors: in civil disorder, no orders are taken; nothing is built and removals are made by the "
        "civil-disorder rule"
    )
    assert [(c.order, str(c.error)) for c in checks[:2]] == [("Remove A cas", want), ("Remove F sar", want)]
    assert checks[2].error is not None and "Burgandy" in str(checks[2].error)  # unreadable lines keep their own message
    # Out of disorder the same removals are accepted, and the Moors are waited for.
    calm = w.with_(state={})
    assert all(c.accepted for c in check_orders(V, calm, "Moors", "Remove A cas\nRemove F sar"))
    assert "Moors" in powers_to_act(V, calm)
    assert "Moors" not in powers_to_act(V, w)


def test_contract_refuses_removals_from_a_power_in_civil_disorder() -> None:
    request = {
        "variant": "1000ad",
        "phase": "Winter 1005 Adjustments",
        "units": [{"power": "Moors", "unit": u} for u in ("A ara", "F sar", "A cas")],
        "supply_centers": {"Moors": ["nav"]},
        "state": {"anarchy": {"Moors": "disorder"}},
        "orders": {"Moors": ["Remove A cas"]},
    }
    (res,) = ask(request)
    rows = res["results"]
    assert isinstance(rows, list)
    sent = [r for r in rows if not r.get("automatic")]
    assert [r["result"] for r in sent] == ["illegal"]
    assert "civil disorder" in sent[0]["reason"]
    nxt = res["next"]
    assert isinstance(nxt, dict)
    assert sorted(u["unit"] for u in nxt["units"]) == ["A cas"]  # the rule removed sar and ara, not cas
