"""Deciding what a photographed line says against what the power can order.

An OCR engine reads letters; a sheet of orders says one of a few hundred things, the legal orders of the
power's units in this phase (:func:`dippouch.core.legal_orders.legal_orders`: moves, supports, convoys, W3K
conversions, hand-overs and supply transfers, retreats, builds and removals). So every line read is scored
against every legal order, in the forms players write (``A lon - wal``, ``A London - Wales``, ``Army London
moves to Wales``, aliases and abbreviations mixed), after folding the characters OCR confuses (``0``/``o``,
``1``/``l``/``I``, ``rn``/``m``) and putting each recognisable place name, unit word and verb in its short
form. The closest order wins only when it is close *and* clearly closer than any other order: a unit letter
read as ``K``, ``IN`` or ``E`` is one slip from the order written and several from every other, so it is
repaired; a line as near to two orders as to one, or far from all of them (a player's own illegal order,
a smudge), is flagged for the coordinator with the best guess, never accepted. The rulebook lets the
Coordinator interpret only lexically: nothing here chooses between meanings, it only reads spelling.

Lines of the sheet's heading (Annexe 3: name, position, game, "Autumn 1642 Movement Orders") are dropped
as headings, even misread, and "Version 2" lines are kept as version instructions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.mapdata import Location
from dippouch.core.messages import Msg, msg
from dippouch.core.notation import OrderParseError, format_order, parse_order
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.numbers import number_or_none

__all__ = ["ACCEPT", "LineReading", "fold", "match_lines"]

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""

ACCEPT = 0.6
"""The confidence a line needs to be proposed as an order; below it the line is flagged for the coordinator
(benchmarks/bench_ocr.py: no wrong reading of the benchmark's photographs scored above 0.6)."""


@dataclass(frozen=True, slots=True)
class LineReading:
    """One line read from a photograph and what it is taken to be."""

    line: int
    """1-based, as read from the top of the photograph."""
    read: str
    """What the OCR engine read."""
    verdict: str
    """``order`` (proposed), ``flagged`` (needs the coordinator), ``heading`` (the sheet's heading, dropped),
    ``version`` (a version instruction, kept) or ``noise`` (too little to be anything, dropped)."""
    text: str = ""
    """The proposed line: the order in full names, or ``Version N``; for a flagged line its best guess."""
    confidence: float = 0.0
    """0..1: how sure the reading is (1 - the share of characters that differ, lowered when another order
    is nearly as close)."""
    why: Msg | None = None
    """For a flagged line, why (said in the reader's language where it is shown)."""
    unit_loc: int | None = None
    """The location of the unit the proposed or guessed order is for."""

    @property
    def proposed(self) -> bool:
        return self.verdict in ("order", "version")


# --------------------------------------------------------------------------------------------------
# Folding: the characters OCR confuses become one character, on both sides of every comparison.

_MULTI = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("ii", "u"))
_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "j": "l", "|": "l", "!": "l", "5": "s", "$": "s", "8": "b",
                            "6": "b", "2": "z"})  # fmt: skip
_PUNCTUATION = str.maketrans(
    {c: " " for c in "_()[]{},;:.*"} | {c: "" for c in "'\u2019\u2018`\""} | {"~": "-", "=": "-"}
)


def light(text: str) -> str:
    """Lower case, accents off, punctuation OCR scatters dropped, every dash a spaced ``-``: the line as
    written, for looking names up as they are spelt."""
    if not text.isascii():
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = text.lower().replace("->", " - ").replace("\u2192", " - ").replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"-+", " - ", text.translate(_PUNCTUATION))
    return " ".join(text.split())


def fold(text: str) -> str:
    """:func:`light`, and look-alike characters made one (``I``/``l``/``1``, ``O``/``0``, ``rn``/``m``): on
    both sides of every comparison, so a look-alike read for another costs nothing."""
    text = light(text)
    for bad, good in _MULTI:
        text = text.replace(bad, good)
    return text.translate(_LOOKALIKE)


def _fold_digits_kept(text: str) -> str:
    """Lower case, punctuation to spaces; a word that is a number but for look-alike letters (``l0``, ``2O``)
    made the number: for a version line, where digits stay digits."""
    words = re.sub(r"[^a-z0-9|]+", " ", text.lower()).split()
    out = []
    for w in words:
        as_number = w.translate(_DIGITS)
        out.append(as_number if as_number.isdigit() and any(c.isdigit() for c in w) else w)
    return " ".join(out)


_DIGITS = str.maketrans({"o": "0", "l": "1", "i": "1", "|": "1", "s": "5", "z": "2"})


