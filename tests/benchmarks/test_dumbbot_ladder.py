"""The DumbBot ladder's harness: MILA's DumbBot port plays phases of our engine's games with legal orders.

The port is not part of this repository. Tests that need it read its path from ``DIPPOUCH_DUMBBOT`` (a checkout
of https://github.com/diplomacy/research or the file ``diplomacy_research/players/rulesets/dumbbot_ruleset.py``)
and are skipped, never passed, without it.
"""

from __future__ import annotations

import copy
import os
import random
from collections import defaultdict
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from benchsupport import bench_script
from dippouch.bots import make_bot
from dippouch.bots.engine import Move, Support, adjudicate, legal_orders
from dippouch.bots.play import play_game
from dippouch.catalog import load_variant
from dippouch.core.position import Unit
from dippouch.interop.mila import position_from_mila_state

PORT = os.environ.get("DIPPOUCH_DUMBBOT", "")
needs_port = pytest.mark.skipif(
    not PORT,
    reason="DIPPOUCH_DUMBBOT is not set: point it at a checkout of https://github.com/diplomacy/research "
    "(or its diplomacy_research/players/rulesets/dumbbot_ruleset.py) to test the DumbBot harness",
)


def _load() -> ModuleType:
    return bench_script("bench_dumbbot")


@needs_port
def test_dumbbot_plays_a_year_of_our_engine_with_legal_orders_only() -> None:
    """Six DumbBots and a heuristic through 1901 (movement, retreats if any, builds): every order the port sent
    was read and was among our engine's legal orders, and the MILA game it decided on matched our position."""
    bench = _load()
    port = bench.load_port(PORT)
    variant = load_variant("standard")
    seat = bench.DumbBotSeat(port)
    seats = {p: seat for p in variant.power_names}
    seats["France"] = make_bot("heuristic")
    record = play_game(variant, seats, 7, max_years=1)
    assert seat.illegal == [] and record.illegal == 0
    assert seat.orders_sent >= 6 * 3 * 2  # six powers, two movement phases, at least three units each
    assert record.final is not None and record.final.phase.year == 1902
    assert sum(record.centres.values()) > 22  # the neutral centres were taken, not only the homes held
    game = bench.mila_game(variant, record.final)
    back = position_from_mila_state(variant, game.get_state())
    assert dict(back.units) == dict(record.final.units) and dict(back.centres) == dict(record.final.centres)


@needs_port
def test_an_unowned_centre_is_worth_the_neutral_powers_size_as_in_the_original() -> None:
    bench = _load()
    variant = load_variant("standard")
    game = bench.mila_game(variant, variant.start)
    corrected, _ = bench.load_port(PORT).calculate_attack_defense(game, "FRANCE")
    published, _ = bench.load_port(PORT, corrected=False).calculate_attack_defense(game, "FRANCE")
    assert published["BEL"] == 0  # the port's value for a centre nobody owns
    assert corrected["BEL"] == 12**2 + 4 * 12 + 16  # the original's: 12 neutral centres as one power
    assert corrected["MUN"] == published["MUN"] == 3**2 + 4 * 3 + 16  # another power's centre: unchanged


@needs_port
def test_a_dislodged_unit_retreats_only_where_our_engine_allows() -> None:
    """France's A Burgundy is dislodged from Munich; the corrected port retreats it only to a legal province
    (never back to Munich, where the attack came from), over several seeds; the port as published retreats it to Munich."""
    bench = _load()
    variant = load_variant("standard")
    gmap = variant.map
    start = variant.start
    units = dict(start.units)
    del units[gmap.province_of(gmap.loc("par"))], units[gmap.province_of(gmap.loc("ber"))]
    units[gmap.province_of(gmap.loc("bur"))] = Unit("France", "A", gmap.loc("bur"))
    units[gmap.province_of(gmap.loc("ruh"))] = Unit("Germany", "A", gmap.loc("ruh"))
    position = start.with_(units=units)
    orders = {
        "Germany": [
            Move("A", gmap.loc("mun"), gmap.loc("bur")),
            Support("A", gmap.loc("ruh"), "A", gmap.loc("mun"), gmap.loc("bur")),
        ]
    }
    retreat = adjudicate(variant, position, orders, rng=random.Random(1)).next
    assert retreat.dislodged, "the attack should have dislodged A Burgundy"
    legal = {o for options in legal_orders(variant, retreat, "France").values() for o in options}
    seat = bench.DumbBotSeat(bench.load_port(PORT))
    for seed in range(8):
        chosen = seat.orders(variant, retreat, "France", random.Random(seed))
        assert len(chosen) == 1 and chosen[0] in legal
    assert seat.illegal == []
    published = bench.DumbBotSeat(bench.load_port(PORT, corrected=False))
    assert published.orders(variant, retreat, "France", random.Random(0)) == []  # what the correction is for:
    assert published.illegal == ["S1901R France: 'A BUR R MUN' (A bur R mun) is not a legal order"]


