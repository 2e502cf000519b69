"""The reader's language: gettext catalogues per language, read from the ``.po`` files shipped in the package.

Each part of the program keeps its own catalogue (``locale/<lang>/LC_MESSAGES/<domain>.po``: ``site``,
``games``, ``play``, ``mail`` ...), so the people translating one part never edit another's file; a language's
catalogues are merged into one :class:`babel.support.Translations` when it is first asked for. English is the
source language: its text is the message id, so English needs no catalogue.

Province and power names are not translated here: they stay as the variant file gives them.
"""

from __future__ import annotations

from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

__all__ = ["DEFAULT", "LANGUAGES", "LOCALE_DIR", "best_language", "language_name", "translations"]

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
