"""A count is said with the form its number takes ("1 order accepted", "2 orders accepted"), not "order(s)": in
English, German and French, through :func:`dippouch.saying.say` as every door says a message; a line check or a
result stored under a former "(s)" id (:data:`dippouch.core.messages.FORMER_IDS`) is said with today's forms;
and no catalogue keeps an id with "(s)" beside a count.

French uses the singular for 0 and 1, German and English for 1 alone (their catalogues' plural rules), so each
message is tried with 0, 1 and 2.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from dippouch.core.messages import FORMER_IDS, Msg, nmsg
from dippouch.game import LineCheck, ready_refusal
from dippouch.play import held_mail, mail_orders
from dippouch.play.mail_orders import photo_promise, photo_reason
from dippouch.saying import say

LOCALE = Path(__file__).resolve().parents[2] / "src" / "dippouch" / "locale"


def _accepted(n: int) -> Msg:
    """The command line's tally of a submission (cli/game.py), ``n`` orders accepted and none rejected."""
    return nmsg(
        "%(num)d order accepted, %(rejected)s rejected.",
        "%(num)d orders accepted, %(rejected)s rejected.",
        n,
        rejected=0,
    )


def _processed(phases: int, games: int) -> Msg:
    """The command line's ``process --all`` (cli/game.py): two counts, each with its own form."""
    return nmsg(
        "Processed %(num)d phase in %(games)s.",
        "Processed %(num)d phases in %(games)s.",
        phases,
        games=nmsg("%(num)d active game", "%(num)d active games", games),
    )


def _refused(lines: int) -> Msg:
    """Why a submission whose ``lines`` lines were all refused may not be marked ready (game/submissions.py)."""
    checked = [LineCheck(i, "A xyz H", error=Msg("no province %(token)s", {"token": "xyz"})) for i in range(lines)]
    why = ready_refusal(checked)
    assert why is not None
    return why


# The form follows the counted noun ("order"); French says the second count with the noun "refus", the same in
# the singular and the plural, since its number chooses no form.
CASES: list[tuple[Msg, dict[str, str]]] = [
    (
        _accepted(1),
        {
            "en": "1 order accepted, 0 rejected.",
            "de": "1 Befehl angenommen, 0 abgelehnt.",
            "fr": "1 ordre accepté, 0 refus.",
        },
    ),
    (
        _accepted(2),
        {
            "en": "2 orders accepted, 0 rejected.",
            "de": "2 Befehle angenommen, 0 abgelehnt.",
            "fr": "2 ordres acceptés, 0 refus.",
        },
    ),
    (
        _accepted(0),
        {
            "en": "0 orders accepted, 0 rejected.",
            "de": "0 Befehle angenommen, 0 abgelehnt.",
            "fr": "0 ordre accepté, 0 refus.",
        },
    ),
    (
        _processed(1, 2),
        {
            "en": "Processed 1 phase in 2 active games.",
            "de": "1 Phase in 2 laufenden Partien ausgewertet.",
            "fr": "1 phase résolue dans 2 parties en cours.",
        },
    ),
    (
        _processed(2, 1),
        {
            "en": "Processed 2 phases in 1 active game.",
            "de": "2 Phasen in 1 laufenden Partie ausgewertet.",
            "fr": "2 phases résolues dans 1 partie en cours.",
        },
    ),
    (
        _processed(0, 0),
        {
            "en": "Processed 0 phases in 0 active games.",
            "de": "0 Phasen in 0 laufenden Partien ausgewertet.",
            "fr": "0 phase résolue dans 0 partie en cours.",
        },
    ),
]


@pytest.mark.parametrize(("message", "said"), CASES, ids=[str(m) for m, _ in CASES])
def test_a_count_is_said_in_its_own_form_in_every_language(message: Msg, said: dict[str, str]) -> None:
    for lang, text in said.items():
        assert say(message, lang) == text, lang


