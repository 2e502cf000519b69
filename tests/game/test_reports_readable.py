"""Reports people can read: full names, and what W3K's own rules did, in words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import GameSettings, position_to_data
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from helpers import board

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def w3k() -> Variant:
    return load_variant("w3k")


@pytest.fixture
def store(tmp_path) -> Iterator[GameStore]:  # type: ignore[no-untyped-def]
    s = GameStore(migrated_sqlite(tmp_path / "g.db"))
    yield s
    s.close()


def _codes(v: Variant) -> set[str]:
    return {loc.abbr for loc in v.map.locations if loc.abbr.lower() != loc.name.lower()}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z/]+", text))


def test_w3k_report_uses_full_names_and_abbreviations_only_on_request(store: GameStore, w3k: Variant) -> None:
    store_games.create_game(store, "g", "w3k", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    r = store_submissions.submit(
        store, "g", "Manchester", "F King's Lynn - The Wash\nA Cambridgeshire - Huntingdonshire", now=T0
    )
    assert all(ln.accepted for ln in r.lines), r.lines
    store_processing.process(store, "g", now=T0, force=True)
    report = stored_report(store, "g")
    # Finding 6: "hpv", "bwk", "Unowned: ang ash ayr ..." -- no player knows the codes.
    leaked = _words(report) & _codes(w3k)
    assert leaked == set(), leaked
    assert "Manchester:        F King's Lynn - The Wash\n" in report
    short = stored_report(store, "g", full=False)
    assert "F kly - was" in short
    assert short.count("\n") <= report.count("\n")


def _w3k_game(store: GameStore, w3k: Variant, start: Position) -> None:
    """Game ``g`` of W3K from ``start``, two days a movement phase."""
    store_games.create_game(
        store,
        "g",
        "w3k",
        now=T0,
        position=position_to_data(w3k, start),
        settings=GameSettings(deadlines={"movement": "2d"}),
    )


def test_conversions_begun_completed_disrupted_and_lapsed_in_words(store: GameStore, w3k: Variant) -> None:
    start = board(
        w3k,
        "Summer 1642",
        {"Crown": ["F bri", "A glo"], "Cumberland": ["A den"], "Argyll": ["F bel"]},
        {"Crown": ["bri", "glo"], "Cumberland": ["den"], "Argyll": ["bel"]},
        homes={},
    )
    _w3k_game(store, w3k, start)
    store_submissions.submit(store, "g", "Crown", "Fleet Bristol converts", now=T0)
    store_submissions.submit(store, "g", "Argyll", "F Belfast convert", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    summer = stored_report(store, "g")
    assert "Crown:             F Bristol convert  -- conversion begun; order it again next movement season" in summer
    assert "Conversion begun: the Crown fleet in Bristol is converting to an army" in summer
    assert "Conversion begun: the Argyll fleet in Belfast" in summer

    # Autumn: Bristol completes, Belfast is not ordered again (lapses).
    store_submissions.submit(store, "g", "Crown", "F bri convert", now=T0)
    store_processing.process(store, "g", now=T0 + timedelta(hours=1), force=True)
    autumn = stored_report(store, "g")
    assert "Conversion completed: the Crown fleet in Bristol is now an army (now A Bristol)" in autumn
    assert "Conversion lapsed: the Argyll fleet in Belfast was not ordered to convert again" in autumn


def test_a_conversion_is_disrupted_and_one_continues_over_winter(store: GameStore, w3k: Variant) -> None:
    start = board(
        w3k,
        "Autumn 1642",
        {"Crown": ["F bri", "A glo"], "Cumberland": ["A den"], "Protectorate": ["A som"]},
        {"Crown": ["bri", "glo", "wor"], "Cumberland": ["den"]},
        homes={},
    )
    _w3k_game(store, w3k, start)
    store_submissions.submit(store, "g", "Crown", "F bri convert\nA glo H", now=T0)
    store_submissions.submit(store, "g", "Protectorate", "A som - bri", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    autumn = stored_report(store, "g")
    assert (
        "Conversion disrupted: the Crown fleet in Bristol stays a fleet (conversion disrupted by the attack" in autumn
    )
    assert "from Somerset)." in autumn
    # The autumn report lists the ownership of every centre, by name ("Unowned: ang ash ayr ..." before).
    assert _words(autumn) & _codes(w3k) == set()
    unowned = autumn[autumn.index("Unowned:") :]
    assert "Anglesey; Antwerp" in unowned  # a name has a comma of its own, so the list uses semicolons
    assert "East Riding, County Cork; Edinburgh" in unowned.replace("\n", " ").replace("  ", " ")


def test_conversion_under_way_continues_through_winter(store: GameStore, w3k: Variant) -> None:
    start = board(
        w3k,
        "Autumn 1642",
        {"Crown": ["F bri", "A glo"]},
        {"Crown": ["bri", "glo", "wor", "oxf"]},
        homes={},
    )
    _w3k_game(store, w3k, start)
    store_submissions.submit(store, "g", "Crown", "F bri convert", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    assert store_status.status(store, "g", now=T0).phase == "Winter 1643 Adjustments"
    store_submissions.submit(store, "g", "Crown", "Send 1 supply to Manchester\nBuild A Worcestershire", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    winter = stored_report(store, "g")
    assert "Conversion continues: the Crown fleet in Bristol is converting to an army" in winter
    assert "Supply sent: Crown gave 1 unit of its supply to Manchester this Winter." in winter


def test_hand_overs_are_reported(store: GameStore, w3k: Variant) -> None:
    store_games.create_game(store, "g", "w3k", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    store_submissions.submit(store, "g", "Protectorate", "Army Deptford is under the orders of Crown", now=T0)
    store_submissions.submit(store, "g", "Crown", "A Deptford - London", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    report = stored_report(store, "g")
    assert "Hand-over: the Protectorate army in Deptford was under Crown's orders this season." in report
    assert "Crown:             A Deptford - London\n" in report
    assert (
        "Protectorate:      A Deptford under orders of Crown  -- Crown orders the unit in Deptford this season"
        in report
    )


def test_lots_are_reported_with_their_draw(store: GameStore, w3k: Variant) -> None:
    winter = board(w3k, "Winter 1643", {"Manchester": ["A cam", "F dea"]}, {"Manchester": ["cam"]}, homes={})
    store_games.create_game(store, "g", "w3k", now=T0, position=position_to_data(w3k, winter))
    store_processing.process(store, "g", now=T0, force=True)
    report = stored_report(store, "g")
    assert "(automatic)  -- drawn by lots" in report and "A Cambridgeshire, F Port of Deal" in report
