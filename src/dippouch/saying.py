"""A message said in the reader's language: the one way a door (a page, the JSON API, a mail, a report, the
command line) turns what the layers under it tell people (:class:`dippouch.core.messages.Msg`) into words."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from functools import cache

from babel import Locale
from babel.dates import format_interval, format_skeleton
from babel.numbers import format_decimal, format_percent

from dippouch.core.messages import ENGLISH, Msg, as_msg, english_days, english_number, render
from dippouch.i18n import DEFAULT, LANGUAGES, phase_words, translations

__all__ = ["DOOR_HINTS", "number", "percent", "say"]

DOOR_HINTS: dict[str, Mapping[str, Msg]] = {}
"""Per door (``"web"``, ``"mail"`` ...), how it words the hints (:class:`dippouch.core.messages.Hint`) of the
layers' messages, by key: filled by each door when it is imported (the web: dippouch.web.http.inputs); a door
without a table, and the command line, say a hint as the layers write it."""


def say(message: Msg | str, lang: str, door: str | None = None) -> str:
    """``message`` in ``lang``: its template from the reader's catalogue, each value in its turn (a nested
    message, choices, a phase's name in the reader's words, a hint as ``door`` words it; names and numbers as
    they are, a quantity with the reader's digit grouping). A text not made a message yet is said as itself, or as its translation where the catalogue has
    it whole."""
    m = as_msg(message)
    if not m.id:
        return ""  # gettext("") is a catalogue's header, not a message
    hints = DOOR_HINTS.get(door or "", {})
    if lang not in LANGUAGES or lang == DEFAULT:
        return render(m, ENGLISH, None, hints)
    return render(m, translations(lang), lambda name: phase_words(name, lang), hints, _number_in(lang), _days_in(lang))


@cache
def _days_in(lang: str) -> Callable[[str, str], str]:
    """How ``lang`` writes a span of days (:class:`dippouch.core.messages.Days`, two ISO dates): Babel's interval
    formats of its locale data, the year only where the span crosses one (English is the core's own
    :func:`~dippouch.core.messages.english_days`)."""

    def said(first_iso: str, last_iso: str) -> str:
        try:
            first, last = date.fromisoformat(first_iso), date.fromisoformat(last_iso)
        except ValueError:
            return english_days(first_iso, last_iso)
        if first == last:
            return str(format_skeleton("MMMd", first, locale=lang))
        return str(format_interval(first, last, "MMMd" if first.year == last.year else "yMMMd", locale=lang))

    return said


def number(value: int | float, lang: str, places: int | None = None) -> str:
    """``value`` as ``lang`` writes a number: its digit grouping and decimal sign, as Babel's locale data has
    them (``14.29``, ``14,29``); ``places``: to that many decimals, else to as many as it has, up to three. The one
    way every door writes a score, a rating or a measure for people (a message's
    :class:`~dippouch.core.messages.Quantity`, a page's ``|number`` filter, a mail's table)."""
    if lang not in LANGUAGES or lang == DEFAULT:
        return english_number(value, places)
    if places is None:
        return str(format_decimal(value, locale=lang))
    return str(format_decimal(value, format="#,##0." + "0" * places if places else "#,##0", locale=lang))


def percent(value: int | float, lang: str, places: int = 0) -> str:
    """``value`` per cent (57.1 for 57.1 %) as ``lang`` writes a share: ``57%`` in English, ``57 %`` in German
    and French (a space their locale data puts before the sign, which a line never breaks)."""
    lang = lang if lang in LANGUAGES else DEFAULT
    digits = "#,##0." + "0" * places if places else "#,##0"
    return str(format_percent(value / 100, format=_percent_pattern(lang).replace("#,##0", digits, 1), locale=lang))


@cache
def _percent_pattern(lang: str) -> str:
    """The pattern ``lang``'s locale data writes a share with (``#,##0%``, ``#,##0\u00a0%``)."""
    return str(Locale.parse(lang).percent_formats[None].pattern)


@cache
def _number_in(lang: str) -> Callable[[int | float, int | None], str]:
    """How ``lang`` writes a quantity (:class:`dippouch.core.messages.Quantity`)."""
    return lambda value, places: number(value, lang, places)
