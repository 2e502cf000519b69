"""Order notation: read orders the way players write them, write them back in one short form.

Players paste orders from forum posts, e-mails and other judges, so the reader accepts every common
spelling (``A Par - Bur``, ``Army Paris moves to Burgundy``, ``F NTH C A LON - BEL``, DATC's
``F Spain(nc) - Gascony``), by abbreviation, full name or alias, in any case. Names come from the
variant's data, so every variant's aliases work without code. The writer produces the canonical short
form (``A par - bur``, ``F stp/sc - bot``) that reports and the JSON contract use.

The parser only records what was written: a wrong coast, a wrong unit type or an impossible move is kept
as written, because DATC decides what such an order means (a wrong coast of the ordered unit is ignored,
6.B.10; a fleet moving to a split-coast province without a coast may still be unambiguous, 6.B.2). Legality
is the adjudicator's business.

Variants with extra order kinds (W3K's ``Convert``, proxy orders, supply transfers) register a syntax
parser under a rule name with :func:`register_syntax`; it is active for a variant whose ``[rules]`` table
switches that name on. See docs/notation.md.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from dippouch.core.calendar import PhaseKind
from dippouch.core.errors import DippouchError
from dippouch.core.lookup import FORMATS, SYNTAX, SYNTAX_GENERATION
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import N_, Arg, Msg, choices, msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive

if TYPE_CHECKING:
    from dippouch.core.variant import Variant

__all__ = [
    "OrderParseError",
    "OrderReader",
    "ParsedLine",
    "format_order",
    "format_place",
    "format_unit",
    "parse_order",
    "parse_orders",
    "parse_unit",
    "quoted",
    "register_format",
    "register_syntax",
]


I18N_DOMAIN = "rules"
"""The catalogue of the reader's refusals (:mod:`dippouch.core.messages`)."""

# Refusals naming what was expected, one message per kind of place (a word glued into a sentence would not
# translate: "no province" and "no coast" take different words in other languages).
_NO_SUCH = {"province": N_("no province %(token)s"), "coast": N_("no coast %(token)s")}
_EXPECTED_FOUND = {
    "province": N_("expected a province but found %(token)s"),
    "coast": N_("expected a coast but found %(token)s"),
}
_EXPECTED_AFTER = {
    "province": N_("expected a province after %(text)s"),
    "coast": N_("expected a coast after %(text)s"),
}


def _worded(table: dict[str, str], what: str, **values: Arg) -> Msg:
    """The message of ``table`` for a place of kind ``what``; a kind a variant's syntax names otherwise is
    written into the province's message (in English: no catalogue has it)."""
    template = table.get(what) or table["province"].replace("province", what)
    return msg(template, **values)


class OrderParseError(DippouchError):
    """An order that cannot be understood: which word, why, and what the player probably meant."""

    def __init__(self, token: str, reason: Msg, suggestions: Iterable[str] = ()) -> None:
        self.token = token
        self.reason = reason
        self.suggestions = list(suggestions)
        said = reason
        if self.suggestions:
            said = msg("%(reason)s; did you mean %(options)s?", reason=reason, options=choices(self.suggestions))
        super().__init__(said)


# --------------------------------------------------------------------------------------------------
# Words


_HOLD = frozenset({"h", "hold", "holds", "stand", "stands"})
_MOVE = frozenset({"-", "m", "move", "moves", "to", "mv", "into", "attack", "attacks", "enter", "enters"})
_SUPPORT = frozenset({"s", "sup", "support", "supports"})
_CONVOY = frozenset({"c", "con", "convoy", "convoys"})
_MOVE_AGAIN = frozenset({"to", "-", "into", "enter", "attack", "move"})
"""Move words that may follow a first one: ``moves to``, ``to enter``, ``to attack`` (the W3K rulebook)."""
_RETREAT = frozenset({"r", "retreat", "retreats"})
_DISBAND = frozenset({"d", "disband", "disbands"})
_REMOVE = frozenset({"remove", "removes"})
_BUILD = frozenset({"b", "build", "builds"})
_WAIVE = frozenset({"waive", "waives", "waived", "w", "decline", "declines"})
_VERBS = _HOLD | _MOVE | _SUPPORT | _CONVOY | _RETREAT | _DISBAND | _REMOVE | _BUILD
_BASE_KINDS: dict[str, str] = {"a": "A", "army": "A", "f": "F", "fleet": "F"}

_TOKEN_RE = re.compile(r"[()/,:;]|-+|[^\s()/,:;\-]+")


_APOSTROPHES = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "\u02bc": "'",
        "\u2032": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
    }
)


def _tokenize(text: str) -> list[str]:
    """Split into words and the punctuation that means something (``-``, ``/``, parentheses).

    On both sides of every comparison: accents are dropped, so ``München`` finds the alias ``munchen``;
    apostrophes, typographic ones included, are dropped, so ``King’s Lynn``, ``King's Lynn`` and
    ``Kings Lynn`` are one name; quotation marks (“London”) are ignored.
    """
    if not text.isascii():
        text = text.translate(_APOSTROPHES)
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = text.replace("\u2192", " - ").replace("->", " - ").replace("=>", " - ").replace("'", "").replace('"', " ")
    text = text.replace("`", "")
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace(".", " ")
    return _TOKEN_RE.findall(text)