@pytest.mark.parametrize(
    ("lines", "en", "de", "fr"),
    [
        (1, "its 1 line was refused", "ihre 1 Zeile wurde abgelehnt", "sa 1 ligne a été refusée"),
        (2, "all 2 lines were refused", "alle 2 Zeilen wurden abgelehnt", "les 2 lignes ont toutes été refusées"),
    ],
)
def test_a_refusal_the_game_layer_makes_says_its_count(lines: int, en: str, de: str, fr: str) -> None:
    why = _refused(lines)
    assert f"not marked ready: {en}, so this submission" in say(why, "en")
    assert f"nicht als fertig markiert: {de}, also ersetzt" in say(why, "de")
    assert f"non marqué prêt : {fr}, donc cet envoi" in say(why, "fr")


@pytest.mark.parametrize(
    ("photos", "late", "en", "de", "fr"),
    [
        (
            1,
            False,
            "1 photograph kept sealed; the coordinator reviews it after the deadline",
            "1 Foto versiegelt aufbewahrt; der Spielleiter prüft es nach der Frist",
            "1 photo gardée sous scellé ; l'arbitre l'examine après l'échéance",
        ),
        (
            3,
            False,
            "3 photographs kept sealed; the coordinator reviews them after the deadline",
            "3 Fotos versiegelt aufbewahrt; der Spielleiter prüft sie nach der Frist",
            "3 photos gardées sous scellé ; l'arbitre les examine après l'échéance",
        ),
        (
            1,
            True,
            "1 photograph received after the deadline: recorded as late, not used",
            "1 Foto nach der Frist erhalten: als verspätet erfasst, nicht verwendet",
            "1 photo reçue après l'échéance : enregistrée en retard, non utilisée",
        ),
        (
            2,
            True,
            "2 photographs received after the deadline: recorded as late, not used",
            "2 Fotos nach der Frist erhalten: als verspätet erfasst, nicht verwendet",
            "2 photos reçues après l'échéance : enregistrées en retard, non utilisées",
        ),
    ],
)
def test_a_photographed_messages_record_says_how_many_photographs(
    photos: int, late: bool, en: str, de: str, fr: str
) -> None:
    """The reason a photographed message's record keeps (play/mail_orders.py photo_receipt), by the number of
    photographs the message brought, and read back from the store as it was made."""
    why = photo_reason(photos, late=late)
    assert (say(why, "en"), say(why, "de"), say(why, "fr")) == (en, de, fr)
    assert Msg.from_data(why.to_data()) == why


@pytest.mark.parametrize(
    ("photos", "lang", "begins", "then"),
    [
        (1, "en", "It has no orders in text, only 1 photograph. It is kept sealed;", "has reviewed it."),
        (2, "en", "It has no orders in text, only 2 photographs. They are kept sealed;", "has reviewed them."),
        (1, "de", "Sie enthält keine Befehle als Text, nur 1 Foto. Es wird versiegelt", "das Foto geprüft hat."),
        (2, "de", "Sie enthält keine Befehle als Text, nur 2 Fotos. Diese werden versiegelt", "die Fotos geprüft hat."),
        (
            1,
            "fr",
            "Il ne contient aucun ordre en texte, seulement 1 photo. Elle est conservée",
            "ne l'a pas examinée.",
        ),
        (
            2,
            "fr",
            "Il ne contient aucun ordre en texte, seulement 2 photos. Elles sont conservées",
            "les a pas examinées.",
        ),
    ],
)
def test_a_photo_receipts_promise_follows_the_number_of_photographs(
    photos: int, lang: str, begins: str, then: str
) -> None:
    promise = photo_promise({}, lang, photos=photos)
    assert promise.startswith(begins), promise
    assert then in promise and "(s)" not in promise, promise


