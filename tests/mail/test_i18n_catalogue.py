"""The mail catalogue is complete: every message marked in a module of the ``mail`` domain (the mail, the
notices and notifications, the results report) has a German and a French translation with the same
placeholders, and no translation is kept for a message no module uses. (The project-wide check,
tests/project/test_i18n_catalogues.py, covers every domain; this one names the mail's gaps alone.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

SRC = Path(__file__).resolve().parents[2] / "src" / "dippouch"
KEYWORDS: dict[str, Any] = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "said_both": (1,),
    # messages as values (dippouch.core.messages), said where they are shown, as the project-wide check reads them
    "N_": None,
    "NP_": ((1, "c"), 2),
    "msg": None,
    "nmsg": (1, 2),
    "pmsg": ((1, "c"), 2),
}
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?([sdifr%])")
MARKER = re.compile(r'^I18N_DOMAIN = "mail"', re.MULTILINE)


def _messages(files: list[Path]) -> dict[str, tuple[str, ...]]:
    """msgid -> the message's forms (one, or singular and plural), from the marked calls of ``files``."""
    out: dict[str, tuple[str, ...]] = {}
    for f in files:
        for _line, msg, _comments, _ctx in extract_from_file("python", str(f), keywords=KEYWORDS):
            forms = msg if isinstance(msg, tuple) else (msg,)
            out[forms[0]] = forms
    return out


def _catalog(lang: str) -> Catalog:
    with (SRC / "locale" / lang / "LC_MESSAGES" / "mail.po").open("rb") as f:
        return read_po(f, locale=lang)


def _holes(messages: dict[str, tuple[str, ...]], catalog: Catalog) -> list[str]:
    found = []
    kept = {str(m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}
    for msgid, forms in messages.items():
        m = catalog.get(msgid)
        strings = [] if m is None else list(m.string) if isinstance(m.string, tuple) else [m.string]
        if m is None or m.fuzzy or not all(strings):
            found.append(f"untranslated: {msgid!r}")
            continue
        want = {x for form in forms for x in PLACEHOLDER.findall(form)}
        for s in strings:
            if {x for x in PLACEHOLDER.findall(str(s))} != want:
                found.append(f"placeholders differ: {msgid!r} -> {s!r}")
    found += [f"stale: {k!r}" for k in sorted(kept - set(messages))]
    return found


def _mail_modules() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if MARKER.search(p.read_text(encoding="utf-8"))]


def test_the_mail_domains_modules_are_the_expected_ones() -> None:
    names = {p.relative_to(SRC).as_posix() for p in _mail_modules()}
    assert {
        "letters/compose.py",
        "play/mail_intake.py",
        "mail/notices.py",
        "play/press_replies.py",
        "notify/texts.py",
        "notify/reminders.py",
        "notify/channels/people.py",
        "report.py",
        "names.py",
    } <= names


def test_german_and_french_are_complete() -> None:
    messages = _messages(_mail_modules())
    assert len(messages) > 100
    for lang in ("de", "fr"):
        assert _holes(messages, _catalog(lang)) == [], lang


def test_a_new_marked_text_without_its_translation_is_found(tmp_path: Path) -> None:
    """The check can fail: a module that marks a text the catalogue lacks, or a placeholder misspelt."""
    mod = tmp_path / "extra.py"
    mod.write_text(
        'I18N_DOMAIN = "mail"\ndef f(_):\n    return _("A sentence nobody translated."), _("Next: %(phase)s.")\n',
        encoding="utf-8",
    )
    messages = _messages([*_mail_modules(), mod])
    catalog = _catalog("de")
    assert _holes(messages, catalog) == ["untranslated: 'A sentence nobody translated.'"]
    catalog["Next: %(phase)s."].string = "Als Nächstes: %(phasen)s."
    assert "placeholders differ: 'Next: %(phase)s.' -> 'Als Nächstes: %(phasen)s.'" in _holes(messages, catalog)
    del messages["Notes:"]
    assert "stale: 'Notes:'" in _holes(messages, catalog)