def _key(tokens: Iterable[str]) -> tuple[str, ...]:
    return tuple(t.lower() for t in tokens)


@dataclass(frozen=True, slots=True)
class _Lexicon:
    """Everything the parser needs from a variant, compiled once per variant."""

    names: Mapping[tuple[str, ...], int]
    """Tokenized lower-case name, abbreviation or alias -> location id."""
    longest: int
    coast_words: Mapping[int, Mapping[tuple[str, ...], int]]
    """Province id -> coast phrase (``nc``, ``north coast``, ``north``) -> coast location id."""
    all_coast_words: frozenset[tuple[str, ...]]
    kinds: Mapping[str, str]
    """Unit-type word -> unit kind letter (``army`` -> ``A``; variants add more)."""
    suggest_pool: Mapping[str, int]
    """Lower-case name as written in the variant -> location id, for "did you mean"."""
    syntax: tuple[Callable[[OrderReader], Order | None], ...] = field(default=())
    verbs: tuple[str, ...] = field(default=())
    """The verbs the variant's extra order kinds add (W3K: ``convert``...), for "did you mean"."""
    owners: Mapping[tuple[str, ...], tuple[str, bool]] = field(default_factory=dict)
    """Tokenized lower-case power name or adjective (``crown``, ``irish confederacy``, ``french``), also in the
    possessive (``crowns``: the apostrophe is dropped) -> (power, possessive), for an owner named before a unit."""


def _name_forms(key: tuple[str, ...], sea: bool) -> list[tuple[str, ...]]:
    """Other ways a name is written, each taken only where no place already has it: with or without a
    leading "the" (``the Gulf of Mayo``, ``Shire of Elgin``) and, for a sea, with "Sea Area" or "area" after it
    (W3K's "the Plymouth Sea Area", after the Shipping Forecast's areas)."""
    bare = key[1:] if len(key) > 1 and key[0] == "the" else key
    forms = [bare, ("the", *bare)]
    if sea:
        for tail in (("sea", "area"), ("area",)):
            forms += [(*bare, *tail), ("the", *bare, *tail)]
    return [f for f in forms if f != key]


def _lexicon(variant: Variant) -> _Lexicon:
    # Kept on the variant (it goes with it), with the syntax registrations it was made under.
    hit: tuple[int, _Lexicon] | None = variant.derived.get("notation.lexicon")
    if hit is not None and hit[0] == SYNTAX_GENERATION[0]:
        return hit[1]
    gmap = variant.map
    names: dict[tuple[str, ...], int] = {}
    pool: dict[str, int] = {}
    for key_text, lid in gmap.names.items():
        key = _key(_tokenize(key_text))
        names.setdefault(key, lid)
        if "-" in key and len(key) > 1:
            # "Sutton-at-Hone" is also written "Sutton at Hone" (a dash inside a name is not a move).
            names.setdefault(tuple(w for w in key if w != "-"), lid)
        pool.setdefault(key_text, lid)
    for key, lid in list(names.items()):
        for form in _name_forms(key, gmap.provinces[gmap.locations[lid].province].kind == ProvinceKind.SEA):
            names.setdefault(form, lid)
    coast_words: dict[int, dict[tuple[str, ...], int]] = {}
    all_coasts: set[tuple[str, ...]] = set()
    for loc in gmap.locations:
        if loc.coast is None:
            continue
        words = coast_words.setdefault(loc.province, {})
        # "St Petersburg (south coast)" -> "south coast"; also its first word and initials.
        cname = loc.name[loc.name.rfind("(") + 1 : -1] if loc.name.endswith(")") else loc.coast
        phrases = {loc.coast, cname, cname.split()[0], "".join(w[0] for w in cname.split())}
        for ph in phrases:
            k = _key(_tokenize(ph))
            if k:
                words.setdefault(k, loc.id)
                all_coasts.add(k)
        full = _key(_tokenize(loc.name))
        names.setdefault(full, loc.id)
        # "the south coast of Caernarfonshire" (the W3K rulebook's words for cae/sc).
        province_name = _key(_tokenize(gmap.provinces[loc.province].name))
        for coast_name in {_key(_tokenize(cname)), _key(_tokenize(cname.split()[0] + " coast"))}:
            of_form = (*coast_name, "of", *province_name)
            names.setdefault(of_form, loc.id)
            names.setdefault(("the", *of_form), loc.id)
    kinds = dict(_BASE_KINDS)
    # A variant's own unit kinds are the keys of ``[rules] moves_as`` (1000 AD: ``D = "A"``); extra words for
    # them come from ``[rules] unit_names`` (``D = ["3d", "defensive army"]``).
    moves_as = variant.rules.get("moves_as", {})
    if isinstance(moves_as, Mapping):
        for letter in moves_as:
            kinds[str(letter).lower()] = str(letter).upper()
    unit_names = variant.rules.get("unit_names", {})
    if isinstance(unit_names, Mapping):
        for letter, words in unit_names.items():
            kinds[str(letter).lower()] = str(letter).upper()
            for word in words if isinstance(words, list) else [words]:
                for spelling in (str(word).lower(), " ".join(_tokenize(str(word).lower()))):
                    kinds[spelling] = str(letter).upper()
    owners: dict[tuple[str, ...], tuple[str, bool]] = {}
    for power in variant.powers:
        for word in (power.name, power.adjective):
            key = _key(_tokenize(word))
            if not key:
                continue
            owners.setdefault(key, (power.name, False))
            owners.setdefault((*key[:-1], key[-1] + "s"), (power.name, True))
    active = [entry for rule, entries in SYNTAX.items() if variant.rules.get(rule) for entry in entries]
    syntax = tuple(fn for fn, _ in active)
    verbs = tuple(v for _, words in active for v in words)
    lex = _Lexicon(
        names=names,
        longest=max((len(k) for k in names), default=1),
        coast_words=coast_words,
        all_coast_words=frozenset(all_coasts),
        kinds=kinds,
        suggest_pool=pool,
        syntax=syntax,
        verbs=verbs,
        owners=owners,
    )
    variant.derived["notation.lexicon"] = (SYNTAX_GENERATION[0], lex)
    return lex


