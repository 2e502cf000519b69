"""One thing, one word: every German and French translation calls a deadline, a game, the coordinator, a draw ...
by the word the catalogues chose for it, never by a second word for the same thing.

The catalogues had grown two words for several things ("Frist" and "Abgabetermin", "Spiel" and "Partie";
"date limite" and "échéance", "coordinateur" and "arbitre"), so one page said a game's deadline two ways. The word
kept is the one most translations already used (docs/translating.md names the players' words); this test refuses
the others in every msgstr of every domain, naming the file and the message, so the choice holds.

Compounds of the chosen word's rival that are idiomatic German stay allowed ("Spieldatei", "Spielstand",
"Spielleiter", "Spieler"): only the word itself is refused. A French word that also means something else is
refused only where it names the thing ("le jeu", not "en jeu" or "un seul jeu d'ordres"; "match nul", not a
share link's "partage").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "locale"


@dataclass(frozen=True)
class Term:
    """A thing the catalogues name: the word chosen for it, and the words refused for it."""

    thing: str
    chosen: str
    refused: re.Pattern[str]


GLOSSARY: dict[str, tuple[Term, ...]] = {
    "de": (
        Term(
            "deadline",
            "die Frist (Fristen)",
            re.compile(r"(?i:abgabetermin\w*)|\bTermin(?:e|en|s)?\b|\bAbgabefrist(?:en)?\b"),
        ),
        # The noun only: "Spielen Sie ..." and "Spielen lernen" begin a sentence with the verb.
        Term("game", "die Partie (Partien)", re.compile(r"\bSpiel(?:e|es|s)?\b|(?<=[a-zäöüß] )Spielen\b")),
        Term("coordinator", "der Spielleiter", re.compile(r"\bKoordinator(?:in|innen|en|s)?\b")),
        Term("draw", "das Remis", re.compile(r"\bUnentschieden\w*")),
        Term("civil disorder", "die Anarchie", re.compile(r"\bBürgerkrieg\w*")),
        Term("sandbox", "der Sandkasten (Sandkästen)", re.compile(r"\bSandbox(?:es|en)?\b")),
        Term("removal", "die Auflösung", re.compile(r"\bAbbau(?:ten|s)?\b")),
        Term("submission", "die Abgabe", re.compile(r"\bEinsendung(?:en)?\b")),
        Term("order", "der Befehl", re.compile(r"\bOrders?\b")),
    ),
    "fr": (
        Term("deadline", "l'échéance", re.compile(r"(?i:\bdates? limites?\b|\bheures? limites?\b)")),
        # "en jeu" (in play), "année de jeu" and "un seul jeu d'ordres" (a set of orders) are other words.
        Term(
            "game",
            "la partie",
            re.compile(r"(?i:\bjeux\b|\b(?:le|du|au|ce|mon|ton|son|votre|notre|leur|maître du) jeu\b)"),
        ),
        Term(
            "coordinator",
            "l'arbitre (arbitrer)",
            re.compile(r"(?i:\bcoordinat(?:eur|rice)s?\b|\bcoordonn(?:e|es|ez|ons|ent|er)\b)"),
        ),
        Term("draw", "la nulle", re.compile(r"(?i:\bmatch(?:es)? nuls?\b)")),
        Term("photograph", "la photo", re.compile(r"(?i:\bphotographies?\b)")),
        # "retraite" is a retreat; a removal is a "suppression".
        Term("removal", "la suppression", re.compile(r"(?i:\bretraits?\b)")),
        Term("seat", "la place", re.compile(r"(?i:\bsièges?\b)")),
        Term("submission", "l'envoi", re.compile(r"(?i:\bsoumissions?\b)")),
    ),
}
"""Per language, each thing's chosen word (as the catalogues say it) and the pattern of the words refused."""


def _offences(lang: str) -> list[str]:
    """Each msgstr of ``lang`` that says a refused word: file, message id, the word and the word to use."""
    found: list[str] = []
    files = sorted((LOCALE / lang / "LC_MESSAGES").glob("*.po"))
    assert files, f"no catalogues for {lang}"
    for po in files:
        with po.open("rb") as f:
            cat = read_po(f, locale=lang, domain=po.stem)
        for entry in cat:
            if not entry.id:
                continue
            ident = entry.id[0] if isinstance(entry.id, tuple | list) else entry.id
            forms = entry.string if isinstance(entry.string, tuple | list) else (entry.string,)
            for text in forms:
                for term in GLOSSARY[lang]:
                    for m in term.refused.finditer(text or ""):
                        found.append(
                            f"  {po.relative_to(LOCALE)}: msgid {ident!r} says {m.group(0)!r} for a {term.thing}: "
                            f"write {term.chosen}"
                        )
    return found


@pytest.mark.parametrize("lang", sorted(GLOSSARY))
def test_every_translation_names_a_thing_by_the_chosen_word(lang: str) -> None:
    found = _offences(lang)
    assert not found, f"{len(found)} {lang} translations say a word the glossary refuses:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("de", "Der Abgabetermin ist verstrichen."),
        ("de", "NACH DEM ABGABETERMIN"),
        ("de", "das Spiel %(game)s ist beendet"),
        ("de", "in 2 laufenden Spielen"),
        ("de", "Ein Unentschieden braucht ein Ja"),
        ("fr", "avant la date limite"),
        ("fr", "le coordinateur en décide"),
        ("fr", "Match nul accepté"),
        ("fr", "les photographies de la phase"),
    ],
)
def test_the_check_finds_a_refused_word(lang: str, text: str) -> None:
    assert any(t.refused.search(text) for t in GLOSSARY[lang])


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("de", "Die Frist der Partie ist verstrichen."),
        ("de", "Spielen Sie Diplomacy"),
        ("de", "Spielen lernen"),
        ("de", "die Spieldatei, der Spielstand, der Spielleiter, die Spieler"),
        ("de", "Ein Terminal"),
        ("fr", "encore en jeu, une année de jeu, un seul jeu d'ordres"),
        ("fr", "le lien de partage d'un bac à sable"),
        ("fr", "la retraite de l'armée; photographié"),
    ],
)
def test_the_check_passes_the_chosen_words_and_other_meanings(lang: str, text: str) -> None:
    assert not any(t.refused.search(text) for t in GLOSSARY[lang])
