"""MILA ``diplomacy`` saved games: conversion both ways, checked against the MILA package itself."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from dippouch.core.calendar import PhaseKind
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Retreat, Support, Waive
from dippouch.core.variant import load_variant
from dippouch.interop.mila import (
    MilaFormatError,
    PhaseRecord,
    from_mila_saved_game,
    order_from_mila,
    order_to_mila,
    to_mila_saved_game,
)

diplomacy = pytest.importorskip("diplomacy", reason="MILA diplomacy 1.1.2 is in the dev extra")
from diplomacy import Game  # noqa: E402
from diplomacy.utils.export import from_saved_game_format, to_saved_game_format  # noqa: E402


@pytest.fixture(scope="module")
def std():
    return load_variant("standard")


def _sorted_lists(d: dict[str, Any]) -> dict[str, list[str]]:
    return {k: sorted(v) for k, v in d.items()}


def play_mila_random(seed: int, last_phase: str) -> Any:
    """A MILA game of uniformly random legal orders, builds and removals limited to what is allowed."""
    rng = random.Random(seed)
    game = Game()
    while not game.is_game_done and game.get_current_phase() != last_phase:
        possible = game.get_all_possible_orders()
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


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (PhaseKind.MOVEMENT, "A PAR H", Hold("A", "par")),
        (PhaseKind.MOVEMENT, "A PAR - BUR", Move("A", "par", "bur")),
        (PhaseKind.MOVEMENT, "F STP/SC - BOT", Move("F", "stp/sc", "bot")),
        (PhaseKind.MOVEMENT, "F MAO - SPA/NC", Move("F", "mao", "spa/nc")),
        (PhaseKind.MOVEMENT, "A LON - BEL VIA", Move("A", "lon", "bel", True)),
        (PhaseKind.MOVEMENT, "A MUN S A SIL - BER", Support("A", "mun", "A", "sil", "ber")),
        (PhaseKind.MOVEMENT, "A MUN S A BER", Support("A", "mun", "A", "ber", None)),
        (PhaseKind.MOVEMENT, "F NTH C A LON - BEL", Convoy("F", "nth", "lon", "bel")),
        (PhaseKind.RETREATS, "A MUN R BOH", Retreat("A", "mun", "boh")),
        (PhaseKind.RETREATS, "A MUN D", Disband("A", "mun")),
        (PhaseKind.ADJUSTMENTS, "A PAR B", Build("A", "par")),
        (PhaseKind.ADJUSTMENTS, "F STP/NC B", Build("F", "stp/nc")),
        (PhaseKind.ADJUSTMENTS, "F LON D", Disband("F", "lon")),
        (PhaseKind.ADJUSTMENTS, "WAIVE", Waive()),
    ],
)
def test_orders_read_and_write_mila_syntax(std, kind, text, expected):
    m = std.map

    def ids(order):
        # The table names locations by abbreviation; turn them into the map's ids.
        fields = {}
        for name in getattr(order, "__slots__", ()):
            value = getattr(order, name)
            fields[name] = m.loc(value) if name in ("loc", "target", "dest") and isinstance(value, str) else value
        return type(order)(**fields)

    want = ids(expected)
    got = order_from_mila(std, kind, text)
    assert got == want
    position = std.start.with_(
        phase=std.calendar.parse({"movement": "S1901M", "retreats": "S1901R"}.get(kind, "W1901A"))
    )
    assert order_to_mila(std, position, got) == text


def test_order_without_unit_type_takes_it_from_the_board(std):
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
def test_bad_orders_say_what_is_wrong(std, text, fragment):
    with pytest.raises(MilaFormatError) as e:
        order_from_mila(std, PhaseKind.MOVEMENT, text, "phases[3].orders.FRANCE")
    assert fragment in str(e.value)
    assert "phases[3].orders.FRANCE" in str(e.value)


# --- whole games -----------------------------------------------------------------------------------------


def test_mila_game_survives_a_round_trip_through_dippouch(std):
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


def test_import_rejects_other_maps_and_broken_files(std):
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


def test_only_the_standard_board_converts():
    hundred = load_variant("hundred")
    with pytest.raises(MilaFormatError, match="standard map and powers"):
        to_mila_saved_game(hundred, [PhaseRecord(hundred.start, {})])
    with pytest.raises(MilaFormatError, match="standard map and powers"):
        from_mila_saved_game(hundred, to_saved_game_format(Game()))
    v1897 = load_variant("1897")  # same board, other start: fine
    data = to_mila_saved_game(v1897, [PhaseRecord(v1897.start, {})])
    assert from_mila_saved_game(v1897, data)[0].position.units == v1897.start.units
