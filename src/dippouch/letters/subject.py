"""Reading an e-mail subject by the W3K convention, tolerantly.

The rulebook asks for ``Game Name - Power Name - Game Season, Year - Submission Type - Version`` ("Powick
Bridge, Montrose, Autumn 1644 Retreats, v1"). People write it every which way: other separators, any case,
"Fall" for "Autumn", "Retreat Orders", "V 2", "version two", "Re: Fwd:" in front, a letter dropped. This
module reads what can be read without guessing: each part is recognised on its own (the version and the
year by their shape, seasons and submission types by their words, the game and the power by the names the
game knows), a near miss of one or two letters is accepted *and said* (the receipt repeats it), and anything
that cannot be placed is a problem with the reason and the subject that would have worked.

It is pure: it gets the games (names, variants, current phases) as values and reads no database, so the
table of real-world spellings in the tests runs in milliseconds.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.messages import Msg, PhaseName, msg
from dippouch.core.variant import Variant

__all__ = ["I18N_DOMAIN", "GameNames", "Reading", "phase_label", "read_subject", "suggest_subject"]

I18N_DOMAIN = "mail"
"""Why a subject cannot be used is said by the reply to it, in the words of the mail's catalogue."""

_PREFIX_RE = re.compile(
    r"^\s*(?:(?:re|fw|fwd|aw|wg|sv|vs|antw|tr|r)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*|\[[^\]]*\]\s*)", re.IGNORECASE
)
_SEPARATORS = re.compile(r"\s*[-|,;:/\u2010-\u2015\u2212~>]+\s*|\s+[.]\s+")
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "final": 0,
}  # fmt: skip
_VERSION_RE = re.compile(
    r"(?<![a-z0-9])(?:v|ver|vers|version|rev|revision|draft|submission|sub)\s*\.?\s*(?:no\.?|nr\.?|number|#)?\s*[:#]?\s*"
    r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)(?![0-9])"
    r"|(?<![a-z0-9])(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,2}(?:st|nd|rd|th))\s+"
    r"(?:version|revision|draft|submission)(?![a-z])"
    r"|(?<![a-z0-9&])#\s*(\d{1,3})(?![0-9])",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(r"(?<![0-9a-z])(\d{3,4})(?![0-9])|(?<![0-9a-z])['\u2019](\d{2})(?![0-9])", re.IGNORECASE)

#: Season words in any common spelling, by the season they mean. "Fall" and "Autumn" are one season: a
#: calendar names it one way or the other. German and French too, as a game's mail in those languages names
#: its phases ("Herbst 1644 Bewegung", "Automne 1644 Mouvements") and as their players write them; the words
#: are compared without accents and in lower case (``_norm``: "Frühjahr" is "fruhjahr", "Été" is "ete").
SEASON_WORDS: dict[str, tuple[str, ...]] = {
    "spring": ("spring", "spr", "sp", "springtime", "fruhjahr", "fruehjahr", "fruhling", "fruehling", "printemps"),
    "summer": ("summer", "sum", "summertime", "sommer", "ete"),
    "autumn": ("autumn", "fall", "aut", "autm", "fal", "herbst", "automne"),
    "winter": ("winter", "win", "wint", "wtr", "hiver"),
}
#: Submission types by the phase kind they name (with the German and French phase words of the game's mail).
KIND_WORDS: dict[PhaseKind, tuple[str, ...]] = {
    PhaseKind.MOVEMENT: (
        "movement", "movements", "move", "moves", "mvt", "mov", "moving", "manoeuvres",
        "bewegung", "bewegungen", "zuge", "zuege", "mouvement", "mouvements",
    ),
    PhaseKind.RETREATS: (
        "retreat", "retreats", "ret", "retr", "retreating", "retreated", "dislodged",
        "ruckzug", "rueckzug", "ruckzuge", "rueckzuege", "retraite", "retraites",
    ),
    PhaseKind.ADJUSTMENTS: (
        "adjustment", "adjustments", "adj", "adjust", "adjusts", "build", "builds", "building", "removal",
        "removals", "remove", "removes", "disband", "disbands", "supply", "builds/removals",
        "aufbau", "aufbauten", "anpassung", "anpassungen", "ajustement", "ajustements",
    ),
}  # fmt: skip
#: Words that carry no information in a subject ("Movement Orders", "game", "for").
FILLER = frozenset(
    [
        "orders",
        "order",
        "befehle",
        "befehl",
        "ordres",
        "submission",
        "submissions",
        "phase",
        "season",
        "turn",
        "for",
        "the",
        "of",
        "and",
        "game",
        "power",
        "year",
        "my",
        "new",
        "revised",
        "revision",
        "updated",
        "update",
        "amended",
        "corrected",
        "final",
        "please",
        "attached",
        "see",
        "photo",
        "photograph",
        "picture",
        "scan",
        "pic",
        "image",
        "orders:",
        "a",
        "an",
        "in",
        "to",
        "from",
        "by",
        "with",
    ]
)


