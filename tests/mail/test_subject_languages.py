"""Subjects written with German and French season and phase words (issue 41: a game's mail in German or French
names its phases so, "Herbst 1644 Bewegung", and its players answer in kind): read as the English ones are."""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.letters.subject import GameNames, read_subject

W3K = load_variant("w3k")
STD = load_variant("standard")
GAMES = [
    GameNames("powick", W3K, W3K.calendar.parse("Autumn 1644 Movement"), titles=("Powick Bridge",)),
    GameNames("demo", STD, STD.calendar.parse("Spring 1901 Movement")),
]

READ = [
    # German
    ("Powick Bridge - Montrose - Herbst 1644 - Bewegung - v1", "powick", "Montrose", "Autumn 1644 Movement"),
    ("Powick Bridge - Montrose - Herbst 1644 Rückzug", "powick", "Montrose", "Autumn 1644 Retreats"),
    ("Powick Bridge - Ormond - Winter 1645 - Aufbau", "powick", "Ormond", "Winter 1645 Adjustments"),
    ("demo - England - Frühjahr 1901 Bewegung - Befehle", "demo", "England", "Spring 1901 Movement"),
    ("demo - England - Fruehjahr 1901", "demo", "England", "Spring 1901 Movement"),
    # French
    ("Powick Bridge - Montrose - Automne 1644 - Mouvements - v2", "powick", "Montrose", "Autumn 1644 Movement"),
    ("Powick Bridge - Montrose - Automne 1644 Retraites", "powick", "Montrose", "Autumn 1644 Retreats"),
    ("Powick Bridge - Ormond - Hiver 1645 - Ajustements", "powick", "Ormond", "Winter 1645 Adjustments"),
    ("demo - England - Printemps 1901 - ordres", "demo", "England", "Spring 1901 Movement"),
]


@pytest.mark.parametrize(("subject", "game", "power", "phase"), READ)
def test_german_and_french_season_and_phase_words_are_read(subject: str, game: str, power: str, phase: str) -> None:
    r = read_subject(subject, GAMES)
    assert r.problem is None, r.problem
    assert (r.game, r.power) == (game, power)
    v = W3K if game == "powick" else STD
    assert r.phase is not None and v.calendar.name(r.phase) == phase


def test_a_french_summer_is_a_season_a_calendar_without_one_refuses_by_name() -> None:
    r = read_subject("demo - England - Été 1901 Mouvements", GAMES)
    assert r.problem is not None and "no season Summer" in r.problem
