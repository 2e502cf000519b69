"""One use case, every door: a finished game's scores (:func:`dippouch.play.records.score_game`) are the same
numbers called directly, answered by ``GET /api/games/{name}/records``, shown on the records page and printed
by ``dippouch score``; under the game's own system and under any other asked for; and an unknown system is
refused at every door in the engine's words, naming the closest.

The game is played for real: Spring and Fall 1901 with a support and a stab (Germany supports France into
Burgundy in the spring and walks into Burgundy in the fall), then a draw is voted in Winter 1901.
"""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.play.records import choose_scoring, score_game, statistics
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from websupport import Site

SPRING = {
    "France": "A Par-Bur\nA Mar S A Par-Bur\nF Bre-Mao",
    "Germany": "A Mun S A Par-Bur\nF Kie-Hol\nA Ber-Kie",
    "England": "F Lon-Nth\nF Edi-Nwg\nA Lvp-Yor",
}
FALL = {
    "France": "A Bur-Bel\nA Mar-Spa\nF Mao-Por",
    "Germany": "A Mun-Bur\nA Kie-Den\nF Hol H",
    "England": "F Nth-Nwy\nF Nwg H\nA Yor H",
}

CENTRES = {"Austria": 3, "England": 4, "France": 6, "Germany": 5, "Italy": 3, "Russia": 4, "Turkey": 3}
"""At the start of Winter 1901, where the draw ends the game."""
SOS = {"Austria": 7.5, "England": 13.33, "France": 30.0, "Germany": 20.83, "Italy": 7.5, "Russia": 13.33, "Turkey": 7.5}
"""Sum of squares, out of 100: 100 × c² / Σc² with Σc² = 120 (the game's chosen system)."""
CARNAGE = {
    "Austria": 2003.0,
    "England": 4504.0,
    "France": 7006.0,
    "Germany": 6005.0,
    "Italy": 2003.0,
    "Russia": 4504.0,
    "Turkey": 2003.0,
}
"""Carnage (rank points 1000 a place from 7000 down, ties sharing, plus one a centre)."""

DOORS = ("play", "api", "page", "cli")


def finished_site(tmp_path: Path) -> Site:
    """A site whose public game ``g`` (standard) was played to a draw in Winter 1901, scored under SoS."""
    site = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    store_games.create_game(store, "g", "standard", now=now)
    for power in ("France", "Germany", "England"):
        store_games.assign(store, "g", power, f"{power} player", now=now)
    for turn, orders in enumerate((SPRING, FALL), start=1):
        for power, text in orders.items():
            store_submissions.submit(store, "g", power, text, now=now + timedelta(days=turn * 3))
        store_processing.process(store, "g", now=now + timedelta(days=turn * 3 + 1), force=True)
    # The powers nobody plays are in civil disorder by now: the three players' yes votes make the draw.
    for power in ("France", "Germany", "England"):
        store_votes.vote(store, "g", power, True, now=now + timedelta(days=8))
    assert store_status.status(store, "g", now=now + timedelta(days=8)).state == "finished"
    choose_scoring(store, "g", "SOS", now=now + timedelta(days=8))
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return finished_site(tmp_path_factory.mktemp("records"))


def _cli(site: Site, *args: str) -> tuple[int, str]:
    register_commands()
    db = str(site.web.store.engine.url)
    result = CliRunner().invoke(app, ["score", "g", *args, "--db", db])
    return result.exit_code, str(result.output)