def test_pairings_are_read_and_bad_ones_refused_with_the_choices() -> None:
    bench = _load()
    assert bench.parse_pairings("heuristic:dumbbot, dumbbot:search") == [
        ("heuristic", "dumbbot"),
        ("dumbbot", "search"),
    ]
    for bad in ("heuristic:search", "random:dumbbot", "dumbbot", ""):
        with pytest.raises(ValueError, match=r"LONE:FIELD|no pairing"):
            bench.parse_pairings(bad)


def test_each_power_takes_the_lone_seat_in_turn() -> None:
    bench = _load()
    powers = load_variant("standard").power_names
    lone = [bench.seats_for(powers, "search", "dumbbot", g) for g in range(14)]
    assert [alone for alone, _ in lone] == list(powers) * 2
    alone, levels = lone[3]
    assert levels[alone] == "search" and sorted(levels.values()).count("dumbbot") == 6


def test_a_seats_games_are_its_games_of_the_full_run() -> None:
    bench = _load()
    powers = load_variant("standard").power_names
    assert bench.games_of(powers, 3, ["Turkey"]) == [6, 13, 20]
    assert bench.games_of(powers, 4, ["England", "Turkey"]) == [1, 6, 8, 13]
    assert bench.games_of(powers, 3, []) == [0, 1, 2]
    full = [bench.seats_for(powers, "dumbbot", "search", g)[0] for g in range(21)]
    assert [g for g in range(21) if full[g] == "Turkey"] == bench.games_of(powers, 3, ["Turkey"])
    with pytest.raises(ValueError, match="no power Prussia"):
        bench.games_of(powers, 3, ["Prussia"])


