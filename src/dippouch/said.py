"""The lower layers' messages in the reader's language: an order refused, an adjudicator's reason, a store's refusal.

The core, the rules of procedure (:mod:`dippouch.game`) and the store write what they tell people in English,
from templates with named placeholders (:mod:`dippouch.core.messages`), and the English text is what they
keep: a submission's line checks and a phase's results are stored as written, and the JSON API, the logs and
the coordinator's tools read them so. A door that shows such a text to a person (a page, a mail, the results
report) passes it through :func:`said`, which reads it back against the templates of the ``rules`` catalogue
and writes the translation with the same values: places, units, powers and the player's own words as they
were, a nested message (``reason``, ``why``, ``who``: a unit in words) and a list of choices (``options``) translated in their turn, and a
phase's name (``phase``, ``open``) in the reader's words. A text no template reads (a variant's own message, a
text written before its template existed) is shown as it is; so is every text in English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from babel.messages.pofile import read_po

from dippouch.core.messages import N_
from dippouch.i18n import DEFAULT, LANGUAGES, LOCALE_DIR

__all__ = ["I18N_DOMAIN", "LAYER_MESSAGES", "said"]

I18N_DOMAIN = "rules"
"""The catalogue of the core's messages and of the layers' listed below."""

LAYER_MESSAGES = (
    # dippouch.game: the check of a submission's lines, what the standing orders leave out, readiness.
    N_("this line is headed %(power)s, but these are %(own)s's orders"),
    N_("%(reason)s on line %(line)d (the first order counts)"),
    N_("%(reason)s; closest legal: %(orders)s"),
    N_("no orders: this submission replaces the earlier orders with none"),
    N_("no order, they hold"),
    N_("no order, it holds"),
    N_("no order, they are disbanded"),
    N_("no order, it is disbanded"),
    N_("%(count)d build(s) not ordered: waived"),
    N_("%(count)d removal(s) not ordered: made for %(power)s by the rules"),
    N_(
        "not marked ready: %(reason)s, so this submission replaces nothing; send orders, or a line 'no orders' to "
        "be ready with none"
    ),
    N_("all %(count)d line(s) were refused"),
    N_("it has no order line"),
    # dippouch.store: a submission refused as a whole.
    N_("%(power)s has nothing to order in %(phase)s"),
    N_(
        "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. The open "
        "phase is %(open)s, deadline %(deadline)s UTC; send orders for that phase."
    ),
    N_(
        "%(phase)s was processed at %(time)s UTC, before these orders arrived; they were not recorded. The open "
        "phase is %(open)s (paused); send orders for that phase."
    ),
    N_(
        "%(phase)s is not open in game %(game)s; these orders were not recorded. The open phase is %(open)s, "
        "deadline %(deadline)s UTC; send orders for that phase."
    ),
    N_(
        "%(phase)s is not open in game %(game)s; these orders were not recorded. The open phase is %(open)s "
        "(paused); send orders for that phase."
    ),
    N_("game %(game)s is over (roll back to reopen it)"),
    N_(
        "this submission says version %(version)s stands and also gives orders; send either the orders (a new "
        "version) or the instruction, not both"
    ),
    N_("%(power)s has no version %(version)s in %(phase)s to stand (versions: %(versions)s)"),
)
"""The English of the layers between the core and the doors, as :mod:`dippouch.game` and the store write it
(their modules are not marked: listed here, the catalogue check finds and translates them)."""

_NESTED = frozenset({"reason", "why", "who"})
"""Placeholders that hold another message (``who``: W3K's "the Crown army in Bristol")."""
_LISTS = frozenset({"options", "some"})
"""Placeholders that hold a list of choices (``a, b or c``: :func:`dippouch.core.messages.either`)."""
_PHASES = frozenset({"phase", "open"})
"""Placeholders that hold a phase's name (``Spring 1901 Movement``)."""

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")
_DEPTH = 4
"""How deep messages nest (a reason in a reason): a bound, so no text is read back for ever."""


@dataclass(frozen=True)
class _Template:
    pattern: re.Pattern[str]
    translated: str
    numbers: frozenset[str]
    """Placeholders written with ``%d``: their values are given as numbers."""


def _pattern(template: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """The regular expression that reads an English text made from ``template`` back into its values: a
    name or a word is anything but ``;`` (which joins messages), a nested message or list anything, a
    number digits; a placeholder written twice must say the same both times."""
    out: list[str] = []
    seen: set[str] = set()
    numbers: set[str] = set()
    at = 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[at : m.start()]))
        name, kind = m.groups()
        if name in seen:
            out.append(f"(?P={name})")
        elif kind == "d":
            out.append(rf"(?P<{name}>-?\d+)")
            numbers.add(name)
        elif name in _NESTED or name in _LISTS:
            out.append(rf"(?P<{name}>.+?)")
        else:
            out.append(rf"(?P<{name}>[^;]+?)")
        seen.add(name)
        at = m.end()
    out.append(re.escape(template[at:]))
    return re.compile("".join(out), re.DOTALL), frozenset(numbers)


@cache
def _templates(lang: str) -> tuple[tuple[_Template, ...], tuple[_Template, ...]]:
    """``lang``'s translated templates of the ``rules`` catalogue: (messages, list parts), the most specific
    first (the one with the most fixed text), so a message is read by its own template before a general one."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / "rules.po"
    if not po.exists():
        return (), ()
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang, domain="rules")
    messages: list[tuple[int, _Template]] = []
    parts: list[tuple[int, _Template]] = []
    for entry in catalog:
        if not entry.id or not isinstance(entry.id, str) or not entry.string or entry.fuzzy:
            continue
        pattern, numbers = _pattern(entry.id)
        fixed = len(_PLACEHOLDER.sub("", entry.id))
        (parts if entry.context == "list" else messages).append((fixed, _Template(pattern, str(entry.string), numbers)))
    ranked = (tuple(t for _, t in sorted(group, key=lambda x: -x[0])) for group in (messages, parts))
    return next(ranked), next(ranked)


def said(text: str, lang: str) -> str:
    """``text``, an English message of the layers under the doors, in ``lang``; as it is when no template of
    the ``rules`` catalogue reads it, and in English."""
    if not text or lang == DEFAULT or lang not in LANGUAGES:
        return text
    return _said(text, lang, 0)


def _said(text: str, lang: str, depth: int) -> str:
    messages, _parts = _templates(lang)
    got = _read(text, lang, messages, depth)
    if got is not None:
        return got
    if "; " in text and depth < _DEPTH:
        # Notes and refusals joined into one line ("a; b"): each in its turn.
        return "; ".join(_said(part, lang, depth + 1) for part in text.split("; "))
    return text


def _read(text: str, lang: str, templates: tuple[_Template, ...], depth: int) -> str | None:
    for t in templates:
        m = t.pattern.fullmatch(text)
        if m is None:
            continue
        values: dict[str, object] = {}
        for name, value in m.groupdict().items():
            values[name] = _value(name, value, lang, depth, t.numbers)
        try:
            return t.translated % values
        except (KeyError, TypeError, ValueError):  # a translation that does not fit its message: the English
            return None
    return None


def _value(name: str, value: str, lang: str, depth: int, numbers: frozenset[str]) -> object:
    if name in numbers:
        return int(value)
    if depth >= _DEPTH:
        return value
    if name in _NESTED:
        return _said(value, lang, depth + 1)
    if name in _LISTS:
        return _read(value, lang, _templates(lang)[1], depth + 1) or value
    if name in _PHASES:
        from dippouch.names import phase_words  # names reads the variant's words; said is read by it too

        return phase_words(value, lang)
    return value
