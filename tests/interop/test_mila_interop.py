"""MILA ``diplomacy`` saved games: conversion both ways, checked against the MILA package itself."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.notation import parse_order
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.interop.mila import (
    MilaFormatError,
    PhaseRecord,
    from_mila_saved_game,
    order_from_mila,
    order_to_mila,
    phase_to_mila,
    to_mila_saved_game,
)

diplomacy = pytest.importorskip("diplomacy", reason="MILA diplomacy 1.1.2 is in the dev extra")
from diplomacy import Game  # noqa: E402
from diplomacy.utils.export import from_saved_game_format, to_saved_game_format  # noqa: E402
from diplomacy.utils.game_phase_data import GamePhaseData  # noqa: E402


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


def _sorted_lists(d: dict[str, Any]) -> dict[str, list[str]]:
    return {k: sorted(v) for k, v in d.items()}


def _rules_agree(game: Any, order: str) -> bool:
    """Leave out the one kind of order where MILA knowingly departs from DATC v3.2's preferred rule.

    ``A LVP - CLY VIA`` with no convoy ordered: MILA falls back to the land route, DATC v3.2 (and dippouch)
    makes the move fail ("via convoy" to an adjacent province means the convoy and nothing else).
    """
    words = order.split()
    if words[-1] != "VIA":
        return True
    return not game.map.abuts("A", words[1], "-", words[3])


def play_mila_random(seed: int, last_phase: str) -> Any:
    """A MILA game of uniformly random legal orders, builds and removals limited to what is allowed."""
    rng = random.Random(seed)
    game = Game()
    while not game.is_game_done and game.get_current_phase() != last_phase:
        possible = {
            loc: [o for o in orders if _rules_agree(game, o)] for loc, orders in game.get_all_possible_orders().items()
        }
        for power_name, locs in sorted(game.get_orderable_locations().items()):
            if game.get_current_phase().endswith("A"):
                power = game.get_power(power_name)
                need = abs(len(power.centers) - len(power.units))
                locs = sorted(locs)
                rng.shuffle(locs)
                locs = locs[:need]
            orders = [rng.choice(sorted(possible[loc])) for loc in sorted(locs) if possible[loc]]
            game.set_orders(power_name, orders)
        game.process()
    return game


# --- orders ----------------------------------------------------------------------------------------------


# Orders as a table of (phase kind, MILA text, the order with locations by abbreviation); ``_ids`` turns the
# abbreviations into the map's location ids, which is what the parser returns.
ORDER_TABLE: list[tuple[PhaseKind, str, Callable[[Callable[[str], int]], Order]]] = [
    (PhaseKind.MOVEMENT, "A PAR H", lambda i: Hold("A", i("par"))),
    (PhaseKind.MOVEMENT, "A PAR - BUR", lambda i: Move("A", i("par"), i("bur"))),
    (PhaseKind.MOVEMENT, "F STP/SC - BOT", lambda i: Move("F", i("stp/sc"), i("bot"))),
    (PhaseKind.MOVEMENT, "F MAO - SPA/NC", lambda i: Move("F", i("mao"), i("spa/nc"))),
    (PhaseKind.MOVEMENT, "A LON - BEL VIA", lambda i: Move("A", i("lon"), i("bel"), True)),
    (PhaseKind.MOVEMENT, "A MUN S A SIL - BER", lambda i: Support("A", i("mun"), "A", i("sil"), i("ber"))),
    (PhaseKind.MOVEMENT, "A MUN S A BER", lambda i: Support("A", i("mun"), "A", i("ber"), None)),
    (PhaseKind.MOVEMENT, "F NTH C A LON - BEL", lambda i: Convoy("F", i("nth"), i("lon"), i("bel"))),
    (PhaseKind.RETREATS, "A MUN R BOH", lambda i: Retreat("A", i("mun"), i("boh"))),
    (PhaseKind.RETREATS, "A MUN D", lambda i: Disband("A", i("mun"))),
    (PhaseKind.ADJUSTMENTS, "A PAR B", lambda i: Build("A", i("par"))),
    (PhaseKind.ADJUSTMENTS, "F STP/NC B", lambda i: Build("F", i("stp/nc"))),
    (PhaseKind.ADJUSTMENTS, "F LON D", lambda i: Disband("F", i("lon"))),
    (PhaseKind.ADJUSTMENTS, "WAIVE", lambda i: Waive()),
]


@pytest.mark.parametrize(("kind", "text", "expected"), ORDER_TABLE, ids=[t[1] for t in ORDER_TABLE])
def test_orders_read_and_write_mila_syntax(
    std: Variant, kind: PhaseKind, text: str, expected: Callable[[Callable[[str], int]], Order]
) -> None:
    want = expected(std.map.loc)
    got = order_from_mila(std, kind, text)
    assert got == want
    position = std.start.with_(
        phase=std.calendar.parse({"movement": "S1901M", "retreats": "S1901R"}.get(kind, "W1901A"))
    )
    assert order_to_mila(std, position, got) == text


def test_order_without_unit_type_takes_it_from_the_board(std: Variant) -> None:
    par, bur, mun, ber = (std.map.loc(x) for x in ("par", "bur", "mun", "ber"))
    assert order_to_mila(std, std.start, Move(None, par, bur)) == "A PAR - BUR"
    assert order_to_mila(std, std.start, Support(None, mun, None, ber)) == "A MUN S A BER"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("A PAR", "too short"),
        ("A XYZ - BUR", "no province or coast 'XYZ'"),
        ("Q PAR H", "should read like 'A PAR'"),
        ("A PAR S A BUR -", "not a MILA order"),
        ("A PAR R BUR", "not a MILA order"),
    ],
)
def test_bad_orders_say_what_is_wrong(std: Variant, text: str, fragment: str) -> None:
    with pytest.raises(MilaFormatError) as e:
        order_from_mila(std, PhaseKind.MOVEMENT, text, "phases[3].orders.FRANCE")
    assert fragment in str(e.value)
    assert "phases[3].orders.FRANCE" in str(e.value)


# --- whole games -----------------------------------------------------------------------------------------


def test_mila_game_survives_a_round_trip_through_dippouch(std: Variant) -> None:
    game = play_mila_random(seed=7, last_phase="S1905M")
    saved = json.loads(json.dumps(to_saved_game_format(game)))
    records = from_mila_saved_game(std, saved)
    assert len(records) == len(saved["phases"])
    assert all(isinstance(r, PhaseRecord) for r in records)
    back = json.loads(json.dumps(to_mila_saved_game(std, records, game_id="round-trip")))
    for theirs, ours in zip(saved["phases"], back["phases"], strict=True):
        assert ours["name"] == theirs["name"]
        for key in ("units", "centers", "homes"):
            assert _sorted_lists(ours["state"][key]) == _sorted_lists(theirs["state"][key]), (theirs["name"], key)
        assert ours["state"]["retreats"] == theirs["state"]["retreats"], theirs["name"]
        assert ours["state"]["builds"] == theirs["state"]["builds"], theirs["name"]
        played = {p: sorted(o) for p, o in theirs["orders"].items() if o is not None}
        assert {p: sorted(o) for p, o in ours["orders"].items() if o is not None} == played
    reloaded = from_saved_game_format(back)
    assert reloaded.get_current_phase() == game.get_current_phase()
    assert _sorted_lists(reloaded.get_units()) == _sorted_lists(game.get_units())
    assert _sorted_lists(reloaded.get_centers()) == _sorted_lists(game.get_centers())


def test_finished_games_keep_their_final_position(std: Variant) -> None:
    drawn = Game()
    drawn.process()
    drawn.draw()
    records = from_mila_saved_game(std, to_saved_game_format(drawn))
    assert [std.calendar.name(r.position.phase) for r in records] == ["Spring 1901 Movement", "Fall 1901 Movement"]
    # A game won in Fall: MILA's COMPLETED state is the position after the last phase was played.
    won = play_mila_random(seed=3, last_phase="F1901M")
    saved = to_saved_game_format(won)
    final = json.loads(json.dumps(saved["phases"][-1]))
    final["name"] = final["state"]["name"] = "COMPLETED"
    final["state"]["units"]["FRANCE"] = ["A PIC", "A BUR", "F MAO"]
    saved["phases"].append(final)
    saved["phases"][-2]["orders"] = {"FRANCE": ["A PAR - PIC", "A MAR - BUR", "F BRE - MAO"]}
    records = from_mila_saved_game(std, saved)
    assert std.calendar.name(records[-1].position.phase) == "Winter 1901 Adjustments"
    assert {std.map.locations[u.loc].abbr for u in records[-1].position.units_of("France")} == {"pic", "bur", "mao"}


def test_import_rejects_other_maps_and_broken_files(std: Variant) -> None:
    with pytest.raises(MilaFormatError, match="only 'standard'"):
        from_mila_saved_game(std, {"map": "ancmed", "phases": []})
    with pytest.raises(MilaFormatError, match="no 'phases'"):
        from_mila_saved_game(std, {"map": "standard"})
    saved = to_saved_game_format(Game())
    saved["phases"][0]["state"]["units"]["FRANCE"].append("A XYZ")
    with pytest.raises(MilaFormatError, match=r"phases\[0\].state.units.FRANCE.*'XYZ'"):
        from_mila_saved_game(std, saved)
    saved = to_saved_game_format(Game())
    saved["phases"][0]["state"]["units"]["PRUSSIA"] = []
    with pytest.raises(MilaFormatError, match="PRUSSIA"):
        from_mila_saved_game(std, saved)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def test_damaged_files_give_a_clear_error_never_a_crash(std: Variant) -> None:
    """Any one value of a saved game replaced by junk: the import succeeds or raises MilaFormatError."""
    game = play_mila_random(seed=5, last_phase="W1901A")
    pristine = json.dumps(to_saved_game_format(game))
    paths = [p for p in _paths(json.loads(pristine)) if p and p[0] == "phases"]
    rng = random.Random(11)
    junk: list[Any] = [None, 7, "XYZ", "A", [], {}, [1, 2], {"A": 1}, "*A PAR", ["A PAR", 3]]
    outcomes: Counter[str] = Counter()
    for _ in range(400):
        data = json.loads(pristine)
        path = rng.choice(paths)
        node = data
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = rng.choice(junk)
        try:
            from_mila_saved_game(std, data)
            outcomes["read"] += 1
        except MilaFormatError as e:
            assert str(e)
            outcomes["refused"] += 1
    assert outcomes["refused"] > 50, outcomes


def test_only_the_standard_board_converts() -> None:
    hundred = load_variant("hundred")
    with pytest.raises(MilaFormatError, match="standard map and powers"):
        to_mila_saved_game(hundred, [PhaseRecord(hundred.start, {})])
    with pytest.raises(MilaFormatError, match="standard map and powers"):
        from_mila_saved_game(hundred, to_saved_game_format(Game()))
    v1897 = load_variant("1897")  # same board, other start: fine
    data = to_mila_saved_game(v1897, [PhaseRecord(v1897.start, {})])
    assert from_mila_saved_game(v1897, data)[0].position.units == v1897.start.units


# --- against adjudication --------------------------------------------------------------------------------

SCRIPT = {
    "S1901M": {
        "Germany": ["A mun - ruh", "A ber - mun", "F kie - hol"],
        "France": ["A par - bur", "A mar - spa", "F bre - mao"],
        "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
        "Russia": ["F stp/sc - bot", "A war - gal", "A mos - ukr", "F sev - bla"],
    },
    "F1901M": {
        "Germany": ["A ruh - bur", "A mun S A ruh - bur", "F hol H"],
        "France": ["A bur H", "A spa H", "F mao - por"],
        "England": ["F nth C A yor - nwy", "A yor - nwy", "F nwg S A yor - nwy"],
        "Russia": ["F bot - swe", "A gal - rum", "A ukr S A gal - rum", "F bla S A gal - rum"],
    },
    "F1901R": {"France": ["A bur R pic"]},
    "W1901A": {
        "Germany": ["Build A ber"],
        "France": ["Build A par", "Build F bre"],
        "England": ["Build F lon"],
        "Russia": ["Build A mos", "Build A war", "Build F stp/nc"],
    },
}


def play_dippouch_script(std: Variant) -> list[PhaseRecord]:
    records: list[PhaseRecord] = []
    position = std.start
    for phase_name, texts in SCRIPT.items():
        assert phase_to_mila(std, position.phase) == phase_name, "the script expects another phase"
        kind = std.calendar.kind(position.phase)
        orders = {p: [parse_order(std, t, phase_kind=kind) for t in lines] for p, lines in texts.items()}
        res = adjudicate(std, position, orders)
        records.append(PhaseRecord(position, orders, res.results))
        position = res.next
    records.append(PhaseRecord(position, {}))
    return records


def test_dippouch_game_replays_identically_in_mila(std: Variant) -> None:
    records = play_dippouch_script(std)
    names = [phase_to_mila(std, r.position.phase) for r in records]
    assert names == ["S1901M", "F1901M", "F1901R", "W1901A", "S1902M"]
    saved = json.loads(json.dumps(to_mila_saved_game(std, records, game_id="script")))
    game = from_saved_game_format(saved)
    assert game.get_current_phase() == "S1902M"
    assert len(game.get_phase_history()) == 4
    # Replay every played phase in MILA from the exported state and orders; MILA must reach our next state.
    for here, there in itertools.pairwise(saved["phases"]):
        replay = Game(map_name="standard", rules=saved["rules"])
        replay.set_phase_data(GamePhaseData.from_dict(here))
        replay.process()
        assert replay.get_current_phase() == there["name"]
        assert _sorted_lists(replay.get_units()) == _sorted_lists(there["state"]["units"]), here["name"]
        assert _sorted_lists(replay.get_centers()) == _sorted_lists(there["state"]["centers"]), here["name"]
        if there["name"].endswith("R"):
            theirs = {p: {u: sorted(r) for u, r in d.items()} for p, d in replay.get_state()["retreats"].items()}
            assert theirs == there["state"]["retreats"]
    # The retreat and the builds really happened (the script is not vacuous).
    assert "A PIC" in saved["phases"][3]["state"]["units"]["FRANCE"]
    assert "*A BUR" in saved["phases"][2]["state"]["units"]["FRANCE"]
    assert {"A BER", "F LON", "A PAR", "F BRE"} <= {
        u for us in saved["phases"][4]["state"]["units"].values() for u in us
    }
    assert saved["phases"][1]["results"]["A BUR"] == ["dislodged"]
    assert saved["phases"][3]["results"]["F STP/NC"] == ["void"]  # Russia's third build: only two were due


def _board(position: Position) -> tuple[object, ...]:
    return (
        position.phase,
        dict(position.units),
        dict(position.centres),
        {p: (d.unit, d.retreats) for p, d in position.dislodged.items()},
    )


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_mila_game_imports_and_dippouch_adjudicates_it_the_same(std: Variant, seed: int) -> None:
    game = play_mila_random(seed=seed, last_phase="S1907M")
    records = from_mila_saved_game(std, json.loads(json.dumps(to_saved_game_format(game))))
    assert len(records) > 10
    for here, there in itertools.pairwise(records):
        ours = adjudicate(std, here.position, here.orders).next
        assert _board(ours) == _board(there.position), std.calendar.name(here.position.phase)
