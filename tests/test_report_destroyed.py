"""A unit dislodged with nowhere to retreat, in the results report: named once among the destroyed units, and
the adjudicator's own disband of it not listed among the orders the players gave."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.game import GameSettings, position_to_data
from dippouch.play.reports import stored_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from helpers import board

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

FALL = {
    "Austria": ["A rum", "A bud", "F tri"],
    "Italy": ["A ven"],
    "Russia": ["A ukr", "F bla", "A gal"],
    "Turkey": ["A arm", "A bul", "F con"],
}
"""Fall 1901 of the tester's game: the Austrian army in Rumania is dislodged and every way out is closed."""

ORDERS = {
    "Austria": "A rum - sev\nA bud - rum\nF tri - ven",
    "Italy": "A ven - tri",
    "Russia": "A ukr - rum\nF bla S A ukr - rum\nA gal S A ukr - rum",
    "Turkey": "A arm - sev\nA bul - ser\nF con - bul/ec",
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    s = GameStore(migrated_sqlite(tmp_path / "g.db"))
    yield s
    s.close()


def _played(store: GameStore, units: dict[str, list[str]], orders: dict[str, str], language: str = "en") -> None:
    v = load_variant("standard")
    store_games.create_game(
        store,
        "g",
        "standard",
        now=T0,
        position=position_to_data(v, board(v, "Fall 1901", units)),
        settings=GameSettings(language=language),
    )
    for power, text in orders.items():
        r = store_submissions.submit(store, "g", power, text, now=T0)
        assert all(ln.accepted for ln in r.lines), r.lines
    store_processing.process(store, "g", now=T0, force=True)


def test_a_destroyed_unit_is_named_once(store: GameStore) -> None:
    _played(store, FALL, ORDERS)
    report = stored_report(store, "g")
    assert "Destroyed (no retreat possible): Austria A Rumania\n" in report
    assert report.count("Austria A Rumania") == 1
    # Its own order still says what became of it.
    assert "Austria: A Rumania - Sevastopol  (fails, destroyed)  -- bounced with A Armenia (1 vs 1)\n" in report


def test_a_destroyed_unit_is_named_once_in_german_and_french(store: GameStore) -> None:
    _played(store, FALL, ORDERS, language="de")
    record = store_history.phase_record(store, "g", "Fall 1901 Movement")
    from dippouch.report import phase_report

    v = load_variant("standard")
    german = phase_report(v, record, lang="de")
    assert "Vernichtet (kein Rückzug möglich): Austria A Rumania\n" in german, german
    french = phase_report(v, record, lang="fr")
    assert "Détruites (aucune retraite possible) : Austria A Rumania\n" in french, french


def test_the_automatic_disband_is_not_listed_among_the_orders(store: GameStore) -> None:
    _played(store, FALL, ORDERS)
    report = stored_report(store, "g")
    orders = report[: report.index("Destroyed")]
    assert "A Rumania D" not in orders
    assert "destroyed: no retreat possible" not in report
    austria = [ln for ln in orders.splitlines() if ln.startswith("Austria:")]
    assert austria == [
        "Austria: A Rumania - Sevastopol  (fails, destroyed)  -- bounced with A Armenia (1 vs 1)",
        "Austria: A Budapest - Rumania  (fails)  -- cannot dislodge its own A Rumania",
        "Austria: F Trieste - Venice  (fails)  -- bounced head-to-head with A Venice (1 vs 1)",
    ]
    short = stored_report(store, "g", full=False)
    assert "A rum D" not in short and short.count("Austria A rum") == 1


def test_an_unordered_destroyed_unit_keeps_its_hold_line_and_is_named_once(store: GameStore) -> None:
    _played(store, FALL, {power: text for power, text in ORDERS.items() if power != "Austria"})
    report = stored_report(store, "g")
    assert "Austria: A Rumania H  (dislodged, destroyed, automatic)  -- dislodged by A Ukraine\n" in report
    assert "A Rumania D" not in report
    assert report.count("Austria A Rumania") == 1


def test_a_destroyed_unit_beside_one_that_retreats_is_told_among_the_dislodged(store: GameStore) -> None:
    units = {**FALL, "Germany": ["A mun"], "France": ["A bur", "A ruh"]}
    orders = {**ORDERS, "France": "A bur - mun\nA ruh S A bur - mun"}
    _played(store, units, orders)
    report = stored_report(store, "g")
    dislodged = report[report.index("The following units were dislodged:") :].split("\n\n")[0]
    assert "The Austrian army in Rumania with no valid retreats was destroyed." in dislodged, dislodged
    assert "The German army in Munich can retreat to" in dislodged
    assert "A Rumania D" not in report
    assert "Destroyed (no retreat possible)" not in report
