"""Orders, units and places as people read them: full names by default, the map's abbreviations on request.

Stored orders stay in the canonical short form (``A lon - dep``), which is what the adjudicator reads back.
Everything printed for players and coordinators (reports, receipts, listings) goes through these functions,
so a W3K player sees ``A London - Deptford`` instead of codes nobody knows. A text that cannot be read
back (a damaged record) is shown as it was stored rather than not at all.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import N_
from dippouch.core.notation import OrderParseError, format_order, format_place, format_unit, parse_order, parse_unit
from dippouch.core.variant import Variant
from dippouch.i18n import phase_words, translations

__all__ = [
    "I18N_DOMAIN",
    "board_unit",
    "coast_words",
    "joined",
    "kind_word",
    "order_text",
    "phase_words",
    "place_in",
    "place_list",
    "place_text",
    "unit_text",
    "unit_words",
]

I18N_DOMAIN = "mail"
"""The catalogue of the words here (unit kinds, a unit in a sentence, season and phase words)."""


def order_text(variant: Variant, text: str, phase_kind: PhaseKind | str | None = None, *, full: bool = True) -> str:
    """A stored canonical order, for reading: with full names unless ``full`` is false."""
    if not full:
        return text
    try:
        order = parse_order(variant, text, phase_kind=phase_kind)
    except OrderParseError:
        return text
    return format_order(variant, order, phase_kind=phase_kind, full=True)


def unit_text(variant: Variant, text: str, *, full: bool = True) -> str:
    """A stored unit (``F stp/sc``), for reading (``F St Petersburg (south coast)``)."""
    if not full:
        return text
    try:
        kind, loc = parse_unit(variant, text)
    except OrderParseError:
        return text
    return format_unit(variant, kind, loc, full=True)


def place_text(variant: Variant, name: str | int, *, full: bool = True) -> str:
    """A province or coast, given by its stored abbreviation or its location id."""
    try:
        loc = name if isinstance(name, int) else variant.map.loc(name)
    except KeyError:
        return str(name)
    return format_place(variant, loc, full=full)


def place_list(variant: Variant, names: Iterable[str | int], *, full: bool = True) -> list[str]:
    """Places for reading, sorted as a reader looks for them: by the name shown, ignoring case and accents
    (``Île-de-France`` among the I's)."""
    return sorted((place_text(variant, n, full=full) for n in names), key=_sort_key)


def joined(items: Sequence[str]) -> str:
    """Items for one line: comma-separated, or semicolon-separated when a name has a comma of its own
    (``East Riding, County Cork``), so that a list never reads as more places than it has."""
    return ("; " if any("," in item for item in items) else ", ").join(items)


def _sort_key(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if not unicodedata.combining(c)).lower()


def _kind_words(lang: str) -> dict[str, str]:
    _ = translations(lang).gettext
    return {"A": _("army"), "F": _("fleet")}


def unit_words(variant: Variant, power: str, kind: str, loc: int, lang: str = "en") -> str:
    """``the French army in Burgundy``: a unit in a sentence, by its power's adjective and full place name
    (the adjective and the place as the variant gives them, in any language)."""
    try:
        adjective = variant.power(power).adjective
    except KeyError:
        adjective = power
    _ = translations(lang).gettext
    return _("the %(adjective)s %(kind)s in %(place)s") % {
        "adjective": adjective,
        "kind": kind_word(variant, kind, lang),
        "place": format_place(variant, loc, full=True),
    }


def board_unit(variant: Variant, kind: str, loc: int, lang: str = "en", *, dislodged: bool = False) -> str:
    """A unit in the board's list, in words (``Armee Paris``, ``Flotte North Sea (vertrieben)``): its kind in
    ``lang`` with a capital, its place as the variant names it."""
    word = kind_word(variant, kind, lang)
    unit = f"{word[:1].upper()}{word[1:]} {place_in(variant, loc, lang)}"
    if not dislodged:
        return unit
    return translations(lang).gettext("%(unit)s (dislodged)") % {"unit": unit}


def place_in(variant: Variant, loc: int, lang: str | None) -> str:
    """A location's name for a reader of ``lang``: its province's name as the variant file translates it (a
    split coast keeps its coast's words after it), else as the file writes it."""
    where = variant.map.locations[loc]
    province = variant.map.provinces[where.province].name
    shown = variant.name_in(province, lang)
    if shown == province:
        return coast_words(where.name, lang)
    return coast_words(shown + where.name[len(province) :], lang)


COASTS = {
    "north coast": N_("north coast"),
    "south coast": N_("south coast"),
    "east coast": N_("east coast"),
    "west coast": N_("west coast"),
}
"""A split coast's words in brackets after its province's name, as the map data writes them for every variant
that does not name its coasts itself (:data:`dippouch.core.mapdata._COAST_NAMES`)."""


def coast_words(name: str, lang: str | None) -> str:
    """A place's name with its coast in ``lang`` (``Spain (south coast)``: ``Spain (Südküste)``); a name with no
    coast, or a coast a variant words its own way, as it is."""
    if not lang or lang == "en" or not name.endswith(" coast)"):
        return name
    head, _, coast = name[:-1].rpartition(" (")
    words = COASTS.get(coast)
    return name if not head or words is None else f"{head} ({translations(lang).gettext(words)})"


def kind_word(variant: Variant, kind: str, lang: str = "en") -> str:
    """``army``, ``fleet``, or a variant's own unit kind by its longest name (1000 AD: ``defensive army``, as
    the variant file writes it)."""
    words = _kind_words(lang)
    if kind in words:
        return words[kind]
    names = variant.rules.get("unit_names", {}).get(kind)
    if isinstance(names, list) and names:
        return max((str(n) for n in names), key=len)
    return translations(lang).gettext("unit (%(kind)s)") % {"kind": kind}