@dataclass(frozen=True)
class GameNames:
    """What a subject may call a game, and what it is playing now."""

    name: str
    """The game's name in dippouch."""
    variant: Variant
    phase: Phase | None
    """Its current (open) phase; ``None`` when it is over."""
    titles: tuple[str, ...] = ()
    """Other names it goes by in subjects ("Powick Bridge" for a game named ``powick``)."""
    power_aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Extra names for powers (the game's own, on top of the variant's ``aliases``)."""

    @property
    def title(self) -> str:
        return self.titles[0] if self.titles else self.name


@dataclass
class Reading:
    """What a subject was read as. ``problem`` is set when it cannot be used (and says why)."""

    subject: str
    game: str | None = None
    power: str | None = None
    phase: Phase | None = None
    kind_given: bool = False
    version: int | None = None
    notes: list[Msg] = field(default_factory=list)
    """Near misses that were accepted ("read 'Powik Bridge' as Powick Bridge"), said where shown."""
    problem: str | None = None
    """Why the subject cannot be used, in English: as the mail log records it."""
    why: Msg | None = None
    """The same reason as a message value, which a reply says in the game's language."""
    unread: list[str] = field(default_factory=list)

    def to_data(self, variant: Variant | None = None) -> dict[str, object]:
        return {
            "game": self.game,
            "power": self.power,
            "phase": phase_label(variant, self.phase) if variant is not None and self.phase is not None else None,
            "version": self.version,
            "notes": [n.to_data() for n in self.notes],
            "problem": self.problem,
            "unread": list(self.unread),
        }


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return text.lower()


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", _norm(text).replace("'", ""))


def _close(word: str, options: Sequence[str], cutoff: float = 0.8) -> str | None:
    if len(word) < 4:
        return None
    got = difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    return got[0] if got else None


def phase_label(variant: Variant | None, phase: Phase) -> str:
    if variant is None:
        return f"{phase.year}/{phase.step}"
    return variant.calendar.name(phase)


def power_names(game: GameNames) -> dict[str, str]:
    """Every name a power answers to in subjects (normalised) -> the power: name, adjective, the variant's
    ``aliases`` and the game's own aliases."""
    out: dict[str, str] = {}
    raw_powers = game.variant.data.get("powers", {}) if isinstance(game.variant.data, Mapping) else {}
    for p in game.variant.powers:
        names = [p.name, p.adjective]
        data = raw_powers.get(p.name, {}) if isinstance(raw_powers, Mapping) else {}
        names += [str(a) for a in (data.get("aliases", []) if isinstance(data, Mapping) else [])]
        names += [str(a) for a in game.power_aliases.get(p.name, [])]
        for n in names:
            key = " ".join(_words(n))
            if key:
                out.setdefault(key, p.name)
            # "The Crown" is "Crown"; "Irish Confederacy" may be "the Confederacy".
            if key.startswith("the "):
                out.setdefault(key[4:], p.name)
    return out


def _find_sequence(words: list[str], target: list[str], used: set[int]) -> int | None:
    n = len(target)
    for i in range(len(words) - n + 1):
        if words[i : i + n] == target and not any(j in used for j in range(i, i + n)):
            return i
    return None


