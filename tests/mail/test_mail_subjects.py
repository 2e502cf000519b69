"""Subjects as players really write them, each with what dippouch must make of it.

Two W3K games are open: "Powick Bridge" (in Autumn 1644 Movement) and "Edgehill" (in Spring 1643
Retreats), and a standard game "demo" (Fall 1901 Movement). Each row: the subject, then the expected
(game, power, phase, version) or the start of the problem the reply must state.
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.letters.subject import GameNames, read_subject, suggest_subject

W3K = load_variant("w3k")
STD = load_variant("standard")
GAMES = [
    GameNames("powick", W3K, W3K.calendar.parse("Autumn 1644 Movement"), titles=("Powick Bridge",),
              power_aliases={"Crown": ["Charles Stuart", "Prince of Wales"]}),
    GameNames("Edgehill", W3K, W3K.calendar.parse("Spring 1643 Retreats")),
    GameNames("demo", STD, STD.calendar.parse("Fall 1901 Movement")),
]  # fmt: skip

OK = [
    # The rulebook's own example and template.
    ("Powick Bridge, Montrose, Autumn 1644 Retreats, v1", "powick", "Montrose", "Autumn 1644 Retreats", 1),
    ("Powick Bridge - Montrose - Autumn 1644 - Movement Orders - v2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    # Separators, case, spacing.
    ("powick bridge | montrose | autumn 1644 | movement | v3", "powick", "Montrose", "Autumn 1644 Movement", 3),
    ("POWICK BRIDGE - MONTROSE - AUTUMN 1644 MOVEMENT - V1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge Montrose Autumn 1644 Movement v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge;Montrose;Autumn 1644;Movement;v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge / Montrose / Autumn 1644 / Movement / v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge – Montrose – Autumn 1644 – Movement – v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("  Powick   Bridge -Montrose-  Autumn,1644 Movement -v1 ", "powick", "Montrose", "Autumn 1644 Movement", 1),
    # Versions in every form.
    ("Powick Bridge - Montrose - Autumn 1644 Movement - V 2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - version 2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - Version: 4", "powick", "Montrose", "Autumn 1644 Movement", 4),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - ver. 2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - version two", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - 2nd version", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("Powick Bridge - Montrose - Autumn 1644 Movement - #3", "powick", "Montrose", "Autumn 1644 Movement", 3),
    ("Powick Bridge - Montrose - Autumn 1644 Movement", "powick", "Montrose", "Autumn 1644 Movement", None),
    # Seasons and types in other spellings.
    ("Powick Bridge - Montrose - Fall 1644 - Moves - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Montrose - Aut 1644 Retreat Orders - v1", "powick", "Montrose", "Autumn 1644 Retreats", 1),
    ("Powick Bridge - Ormond - Winter 1645 - Builds - v1", "powick", "Ormond", "Winter 1645 Adjustments", 1),
    ("Powick Bridge - Ormond - Winter 1645 - Adjustment Orders", "powick", "Ormond", "Winter 1645 Adjustments", None),
    ("Powick Bridge - Ormond - Winter 1645 Removals", "powick", "Ormond", "Winter 1645 Adjustments", None),
    ("Powick Bridge - Montrose - Autumn '44 - Movement - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Montrose - Autumn 1644", "powick", "Montrose", "Autumn 1644 Movement", None),
    # Reply and forward prefixes, list tags.
    ("Re: Powick Bridge - Montrose - Autumn 1644 Movement - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("RE: Fwd: Powick Bridge - Montrose - Autumn 1644 Movement - v2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    ("AW: [w3k] Powick Bridge - Montrose - Autumn 1644 Movement - v2", "powick", "Montrose", "Autumn 1644 Movement", 2),
    # Powers by name, adjective, alias, with "The".
    ("Powick Bridge - The Crown - Autumn 1644 Movement - v1", "powick", "Crown", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Charles Stuart - Autumn 1644 Movement - v1", "powick", "Crown", "Autumn 1644 Movement", 1),
    (
        "Powick Bridge - Irish Confederacy - Autumn 1644 Movement",
        "powick",
        "Irish Confederacy",
        "Autumn 1644 Movement",
        None,
    ),
    ("Powick Bridge - Confederate - Autumn 1644 Movement", "powick", "Irish Confederacy", "Autumn 1644 Movement", None),
    # The game by its own name; another game; another variant.
    ("powick - Montrose - Autumn 1644 Movement - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Edgehill - Argyll - Spring 1643 Retreats - v1", "Edgehill", "Argyll", "Spring 1643 Retreats", 1),
    ("demo - France - Fall 1901 - Movement - v2", "demo", "France", "Fall 1901 Movement", 2),
    ("demo | french | autumn 1901 moves", "demo", "France", "Fall 1901 Movement", None),
    # Order of parts does not matter.
    ("Montrose - Powick Bridge - v2 - Autumn 1644 Movement", "powick", "Montrose", "Autumn 1644 Movement", 2),
    # Near misses (one or two letters), accepted and said.
    ("Powik Bridge - Montrose - Autumn 1644 Movement - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Montrse - Autumn 1644 Movement - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Montrose - Autum 1644 Movment - v1", "powick", "Montrose", "Autumn 1644 Movement", 1),
    ("Powick Bridge - Montrose - Autumn 1644 Retreets - v1", "powick", "Montrose", "Autumn 1644 Retreats", 1),
]

BAD = [
    ("", "the subject names no game"),
    ("orders", "the subject names no game"),
    ("Montrose orders for this season", "the subject names no game"),
    ("Worcester - Montrose - Autumn 1644 Movement - v1", "the subject names no game"),
    ("Powick Bridge - Autumn 1644 Movement - v1", "the subject names no power"),
    ("Powick Bridge - France - Autumn 1644 Movement - v1", "the subject names no power"),
    ("Powick Bridge - Montrose - Movement - v1", "the subject gives no year"),
    ("Powick Bridge - Montrose - 1644 Movement - v1", "the subject gives no season"),
    ("Powick Bridge - Montrose - Autumn 1644 Adjustments", "Powick Bridge has no Autumn Adjustments phase"),
    ("Powick Bridge - Montrose - Autumn 1644 1645 Movement", "the subject gives more than one year"),
    ("demo - France - Summer 1901 Movement", "demo has no season Summer"),
    ("Powick Bridge - Montrose Argyll - Autumn 1644 Movement", "the subject names no power"),
]


@pytest.mark.parametrize(("subject", "game", "power", "phase", "version"), OK)
def test_subjects_read(subject: str, game: str, power: str, phase: str, version: int | None) -> None:
    r = read_subject(subject, GAMES)
    assert r.problem is None, (subject, r.problem)
    v = next(g.variant for g in GAMES if g.name == game)
    assert (r.game, r.power, v.calendar.name(r.phase) if r.phase else None, r.version) == (game, power, phase, version)


@pytest.mark.parametrize(("subject", "problem"), BAD)
def test_subjects_refused_with_the_reason(subject: str, problem: str) -> None:
    r = read_subject(subject, GAMES)
    assert r.problem is not None and r.problem.startswith(problem), (subject, r.problem)


def test_the_table_is_large_enough() -> None:
    assert len(OK) + len(BAD) >= 40


def test_near_misses_are_said() -> None:
    r = read_subject("Powik Bridge - Montrse - Autum 1644 Movment - v1", GAMES)
    assert r.problem is None
    assert "read 'powik bridge' as the game Powick Bridge" in r.notes
    assert "read 'montrse' as Montrose" in r.notes
    assert any("Autumn" in n for n in r.notes) and any("Movement" in n for n in r.notes)


def test_suggestion_is_the_rulebooks_form_with_the_current_phase() -> None:
    assert suggest_subject(GAMES[0], "Montrose", 3) == "Powick Bridge - Montrose - Autumn 1644 Movement - v3"
    # A suggestion is itself read back to the same thing.
    r = read_subject(suggest_subject(GAMES[1], "Argyll", 2), GAMES)
    assert (r.game, r.power, r.version) == ("Edgehill", "Argyll", 2)
