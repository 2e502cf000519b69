"""Messages as values: what the program tells people, kept as an id and its values, and said in a language only
where it is shown.

A message is a :class:`Msg`: its ``id`` is the English template (the ``rules`` catalogue's msgid, so English
needs no catalogue) and its ``args`` the values its placeholders take, by name::

    msg("no unit in %(place)s", place=gmap.label(prov))
    nmsg("%(num)d order", "%(num)d orders", n)               # a count chooses the form, as ngettext does
    pmsg("press rule", "quiet phase")                          # a word that means two things, told apart

A value is a name or a number kept as written (places, units, powers, the player's own words, a year), a
:class:`Quantity` (a size or a count, said with the reader's digit grouping: ``1,001``, ``1.001``), another
message (a reason inside a refusal), a :class:`Choices` (``a, b or c``), a :class:`PhaseName` (said with
the reader's season and phase words), or a :class:`Hint`: what to do next, which each door words its own way
(the command line names its command, the web its page and button). The core builds and returns messages and knows nothing of languages; a
door renders one with :func:`render`, handing it the reader's catalogue (:func:`dippouch.i18n.say`). ``str()``
of a message is its English: what the logs, the command line, the DATC tests and the JSON contract read.

A message is stored as it is (:meth:`Msg.to_data`, :meth:`Msg.from_data`): a submission's line checks and a
phase's results keep the id and the values, so a stored line is said in any language later, whole. A stored id
the core has since replaced by a singular and a plural (:data:`FORMER_IDS`) is read back as the new message.

:func:`N_` and :func:`NP_` mark a template that is not made into a message at once (a table of texts); the
catalogue check extracts every marked template (and the first arguments of :func:`msg`, :func:`nmsg` and
:func:`pmsg`) into the ``rules`` catalogue, where it is translated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "ENGLISH",
    "FORMER_IDS",
    "I18N_DOMAIN",
    "NP_",
    "N_",
    "Arg",
    "Choices",
    "Days",
    "Hint",
    "Msg",
    "PhaseName",
    "Quantity",
    "Words",
    "as_msg",
    "choices",
    "either",
    "english_days",
    "english_number",
    "hint",
    "joined",
    "msg",
    "nmsg",
    "pmsg",
    "quantity",
    "render",
    "sentences",
]

I18N_DOMAIN = "rules"
"""The catalogue of the core's messages and of the layers' under the doors."""


def N_(template: str) -> str:
    """``template`` itself: marks a message for the ``rules`` catalogue (gettext's ``gettext_noop``)."""
    return template


def NP_(context: str, template: str) -> str:
    """``template`` itself: marks a part of a message (``context``: what kind of part) for the catalogue."""
    return template


@dataclass(frozen=True, slots=True)
class Choices:
    """Choices a message offers, said as the reader's language lists them: ``a``, ``a or b``, ``a, b or c``."""

    items: tuple[Arg, ...]


@dataclass(frozen=True, slots=True)
class PhaseName:
    """A phase's name as its calendar writes it (``Spring 1901 Movement``), said with the reader's season and
    phase words."""

    name: str


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number said as the reader's language groups its digits (``1,001`` in English, ``1.001`` in German):
    a size or a limit the layers name, passed as a number and formatted only at the door (a plain ``int``
    stays as written, as a year must). With ``places``, a measure written to that many decimals (a score's
    ``14.29``, ``14,29`` in German; seconds of computing ``2.5``, ``2,5``); without, as many as it has (up to
    three)."""

    value: int | float
    places: int | None = None


@dataclass(frozen=True, slots=True)
class Days:
    """A span of days (an absence, an address's dates), said as the reader's language writes dates: ``3–21
    Aug`` in English, ``3.–21. Aug.`` in German, as short as reads unambiguously. The days are ISO dates
    (``2026-08-03``): the core reads no calendar; the door writes them (:func:`dippouch.saying.say`)."""

    first: str
    last: str


@dataclass(frozen=True, slots=True)
class Hint:
    """What to do next, which each door words its own way: ``text`` is how the command line says it (``use
    `dippouch players replace` to hand it over``), and a door with its own way names it by ``key`` (the web:
    "use Replace on the game's coordinator page"; :func:`dippouch.saying.say`'s ``door``)."""

    key: str
    text: Msg


@dataclass(frozen=True, slots=True)
class Msg:
    """A message: its id (the English template, ``%(name)s`` placeholders) and the values they take."""

    id: str
    args: Mapping[str, Arg] = field(default_factory=dict)
    plural: str | None = None
    """The plural template, for a message whose form follows a count (``args["num"]``), as ngettext's."""
    context: str | None = None
    """What kind of text it is, where one English text means two things (pgettext's context)."""

    def __str__(self) -> str:
        return render(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Msg):
            return (self.id, self.plural, self.context, self.args) == (
                other.id,
                other.plural,
                other.context,
                other.args,
            )
        if isinstance(other, str):
            # A text kept before messages were values (a result read back from an old record) is the same
            # message when it says the same in English.
            return render(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        # By its English, as the comparison with a text is.
        return hash(render(self))

    def __bool__(self) -> bool:
        return bool(self.id)

    def __contains__(self, text: str) -> bool:
        """Whether the English says ``text``: what the logs, the command line and the tests look for."""
        return text in render(self)

    @property
    def code(self) -> str:
        """The id, as programs read it (the JSON API's ``code``)."""
        return self.id

    def to_data(self) -> dict[str, Any]:
        """The message as JSON data, to be stored and read back by :meth:`from_data`."""
        out: dict[str, Any] = {"id": self.id}
        if self.args:
            out["args"] = {k: _arg_data(v) for k, v in self.args.items()}
        if self.plural is not None:
            out["plural"] = self.plural
        if self.context is not None:
            out["context"] = self.context
        return out

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Msg:
        """The message :meth:`to_data` stored; one stored under a former id (:data:`FORMER_IDS`) as the message
        the core makes today, so an old row is said with the singular and plural forms of today's catalogue."""
        ident = str(data["id"])
        args = {str(k): _arg_of(v) for k, v in (data.get("args") or {}).items()}
        plural, context = data.get("plural"), data.get("context")
        former = FORMER_IDS.get(ident) if plural is None and context is None else None
        if former is not None:
            singular, plurals, counted = former
            n = args.get(counted)
            if isinstance(n, int):
                # As nmsg makes it: the count that chooses the form is "num", beside the values the text shows.
                return cls(singular, {"num": n, **args}, plurals)
        return cls(ident, args, plural, context)


Arg = str | int | float | Msg | Choices | PhaseName | Hint | Quantity | Days
"""What a placeholder of a message holds."""


FORMER_IDS: Mapping[str, tuple[str, str, str]] = {
    "%(count)d build(s) not ordered: waived": (
        "%(count)d build not ordered: waived",
        "%(count)d builds not ordered: waived",
        "count",
    ),
    "%(count)d removal(s) not ordered: made for %(power)s by the rules": (
        "%(count)d removal not ordered: made for %(power)s by the rules",
        "%(count)d removals not ordered: made for %(power)s by the rules",
        "count",
    ),
    "all %(count)d line(s) were refused": (
        "its %(count)d line was refused",
        "all %(count)d lines were refused",
        "count",
    ),
    "%(power)s has %(count)d unit(s) of excess supply, not %(asked)d": (
        "%(power)s has %(count)d unit of excess supply, not %(asked)d",
        "%(power)s has %(count)d units of excess supply, not %(asked)d",
        "count",
    ),
    "%(count)d unit(s) of supply to %(power)s for this Winter": (
        "%(count)d unit of supply to %(power)s for this Winter",
        "%(count)d units of supply to %(power)s for this Winter",
        "count",
    ),
}
"""Ids a stored message may still carry that the core has since replaced by a singular and a plural form:
``old id: (singular, plural, the placeholder that counts)``. They said "unit(s)" for every number; the new
ones are chosen by the count, as :func:`nmsg` chooses (``num``). A submission's line checks and a phase's
results written before (and the rows migration 0023 read back with the templates of its day,
:mod:`dippouch.store.legacy_text`) keep the old ids; :meth:`Msg.from_data` reads them as the new message, so
they need no migration and the catalogues keep no translation of the old ids. An entry stays as long as such
rows may exist."""


def msg(template: str, /, **args: Arg) -> Msg:
    """A message of ``template`` with its values (and the mark that puts it in the catalogue)."""
    return Msg(template, args)


def nmsg(singular: str, plural: str, num: int, /, **args: Arg) -> Msg:
    """A message whose form follows ``num`` (its ``%(num)d``), as ngettext chooses one."""
    return Msg(singular, {"num": num, **args}, plural=plural)


def pmsg(context: str, template: str, /, **args: Arg) -> Msg:
    """A message told apart from another of the same English by ``context``."""
    return Msg(template, args, context=context)


def quantity(value: int | float, places: int | None = None) -> Quantity:
    """``value`` as a size, a count or a measure, said with the reader's digit grouping and decimal sign (a
    ``%(name)s`` placeholder); ``places``: written to that many decimals."""
    return Quantity(value, places)


def hint(key: str, template: str, /, **args: Arg) -> Hint:
    """What to do next, ``key`` for the doors that word it their own way, ``template`` as the command line
    says it."""
    return Hint(key, Msg(template, args))


def as_msg(text: str | Msg) -> Msg:
    """``text`` as a message: a text that is not one yet (a program's own words, an operator's error) is a
    message whose id is itself, said as it is unless a catalogue has it."""
    return text if isinstance(text, Msg) else Msg(text)


def either(options: list[str]) -> str:
    """``A``, ``A or B``, ``A, B or C`` in English: the choices a refusal offers, as one placeholder's value of a
    text (a message keeps them as :class:`Choices`, said in the reader's words)."""
    if len(options) == 1:
        return options[0]
    return NP_("list", "%(some)s or %(last)s") % {"some": ", ".join(options[:-1]), "last": options[-1]}


def joined(*parts: Msg | None) -> Msg | None:
    """Messages said one after the other (``A; B; C``) as one, the empty ones left out; None when none is left."""
    out: Msg | None = None
    for part in parts:
        if part:
            out = part if out is None else msg("%(first)s; %(then)s", first=out, then=part)
    return out


def sentences(first: Msg, *more: Msg) -> Msg:
    """Sentences said one after the other (``A. B. C.``) as one message: each keeps its own values and
    translation."""
    out = first
    for then in more:
        out = msg("%(first)s %(then)s", first=out, then=then)
    return out


def choices(options: Iterable[Arg]) -> Choices:
    """``A``, ``A or B``, ``A, B or C``: the choices a message offers, as one placeholder's value."""
    return Choices(tuple(options))


class Words(Protocol):
    """A reader's catalogue: what :func:`render` asks it (Babel's and gettext's translations have these)."""

    def gettext(self, message: str) -> object: ...

    def ngettext(self, singular: str, plural: str, n: int) -> object: ...

    def pgettext(self, context: str, message: str) -> object: ...


class _English:
    """The source language: each id is its own English."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def pgettext(self, context: str, message: str) -> str:
        return message


ENGLISH = _English()

_DEPTH = 8
"""How deep messages nest (a reason in a reason): a bound, so a message that holds itself is no endless loop."""


def render(
    m: Msg,
    words: Words = ENGLISH,
    phase: Callable[[str], str] | None = None,
    hints: Mapping[str, Msg] | None = None,
    number: Callable[[int | float, int | None], str] | None = None,
    days: Callable[[str, str], str] | None = None,
    *,
    _depth: int = 0,
) -> str:
    """``m`` in the language of ``words`` (English by default), each nested message, list of choices and phase
    name in its turn (``phase``: a phase's name in that language; as written if None), each :class:`Hint` as
    the door's ``hints`` word it (else as the command line does), each :class:`Quantity` as ``number`` writes
    it in that language (English's ``1,001`` if None), each :class:`Days` as ``days`` writes the span (English's
    :func:`english_days` if None). A translation whose placeholders do not fit its values (a catalogue's mistake)
    is passed over for the English."""
    if words is ENGLISH and phase is None and not hints and number is None and days is None:
        return _PLAIN.message(m, _depth)  # the commonest case: English as written, no per-call sayer made
    said = _Said(words, phase, hints or {}, number, days)
    return said.message(m, _depth)


@dataclass(frozen=True, slots=True)
class _Said:
    words: Words
    phase: Callable[[str], str] | None
    hints: Mapping[str, Msg]
    number: Callable[[int | float, int | None], str] | None
    days: Callable[[str, str], str] | None = None

    def message(self, m: Msg, depth: int) -> str:
        words = self.words
        values = {k: self.value(v, depth) for k, v in m.args.items()}
        if m.plural is not None:
            n = m.args.get("num")
            template = str(words.ngettext(m.id, m.plural, n if isinstance(n, int) else 0))
        elif m.context is not None:
            template = str(words.pgettext(m.context, m.id))
        else:
            template = str(words.gettext(m.id))
        if not values and "%" not in template:
            return template
        try:
            return template % values
        except (KeyError, TypeError, ValueError):
            english = m.id if m.plural is None or values.get("num") == 1 else m.plural
            try:
                return english % values
            except (KeyError, TypeError, ValueError):
                return english

    def value(self, value: Arg, depth: int) -> object:
        if isinstance(value, Msg):
            return self.message(value, depth + 1) if depth < _DEPTH else value.id
        if isinstance(value, Hint):
            own = self.hints.get(value.key)
            # The door's wording takes the hint's values too ("create the game with variant %(variant)s").
            said = value.text if own is None else Msg(own.id, {**value.text.args, **own.args}, own.plural, own.context)
            return self.value(said, depth)
        if isinstance(value, Choices):
            items = [str(self.value(x, depth)) for x in value.items]
            if len(items) <= 1:
                return items[0] if items else ""
            joined = str(self.words.pgettext("list", "%(some)s or %(last)s"))
            try:
                return joined % {"some": ", ".join(items[:-1]), "last": items[-1]}
            except (KeyError, TypeError, ValueError):
                return f"{', '.join(items[:-1])} or {items[-1]}"
        if isinstance(value, PhaseName):
            return self.phase(value.name) if self.phase is not None else value.name
        if isinstance(value, Quantity):
            if self.number is not None:
                return self.number(value.value, value.places)
            return english_number(value.value, value.places)
        if isinstance(value, Days):
            return (
                self.days(value.first, value.last) if self.days is not None else english_days(value.first, value.last)
            )
        return value


_PLAIN = _Said(ENGLISH, None, {}, None)


def english_number(value: int | float, places: int | None = None) -> str:
    """``value`` as English writes it, digits grouped (``1,001``; ``14.29`` to ``places`` decimals; a measure
    with no ``places`` to at most three, as the other languages' locale data writes it)."""
    if places is not None:
        return f"{value:,.{places}f}"
    if isinstance(value, float) and not value.is_integer():
        return f"{round(value, 3):,}"
    return f"{value:,.0f}" if isinstance(value, float) else f"{value:,}"


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def english_days(first: str, last: str) -> str:
    """``3–21 Aug``, ``28 Jul–4 Aug``, ``30 Dec 2026–2 Jan 2027``: two ISO dates as a span of days in English, as
    short as reads unambiguously (the site's own English, shorter than Babel's ``Aug 3 – 21``); a text that is
    no ISO date is written as it is."""
    try:
        (y1, m1, d1), (y2, m2, d2) = ([int(x) for x in day.split("-")] for day in (first, last))
        one, two = f"{d1} {_MONTHS[m1 - 1]}", f"{d2} {_MONTHS[m2 - 1]}"
    except (ValueError, IndexError):
        return f"{first}–{last}"
    if (y1, m1, d1) == (y2, m2, d2):
        return one
    if y1 != y2:
        return f"{one} {y1}–{two} {y2}"
    return f"{one}–{two}" if m1 != m2 else f"{d1}–{two}"


def _arg_data(value: Arg) -> Any:
    if isinstance(value, Msg):
        return {"msg": value.to_data()}
    if isinstance(value, Choices):
        return {"choices": [_arg_data(x) for x in value.items]}
    if isinstance(value, PhaseName):
        return {"phase": value.name}
    if isinstance(value, Hint):
        return {"hint": value.key, "text": value.text.to_data()}
    if isinstance(value, Quantity):
        return {"quantity": value.value} if value.places is None else {"quantity": value.value, "places": value.places}
    if isinstance(value, Days):
        return {"days": [value.first, value.last]}
    return value


def _arg_of(data: Any) -> Arg:
    if isinstance(data, dict):
        if "msg" in data:
            return Msg.from_data(data["msg"])
        if "choices" in data:
            return Choices(tuple(_arg_of(x) for x in data["choices"]))
        if "phase" in data:
            return PhaseName(str(data["phase"]))
        if "hint" in data:
            return Hint(str(data["hint"]), Msg.from_data(data["text"]))
        if "quantity" in data and isinstance(data["quantity"], int | float):
            places = data.get("places")
            return Quantity(data["quantity"], places if isinstance(places, int) else None)
        if "days" in data and isinstance(data["days"], list) and len(data["days"]) == 2:
            return Days(str(data["days"][0]), str(data["days"][1]))
    if isinstance(data, bool):  # JSON has no other way to say a flag; kept as its word
        return str(data)
    if isinstance(data, int | float | str):
        return data
    return str(data)