def _scores(site: Site, door: str, system: str | None) -> dict[str, float]:
    """Power -> score as ``door`` gives it (two decimals where the door prints text)."""
    if door == "play":
        return {r.power: round(r.score, 2) for r in score_game(site.web.store, "g", system).rows}
    query = f"?system={system}" if system else ""
    if door == "api":
        r = site.browser().get(f"/api/games/g/records{query}")
        assert r.status_code == 200, r.text
        return {s["power"]: round(s["score"], 2) for s in r.json()["scores"]}
    if door == "page":
        r = site.browser().get(f"/games/g/records{query}")
        assert r.status_code == 200, r.text
        table = r.text.split('id="score-table"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(r"<tr><td>([^<]+)</td><td>[^<]*</td><td>\d+</td><td>([\d,.]+)</td>", table)
        return {html.unescape(p): float(s.replace(",", "")) for p, s in rows}
    code, said = _cli(site, *(["--system", system] if system else []))
    assert code == 0, said
    rows = re.findall(r"(\w+)\s+│\s+(\d+)\s+│\s+([\d,.]+)", said)
    return {p: float(s.replace(",", "")) for p, _, s in rows}


@pytest.mark.parametrize(("system", "expected"), [(None, SOS), ("sos", SOS), ("carnage", CARNAGE)])
@pytest.mark.parametrize("door", DOORS)
def test_a_finished_game_scores_the_same_at_every_door(
    site: Site, door: str, system: str | None, expected: dict[str, float]
) -> None:
    got = _scores(site, door, system)
    assert got == pytest.approx(expected, abs=0.005), (door, system, got)


def test_the_centres_the_scores_read_are_the_final_board(site: Site) -> None:
    scored = score_game(site.web.store, "g")
    assert {r.power: r.centres for r in scored.rows} == CENTRES
    assert scored.system.name == "sos" and scored.own
    assert scored.ending is not None and str(scored.ending).startswith("Draw agreed")
    assert {r.power: r.result for r in scored.rows if r.result} == dict.fromkeys(CENTRES, "draw")


def _refusal(site: Site, door: str) -> str:
    if door == "play":
        with pytest.raises(Exception) as e:
            score_game(site.web.store, "g", "sumofsquares")
        return str(e.value)
    if door == "api":
        r = site.browser().get("/api/games/g/records?system=sumofsquares")
        assert r.status_code == 400, r.text
        return str(r.json()["error"])
    if door == "page":
        r = site.browser().get("/games/g/records?system=sumofsquares")
        assert r.status_code == 400, r.text
        assert 'id="score-table"' in r.text  # the page stays, scored under the game's own system
        return html.unescape(r.text.split('id="system-refused">', 1)[1].split("<", 1)[0])
    code, said = _cli(site, "--system", "sumofsquares")
    assert code == 2, said
    return said


@pytest.mark.parametrize("door", DOORS)
def test_an_unknown_system_is_refused_at_every_door_naming_the_closest(site: Site, door: str) -> None:
    said = " ".join(_refusal(site, door).split())
    assert "no scoring system 'sumofsquares'" in said, (door, said)
    assert "did you mean 'sos'?" in said, (door, said)


def test_the_statistics_of_the_game_are_its_centres_and_its_stab(site: Site) -> None:
    stats = statistics(site.web.store, "g")
    assert stats.phases == ("Spring 1901 Movement", "Fall 1901 Movement", "Winter 1901 Adjustments")
    assert stats.series["France"] == (3, 3, 6) and stats.series["Germany"] == (3, 3, 5)
    assert stats.series["Russia"] == (4, 4, 4)
    stabs = [(e.phase, str(e.kind), e.power, e.other, stats.place_names[e.province or 0]) for e in stats.events]
    assert stabs == [("Fall 1901 Movement", "attacked a power it supported", "Germany", "France", "Burgundy")]
    assert all(i is not None for i in stats.phase_ids)


def _board(phase: str, owners: dict[str, str], gone: frozenset[str] = frozenset()) -> dict[str, object]:
    """The standard opening as stored, at ``phase``, with the centres in ``owners`` given to new owners and
    the units of the powers in ``gone`` taken off."""
    from dippouch.catalog import load_variant
    from dippouch.game import position_to_data

    v = load_variant("standard")
    data = position_to_data(v, v.start)
    centres: dict[str, list[str]] = {}
    for power, provs in data["supply_centers"].items():
        for prov in provs:
            centres.setdefault(owners.get(prov, power), []).append(prov)
    for prov, power in owners.items():
        if prov not in [c for cs in centres.values() for c in cs]:
            centres.setdefault(power, []).append(prov)
    units = [u for u in data["units"] if u["power"] not in gone]
    return {**data, "phase": phase, "supply_centers": centres, "units": units}


def test_a_constructed_solo_scores_the_winner_alone_and_dates_the_elimination() -> None:
    """A record built by hand (no database): Germany takes Vienna in 1901, Austria is gone by Spring 1902,
    and France reaches 18 centres in Fall 1902 (the board after the last phase, which no phase opened on)."""
    from datetime import UTC, datetime

    from dippouch.catalog import load_variant
    from dippouch.game import Ending
    from dippouch.play.records import facts_of, score_record, statistics_of
    from dippouch.ranking.scoring import load_system
    from dippouch.store.finished import GameRecord, SeatFacts
    from dippouch.store.records import StoredPhase

    v = load_variant("standard")
    austria = {"vie": "Germany", "bud": "Russia", "tri": "Italy"}
    france = {p: "France" for p in ("spa", "por", "bel", "hol", "den", "nwy", "swe", "tun", "lon", "lvp", "edi")}
    france |= {"mun": "France", "kie": "France", "ber": "France"}  # 3 + 11 + 3 + 1 (Vienna, below) = 18
    boards = [
        _board("Spring 1901 Movement", {}),
        _board("Fall 1901 Movement", {"vie": "Germany"}),
        _board("Spring 1902 Movement", austria, frozenset({"Austria"})),
    ]
    final = _board("Fall 1902 Movement", {**austria, **france, "vie": "France"}, frozenset({"Austria"}))
    at = datetime(2026, 1, 1, tzinfo=UTC)
    phases = tuple(
        StoredPhase(
            i + 1,
            1,
            0,
            i,
            str(b["phase"]),
            "movement",
            "processed",
            b,
            at,
            None,
            at,
            {},
            [],
            final if i == len(boards) - 1 else boards[i + 1],
            [],
        )
        for i, b in enumerate(boards)
    )
    record = GameRecord(
        name="solo",
        variant=v,
        status="finished",
        ending=Ending("victory", ("France",), "France wins with 18 supply centres."),
        scoring=None,
        practice=False,
        phases=phases,
        seats=tuple(SeatFacts(p, None, None, False, False) for p in v.power_names),
    )
    facts = facts_of(record)
    assert facts.solo == "France" and not facts.draw and facts.board_centres == 34
    by_power = {p.power: p for p in facts.powers}
    assert by_power["France"].centres == 18
    assert by_power["Austria"].eliminated and by_power["Austria"].eliminated_year == 1902
    scored = score_record(record, load_system("dss"))
    assert {r.power: r.score for r in scored.rows if r.score} == {"France": 100.0}
    assert {r.power: r.result for r in scored.rows if r.result} == {"France": "solo", "Austria": "eliminated"}
    stats = statistics_of(record)
    assert stats.phases[-1] == "Fall 1902 Movement" and stats.phase_ids == (1, 2, 3, None)
    assert stats.series["France"] == (3, 3, 3, 18) and stats.series["Austria"] == (3, 2, 0, 0)
    said = [(e.phase, str(e.kind), e.power, e.other) for e in stats.events]
    assert said == [
        ("Fall 1901 Movement", "centre taken", "Germany", "Austria"),
        ("Spring 1902 Movement", "eliminated", "Austria", None),
    ]
    assert stats.place_names[stats.events[0].province or 0] == "Vienna"
