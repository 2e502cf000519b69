"""The reader's language: gettext catalogues per language, read from the ``.po`` files shipped in the package.

Each part of the program keeps its own catalogue (``locale/<lang>/LC_MESSAGES/<domain>.po``: ``site``,
``games``, ``play``, ``mail`` ...), so the people translating one part never edit another's file; a language's
catalogues are merged into one :class:`babel.support.Translations` when it is first asked for. English is the
source language: its text is the message id, so English needs no catalogue.

Province and power names are not translated here: they stay as the variant file gives them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from functools import cache, lru_cache
from io import BytesIO
from pathlib import Path
from typing import Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import dates
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "LOCALE_DIR",
    "best_language",
    "format_date",
    "format_datetime",
    "language_name",
    "phase_words",
    "translations",
]

I18N_DOMAIN = "mail"
"""The catalogue of the season and phase words (:func:`phase_words`)."""

LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT = "en"
LANGUAGES: tuple[str, ...] = ("en", "de", "fr")
"""Complete languages, in the order a chooser lists them; a language is added here once its catalogues are."""

_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français"}


def language_name(code: str) -> str:
    """The language's name in itself (a chooser shows each language as its speakers write it)."""
    return _NAMES.get(code, code)


@cache
def translations(lang: str) -> NullTranslations:
    """The merged catalogues of ``lang`` (English or an unknown language: the text as written)."""
    if lang == DEFAULT or lang not in LANGUAGES:
        return NullTranslations()
    merged: Translations | None = None
    for po in sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang, domain=po.stem)
        buf = BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        part = Translations(buf, domain="dippouch")
        if merged is None:
            merged = part
        else:
            merged.merge(part)
    return merged if merged is not None else NullTranslations()


@lru_cache(maxsize=512)  # browsers send a few Accept-Language values; parsed once each, not per request
def best_language(accept: str | None, chosen: str | None = None) -> str:
    """The language to answer in: the person's own choice if we have it, else the first of the browser's
    ``Accept-Language`` (RFC 9110 section 12.5.4, by quality) we have, else English."""
    if chosen in LANGUAGES:
        return chosen
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for p in params.split(";"):
            key, _, value = p.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.strip().lower()))
    for _, _, tag in sorted(ranked):
        base = tag.split("-")[0]
        if base in LANGUAGES:
            return base
    return DEFAULT


# --------------------------------------------------------------------------------------------------
# Dates and times as each language writes them


def _zone(name: str | None) -> tzinfo:
    """The IANA zone ``name``; UTC for none or an unknown one (a page never fails on a stored zone)."""
    if name:
        try:
            return ZoneInfo(name)
        except (ValueError, ZoneInfoNotFoundError):
            pass
    return UTC


Form = Literal["short", "medium", "long", "full"]
FORMS: tuple[str, ...] = ("short", "medium", "long", "full")


def _form(form: str) -> Form:
    return cast(Form, form if form in FORMS else "medium")


def _moment(value: datetime | date | str) -> datetime | date:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)  # the store's times are UTC
    return value


def format_date(value: datetime | date | str | None, lang: str, zone: str | None = None, form: str = "medium") -> str:
    """The day of ``value`` as ``lang`` writes it (``Dec 1, 2026``, ``01.12.2026``, ``1 déc. 2026``), in
    ``zone`` (an IANA name; UTC if none); ``form`` is Babel's ``short``, ``medium``, ``long`` or ``full``."""
    if value is None or value == "":
        return ""
    moment = _moment(value)
    if isinstance(moment, datetime):
        moment = moment.astimezone(_zone(zone)).date()
    return dates.format_date(moment, _form(form), locale=lang)


def format_datetime(value: datetime | str | None, lang: str, zone: str | None = None, form: str = "medium") -> str:
    """A moment as ``lang`` writes it, to the minute, with its zone (``Dec 1, 2026, 9:00 AM UTC``,
    ``01.12.2026, 10:00 MEZ``, ``1 déc. 2026, 09:00 UTC``), in ``zone`` (an IANA name; UTC if none); the date
    part in Babel's ``form``. A zone with no name in that language is written as its offset (``UTC+01:00``)."""
    if value is None or value == "":
        return ""
    moment = _moment(value)
    if not isinstance(moment, datetime):
        return format_date(moment, lang, zone, form)
    tz = _zone(zone)
    local = moment.astimezone(tz)
    day = dates.format_date(local.date(), _form(form), locale=lang)
    hour = dates.format_time(local, "short", tzinfo=tz, locale=lang)
    name = (
        "UTC"
        if tz is UTC or getattr(tz, "key", "") in ("UTC", "Etc/UTC")
        else dates.format_time(local, "z", tzinfo=tz, locale=lang)
    )
    if not any(c.isalpha() for c in name):  # "+0100": said as an offset from UTC
        name = "UTC" + dates.format_time(local, "xxx", tzinfo=tz, locale=lang)
    joined = str(dates.get_datetime_format(_form(form), locale=lang)).replace("'", "").format(hour, day)
    return f"{joined} {name}"


@cache
def _phase_word_table(lang: str) -> dict[str, str]:
    _ = translations(lang).gettext
    return {
        "Spring": _("Spring"),
        "Summer": _("Summer"),
        "Fall": _("Fall"),
        "Autumn": _("Autumn"),
        "Winter": _("Winter"),
        "Movement": _("Movement"),
        "Retreats": _("Retreats"),
        "Adjustments": _("Adjustments"),
    }


def phase_words(name: str, lang: str = "en") -> str:
    """A phase's name (``Spring 1901 Movement``) with its season and phase words in ``lang``
    (``Frühjahr 1901 Bewegung``): a name made of words, so it is translated a word at a time; a season a
    variant names otherwise stays as the variant writes it. Only for reading: a subject to send orders
    with keeps the calendar's own name, which is what intake reads."""
    if lang == "en":
        return name
    table = _phase_word_table(lang)
    return " ".join(table.get(w, w) for w in name.split(" "))