def read_subject(subject: str, games: Sequence[GameNames]) -> Reading:
    """Read ``subject`` against the games mail can reach. Never raises; ``Reading.problem`` says what failed."""
    r = Reading(subject=subject)
    text = subject
    while True:
        stripped = _PREFIX_RE.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    text = _norm(text)

    # The version, by its shape; then the year.
    versions = list(_VERSION_RE.finditer(text))
    if versions:
        m = versions[-1]
        token = next(g for g in m.groups() if g)
        r.version = _NUMBER_WORDS.get(token) if token in _NUMBER_WORDS else int(re.sub(r"\D", "", token))
        for m in versions:
            text = text[: m.start()] + " - " + text[m.end() :]
    years = list(_YEAR_RE.finditer(text))
    year_values: list[tuple[int, bool]] = []  # (year, two-digit form)
    for m in years:
        year_values.append((int(m.group(1)), False) if m.group(1) else (int(m.group(2)), True))
    for m in reversed(years):
        text = text[: m.start()] + " - " + text[m.end() :]

    chunks = [c for c in _SEPARATORS.split(text) if c.strip()]
    words: list[str] = []
    chunk_of: list[int] = []
    for ci, c in enumerate(chunks):
        for w in _words(c):
            words.append(w)
            chunk_of.append(ci)
    used: set[int] = set()

    # The game: its name or a title, word for word; else the closest chunk or run of words.
    game = _find_game(words, used, chunks, chunk_of, games, r)
    if game is None:
        known = ", ".join(repr(g.title) for g in games) or "none"
        _problem(r, msg("the subject names no game this address takes orders for (games: %(games)s)", games=known))
        _leftovers(words, used, r)
        return r
    r.game = game.name

    # Seasons and submission types, with near misses of longer words.
    season: str | None = None
    kind: PhaseKind | None = None
    season_words = {w: s for s, ws in SEASON_WORDS.items() for w in ws}
    kind_words = {w: k for k, ws in KIND_WORDS.items() for w in ws}
    pnames = power_names(game)
    power_word_set = {w for key in pnames for w in key.split()}
    for i, w in enumerate(words):
        if i in used:
            continue
        if w in season_words and season is None and w not in power_word_set:
            season = season_words[w]
            used.add(i)
        elif w in kind_words and kind is None and w not in power_word_set:
            kind = kind_words[w]
            used.add(i)
    for i, w in enumerate(words):
        if i in used or w in FILLER or w in power_word_set:
            continue
        if season is None and (c := _close(w, [x for x in season_words if len(x) >= 5])):
            season = season_words[c]
            used.add(i)
            r.notes.append(msg("read %(word)s as %(what)s", word=repr(w), what=PhaseName(season.capitalize())))
        elif kind is None and (c := _close(w, [x for x in kind_words if len(x) >= 5])):
            kind = kind_words[c]
            used.add(i)
            r.notes.append(msg("read %(word)s as %(what)s", word=repr(w), what=PhaseName(kind.label)))

    # The power.
    power = _find_power(words, used, chunks, chunk_of, pnames, r)
    r.power = power

    _leftovers(words, used, r)
    problems = []
    if power is None:
        powers = ", ".join(game.variant.power_names)
        problems.append(
            msg("the subject names no power of %(game)s (powers: %(powers)s)", game=game.title, powers=powers)
        )
    phase, phase_problem = _phase(game, season, kind, year_values)
    r.phase = phase
    r.kind_given = kind is not None
    if phase_problem:
        problems.append(phase_problem)
    if len(problems) == 2:
        _problem(r, msg("%(problem)s; %(also)s", problem=problems[0], also=problems[1]))
    elif problems:
        _problem(r, problems[0])
    return r


def _problem(r: Reading, why: Msg) -> None:
    r.why = why
    r.problem = str(why)


def _leftovers(words: list[str], used: set[int], r: Reading) -> None:
    r.unread = [w for i, w in enumerate(words) if i not in used and w not in FILLER]


def _find_game(
    words: list[str],
    used: set[int],
    chunks: list[str],
    chunk_of: list[int],
    games: Sequence[GameNames],
    r: Reading,
) -> GameNames | None:
    best: tuple[int, GameNames, int, int] | None = None  # (length, game, start, n)
    for g in games:
        for title in (g.name, *g.titles):
            target = _words(title)
            if not target:
                continue
            at = _find_sequence(words, target, used)
            if at is not None and (best is None or len(target) > best[0]):
                best = (len(target), g, at, len(target))
    if best is not None:
        _, g, at, n = best
        used.update(range(at, at + n))
        return g
    # A near miss: the closest run of words (a chunk, or any run as long as a title) to a game's name.
    candidates: list[tuple[float, GameNames, list[int], str]] = []
    for g in games:
        for title in (g.name, *g.titles):
            joined = " ".join(_words(title))
            n = len(joined.split())
            for size in {n, n + 1, max(1, n - 1)}:
                for i in range(len(words) - size + 1):
                    idx = list(range(i, i + size))
                    if any(j in used for j in idx) or len({chunk_of[j] for j in idx}) > 1:
                        continue
                    text = " ".join(words[j] for j in idx)
                    ratio = difflib.SequenceMatcher(None, text, joined).ratio()
                    if ratio >= 0.8 and len(text) >= 4:
                        candidates.append((ratio, g, idx, text))
    if not candidates:
        return None
    candidates.sort(key=lambda c: -c[0])
    ratio, g, idx, text = candidates[0]
    rivals = [c for c in candidates[1:] if c[1] is not g and c[0] >= ratio - 0.02]
    if rivals:
        return None
    used.update(idx)
    r.notes.append(msg("read %(word)s as the game %(game)s", word=repr(text), game=g.title))
    return g