# --------------------------------------------------------------------------------------------------
# Extension points

# The registries of extra syntax and formats are kept in core.lookup (SYNTAX, FORMATS), the core's one registry.


def register_syntax(rule: str, parser: Callable[[OrderReader], Order | None], verbs: Iterable[str] = ()) -> None:
    """Teach the reader an extra order kind, active in variants whose ``[rules]`` switch ``rule`` on.

    ``parser`` gets an :class:`OrderReader` at the start of the order and returns an order, or ``None``
    when the text is not its kind (the reader is then rewound and the standard grammar tried). It may raise
    :class:`OrderParseError` when the text clearly is its kind but is wrong. ``verbs`` are the words that
    name the new kinds, one each (``convert``): messages list them, and a misspelt one is recognised.
    A rule may have several parsers (a module per order kind registers its own), tried in the order they
    were registered.
    """
    SYNTAX.setdefault(rule, []).append((parser, tuple(verbs)))
    SYNTAX_GENERATION[0] += 1


def register_format(order_type: type[Order], formatter: Callable[[Variant, Order, bool], str]) -> None:
    """Teach :func:`format_order` to write a variant's extra order class: ``formatter(variant, order, full)``,
    ``full`` asking for places by their full names (:func:`format_place`)."""
    FORMATS[order_type] = formatter


# --------------------------------------------------------------------------------------------------
# The reader