def test_a_seat_that_is_no_power_is_refused_with_the_powers(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    with pytest.raises(SystemExit):
        bench.main(["--seats", "Turkey,Prussia", "--dumbbot", "/nonexistent"])
    err = capsys.readouterr().err
    assert "--seats: no power Prussia on the standard map" in err
    assert "Austria, England, France, Germany, Italy, Russia, Turkey" in err
    with pytest.raises(SystemExit):
        bench.main(["--seats", "Turkey", "--trace", "7", "--dumbbot", "/nonexistent"])
    assert "not both" in capsys.readouterr().err


def test_without_a_port_the_ladder_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bench = _load()
    monkeypatch.delenv("DIPPOUCH_DUMBBOT", raising=False)
    with pytest.raises(SystemExit):
        bench.main(["--games", "1"])
    assert "give --dumbbot PATH or set DIPPOUCH_DUMBBOT" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--dumbbot", str(tmp_path)])
    assert "github.com/diplomacy/research" in capsys.readouterr().err


@needs_port
def test_a_hold_turned_support_names_the_province_not_a_coast() -> None:
    """Turkey's F Rumania holds while F Constantinople moves to Bulgaria's south coast: the port turns the hold
    into a support naming Rumania's neighbour on the east coast; corrected, it names Bulgaria."""
    from diplomacy import Game

    bench = _load()
    game = Game()
    args = (
        game,
        {"RUM": "F RUM H", "CON": "F CON - BUL/SC"},
        {"F CON": "BUL/SC"},
        {"F CON": 1.0, "F RUM": 1.0},
        SimpleNamespace(competition_map=defaultdict(int, {"BUL": 1})),
    )
    published = bench.load_port(PORT, corrected=False).check_wasted_holds(*copy.deepcopy(args))
    corrected = bench.load_port(PORT).check_wasted_holds(*copy.deepcopy(args))
    assert published["RUM"] == "F RUM S F CON - BUL/EC"
    assert corrected["RUM"] == "F RUM S F CON - BUL"


def test_orders_our_engine_would_not_take_are_counted_shown_and_never_sent() -> None:
    """A stand-in for the port (no DumbBot needed) sends, for the lone Austria, a move to a province A Vienna
    cannot reach and a line that is no order: each movement phase both are counted as illegal, listed for the
    report, and the unit holds."""
    bench = _load()

    def run_ruleset(state: object, power: str) -> list[str]:
        phase = state.game.get_current_phase()  # type: ignore[attr-defined]
        return ["A VIE - MUN", "not an order"] if power == "AUSTRIA" and phase.endswith("M") else []

    port = ModuleType("stand_in_port")
    port.run_ruleset = run_ruleset  # type: ignore[attr-defined]
    variant = load_variant("standard")
    figures = bench.run_pairing(variant, "dumbbot", "heuristic", 1, 1, 0.05, 1, port)
    assert figures.illegal == 4  # two movement phases in 1901, two each
    assert figures.dumbbot_orders == 4
    assert "S1901M Austria: 'A VIE - MUN' (A vie - mun) is not a legal order" in figures.examples
    assert any("'not an order' unreadable" in line for line in figures.examples)


def test_foresight_counts_the_orders_the_search_replies_foresaw() -> None:
    """The ladder's foresight figure: of DumbBot's movement orders in the phases the lone search power decided,
    those its first reply held and those any reply held (a phase it did not decide is not counted)."""
    bench = _load()
    variant = load_variant("standard")
    start = variant.start
    legal = legal_orders(variant, start, "France")
    sent = [os_[0] for os_ in legal.values()]  # three orders, one a unit
    others = [os_[-1] for os_ in legal.values()]
    assert not set(sent) & set(others)

    class Replying:
        name = "search"

        def __init__(self) -> None:
            self.last_replies = [{"France": sent[:1]}, {"France": sent[1:2]}, {"Germany": sent}]

        def orders(self, *args: object) -> list[object]:
            return []

    watched = bench.Watched(Replying())
    watched.orders(variant, start, "England", random.Random(1), None)
    later = adjudicate(variant, start, {}).next
    seen = {(start.phase, "France"): sent, (later.phase, "France"): others}
    assert bench.foresight(seen, watched) == (3, 1, 2)


@needs_port
def test_the_dumbbot_model_foresees_most_of_the_ports_movement_orders() -> None:
    """The search level's model of the DumbBot family (bots/province_value.py, our own implementation of the
    published algorithm) against the port itself: in a game of seven DumbBots to the end of 1904, 20 of the
    model's samples for a power, on the position the port decided on, hold most of the orders it sent."""
    from dippouch.bots.engine import PhaseKind
    from dippouch.bots.heuristic import captures
    from dippouch.bots.province_value import movement_orders, worths

    bench = _load()
    variant = load_variant("standard")
    seat = bench.DumbBotSeat(bench.load_port(PORT))
    counts = [0, 0]

    class Compared:
        name = "dumbbot"

        def orders(self, variant: Any, position: Any, power: str, rng: random.Random, memory: Any = None) -> Any:
            sent = seat.orders(variant, position, power, rng, memory)
            if variant.calendar.kind(position.phase) is PhaseKind.MOVEMENT:
                mine = legal_orders(variant, position, power)
                worth = worths(variant, position, power, captures(variant, position))
                model = random.Random(5)
                samples = {o for _ in range(20) for o in movement_orders(variant, position, power, mine, worth, model)}
                counts[0] += len(sent)
                counts[1] += sum(1 for o in sent if o in samples)
            return sent

    record = play_game(variant, dict.fromkeys(variant.power_names, Compared()), 11, max_years=4)
    assert record.illegal == 0 and seat.illegal == []
    total, foreseen = counts
    assert total > 100
    assert foreseen / total >= 0.8, (foreseen, total)