def _find_power(
    words: list[str],
    used: set[int],
    chunks: list[str],
    chunk_of: list[int],
    pnames: Mapping[str, str],
    r: Reading,
) -> str | None:
    found: list[tuple[int, str, int, int]] = []
    for key, power in pnames.items():
        target = key.split()
        at = _find_sequence(words, target, used)
        if at is not None:
            found.append((len(target), power, at, len(target)))
    if found:
        found.sort(key=lambda f: -f[0])
        powers = {f[1] for f in found}
        n, power, at, size = found[0]
        if len(powers) > 1:
            # Two powers named ("Montrose ... Argyll"): take none rather than guess.
            others = sorted(powers - {power})
            if not all(_inside(f, found[0]) for f in found if f[1] != power):
                r.notes.append(
                    msg("the subject names more than one power (%(powers)s)", powers=", ".join([power, *others]))
                )
                return None
        used.update(range(at, at + size))
        return power
    # A near miss of a power's name (one or two letters).
    best: tuple[float, str, list[int], str] | None = None
    for key, power in pnames.items():
        n = len(key.split())
        for i in range(len(words) - n + 1):
            idx = list(range(i, i + n))
            if any(j in used for j in idx) or words[i] in FILLER:
                continue
            text = " ".join(words[j] for j in idx)
            if len(text) < 4:
                continue
            ratio = difflib.SequenceMatcher(None, text, key).ratio()
            if ratio >= 0.8 and (best is None or ratio > best[0]):
                best = (ratio, power, idx, text)
    if best is None:
        return None
    used.update(best[2])
    r.notes.append(msg("read %(word)s as %(what)s", word=repr(best[3]), what=best[1]))
    return best[1]


def _inside(a: tuple[int, str, int, int], b: tuple[int, str, int, int]) -> bool:
    """Is match ``a`` within match ``b`` ("Irish" inside "Irish Confederacy")?"""
    return b[2] <= a[2] and a[2] + a[3] <= b[2] + b[3]


def _phase(
    game: GameNames, season: str | None, kind: PhaseKind | None, years: list[tuple[int, bool]]
) -> tuple[Phase | None, Msg | None]:
    cal = game.variant.calendar
    current = game.phase

    def example(why: Msg) -> Msg:
        """``why``, with the phase the game is in where it has one: the year and season a subject wants."""
        if current is None:
            return why
        return msg("%(problem)s (the game is in %(phase)s)", problem=why, phase=PhaseName(cal.name(current)))

    if not years:
        return None, example(msg("the subject gives no year"))
    if len(years) > 1 and len({y for y, _ in years}) > 1:
        given = ", ".join(str(y) for y, _ in years)
        return None, example(msg("the subject gives more than one year (%(years)s)", years=given))
    year, short = years[0]
    if short:
        base = current.year if current is not None else cal.start.year
        year = base - base % 100 + year
        if year > base + 50:
            year -= 100
    seasoned = [i for i, s in enumerate(cal.steps) if s.season]
    labels = {s.season.lower() for s in cal.steps if s.season}
    if season is None and seasoned:
        return None, example(msg("the subject gives no season"))
    steps: list[int] = []
    for i, step in enumerate(cal.steps):
        label = step.season.lower()
        if season is not None and seasoned:
            wanted = {season} | ({"fall"} if season == "autumn" else set())
            if label not in wanted:
                continue
        if kind is not None and step.kind != kind:
            continue
        steps.append(i)
    if not steps:
        what = " ".join(x for x in ((season or "").capitalize(), kind.label if kind else "") if x)
        have = ", ".join(sorted({f"{s.season} {s.kind.label}".strip() for s in cal.steps}))
        if season is not None and seasoned and not ({season} | ({"fall"} if season == "autumn" else set())) & labels:
            return None, msg(
                "%(game)s has no season %(season)s (%(phases)s)",
                game=game.title,
                season=season.capitalize(),
                phases=have,
            )
        return None, msg("%(game)s has no %(phase)s phase (%(phases)s)", game=game.title, phase=what, phases=have)
    in_year = [Phase(year, i) for i in steps if _occurs(game.variant, year, i)]
    if not in_year:
        return None, msg("%(game)s has no such phase in %(year)s", game=game.title, year=year)
    if kind is None and len(in_year) > 1:
        # "Autumn 1644" alone: the game's current phase if it is one of them, else the movement phase.
        if current is not None and current in in_year:
            return current, None
        movement = [p for p in in_year if cal.kind(p) == PhaseKind.MOVEMENT]
        return (movement or in_year)[0], None
    return in_year[0], None


def _occurs(variant: Variant, year: int, step: int) -> bool:
    cal = variant.calendar
    first = cal.start.year - cal.steps[cal.start.step].offset
    return (year - cal.steps[step].offset - first) % cal.cycle_years == 0


def suggest_subject(game: GameNames, power: str | None, version: int | None = None) -> str:
    """The subject that would have worked: the rulebook's form with the game's current phase."""
    cal = game.variant.calendar
    phase = cal.name(game.phase) if game.phase is not None else "SEASON YEAR TYPE"
    parts = [game.title, power or "POWER", phase]
    if version is not None:
        parts.append(f"v{version}")
    return " - ".join(parts)