class OrderReader:
    """A cursor over an order's words, with the pieces of grammar that extensions reuse."""

    def __init__(
        self, variant: Variant, text: str, phase_kind: PhaseKind | None, flips: frozenset[_Choice] = frozenset()
    ) -> None:
        self.variant = variant
        self.text = text
        self.phase_kind = phase_kind
        self.lex = _lexicon(variant)
        self.raw = _tokenize(text)
        self.words = [t.lower() for t in self.raw]
        self.pos = 0
        self.flips = flips
        """Ambiguous spots to read the other way on this attempt (see :func:`_read`)."""
        self.choices: list[_Choice] = []
        """Ambiguous spots met on this attempt, in order."""
        self.dashless = False
        """This reading took two names in a row for a move (the least likely reading)."""
        self.last_place: tuple[int, str] | None = None
        """Where the last place read started, and what it was read as (for a misspelt longer name)."""
        self.quiet = False
        """Errors are not shown (a tentative reading): no "did you mean" search for them."""

    def choice(self, what: str, at: int) -> bool:
        """Note an ambiguous spot; True if this attempt takes its second reading."""
        key = (what, at)
        if key not in self.choices:
            self.choices.append(key)
        return key in self.flips

    # -- cursor

    def peek(self, ahead: int = 0) -> str | None:
        i = self.pos + ahead
        return self.words[i] if i < len(self.words) else None

    def at_end(self) -> bool:
        return self.pos >= len(self.words)

    def accept(self, words: Iterable[str]) -> str | None:
        """Consume the next word if it is one of ``words``."""
        w = self.peek()
        if w is not None and w in words:
            self.pos += 1
            return w
        return None

    def accept_phrase(self, *phrase: str) -> bool:
        n = len(phrase)
        if tuple(self.words[self.pos : self.pos + n]) == phrase:
            self.pos += n
            return True
        return False

    def here(self) -> str:
        """The original spelling of the next word, for messages."""
        return self.raw[self.pos] if self.pos < len(self.raw) else ""

    def fail(self, reason: Msg, token: str | None = None, suggestions: Iterable[str] = ()) -> OrderParseError:
        return OrderParseError(self.here() if token is None else token, reason, suggestions)

    # -- grammar pieces

    def kind(self) -> str | None:
        """An optional unit type word; a one-letter type must not swallow a province of that name."""
        for n in (2, 1):
            phrase = " ".join(self.words[self.pos : self.pos + n])
            if len(self.words) - self.pos < n or phrase not in self.lex.kinds:
                continue
            # "A" before a province is the type; "A" alone (or a variant's one-letter province) is not.
            if self._match_location(self.pos + n) is not None or self._match_location(self.pos) is None:
                self.pos += n
                return self.lex.kinds[phrase]
        return None

    def _match_location(self, start: int) -> tuple[int, int] | None:
        """Longest name at ``start`` (or the next shorter one on a second reading): (location id, words used).

        "Norwegian S" may be a name or Norwegian followed by "S" (support); "Bristol Channel" a sea or
        Bristol followed by a dashless move. The longest reading is tried first.
        """
        names = self.lex.names
        found: list[tuple[int, int]] = []
        for n in range(min(self.lex.longest, len(self.words) - start), 0, -1):
            lid = names.get(tuple(self.words[start : start + n]))
            if lid is not None:
                found.append((lid, n))
                if len(found) == 2:
                    break
        if not found:
            return None
        if len(found) == 2 and self.choice("name", start):
            return found[1]
        return found[0]

    def location(self, what: str = "province") -> int:
        """A province or coast, by any name, with an optional coast: ``stp/sc``, ``Spain(nc)``, ``spa nc``."""
        if self.at_end():
            raise self.fail(_worded(_EXPECTED_AFTER, what, text=repr(self.text.strip())), token="")
        m = self._match_location(self.pos)
        if m is None:
            raise self._unknown_location(what)
        lid, n = m
        self.last_place = (self.pos, what)
        self.pos += n
        return self._coast(lid)

    def _coast(self, lid: int) -> int:
        gmap = self.variant.map
        prov = gmap.locations[lid].province
        start = self.pos
        closing = None
        if self.accept(("/",)):
            closing = ""
        elif self.peek() == "(":
            self.pos += 1
            closing = ")"
        coasts = self.lex.coast_words.get(prov, {})
        for n in (2, 1):
            phrase = tuple(self.words[self.pos : self.pos + n])
            if len(phrase) < n:
                continue
            if phrase in coasts:
                if closing is None and self.choice("coast", self.pos):
                    break  # second reading: "north" starts the next name ("spa north atlantic")
                self.pos += n
                if closing == ")" and not self.accept((")",)):
                    raise self.fail(msg("expected ')' after the coast of %(place)s", place=gmap.provinces[prov].name))
                return coasts[phrase]
            if closing is not None and (phrase in self.lex.all_coast_words or phrase == ("coast",)):
                raise self._bad_coast(prov, " ".join(self.raw[self.pos : self.pos + n]))
        if closing is not None:
            if closing == ")" and self.peek() in ("convoy", "via"):
                # "(via convoy)" is not a coast; let the caller read it.
                self.pos = start
                return lid
            raise self._bad_coast(prov, self.here())
        return lid

    def _bad_coast(self, prov: int, token: str) -> OrderParseError:
        gmap = self.variant.map
        p = gmap.provinces[prov]
        if not p.coasts:
            return OrderParseError(
                token,
                msg("%(place)s has no separate coasts, so no coast %(token)s", place=p.name, token=repr(token)),
            )
        options = [gmap.locations[c].abbr for c in p.coasts]
        return OrderParseError(
            token,
            msg(
                "%(place)s has no coast %(token)s; its coasts are %(coasts)s",
                place=p.name,
                token=repr(token),
                coasts=", ".join(options),
            ),
            options,
        )

    def _unknown_location(self, what: str) -> OrderParseError:
        if self.quiet:
            return self.fail(_worded(_NO_SUCH, what, token=repr(self.here())))
        pool = self.lex.suggest_pool
        gmap = self.variant.map
        keys = list(pool)
        # A misspelt multi-word name ("Gulf of Bothnai") is best matched as a whole.
        words = 1
        while (
            words < 3
            and self.pos + words < len(self.words)
            and self.words[self.pos + words] not in _VERBS
            and self.words[self.pos + words][0].isalnum()
        ):
            words += 1
        for n in range(words, 0, -1):
            span = " ".join(self.words[self.pos : self.pos + n])
            close = difflib.get_close_matches(span, keys, n=3, cutoff=0.75 if n > 1 else 0.6)
            if close or n == 1:
                token = " ".join(self.raw[self.pos : self.pos + n])
                seen: list[str] = []
                for c in close:
                    loc = gmap.locations[pool[c]]
                    label = f"{loc.name} ({loc.abbr})"
                    if label not in seen:
                        seen.append(label)
                if not close and n == 1 and self.words[self.pos] in _VERBS | set(self.lex.kinds):
                    return OrderParseError(token, _worded(_EXPECTED_FOUND, what, token=repr(token)))
                return OrderParseError(token, _worded(_NO_SUCH, what, token=repr(token)), seen)
        raise AssertionError("unreachable")

    def unit(self) -> tuple[str | None, int]:
        """A unit: an optional type and its place (``A par``, ``Army Paris``, ``the army in Paris``)."""
        kind = self.kind()
        if kind is not None and self.peek() in ("in", "at") and self._match_location(self.pos + 1) is not None:
            self.pos += 1  # "the French army in Burgundy"
        return kind, self.location()

    def unit_or_none(self) -> tuple[str | None, int] | None:
        """A unit if the words here read as one, else None: for a variant's syntax that reads a unit first to
        see whether its order applies. A failed try costs no "did you mean" search (tens of milliseconds over
        W3K's names, for an error nobody sees: every W3K build line paid it twice)."""
        quiet, self.quiet = self.quiet, True
        try:
            return self.unit()
        except OrderParseError:
            return None
        finally:
            self.quiet = quiet

    def owner(self) -> str | None:
        """An optional power named before a unit: ``the Crown Army Ashby``, ``German A Mun``, ``France's
        Burgundy``, ``the French army in Burgundy``; the power's name, or None (nothing read).

        It is read as an owner only when a unit type follows (or, in the possessive, a place): "Argyll" is
        also a place, so ``S Argyll`` supports the unit in Argyll, and where both readings fit, the other
        one is tried if this one fails."""
        start = self.pos
        at = start + 1 if self.peek() == "the" else start
        owners = self.lex.owners
        for n in (3, 2, 1):
            hit = owners.get(tuple(self.words[at : at + n]))
            if hit is None or at + n > len(self.words):
                continue
            power, possessive = hit
            after = at + n
            word = self.words[after] if after < len(self.words) else None
            unit_follows = word in self.lex.kinds and (
                self._match_location(after + 1) is not None
                or (after + 2 < len(self.words) and self.words[after + 1] in ("in", "at"))
            )
            if not (unit_follows or (possessive and self._match_location(after) is not None)):
                return None
            if self._match_location(start) is not None and self.choice("owner", start):
                return None  # second reading: the words are a place ("supports Argyll A ...")
            self.pos = after
            return power
        return None

    def move_word(self) -> bool:
        """``-``, ``->``, ``M``, ``moves to``, ``to``..."""
        if self.accept(_MOVE) is None:
            return False
        while self.accept(_MOVE_AGAIN):  # "moves to", "to enter", "to attack", "- to"
            pass
        return True

    def via_convoy(self) -> bool:
        if self.accept_phrase("(", "via", "convoy", ")") or self.accept_phrase("(", "convoy", ")"):
            return True
        if self.accept_phrase("via", "convoy") or self.accept_phrase("by", "convoy"):
            return True
        return self.accept(("via", "vc")) is not None

    def finish(self) -> None:
        self.accept((".", ";", ","))
        if not self.at_end():
            tok = " ".join(self.raw[self.pos :])
            misspelt = self._misspelt_tail()
            if misspelt is not None:
                raise misspelt
            raise self.fail(msg("unexpected %(token)s after a complete order", token=repr(tok)), token=self.here())

    def _misspelt_tail(self) -> OrderParseError | None:
        """When words are left after the last place read, and that place with them is close to a longer
        name (``Bristol Chanel``: Bristol read, "Chanel" left), the error names the longer one."""
        if self.last_place is None:
            return None
        start, what = self.last_place
        span = " ".join(self.words[start:])
        pool = self.lex.suggest_pool
        close = [c for c in difflib.get_close_matches(span, list(pool), n=3, cutoff=0.8) if len(c.split()) > 1]
        if not close:
            return None
        gmap = self.variant.map
        labels = list(dict.fromkeys(f"{gmap.locations[pool[c]].name} ({gmap.locations[pool[c]].abbr})" for c in close))
        token = " ".join(self.raw[start:])
        return OrderParseError(token, _worded(_NO_SUCH, what, token=repr(token)), labels)