# --------------------------------------------------------------------------------------------------
# Edit distance (rapidfuzz when installed: the comparisons are many; a plain one otherwise)


def _plain_distance(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


try:
    from rapidfuzz.distance import Levenshtein as _Lev
    from rapidfuzz.process import extract as _extract

    def distance(a: str, b: str) -> int:
        """Levenshtein distance: insertions, deletions and substitutions of one character."""
        return int(_Lev.distance(a, b))
except ImportError:  # pragma: no cover - rapidfuzz ships with the ocr extra
    distance = _plain_distance
    _extract = None  # type: ignore[assignment]


# --------------------------------------------------------------------------------------------------
# Words: places, unit words and verbs in their short forms

_WORDS: dict[str, str] = {
    "army": "a",
    "armies": "a",
    "fleet": "f",
    "fleets": "f",
    "moves": "-",
    "move": "-",
    "moving": "-",
    "attacks": "-",
    "attack": "-",
    "enters": "-",
    "supports": "s",
    "support": "s",
    "sup": "s",
    "supp": "s",
    "convoys": "c",
    "convoy": "c",
    "holds": "h",
    "hold": "h",
    "stands": "h",
    "retreats": "r",
    "retreat": "r",
    "disbands": "d",
    "disband": "d",
    "builds": "build",
    "removes": "remove",
}
_DROP_AFTER_MOVE = frozenset({"to", "into", "enter"})


@dataclass(frozen=True, slots=True)
class _Names:
    plain: Mapping[str, str]
    """Name, alias or abbreviation as spelt (:func:`light`) -> the place's folded full name."""
    exact: Mapping[str, str]
    """Folded name, alias or abbreviation (of one place only: ``ion`` and ``lon`` fold alike) -> the place's
    folded full name (one spelling per place, long
    enough that two places differ by more than a slip, as abbreviations often do not: ``wwk``, ``brk``)."""
    pool: tuple[str, ...]
    """The keys of ``exact``, for the nearest-name search."""
    words: Mapping[str, str]
    """Folded verb or unit word -> its short form."""


def _names(variant: Variant) -> _Names:
    hit: _Names | None = variant.derived.get("ocr.names")
    if hit is not None:
        return hit
    gmap = variant.map
    spellings = [(text, lid) for text, lid in gmap.names.items()]
    spellings += [(t, loc.id) for loc in gmap.locations for t in (loc.name, loc.abbr)]
    plain: dict[str, str] = {}
    folded: dict[str, set[str]] = {}
    for text, lid in spellings:
        full = _code(gmap.locations[lid])
        plain.setdefault(light(text), full)
        key = fold(text)
        if len(key) >= 3:
            folded.setdefault(key, set()).add(full)
    exact = {k: next(iter(v)) for k, v in folded.items() if len(v) == 1}
    words = {fold(w): s for w, s in _WORDS.items()}
    got = _Names(plain, exact, tuple(exact), words)
    variant.derived["ocr.names"] = got
    return got


_PLACE = 0xE000


def _code(loc: Location) -> str:
    """A place as the matcher compares it: its province as three characters of Unicode's private use area,
    and its coast as a fourth. Another place costs three edits whatever the spelling of the two (``London``
    and ``Wales`` differ by as much as ``lon`` and ``lvp``); another coast one."""
    head = chr(_PLACE + loc.province) * 3
    return head + chr(_PLACE + 0x1000 + loc.id) if loc.coast else head


def _is_place(tok: str) -> bool:
    return bool(tok) and ord(tok[0]) >= _PLACE


def _allowed(n: int) -> int:
    """Slips allowed in a name of ``n`` folded characters for it to be read as that name."""
    return 0 if n < 5 else 1 if n < 9 else 2


def _near(key: str, pool: Sequence[str]) -> str | None:
    """The one entry of ``pool`` within the slips allowed of ``key``, or None (none, or two equally near)."""
    limit = _allowed(len(key))
    if limit == 0:
        return None
    if _extract is not None:
        hits = _extract(key, pool, scorer=_Lev.distance, score_cutoff=limit, limit=2)
        if not hits or (len(hits) == 2 and hits[1][1] == hits[0][1]):
            return None
        return str(hits[0][0])
    best: list[str] = []
    best_d = limit + 1
    for cand in pool:
        d = distance(key, cand)
        if d < best_d:
            best, best_d = [cand], d
        elif d == best_d:
            best.append(cand)
    return best[0] if len(best) == 1 else None


def canonical(variant: Variant, raw: str) -> str:
    """A folded line with every name it recognises written as the place's code (:func:`_code`), unit words
    and verbs in their short forms: ``army lon moves to wales`` and ``A London - Wales`` alike. Unrecognised words stay, but for a short
    unknown word before a place (a unit letter read as ``K``, ``IN``, ``E``), which becomes ``?``: as far from
    ``a`` as from ``f``."""
    names = _names(variant)
    spelt = light(raw).split()
    toks = [fold(t) for t in spelt]
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok in names.words:
            short = names.words[tok]
            out.append(short)
            i += 1
            if short == "-":
                while i < len(toks) and toks[i] in _DROP_AFTER_MOVE:
                    i += 1
            continue
        # The longest run of words that is a name as it stands; failing that, the longest within a slip or
        # two of one (never across a dash or a verb: ``lon - wal`` is two names, not ``Ionian Sea``).
        span = min(5, len(toks) - i)
        hit, used = None, 0
        for n in range(span, 0, -1):
            hit = names.plain.get(" ".join(spelt[i : i + n])) or names.exact.get(" ".join(toks[i : i + n]))
            if hit is not None:
                used = n
                break
        if hit is None:
            for n in range(span, 0, -1):
                window = toks[i : i + n]
                key = " ".join(window)
                if len(key) < 5 or any(t == "-" or t in names.words for t in window):
                    continue
                near = _near(key, names.pool)
                if near is not None:
                    hit, used = names.exact[near], n
                    break
        if hit is not None:
            out.append(hit)
            i += used
            continue
        near_word = _near(tok, tuple(names.words)) if len(tok) >= 5 else None
        out.append(names.words[near_word] if near_word is not None else tok)
        i += 1
    return " ".join(_unit_slots(out))


def _unit_slots(toks: list[str]) -> list[str]:
    out = list(toks)
    for j, tok in enumerate(toks[:-1]):
        before = toks[j - 1] if j else None
        if (
            len(tok) <= 2
            and tok not in ("a", "f", "-")
            and _is_place(toks[j + 1])
            and before in (None, "s", "c", "build")
        ):
            out[j] = "?"
    return out


# --------------------------------------------------------------------------------------------------
# The legal orders in the forms players write


_SPELLED = (
    (re.compile(r"^a "), "army "),
    (re.compile(r"^f "), "fleet "),
    (re.compile(r" s a "), " supports army "),
    (re.compile(r" s f "), " supports fleet "),
    (re.compile(r" c a "), " convoys army "),
    (re.compile(r" - "), " moves to "),
    (re.compile(r" h$"), " holds"),
    (re.compile(r" r "), " retreats to "),
    (re.compile(r" d$"), " disbands"),
)


def _spelled(folded_full: str) -> str:
    text = folded_full
    for pat, rep in _SPELLED:
        text = pat.sub(rep, text)
    return text


@dataclass(frozen=True, slots=True)
class _Candidate:
    order: Order
    full: str
    """The order in full names, as proposed."""
    forms: tuple[str, ...]
    """Folded forms compared with the line as read."""
    canon: str
    """The order as :func:`canonical` writes it, compared with the line canonicalised."""


def _tight(folded: str) -> str:
    """Without spaces: OCR drops and adds them freely (``Army Badenoch`` read ``ArmyBadenoch``)."""
    return folded.replace(" ", "")


def _candidates(variant: Variant, position: Position, power: str) -> list[_Candidate]:
    kind = variant.calendar.kind(position.phase)
    out = []
    for orders in legal_orders(variant, position, power).values():
        for o in orders:
            short = format_order(variant, o, phase_kind=kind)
            full = format_order(variant, o, phase_kind=kind, full=True)
            ffull = fold(full)
            forms = tuple(dict.fromkeys(_tight(f) for f in (fold(short), ffull, _spelled(ffull))))
            out.append(_Candidate(o, full, forms, _tight(canonical(variant, full))))
    return out


# --------------------------------------------------------------------------------------------------
# Headings and version lines

_SEASONS = ("spring", "summer", "autumn", "fall", "winter")
_KINDS = ("movement", "movements", "retreat", "retreats", "adjustment", "adjustments", "builds", "orders", "order")
_FILLER = ("the", "of", "for", "and", "game", "season", "year", "phase", "turn", "submission", "position", "power")
_VERSION = re.compile(r"^(?:v|version|revision|draft)\s*(?:no\s*)?(\d{1,3})\b(.*)$")


@lru_cache(maxsize=64)
def _heading_vocabulary(names: tuple[str, ...]) -> tuple[str, ...]:
    words = {fold(w) for w in (*_SEASONS, *_KINDS, *_FILLER)}
    for n in names:
        words |= {w for w in fold(n).replace("-", " ").split() if len(w) >= 2}
    return tuple(sorted(words))


def _heading(folded: str, vocabulary: tuple[str, ...], whole: tuple[str, ...], loose: bool) -> bool:
    """A line of the sheet's heading: the whole line a known name (the player's, the game's, a power's), or
    every word (all but one in a long line) a known name's word, a season, a submission type or a year,
    allowing for OCR's slips. ``loose`` (above the first order and below the last, where Annexe 3 puts the
    heading and the closing): half the words, with more slips allowed."""
    words = [w for w in folded.replace("-", " ").split() if w]
    if not words:
        return False
    tight = _tight(folded)
    if tight in whole or (len(tight) >= 5 and _near(tight, whole) is not None):
        return True
    known = 0
    for w in words:
        if (
            w in vocabulary
            or (w.isdigit() and len(w) in (3, 4))
            or re.fullmatch(r"[l1o0-9]{4}", w)
            or (len(w) >= 5 and _near(w, vocabulary) is not None)
            or (loose and len(w) >= 3 and _within(w, vocabulary, 1 if len(w) < 5 else 2))
        ):
            known += 1
    if loose:
        return known * 2 >= len(words)
    return known == len(words) or (len(words) >= 4 and known >= len(words) - 1)


def _within(word: str, pool: Sequence[str], limit: int) -> bool:
    return any(distance(word, w) <= limit for w in pool)


def _version(raw: str) -> str | None:
    """``Version 2`` (``Versi0n 2``, ``v2``) as read -> ``Version 2``; other lines None."""
    text = _fold_digits_kept(raw)
    words = text.split()
    if not words:
        return None
    glued = re.fullmatch(r"([a-z]{5,8})(\d{1,3})", words[0])  # "Version2"
    if glued:
        words = [glued.group(1), glued.group(2), *words[1:]]
    head = words[0]
    if re.fullmatch(r"v\d{1,3}", head):
        return f"Version {int(head[1:])}" if len(words) == 1 else None
    number = number_or_none(words[1]) if len(words) >= 2 else None  # what a photograph says: any length
    if distance(head, "version") <= 2 and number is not None and number >= 0:
        rest = " ".join(words[2:])
        return f"Version {number}" + (f" {rest}" if rest else "")
    return None


# --------------------------------------------------------------------------------------------------
# Matching


def _ranked(query: str, canon: bool, cands: Sequence[_Candidate]) -> list[tuple[int, int, int]]:
    """Per candidate (index, distance, length of its form nearest to ``query``), nearest first."""
    scored = []
    for idx, c in enumerate(cands):
        best = (10**6, 1)
        for f in (c.canon,) if canon else c.forms:
            d = distance(query, f)
            if d < best[0]:
                best = (d, max(len(f), 1))
        scored.append((idx, best[0], best[1]))
    scored.sort(key=lambda t: (t[1], t[0]))
    return scored


def _decide(query: str, canon: bool, cands: Sequence[_Candidate]) -> tuple[_Candidate, float, Msg | None]:
    scored = _ranked(query, canon, cands)
    best_idx, d1, length = scored[0]
    best = cands[best_idx]
    # The nearest *other* order: a different unit's, or the same unit's other order.
    d2 = next((d for i, d, _ in scored[1:] if cands[i].order != best.order), 10**6)
    conf = _score(d1, d2, length)
    if d1 > max(1, length // 4):
        return best, conf, msg("far from every legal order (%(count)s characters differ from the nearest)", count=d1)
    if d1 > 0 and d2 - d1 < 2:
        return best, conf, msg("as near to another legal order as to this one")
    if conf < ACCEPT:
        return best, conf, msg("not read clearly enough")
    return best, conf, None


def _score(d1: int, d2: int, length: int) -> float:
    quality = max(0.0, 1 - d1 / length)
    if d1 == 0:
        return quality if d2 >= 2 else 0.9 * quality
    # How much further the next order is, against the slips already made: two more edits for a clean
    # reading, more for a rough one (a long line read roughly has its slips spread over many letters).
    return quality * min(1.0, (d2 - d1) / (2 + d1 / 2))


def _match_line(
    variant: Variant, kind: PhaseKind, cands: Sequence[_Candidate], raw: str
) -> tuple[_Candidate | None, float, Msg | None]:
    folded = fold(raw)
    queries: list[tuple[str, bool]] = [(_tight(folded), False), (_tight(canonical(variant, raw)), True)]
    try:
        parsed = parse_order(variant, raw, phase_kind=kind)
    except (OrderParseError, ValueError, KeyError):
        parsed = None
    if parsed is not None:
        queries.append((_tight(canonical(variant, format_order(variant, parsed, phase_kind=kind, full=True))), True))
    if not cands:
        return None, 0.0, msg("no order of this power's was expected in this phase")
    # Each way of reading the line (as written; with its names recognised; as the parser reads it) is
    # decided on its own, and the surest counts: a name recognised in full tells London from Liverpool
    # better than their abbreviations (``lon``, ``lvp``) do.
    decided = [_decide(q, canon, cands) for q, canon in queries]
    return max(decided, key=lambda d: (d[2] is None, d[1]))


def match_lines(
    variant: Variant, position: Position, power: str, lines: Sequence[str | Sequence[str]], names: Iterable[str] = ()
) -> list[LineReading]:
    """Each line read (or each line's alternative readings, best first) decided against the legal orders of
    ``power``'s units in ``position``'s phase: proposed as an order, flagged, a heading or a version line.

    ``names`` are the names a heading may carry (the game, the player, the power's names): with the
    seasons, submission types and years they make a heading line. A unit ordered by two lines keeps the
    surer one; the other is flagged."""
    kind = variant.calendar.kind(position.phase)
    power = variant.power(power).name
    cands = _candidates(variant, position, power)
    vocab = _heading_vocabulary(tuple(sorted({*names, power, *(p.name for p in variant.powers)})))
    whole = tuple(sorted({_tight(fold(n)) for n in (*names, power) if n}))
    decided: list[tuple[int, str, str | None, _Candidate | None, float, Msg | None]] = []
    for number, alternatives in enumerate(lines, start=1):
        alts = [alternatives] if isinstance(alternatives, str) else list(alternatives)
        alts = [a.strip() for a in alts if a and a.strip()]
        if not alts:
            continue
        version = _version(alts[0])
        if version is not None:
            decided.append((number, alts[0], version, None, 1.0, None))
            continue
        chosen: tuple[int, str, str | None, _Candidate | None, float, Msg | None] | None = None
        for alt in alts:
            best, conf, why = _match_line(variant, kind, cands, alt)
            if chosen is None or (why is None, conf) > (chosen[5] is None, chosen[4]):
                chosen = (number, alt, None, best, conf, why)
        assert chosen is not None
        decided.append(chosen)
    sure = [i for i, d in enumerate(decided) if d[5] is None and d[3] is not None]
    first, last = (sure[0], sure[-1]) if sure else (len(decided), -1)
    out: list[LineReading] = []
    for i, (number, alt, version, best, conf, why) in enumerate(decided):
        if version is not None:
            out.append(LineReading(number, alt, "version", version, 1.0))
        elif why is None and best is not None:
            out.append(LineReading(number, alt, "order", best.full, round(conf, 2), None, best.order.unit_loc))
        elif _heading(fold(alt), vocab, whole, loose=i < first or i > last):
            out.append(LineReading(number, alt, "heading", "", round(conf, 2)))
        elif sum(ch.isalnum() for ch in alt) < 3:
            out.append(LineReading(number, alt, "noise", "", 0.0))
        else:
            guess = best.full if best is not None else ""
            loc = best.order.unit_loc if best is not None else None
            out.append(LineReading(number, alt, "flagged", guess, round(conf, 2), why, loc))
    return _one_order_a_unit(variant, out)


def _one_order_a_unit(variant: Variant, readings: list[LineReading]) -> list[LineReading]:
    """Two lines read as orders for one unit: the surer stands, the other is flagged (a misread line took a
    unit that another line orders; the adjudicator would count only the first anyway)."""
    gmap = variant.map
    best_of: dict[int, LineReading] = {}
    for r in readings:
        if r.verdict == "order" and r.unit_loc is not None:
            prov = gmap.province_of(r.unit_loc)
            if prov not in best_of or r.confidence > best_of[prov].confidence:
                best_of[prov] = r
    out = []
    for r in readings:
        if r.verdict == "order" and r.unit_loc is not None and best_of[gmap.province_of(r.unit_loc)] is not r:
            other = best_of[gmap.province_of(r.unit_loc)].line
            r = LineReading(
                r.line,
                r.read,
                "flagged",
                r.text,
                r.confidence,
                msg("line %(line)s orders this unit too", line=other),
                r.unit_loc,
            )
        out.append(r)
    return out
