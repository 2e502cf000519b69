"""An imported game file's refusals in German and French (issue 41, point 4).

A coordinator who imports a game file on a German or French page read its refusals in English: each check of
:mod:`dippouch.store.gamefile` and :mod:`dippouch.store.mail.record` names the place in the file (a JSON path,
``phases[3].submissions[0].version``) and what is wrong there. Each refusal is a message value, the path kept as
it is and the refused value shown as the file has it.

Each test below makes the refusal from the code (a file wrong in one place) and says it in both languages, so a
message without its translation fails here, not silently on a page. The values are cut, not the sentence
(``gamefile.shown``): a long refused value still leaves the whole sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.game import GameError
from dippouch.saying import say
from dippouch.store import gamefile
from dippouch.store.mail import record as mail_record

V = load_variant("standard")
T0 = "2026-12-01T09:00:00+00:00"


def _file(**game: Any) -> dict[str, Any]:
    return {"game": {"status": "active", "created_at": T0, **game}, "phases": []}


CASES: list[tuple[str, Callable[[], object], str, str]] = [
    # (what, a call the check refuses, German, French): the whole translation, values as the file has them.
    (
        "status",
        lambda: gamefile.check_game_file(_file(status="exploded"), V),
        "game.status: 'exploded' ist keiner der Werte active, paused, finished",
        "game.status : 'exploded' n'est pas l'une des valeurs active, paused, finished",
    ),
    (
        "a long status is cut, not its sentence",
        lambda: gamefile.check_game_file(_file(status="x" * 500), V),
        f"game.status: '{'x' * 76}... ist keiner der Werte active, paused, finished",
        f"game.status : '{'x' * 76}... n'est pas l'une des valeurs active, paused, finished",
    ),
    (
        "no phases",
        lambda: gamefile.check_game_file(_file(), V),
        "phases: eine Spieldatei hat mindestens eine Phase (die, mit der die Partie begann)",
        "phases : un fichier de partie a au moins une phase (celle par laquelle la partie s'est ouverte)",
    ),
    (
        "ending",
        lambda: gamefile.check_game_file(_file(status="finished"), V),
        "game.ending: eine beendete Partie sagt, wie sie endete (ein Objekt), nicht NoneType",
        "game.ending : une partie terminée dit comment elle a fini (un objet), pas NoneType",
    ),
    (
        "paused_remaining",
        lambda: gamefile.check_game_file(_file(paused_remaining=5), V),
        "game.paused_remaining: nur eine angehaltene Partie hat Restzeit auf einer angehaltenen Uhr (active)",
        "game.paused_remaining : seule une partie suspendue a du temps restant sur une horloge arrêtée (active)",
    ),
    (
        "a whole number",
        lambda: gamefile._int("lots", "phases[2].seq", 0, 1_000_000),
        "phases[2].seq: erwartet wird eine ganze Zahl von 0 bis 1.000.000, nicht 'lots'",
        "phases[2].seq : un nombre entier de 0 à 1\u202f000\u202f000 est attendu, pas 'lots'",
    ),
    (
        "a time",
        lambda: gamefile._time("yesterday", "game.created_at"),
        "game.created_at: die Zeit 'yesterday' ist nicht lesbar; schreiben Sie sie etwa als 2026-12-01T09:00:00+00:00",
        "game.created_at : heure 'yesterday' illisible ; écrivez-la comme 2026-12-01T09:00:00+00:00",
    ),
    (
        "a power",
        lambda: gamefile._power(V, "Atlantis", "votes[0].power"),
        "votes[0].power: keine Macht 'Atlantis' in standard; ihre Mächte sind "
        "Austria, England, France, Germany, Italy, Russia, Turkey",
        "votes[0].power : pas de puissance 'Atlantis' dans standard ; ses puissances sont "
        "Austria, England, France, Germany, Italy, Russia, Turkey",
    ),
    (
        "a game's name",
        lambda: gamefile.check_game_name("a/b"),
        "der Name einer Partie darf weder '/' noch einen Backslash enthalten ('a/b'); versuchen Sie 'a-b'",
        "le nom d'une partie ne peut contenir ni '/' ni barre oblique inverse ('a/b') ; essayez 'a-b'",
    ),
    (
        "a game's name too long",
        lambda: gamefile.check_game_name("x" * 101),
        f"der Name einer Partie hat 1 bis 100 Zeichen (dieser hat 101: '{'x' * 40}'...)",
        f"le nom d'une partie compte de 1 à 100 caractères (celui-ci en a 101 : '{'x' * 40}'...)",
    ),
    (
        "a player's name",
        lambda: gamefile._plain("Bruno\nAdmin", "players[0].name", 200),
        "players[0].name 'Bruno\\nAdmin' enthält ein Steuerzeichen ('\\n'); schreiben Sie es auf eine Zeile",
        "players[0].name 'Bruno\\nAdmin' contient un caractère de contrôle ('\\n') ; écrivez-le sur une seule ligne",
    ),
    (
        "an e-mail address, nested",
        lambda: gamefile.check_game_file(
            {**_file(), "players": [{"power": "France", "name": "Bruno", "assigned_at": T0, "email": "nobody"}]}, V
        ),
        "players[0].email: 'nobody' ist keine E-Mail-Adresse; schreiben Sie sie etwa als montrose@example.org",
        "players[0].email : 'nobody' n'est pas une adresse e-mail ; écrivez-la comme montrose@example.org",
    ),
    (
        "settings",
        lambda: gamefile.check_settings({"missed_limit": -1}),
        "settings.missed_limit: erwartet wird eine ganze Zahl von 0 bis 1000, nicht -1",
        "settings.missed_limit : un nombre entier de 0 à 1000 est attendu, pas -1",
    ),
    (
        "mail",
        lambda: mail_record.import_mail_record(None, 1, [], [], [], {}),  # type: ignore[arg-type]
        "mail: erwartet wird ein Objekt (settings, messages, reviews, notices)",
        "mail : un objet est attendu (settings, messages, reviews, notices)",
    ),
    (
        "a mail notice's kind",
        lambda: mail_record.import_mail_record(None, 1, {"notices": [{"kind": "gossip"}]}, [], [], {}),  # type: ignore[arg-type]
        "mail.notices[0].kind: 'gossip'; erwartet wird results, reminder, event oder cd",
        "mail.notices[0].kind : 'gossip' ; attendu results, reminder, event ou cd",
    ),
    (
        "a mail review's phase",
        lambda: mail_record.import_mail_record(None, 1, {"reviews": [{"phase": 7}]}, [11], [], {}),  # type: ignore[arg-type]
        "mail.reviews[0].phase: 7 ist nicht die Stelle einer Phase in dieser Datei (0 bis 0)",
        "mail.reviews[0].phase : 7 n'est pas la place d'une phase dans ce fichier (0 à 0)",
    ),
]


@pytest.mark.parametrize(("what", "refused", "de", "fr"), CASES, ids=[c[0] for c in CASES])
def test_a_game_file_s_refusal_is_said_in_german_and_french(
    what: str, refused: Callable[[], object], de: str, fr: str
) -> None:
    with pytest.raises(GameError) as e:
        refused()
    text = str(e.value)
    assert say(e.value.msg, "de") == de, text
    assert say(e.value.msg, "fr") == fr, text
    assert say(e.value.msg, "en") == text