def _parse(r: OrderReader) -> Order:
    if r.at_end():
        raise OrderParseError("", msg("empty order"))
    for ext in r.lex.syntax:
        start = r.pos
        got = ext(r)
        if got is not None:
            r.finish()
            return got
        r.pos = start
    # Orders that start with their verb: Build, Remove, Disband, Waive.
    if r.peek() in _WAIVE and (r.pos + 1 == len(r.words) or r.words[r.pos + 1 :] in (["build"], ["builds"])):
        return Waive()
    first = r.peek()
    if first in _BUILD and (r.peek(1) in r.lex.kinds or r._match_location(r.pos + 1) is not None):
        r.pos += 1
        kind, loc = r.unit()
        if kind is None:
            raise r.fail(
                msg(
                    "a build needs a unit type: Build A %(place)s or Build F %(place)s",
                    place=r.variant.map.locations[loc].abbr,
                ),
                token=r.text.strip(),
            )
        r.finish()
        return Build(kind, loc)
    if first in _REMOVE:
        r.pos += 1
        kind, loc = r.unit()
        r.finish()
        return Disband(kind, loc)
    if first in _DISBAND and r.pos + 1 < len(r.words):
        # "Disband F lon"; but "D" may also be a variant's unit type ("D mos - war"), so the rest must be
        # exactly a unit for this reading.
        start = r.pos
        r.pos += 1
        try:
            kind, loc = r.unit()
        except OrderParseError:
            if first != "d" or "d" not in r.lex.kinds:
                raise
        else:
            if r.at_end():
                return Disband(kind, loc)
            if first != "d" or "d" not in r.lex.kinds:
                r.finish()
        r.pos = start
    start = r.pos
    named = r.owner()
    if named is not None:
        rest = " ".join(r.raw[r.pos :])
        raise OrderParseError(
            " ".join(r.raw[start : r.pos]),
            msg(
                "an order starts with its unit, without the owner: write %(order)s; the order counts for the unit's "
                "owner or for the power it is handed to, whoever sends it",
                order=repr(rest),
            ),
        )
    kind, loc = r.unit()
    return _tail(r, kind, loc)