def test_a_former_photograph_reason_is_made_by_no_code_and_still_said() -> None:
    """The "(s)" ids left in the catalogues are the former reasons of stored records only: marked so an old row
    is said in every language, made by no code today (mentioned only by the table that marks it and by migration
    0033's frozen templates, store/mail/legacy.py, which read the log's older English into these ids)."""
    former = {*mail_orders.FORMER_REASONS, *held_mail.FORMER_REASONS}
    assert former == set(WITHOUT_A_COUNT)
    src = Path(mail_orders.__file__).parents[1]
    for old in former:
        head = old[:40]  # one line of its literal
        users = [p.name for p in src.rglob("*.py") if head in p.read_text(encoding="utf-8")]
        assert set(users) - {"legacy.py"} in ({"mail_orders.py"}, {"held_mail.py"}), (old, users)
        args = {"power": "England", "phase": "Spring 1901 Movement", "game": "g", "by": "Jane"}
        row = Msg.from_data({"id": old, "args": args})
        for lang in ("de", "fr"):
            assert say(row, lang) != say(row, "en"), (lang, old)


# --------------------------------------------------------------------------------------------------
# Rows stored under a former id


def _old_line(count: int, asked: int) -> dict[str, object]:
    """A refused line of a W3K Winter as the store kept it before the plural forms (LineCheck.to_data then)."""
    old = "%(power)s has %(count)d unit(s) of excess supply, not %(asked)d"
    args = {"power": "Cumberland", "count": count, "asked": asked}
    return {
        "line": 1,
        "text": f"Send {asked} supply to Argyll",
        "order": None,
        "error": old % args,
        "error_msg": {"id": old, "args": args},
    }


@pytest.mark.parametrize(
    ("count", "de", "fr"),
    [
        (
            1,
            "Cumberland hat 1 Einheit überschüssige Versorgung, nicht 2",
            "Cumberland a 1 unité de ravitaillement en excédent, pas 2",
        ),
        (
            2,
            "Cumberland hat 2 Einheiten überschüssige Versorgung, nicht 3",
            "Cumberland a 2 unités de ravitaillement en excédent, pas 3",
        ),
    ],
)
def test_a_line_stored_under_a_former_id_is_said_with_todays_forms(count: int, de: str, fr: str) -> None:
    line = LineCheck.from_data(_old_line(count, count + 1))
    assert line.error is not None
    assert say(line.error, "de") == de
    assert say(line.error, "fr") == fr
    assert (
        str(line.error)
        == f"Cumberland has {count} {'unit' if count == 1 else 'units'} of excess supply, not {count + 1}"
    )


def test_a_message_stored_under_a_former_id_inside_another_is_read_as_todays() -> None:
    """A nested reason (a ready refusal's "all N line(s) were refused") is read by the same table, and the message
    read back is the one today's code makes."""
    stored = {
        "id": "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' "
        "to be ready with none",
        "args": {"reason": {"msg": {"id": "all %(count)d line(s) were refused", "args": {"count": 1}}}},
    }
    again = Msg.from_data(stored)
    assert again == _refused(1)
    assert "ihre 1 Zeile wurde abgelehnt" in say(again, "de")
    builds = Msg.from_data({"id": "%(count)d build(s) not ordered: waived", "args": {"count": 2}})
    assert say(builds, "de") == "2 Aufbauten nicht befohlen: verfallen"
    assert say(builds, "fr") == "2 constructions non ordonnées : abandonnées"
    assert Msg.from_data(builds.to_data()) == builds  # today's data reads back as itself


def test_every_former_id_leads_to_a_translated_plural_of_the_rules_catalogue() -> None:
    """The table names today's ids exactly as the code makes them (the catalogue check keeps only used ids), and
    the catalogues keep no translation of a former id (a row of one is read as today's)."""
    for lang in ("de", "fr"):
        with (LOCALE / lang / "LC_MESSAGES" / "rules.po").open("rb") as f:
            rules = read_po(f, locale=lang, domain="rules")
        for old, (singular, plural, counted) in FORMER_IDS.items():
            entry = rules.get(singular)
            assert entry is not None and entry.id == (singular, plural), (lang, singular)
            forms = entry.string
            assert isinstance(forms, tuple) and len(forms) == 2 and all(forms), (lang, singular, forms)
            assert f"%({counted})d" in singular and rules.get(old) is None, (lang, old)


