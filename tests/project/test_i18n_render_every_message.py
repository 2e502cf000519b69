"""Every message of every catalogue, said in every language with sample values: a translation whose format is
broken (a stray ``%``, a placeholder without its type, a value it does not have, a plural form missing) fails
here by its id, not on a reader's page the day the message is first shown.

The sample values are chosen by each placeholder's type in the English id (``%(name)s`` a word, ``%(num)d`` a
count); the plural forms are tried with 1, 2 and 5 (French's and German's forms differ at 0 and 1).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from dippouch.i18n import LANGUAGES, translations

PLACEHOLDER = re.compile(r"%\((\w+)\)([-#0 +]*\d*(?:\.\d+)?)([diouxXeEfFgGcrsa])")
SAMPLE = {"s": "Sample", "r": "Sample", "a": "Sample", "c": "x"}


def _values(msgid: str, count: int) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, _, kind in PLACEHOLDER.findall(msgid):
        values[name] = SAMPLE.get(kind, count) if kind not in "diouxXeEfFgG" else count
    return values


def _entries(lang: str) -> list[tuple[Any, Any]]:
    catalog: dict[Any, Any] = getattr(translations(lang), "_catalog", {})
    return [(k, v) for k, v in catalog.items() if k and v]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_message_renders_in_every_language_with_sample_values(lang: str) -> None:
    entries = _entries(lang)
    assert len(entries) > 1000, f"the {lang} catalogues read {len(entries)} messages: not found?"
    broken: list[str] = []
    formatted = 0
    singular_ids = {k for k, _ in entries if isinstance(k, str)}
    plural_ids: dict[str, str] = {}
    for key, text in entries:
        if isinstance(key, tuple):  # (msgid, form index) of a plural message
            msgid, form = key
            plural_ids.setdefault(msgid, msgid)
            count = 1 if form == 0 else 5
        else:
            msgid, count = key, 3
        # A message with a context is stored as "context\x04msgid": the id's placeholders are after it.
        english = msgid.split("\x04", 1)[-1]
        if not PLACEHOLDER.search(english) and "%" not in english:
            continue  # said as it is written, never formatted
        formatted += 1
        try:
            said = text % _values(english, count)
        except (KeyError, ValueError, TypeError) as e:
            broken.append(f"{english!r} -> {text!r}: {type(e).__name__}: {e}")
            continue
        if "%(" in said:
            broken.append(f"{english!r} -> {text!r}: a placeholder left unsaid: {said!r}")
    assert not broken, f"{len(broken)} {lang} translations do not render:\n" + "\n".join(broken[:40])
    assert singular_ids and formatted > 300, f"{formatted} messages with values read: not the catalogues?"
    # Both of German's and French's plural forms are there for every plural message.
    short = [m for m in plural_ids if any((m, form) not in dict(entries) for form in (0, 1))]
    assert not short, f"{lang} plural messages missing a form: {short[:20]}"


def test_the_check_finds_a_broken_translation() -> None:
    english = "%(num)d units in %(province)s"
    for text in ("%(num)d Einheiten in %(provinz)s", "%(num)z Einheiten in %(province)s", "100% in %(province)s"):
        with pytest.raises((KeyError, ValueError, TypeError)):
            text % _values(english, 3)
    good = "%(num)d Einheiten in %(province)s"
    assert good % _values(english, 3) == "3 Einheiten in Sample"