def _tail(r: OrderReader, kind: str | None, loc: int) -> Order:
    phase = r.phase_kind
    if r.peek() in _VERBS and r._match_location(r.pos) is not None and r.choice("verb", r.pos):
        return _dashless_move(r, kind, loc)  # second reading: "A smy con" moves to Constantinople
    if r.at_end():
        raise r.fail(
            msg(
                "what should %(unit)s do? Add a verb: H (hold), - (move), S (support), C (convoy)",
                unit=repr(r.text.strip()),
            ),
            token=r.text.strip(),
        )
    if r.accept(_HOLD):
        r.finish()
        return Hold(kind, loc)
    if r.accept(_RETREAT):
        r.accept(("to", "-"))
        to = r.location()
        r.finish()
        return Retreat(kind, loc, to)
    if r.accept(_DISBAND) or r.accept(_REMOVE):
        r.finish()
        return Disband(kind, loc)
    if r.accept(_BUILD):
        if kind is None:
            raise r.fail(msg("a build needs a unit type: A par B or Build A par"), token=r.text.strip())
        r.finish()
        return Build(kind, loc)
    if r.accept(_SUPPORT):
        owner = r.owner()
        tkind, target = r.unit()
        supported_dest: int | None = None
        if r.move_word():
            supported_dest = r.location()
        else:
            r.accept(_HOLD)
        r.finish()
        return Support(kind, loc, tkind, target, supported_dest, owner)
    if r.accept(_CONVOY):
        owner = r.owner()
        _, target = r.unit()  # the convoyed unit's type is not kept: only an army can be convoyed
        if not r.move_word():
            raise r.fail(msg("a convoy names where the army goes: F nth C A lon - bel"))
        dest = r.location()
        r.finish()
        return Convoy(kind, loc, target, dest, owner)
    if r.move_word():
        dest = r.location()
        # A route spelt out ("A lon - nth - bel") lists the seas; the destination is the last name.
        via = False
        while r.move_word():
            dest = r.location()
            via = True
        via = r.via_convoy() or via
        r.finish()
        if phase == PhaseKind.RETREATS:
            if via:
                raise r.fail(msg("a retreat cannot go by convoy"), token="via convoy")
            return Retreat(kind, loc, dest)
        return Move(kind, loc, dest, via)
    if r.here() and r._match_location(r.pos) is not None:
        return _dashless_move(r, kind, loc)
    return _unknown_verb(r)


_VERB_WORDS = tuple(
    sorted(
        w
        for words in (_HOLD, _MOVE, _SUPPORT, _CONVOY, _RETREAT, _DISBAND, _REMOVE, _BUILD, _WAIVE)
        for w in words
        if len(w) > 2
    )
)
"""Every verb the grammar reads, for "did you mean" (not the one- and two-letter forms: too short to match)."""


def _unknown_verb(r: OrderReader) -> NoReturn:
    """The word where a verb should be is none: say which verbs there are, and the one probably meant."""
    shown = ", ".join(["H", "-", "S", "C", "R", "D", "B", *(v.capitalize() for v in r.lex.verbs)])
    word = r.here().lower()
    near = difflib.get_close_matches(word, [*_VERB_WORDS, *r.lex.verbs], n=1, cutoff=0.7) if len(word) > 2 else []
    raise r.fail(
        msg("expected an order verb (%(verbs)s) but found %(token)s", verbs=shown, token=repr(r.here())),
        suggestions=near,
    )


def _dashless_move(r: OrderReader, kind: str | None, loc: int) -> Order:
    """``A par bur``: a move without its dash."""
    r.dashless = True
    dest = r.location()
    via = r.via_convoy()
    r.finish()
    if r.phase_kind == PhaseKind.RETREATS:
        if via:
            raise r.fail(msg("a retreat cannot go by convoy"), token="via convoy")
        return Retreat(kind, loc, dest)
    return Move(kind, loc, dest, via)


# --------------------------------------------------------------------------------------------------
# Public API

_Choice = tuple[str, int]
_T = TypeVar("_T")
_MAX_READINGS = 16


