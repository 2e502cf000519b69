"""The results report in the game's language: its fixed words (headings, results, retreats, centres,
adjustments, the next phase) in German and French, while provinces, powers and orders stay as the variant
writes them; English stays the text it always was."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.game import GameError, GameSettings
from dippouch.play.reports import stored_report
from dippouch.report import deadlines_ical, phase_report
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

SPRING = {"Germany": "A mun - ruh\nA ber - mun\nF kie - hol", "France": "A par - bur"}
FALL = {"Germany": "A ruh - bur\nA mun S A ruh - bur", "France": "A bur H"}
RETREAT = {"France": "A bur - pic"}


def _play(tmp_path: Path, language: str, turns: int) -> Iterator[GameStore]:
    store = GameStore(migrated_sqlite(tmp_path / f"{language}.db"))
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(language=language))
    t = T0
    for orders in (SPRING, FALL, RETREAT)[:turns]:
        for power, text in orders.items():
            store_submissions.submit(store, "demo", power, text, now=t)
        t += timedelta(hours=1)
        store_processing.process(store, "demo", now=t, force=True)
    yield store
    store.close()


@pytest.fixture
def german(tmp_path: Path) -> Iterator[GameStore]:
    yield from _play(tmp_path, "de", 2)


def test_a_german_games_report_is_in_german(german: GameStore) -> None:
    report = stored_report(german, "demo")
    assert report.startswith("Ergebnisse Herbst 1901 Bewegung, Partie demo (Standard Diplomacy)\n")
    assert "Ausgewertet am 2026-12-01 11:00 UTC." in report
    assert "France:  A Burgundy H  (vertrieben)" in report
    assert "Austria: A Budapest H  (kein Befehl erhalten)" in report
    assert "Folgende Einheiten wurden vertrieben:" in report
    assert "  Die Armee (French) in Burgundy kann sich zurückziehen nach Belgium, Gascony, Paris, Picardy." in report
    assert "Die nächste Phase ist Herbst 1901 Rückzug; die Befehle sind bis 2026-12-03 11:00 UTC fällig." in report
    for english in ("results, game", "no order received", "were dislodged", "can retreat to", "The next phase"):
        assert english not in report


def test_the_same_record_reads_in_each_language_asked(german: GameStore) -> None:
    """``lang`` overrides the game's language: the same phase for a reader of another language."""
    rec = store_history.phase_record(german, "demo")
    v = load_variant("standard")
    english = phase_report(v, rec, lang="en")
    assert english.startswith("Fall 1901 Movement results, game demo (Standard Diplomacy)\n")
    assert "  The French army in Burgundy can retreat to Belgium, Gascony, Paris, Picardy." in english
    assert "France:  A Burgundy H  (dislodged)" in english
    french = phase_report(v, rec, lang="fr")
    assert french.startswith("Résultats Automne 1901 Mouvements, partie demo (Standard Diplomacy)\n")
    assert "Les unités suivantes ont été délogées :" in french
    assert "  Armée French (Burgundy) peut faire retraite vers Belgium, Gascony, Paris, Picardy." in french
    assert "France:  A Burgundy H  (délogée)" in french
    assert "La prochaine phase est Automne 1901 Retraites ; les ordres sont attendus avant le" in french


def test_centres_and_adjustments_in_french(tmp_path: Path) -> None:
    for store in _play(tmp_path, "fr", 3):
        report = stored_report(store, "demo")
        assert report.startswith("Résultats Automne 1901 Retraites, partie demo")
        assert "Changements de centres de ravitaillement :" in report
        assert "  Germany: gagne Holland" in report
        assert "Propriété des centres de ravitaillement :" in report
        assert "  Neutres : " in report  # a label longer than the column keeps its space
        assert "Pour Hiver 1901 Ajustements :" in report
        assert "  Germany: centres  4, unités  3 : construit 1" in report
        assert "  France:  centres  3, unités  3 : aucun changement" in report
        assert "La prochaine phase est Hiver 1901 Ajustements ; les ordres sont attendus avant le" in report


def test_the_deadlines_feed_in_the_games_language() -> None:
    feed = deadlines_ical("demo", GameSettings(language="de"), [(1, "Spring 1901 Movement", T0)], stamp=T0).decode()
    assert "SUMMARY:demo: Befehle fällig\\, Frühjahr 1901 Bewegung" in feed
    assert "X-WR-CALNAME:demo: Fristen" in feed
    english = deadlines_ical("demo", GameSettings(), [(1, "Spring 1901 Movement", T0)], stamp=T0).decode()
    assert "SUMMARY:demo: orders due\\, Spring 1901 Movement" in english


def test_a_language_we_do_not_have_is_refused_with_the_list() -> None:
    with pytest.raises(GameError, match=r"no language 'xx'; languages: en, de, fr"):
        GameSettings(language="xx")
    assert GameSettings.from_data({}).language == "en"
    assert "language" not in GameSettings().to_data()  # English games' stored settings unchanged
    assert GameSettings.from_data(GameSettings(language="fr").to_data()).language == "fr"
