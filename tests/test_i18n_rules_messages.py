"""The lower layers' messages in the reader's language (issue 41): the order reader's refusals (an unknown
province with the closest ones), the order checks' (an illegal move), the store's (a submission for a phase
already processed), the adjudicator's reasons and "no order" lines, said in German and French by
:func:`dippouch.saying.say` from the message values the layers raise and store; and the results report, mailed
and on the pages, shows them so. English stays the text it always was, and the core imports no language machinery."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.catalog import load_variant
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import OrderParseError, parse_order
from dippouch.game import GameError, GameSettings, check_orders
from dippouch.report import phase_report
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

STD = load_variant("standard")
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
SRC = Path(__file__).resolve().parents[1] / "src" / "dippouch"


def _refusal(text: str, power: str = "France") -> Msg:
    (line,) = check_orders(STD, STD.start, power, text)
    assert line.error is not None
    return line.error


def test_an_unknown_province_with_the_closest_ones() -> None:
    with pytest.raises(OrderParseError) as e:
        parse_order(STD, "A par - pruss")
    refused = e.value.msg
    assert str(e.value) == "no province 'pruss'; did you mean Prussia (pru) or Paris (par)?"
    assert say(refused, "de") == "keine Provinz 'pruss'; meinten Sie Prussia (pru) oder Paris (par)?"
    assert say(refused, "fr") == "pas de province 'pruss' ; vouliez-vous dire Prussia (pru) ou Paris (par) ?"
    assert say(refused, "en") == str(e.value)


def test_an_illegal_move_with_the_closest_legal_orders() -> None:
    refused = _refusal("A par - mar")
    english = str(refused)
    assert english.startswith("Marseilles is not next to Paris and no fleets could convoy there; closest legal: ")
    legal = english.partition("closest legal: ")[2]
    assert say(refused, "de") == (
        "Marseilles grenzt nicht an Paris, und keine Flotten könnten dorthin konvoieren; nächste gültige Befehle: "
        + legal
    )
    assert say(refused, "fr") == (
        "Marseilles n’est pas voisin de Paris et aucune flotte ne pourrait y convoyer ; "
        "ordres légaux les plus proches : " + legal
    )


@pytest.mark.parametrize(
    ("text", "de", "fr"),
    [
        (
            "F lon - yor",
            "F London gehört England; France kann ihr keinen Befehl geben",
            "F London appartient à England ; France ne peut pas lui donner d’ordre",
        ),
        (
            "A mar S A par - pie",
            "A Paris kann Piedmont nicht erreichen, auch nicht per Konvoi ohne die unterstützende Einheit",
            "A Paris ne peut pas atteindre Piedmont, même par un convoi sans l’unité qui soutient",
        ),
        (
            "A par hold fast",
            "unerwartetes 'fast' nach einem vollständigen Befehl",
            "'fast' inattendu après un ordre complet",
        ),
        ("F bre - spa", "F Brest kann Spain nicht erreichen", "F Brest ne peut pas atteindre Spain"),
    ],
)
def test_order_refusals(text: str, de: str, fr: str) -> None:
    refused = _refusal(text)
    english = str(refused)
    got_de, got_fr = say(refused, "de"), say(refused, "fr")
    # A refusal may go on with the closest legal orders: the sentence itself is the one wanted.
    assert got_de.split("; nächste")[0] == de, english
    assert got_fr.split(" ; ordres légaux")[0] == fr, english


def test_a_text_no_catalogue_has_is_shown_as_it_is() -> None:
    assert say("the moon is made of cheese", "de") == "the moon is made of cheese"
    assert say("", "fr") == ""


@pytest.fixture
def game(tmp_path: Path) -> Iterator[GameStore]:
    """A German game whose Spring 1901 was processed with a bounce, a refused line and units without orders."""
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(language="de"))
    store_submissions.submit(store, "demo", "Germany", "A mun - bur\nA ber - pruss", now=T0)
    store_submissions.submit(store, "demo", "France", "A par - bur\nA mar - pie", now=T0)
    store_processing.process(store, "demo", now=T0 + timedelta(hours=1), force=True)
    yield store
    store.close()


def test_the_store_refuses_in_english_and_the_door_says_it_in_the_readers_language(game: GameStore) -> None:
    with pytest.raises(GameError) as e:
        store_submissions.submit(
            game, "demo", "France", "A par H", now=T0 + timedelta(hours=2), phase="Spring 1901 Movement"
        )
    assert str(e.value).startswith("Spring 1901 Movement was processed at ")
    de, fr = say(e.value.msg, "de"), say(e.value.msg, "fr")
    assert de.startswith("Frühjahr 1901 Bewegung wurde am ") and "Die offene Phase ist Herbst 1901 Bewegung" in de
    assert fr.startswith("Printemps 1901 Mouvements a été résolue le ") and "La phase ouverte est Automne 1901" in fr


def test_the_report_says_the_adjudicators_reasons_and_the_refused_lines_in_its_language(game: GameStore) -> None:
    rec = store_history.phase_record(game, "demo")
    de = " ".join(phase_report(STD, rec).split())  # the game's language, unwrapped
    assert "A Munich - Burgundy (scheitert) -- Patt mit A Paris (1 gegen 1)" in de
    assert "'A ber - pruss' -- keine Provinz 'pruss'; meinten Sie Prussia (pru) oder Paris (par)?" in de
    fr = " ".join(phase_report(STD, rec, lang="fr").split())
    assert "rebondit avec A Paris (1 contre 1)" in fr
    assert "pas de province 'pruss' ; vouliez-vous dire Prussia (pru) ou Paris (par) ?" in fr
    en = " ".join(phase_report(STD, rec, lang="en").split())
    assert "bounced with A Paris (1 vs 1)" in en
    assert "no province 'pruss'; did you mean Prussia (pru) or Paris (par)?" in en
    for english in ("bounced with", "did you mean", "no province"):
        assert english not in de and english not in fr


def test_the_core_imports_no_language_machinery() -> None:
    """The core writes English templates (dippouch.core.messages); only the doors translate."""
    for path in sorted((SRC / "core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(("babel", "dippouch.i18n", "dippouch.saying", "gettext")), (path, name)


def test_w3k_conversions_in_the_reports_language(tmp_path: Path) -> None:
    """A variant's own rules speak through the same catalogue: W3K's conversion reason and note in German and
    French (the unit in words too), a refused hand-over's reason."""
    from dippouch.game import position_to_data
    from helpers import board

    w3k = load_variant("w3k")
    start = board(w3k, "Summer 1642", {"Crown": ["F bri", "A glo"]}, {"Crown": ["bri", "glo"]}, homes={})
    store = GameStore(migrated_sqlite(tmp_path / "w.db"))
    try:
        store_games.create_game(
            store, "g", "w3k", now=T0, position=position_to_data(w3k, start), settings=GameSettings(language="fr")
        )
        store_submissions.submit(store, "g", "Crown", "Fleet Bristol converts", now=T0)
        store_processing.process(store, "g", now=T0, force=True)
        rec = store_history.phase_record(store, "g")
    finally:
        store.close()
    fr = " ".join(phase_report(w3k, rec).split())
    assert "F Bristol convert -- conversion commencée ; ordonnez-la de nouveau à la prochaine saison" in fr
    assert "Conversion commencée : la flotte Crown (Bristol) se convertit en armée ;" in fr
    de = " ".join(phase_report(w3k, rec, lang="de").split())
    assert "Umwandlung begonnen: die Flotte (Crown) in Bristol wird zur Armee;" in de
    assert "conversion begun" not in de and "Conversion begun" not in fr
    refused = say(
        msg("only %(owner)s, its owner, can hand over the unit in %(place)s", owner="Crown", place="Bristol"), "de"
    )
    assert refused == "nur Crown, ihr Besitzer, kann die Einheit in Bristol übergeben"