def _read(variant: Variant, text: str, phase_kind: PhaseKind | None, grammar: Callable[[OrderReader], _T]) -> _T:
    """Run ``grammar`` over ``text``; where the words are ambiguous, try the other readings until one works.

    The first reading takes the longest name and the usual meaning of every word. If it fails, each
    ambiguous spot it met is read the other way (breadth first, a bounded number of attempts), and the
    first reading that succeeds wins. If none does, the error of the first reading is raised, because it
    describes what most players meant.
    """
    queue: list[frozenset[_Choice]] = [frozenset()]
    tried = {frozenset[_Choice]()}
    first: OrderParseError | None = None
    fallback: list[_T] = []
    attempts = 0
    while queue and attempts < _MAX_READINGS:
        flips = queue.pop(0)
        attempts += 1
        reader = OrderReader(variant, text, phase_kind, flips)
        # Only the first reading's error is ever shown: the others need no "did you mean" search.
        reader.quiet = first is not None or bool(fallback)
        try:
            got = grammar(reader)
            if not reader.dashless:
                return got
            # A move without its dash is the last resort: "A Norwegian S Leon" is a support, not a
            # move from "Norwegian S" to Leon. Keep it and look for a reading with a verb.
            if not fallback:
                fallback.append(got)
        except OrderParseError as e:
            first = first or e
        for c in reader.choices:
            more = flips | {c}
            if more not in tried:
                tried.add(more)
                queue.append(more)
    if fallback:
        return fallback[0]
    assert first is not None
    raise first


def parse_order(variant: Variant, text: str, *, phase_kind: PhaseKind | str | None = None) -> Order:
    """Read one order. ``phase_kind`` says how a move reads in a retreat phase (as a retreat).

    Raises :class:`OrderParseError` for anything it cannot read; never another exception.
    """
    pk = PhaseKind(phase_kind) if isinstance(phase_kind, str) else phase_kind
    kept = _orders_read(variant)
    hit = kept.get((text, pk))
    if hit is not None:
        return hit
    try:
        order = _read(variant, text, pk, _parse)
    except OrderParseError:
        raise
    except (IndexError, KeyError, ValueError) as e:  # pragma: no cover - a bug, but never a traceback
        raise OrderParseError(
            text, msg("cannot read %(text)s (%(error)s)", text=repr(text.strip()), error=str(e))
        ) from None
    if len(kept) >= _ORDERS_KEPT:
        kept.clear()  # the texts of the games being played come back soon; a table of stale ones would not
    kept[(text, pk)] = order
    return order


_ORDERS_KEPT = 8192
"""The most order texts a variant keeps read (:func:`parse_order`; emptied when full). A game page made after
processing reads every order of the phase back (a fifth of its making), and a phase's orders are read again by
its report, its mail and its pictures; orders are frozen values, so one read serves every caller."""


def _texts_read(variant: Variant, room: str) -> dict[Any, Any]:
    """The variant's table of texts read under ``room``, kept with it (it goes with the variant) and with the
    syntax registrations they were read under: a registration starts an empty one."""
    hit: tuple[int, dict[Any, Any]] | None = variant.derived.get(room)
    if hit is not None and hit[0] == SYNTAX_GENERATION[0]:
        return hit[1]
    table: dict[Any, Any] = {}
    variant.derived[room] = (SYNTAX_GENERATION[0], table)
    return table


def _orders_read(variant: Variant) -> dict[tuple[str, PhaseKind | None], Order]:
    return _texts_read(variant, "notation.orders")


_UNITS_KEPT = 4096
"""The most unit designations a variant keeps read (:func:`parse_unit`): a game's stored positions use a few
hundred; texts sent from outside (a sandbox's JSON) are read afresh past the bound."""


def _units_read(variant: Variant) -> dict[str, tuple[str | None, int]]:
    return _texts_read(variant, "notation.units")


def parse_unit(variant: Variant, text: str) -> tuple[str | None, int]:
    """Read a unit designation (``A par``, ``F stp/sc``, ``F North Sea``, ``Paris``) -> (kind, location).

    A text read once is answered from the variant's table of them: every stored position is read back as these
    texts (some 60 a standard position, a tenth of a game page made after processing went into reading them)."""
    kept = _units_read(variant)
    hit = kept.get(text)
    if hit is not None:
        return hit
    got = _parse_unit(variant, text)
    if len(kept) < _UNITS_KEPT:
        kept[text] = got
    return got


def _parse_unit(variant: Variant, text: str) -> tuple[str | None, int]:

    def grammar(reader: OrderReader) -> tuple[str | None, int]:
        if reader.at_end():
            raise OrderParseError("", msg("empty unit"))
        kind, loc = reader.unit()
        if not reader.at_end():
            tok = " ".join(reader.raw[reader.pos :])
            raise OrderParseError(
                reader.here(),
                msg("unexpected %(token)s after the unit %(unit)s", token=repr(tok), unit=repr(text.strip())),
            )
        return kind, loc

    return _read(variant, text, None, grammar)


@dataclass(frozen=True, slots=True)
class ParsedLine:
    """One order line of a pasted block."""

    line: int
    """1-based line number in the block."""
    text: str
    power: str | None
    """The power named by the nearest ``England:`` header above (or on) the line."""
    order: Order | None
    error: OrderParseError | None


_COMMENT_RE = re.compile(r"(#|//).*$")
_QUOTED_RE = re.compile(r"^\s*>")