# --------------------------------------------------------------------------------------------------
# The catalogues

COUNTED_S = re.compile(r"%(?:\(\w+\))?[ds]\s+(?:[\w/-]+\s+){0,2}[\w/-]*\w\(s\)")
"""A count placeholder, then within three words a word written with "(s)": ``%(num)d order(s)``,
``%(num)d result/notice message(s)``, ``%(games)s active game(s)``."""

LEFT_ON_PURPOSE: dict[str, str] = {}
"""Ids that keep "(s)" beside a count on purpose, with why: none."""

_STORED = (
    "a record's reason stored before it was said by the number of photographs (today's code makes the plural "
    "forms: play/mail_orders.py photo_reason, play/held_mail.py): an old row holds no count, so FORMER_IDS can "
    "choose no form for it; kept marked (FORMER_REASONS) so an old row is still said in every language"
)

WITHOUT_A_COUNT: dict[str, str] = {
    "%(power)s's photograph(s) for %(phase)s: review them with `dippouch mail review %(game)s`": _STORED,
    "applied on %(by)s's word as %(power)s's photograph(s); they wait for review (`dippouch mail review %(game)s`)": (
        _STORED
    ),
    "photograph(s) kept sealed; the coordinator reviews them after the deadline": _STORED,
    "photograph(s) received after the deadline: recorded as late, not used": _STORED,
}
"""Ids that say "(s)" with no count beside it, left as they are, each with why: only the former ids of stored
records, which no code makes any more (:func:`test_a_former_photograph_reason_is_made_by_no_code`)."""


def _ids() -> dict[str, str]:
    """Every English id (singular and plural) of every catalogue, with the file it is in."""
    found: dict[str, str] = {}
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            cat = read_po(f, locale=po.parts[-3], domain=po.stem)
        for entry in cat:
            for text in entry.id if isinstance(entry.id, tuple | list) else (entry.id,):
                if text:
                    found.setdefault(text, str(po.relative_to(LOCALE)))
    return found


def test_no_catalogue_id_keeps_s_beside_a_count() -> None:
    ids = _ids()
    assert len(ids) > 1000, "the catalogues were not found"
    counted = {i: where for i, where in ids.items() if COUNTED_S.search(i) and i not in LEFT_ON_PURPOSE}
    assert not counted, (
        "ids with '(s)' beside a count: give them a singular and a plural (nmsg, ngettext)\n"
        + "\n".join(f"  {where}: {i!r}" for i, where in sorted(counted.items()))
    )
    with_s = {i for i in ids if re.search(r"\w\(s\)", i)}
    listed = set(WITHOUT_A_COUNT) | set(LEFT_ON_PURPOSE)
    assert with_s == listed, f"ids with '(s)' not listed here, or listed and gone: {sorted(with_s ^ listed)}"


@pytest.mark.parametrize(
    "text",
    [
        "%(num)d order(s)",
        "Version %(version)s recorded: %(accepted)s order(s) accepted, %(rejected)s rejected.",
        "Processed %(num)d phase(s) in %(games)s active game(s).",
        "%(num)d result/notice message(s)",
        "Missing %(limit)d movement phase(s) in a row",
        "%d unit(s)",
    ],
)
def test_the_check_finds_s_beside_a_count(text: str) -> None:
    assert COUNTED_S.search(text)


@pytest.mark.parametrize("text", [*WITHOUT_A_COUNT, "%(m)sm %(s)ss left", "unknown key(s) %(keys)s"])
def test_the_check_passes_s_with_no_count_beside_it(text: str) -> None:
    assert not COUNTED_S.search(text)