def quoted(line: str) -> bool:
    """An e-mail reply's quoted line (``> ...``): somebody else's words, never orders."""
    return _QUOTED_RE.match(line) is not None


def parse_orders(variant: Variant, text: str, *, phase_kind: PhaseKind | str | None = None) -> list[ParsedLine]:
    """Read a pasted block: one order a line; blank lines, ``#``/``//`` comments and lines quoted from an
    e-mail (``> ...``, the text being replied to) ignored.

    A line ``England:`` (or ``English:``, ``England orders``, ``France's orders``, ``The Crown``) starts
    that power's orders; ``England: A lon - nth`` names the power for that line too. Every order line comes
    back with its order or its error, so a UI can show the good ones and mark the bad ones.
    """
    out: list[ParsedLine] = []
    power: str | None = None
    for number, raw_line in enumerate(text.splitlines(), start=1):
        if quoted(raw_line):
            continue
        line = _COMMENT_RE.sub("", raw_line).strip()
        if not line:
            continue
        head, colon, rest = line.partition(":")
        if colon:
            named = _power_heading(variant, head, letter=True)
            if named is not None:
                power = named
                line = rest.strip()
                if not line:
                    continue
        else:
            named = _power_heading(variant, line)
            if named is not None:
                power = named
                continue
        try:
            order: Order | None = parse_order(variant, line, phase_kind=phase_kind)
            error = None
        except OrderParseError as e:
            order, error = None, e
        out.append(ParsedLine(number, line, power, order, error))
    return out


_HEADING_TAIL = re.compile(r"(\s*'?s)?\s+(orders?|moves|retreats|builds|adjustments)\s*[.:]?\s*$", re.IGNORECASE)


def _power_heading(variant: Variant, line: str, *, letter: bool = False) -> str | None:
    """``England``, ``England orders``, ``France's orders``, ``The Crown``: a heading naming a power (a
    power's letter only when ``letter``: before a colon, ``E:``; alone, a letter is a unit type)."""
    text = _HEADING_TAIL.sub("", line.replace("\u2019", "'")).strip()
    if text.lower().startswith("the "):
        text = text[4:]
    if len(text) < (1 if letter else 2) or len(text) > 60:
        return None
    try:
        return variant.power(text).name
    except KeyError:
        return None


def format_place(variant: Variant, loc: int, *, full: bool = False) -> str:
    """A province or coast in an order: its abbreviation (``stp/sc``), or with ``full`` its name
    (``St Petersburg (south coast)``), which reads back to the same place."""
    where = variant.map.locations[loc]
    return where.name if full else where.abbr


def format_unit(variant: Variant, kind: str | None, loc: int, *, full: bool = False) -> str:
    where = format_place(variant, loc, full=full)
    return f"{kind} {where}" if kind else where


def format_order(
    variant: Variant, order: Order, *, phase_kind: PhaseKind | str | None = None, full: bool = False
) -> str:
    """The canonical short form: ``A par - bur``, ``F nth C A lon - bel``, ``Build F stp/nc``, ``Waive``.

    With ``full``, places are written by their full names (``A Paris - Burgundy``), for people to read;
    that form reads back to the same order too. A :class:`Disband` reads ``A mun D`` in a retreat phase
    and ``Remove A mun`` in an adjustment phase (pass ``phase_kind``; without it the retreat form is used).
    Both forms read back to the same order.
    """

    def place(loc: int) -> str:
        return format_place(variant, loc, full=full)

    def unit(kind: str | None, loc: int) -> str:
        return format_unit(variant, kind, loc, full=full)

    def owned(power: str | None, kind: str | None) -> str:
        """The owner an order names before a unit: ``Crown A ash``, or ``Crown's ash`` without a type."""
        if power is None:
            return ""
        return f"{power} " if kind else f"{power}'s "

    if isinstance(order, Move):
        text = f"{unit(order.kind, order.loc)} - {place(order.dest)}"
        return text + " via convoy" if order.via_convoy else text
    if isinstance(order, Hold):
        return f"{unit(order.kind, order.loc)} H"
    if isinstance(order, Support):
        head = f"{unit(order.kind, order.loc)} S {owned(order.target_power, order.target_kind)}"
        head += unit(order.target_kind, order.target)
        return head if order.dest is None else f"{head} - {place(order.dest)}"
    if isinstance(order, Convoy):
        return f"{unit(order.kind, order.loc)} C {owned(order.target_power, 'A')}A {place(order.target)} - {place(order.dest)}"
    if isinstance(order, Retreat):
        return f"{unit(order.kind, order.loc)} R {place(order.dest)}"
    if isinstance(order, Disband):
        if phase_kind is not None and PhaseKind(phase_kind) == PhaseKind.ADJUSTMENTS:
            return f"Remove {unit(order.kind, order.loc)}"
        return f"{unit(order.kind, order.loc)} D"
    if isinstance(order, Build):
        return f"Build {unit(order.kind, order.loc)}"
    if isinstance(order, Waive):
        return "Waive"
    for cls in type(order).__mro__:
        fmt = FORMATS.get(cls)
        if fmt is not None:
            return fmt(variant, order, full)
    return repr(order)
