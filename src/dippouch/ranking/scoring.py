"""Scoring systems as data: one TOML file a system (``systems/*.toml``), one small engine.

A system's file names its formula (one of :data:`FORMULAS`), the formula's parameters, where the system is
published and, in words, how it treats solos, draws, games without a result and eliminated powers. The engine
reads a finished game's plain facts (:class:`GameFacts`) and returns a score a power. Adding a system that
only changes numbers (Half-Tribute, a draw-size system out of 1,000) is a new file, not new code.

Nothing here reads the store or knows a variant: the caller says how many centres the board has and how many
a solo needs, so the same systems score a standard game and a W3K one alike.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType

from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, msg

I18N_DOMAIN = "rules"
"""The catalogue of the scoring refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "FORMULAS",
    "GameFacts",
    "PowerFacts",
    "ScoringError",
    "ScoringSystem",
    "load_system",
    "parse_system",
    "score",
    "system_names",
    "systems",
]


class ScoringError(DippouchError, ValueError):
    """A scoring system or a game's facts that cannot be scored, with a message a person can act on (a value,
    said in the reader's language; a ``ValueError`` still for the callers that catch one)."""


@dataclass(frozen=True, slots=True)
class PowerFacts:
    """One power at the end of a game."""

    power: str
    centres: int
    eliminated: bool = False
    eliminated_year: int | None = None
    """The year the power was eliminated, when known (Carnage ranks the eliminated by it)."""


@dataclass(frozen=True, slots=True)
class GameFacts:
    """A finished game's plain facts: enough to score it under any system.

    ``solo`` names the winner; ``draw`` names the powers sharing a draw; neither means the game ended without
    a result (an end year, an abandoned game), which each system treats as its file says.
    """

    powers: tuple[PowerFacts, ...]
    victory_centres: int
    solo: str | None = None
    draw: frozenset[str] = frozenset()
    total_centres: int | None = None
    """The centres on the board; None means the sum of the powers' centres (every neutral taken)."""

    def __post_init__(self) -> None:
        names = [p.power for p in self.powers]
        if not names:
            raise ScoringError(msg("a game to score needs at least one power"))
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ScoringError(msg("a power is listed twice: %(powers)s", powers=", ".join(twice)))
        for p in self.powers:
            if p.centres < 0:
                raise ScoringError(msg("%(power)s cannot hold %(centres)d centres", power=p.power, centres=p.centres))
            if p.eliminated and p.centres:
                raise ScoringError(
                    msg("%(power)s is eliminated but holds %(centres)d centres", power=p.power, centres=p.centres)
                )
        if self.solo is not None and self.draw:
            raise ScoringError(msg("a game ends in a solo or a draw, not both"))
        if self.solo is not None and self.solo not in names:
            raise ScoringError(
                msg(
                    "the winner %(winner)s is not one of the powers (%(powers)s)",
                    winner=repr(self.solo),
                    powers=", ".join(names),
                )
            )
        unknown = sorted(self.draw - set(names))
        if unknown:
            raise ScoringError(msg("the draw names powers not in the game: %(powers)s", powers=", ".join(unknown)))
        fallen = sorted(p.power for p in self.powers if p.eliminated and (p.power in self.draw or p.power == self.solo))
        if fallen:
            raise ScoringError(msg("an eliminated power cannot share the result: %(powers)s", powers=", ".join(fallen)))
        if self.victory_centres < 1:
            raise ScoringError(msg("the centres for victory must be at least 1"))
        if self.total_centres is not None and self.total_centres < sum(p.centres for p in self.powers):
            raise ScoringError(
                msg(
                    "the board has %(board)d centres but the powers hold %(held)d",
                    board=self.total_centres,
                    held=sum(p.centres for p in self.powers),
                )
            )

    @property
    def board_centres(self) -> int:
        return self.total_centres if self.total_centres is not None else sum(p.centres for p in self.powers)

    @property
    def survivors(self) -> tuple[PowerFacts, ...]:
        return tuple(p for p in self.powers if not p.eliminated)

    def sharing(self) -> frozenset[str]:
        """Who shares a result short of a solo: the powers named in the draw, or every survivor without one."""
        return self.draw or frozenset(p.power for p in self.survivors)


Scores = dict[str, float]
Formula = Callable[[GameFacts, Mapping[str, float]], Scores]


def _solo(facts: GameFacts, value: float) -> Scores:
    return {p.power: (value if p.power == facts.solo else 0.0) for p in facts.powers}


def draw_size(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """DSS: a solo takes the total; otherwise the total is shared equally by the draw (every survivor when
    the game ended without one). Eliminated powers and survivors left out of a draw score 0."""
    if facts.solo is not None:
        return _solo(facts, k["total"])
    sharing = facts.sharing()
    if not sharing:
        raise ScoringError(msg("nobody survived to share the game"))
    return {p.power: (k["total"] / len(sharing) if p.power in sharing else 0.0) for p in facts.powers}


def sum_of_squares(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """SoS: a solo takes the total; otherwise each power scores total × c² / Σc² over every power. The
    draw's membership does not change the scores; eliminated powers hold nothing and score 0."""
    if facts.solo is not None:
        return _solo(facts, k["total"])
    squares = sum(p.centres**2 for p in facts.powers)
    if not squares:
        raise ScoringError(msg("no power holds a centre: sum of squares has nothing to share"))
    return {p.power: k["total"] * p.centres**2 / squares for p in facts.powers}


def _rank_key(p: PowerFacts) -> tuple[int, int, int]:
    """Better first: survivors by centres, then the eliminated by year (later is better; unknown last)."""
    if not p.eliminated:
        return (0, -p.centres, 0)
    return (1, 0, -(p.eliminated_year if p.eliminated_year is not None else -(10**9)))


def rank(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """Carnage: a solo takes the game's whole value (every place's rank points plus ``per_centre`` for each
    centre on the board); otherwise with n powers, place i (1 = best) earns (n − i + 1) × ``rank_step``,
    tied powers splitting the points of the places they share, plus ``per_centre`` a centre held. A draw and
    no result are scored alike; the eliminated are ranked below survivors by the year they fell."""
    n = len(facts.powers)
    step, per = k["rank_step"], k["per_centre"]
    if facts.solo is not None:
        return _solo(facts, step * n * (n + 1) / 2 + per * facts.board_centres)
    ordered = sorted(facts.powers, key=_rank_key)
    out: Scores = {}
    place = 0
    while place < n:
        key = _rank_key(ordered[place])
        tied = [p for p in ordered[place:] if _rank_key(p) == key]
        points = sum((n - i) * step for i in range(place, place + len(tied))) / len(tied)
        for p in tied:
            out[p.power] = points + per * p.centres
        place += len(tied)
    return {p.power: out[p.power] for p in facts.powers}


def _toppers(facts: GameFacts, among: Mapping[str, PowerFacts]) -> list[str]:
    top = max((p.centres for p in among.values()), default=0)
    return [name for name, p in among.items() if p.centres == top]


def tribute(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """Tribute: a solo scores ``solo``, the rest 0. Otherwise each power in the draw (every survivor without
    one) scores ``per_centre`` × centres plus an equal share of ``draw_pool``; each of them that does not top
    the draw (hold the most centres among its powers) pays the topper ``rate`` × (topper's centres − ``threshold``), at most its share of the pool,
    and tied toppers split what is paid. A survivor outside the draw keeps its centres' points and pays
    nothing (its share is 0); an eliminated power scores 0. What is paid moves, never vanishes: the total is
    always ``draw_pool`` + ``per_centre`` × the centres held (100 on a full standard board)."""
    if facts.solo is not None:
        return _solo(facts, k["solo"])
    sharing = facts.sharing()
    if not sharing:
        raise ScoringError(msg("nobody survived to share the game"))
    share = k["draw_pool"] / len(sharing)
    out: Scores = {p.power: k["per_centre"] * p.centres + (share if p.power in sharing else 0.0) for p in facts.powers}
    toppers = _toppers(facts, {p.power: p for p in facts.powers if p.power in sharing})
    top = next(p.centres for p in facts.powers if p.power == toppers[0])
    owed = min(max(k["rate"] * (top - k["threshold"]), 0.0), share)
    payers = [name for name in sharing if name not in toppers]
    for name in payers:
        out[name] -= owed
    for name in toppers:
        out[name] += owed * len(payers) / len(toppers)
    return out


def open_tribute(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """OpenTribute: a solo scores ``solo``, the rest 0. Otherwise every power has ``survival`` +
    ``per_centre`` × centres and pays the board-topper ``rate`` × (topper's centres − its centres); n tied
    toppers each receive 1/n² of what was paid (the rest is spoiled). An eliminated power pays and then
    scores 0. On a full standard board this is 10 × centres for a lone topper and 34 + 4 × centres −
    topper's centres for the others. The draw's membership does not change the scores."""
    if facts.solo is not None:
        return _solo(facts, k["solo"])
    toppers = _toppers(facts, {p.power: p for p in facts.powers})
    top = max(p.centres for p in facts.powers)
    paid = sum(k["rate"] * (top - p.centres) for p in facts.powers if p.power not in toppers)
    out: Scores = {}
    for p in facts.powers:
        if p.eliminated:
            out[p.power] = 0.0
        elif p.power in toppers:
            out[p.power] = k["survival"] + k["per_centre"] * p.centres + paid / len(toppers) ** 2
        else:
            out[p.power] = k["survival"] + k["per_centre"] * p.centres - k["rate"] * (top - p.centres)
    return out


def centre_count(facts: GameFacts, k: Mapping[str, float]) -> Scores:
    """Centre count: a solo scores ``per_centre`` × every centre on the board, the rest 0; otherwise each
    power scores ``per_centre`` × the centres it holds (an eliminated power none)."""
    if facts.solo is not None:
        return _solo(facts, k["per_centre"] * facts.board_centres)
    return {p.power: k["per_centre"] * p.centres for p in facts.powers}


FORMULAS: Mapping[str, tuple[Formula, frozenset[str]]] = MappingProxyType(
    {
        "draw_size": (draw_size, frozenset({"total"})),
        "sum_of_squares": (sum_of_squares, frozenset({"total"})),
        "rank": (rank, frozenset({"rank_step", "per_centre"})),
        "tribute": (tribute, frozenset({"solo", "draw_pool", "per_centre", "threshold", "rate"})),
        "open_tribute": (open_tribute, frozenset({"solo", "survival", "per_centre", "rate"})),
        "centre_count": (centre_count, frozenset({"per_centre"})),
    }
)
"""Formula name -> (the function, the parameters its systems must give)."""

TREATS = ("solo", "draw", "unresolved", "eliminated")
"""What every system's file must say in words (``[treats]``): how it scores each kind of ending."""


@dataclass(frozen=True, slots=True)
class ScoringSystem:
    name: str
    title: str
    source: str
    """Where the system is published (the formula's facts are taken from there, not its prose)."""
    formula: str
    parameters: Mapping[str, float]
    treats: Mapping[str, str] = field(default_factory=dict)
    """In words: how a solo, a draw, a game without a result and an eliminated power are scored."""

    def score(self, facts: GameFacts) -> Scores:
        """A score for every power of ``facts``, in the order the facts list them."""
        fn, _ = FORMULAS[self.formula]
        return fn(facts, self.parameters)


def parse_system(data: Mapping[str, object], where: str = "scoring system") -> ScoringSystem:
    """A system from a TOML file's table, every mistake named (a missing key, an unknown formula or
    parameter, a parameter that is not a number)."""
    missing = [key for key in ("name", "title", "source", "formula", "parameters", "treats") if key not in data]
    if missing:
        raise ScoringError(msg("%(where)s: missing %(keys)s", where=where, keys=", ".join(missing)))
    formula = data["formula"]
    if not isinstance(formula, str) or formula not in FORMULAS:
        raise ScoringError(
            msg(
                "%(where)s: unknown formula %(formula)s%(close)s",
                where=where,
                formula=repr(formula),
                close=_closest(str(formula), FORMULAS),
            )
        )
    params = data["parameters"]
    if not isinstance(params, Mapping):
        raise ScoringError(msg("%(where)s: [parameters] must be a table", where=where))
    wanted = FORMULAS[formula][1]
    extra, absent = sorted(set(params) - wanted), sorted(wanted - set(params))
    if extra or absent:
        said = msg(
            "%(where)s: formula %(formula)s takes exactly %(keys)s",
            where=where,
            formula=formula,
            keys=", ".join(sorted(wanted)),
        )
        if extra:
            said = msg("%(said)s; unknown: %(keys)s", said=said, keys=", ".join(extra))
        if absent:
            said = msg("%(said)s; missing: %(keys)s", said=said, keys=", ".join(absent))
        raise ScoringError(said)
    numbers: dict[str, float] = {}
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScoringError(
                msg(
                    "%(where)s: parameter %(key)s must be a number, not %(value)s",
                    where=where,
                    key=key,
                    value=repr(value),
                )
            )
        numbers[key] = float(value)
    treats = data["treats"]
    if not isinstance(treats, Mapping) or sorted(treats) != sorted(TREATS):
        raise ScoringError(
            msg("%(where)s: [treats] must say in words how it scores: %(keys)s", where=where, keys=", ".join(TREATS))
        )
    for key in ("name", "title", "source"):
        if not isinstance(data[key], str) or not data[key]:
            raise ScoringError(msg("%(where)s: %(key)s must be a non-empty string", where=where, key=key))
    return ScoringSystem(
        name=str(data["name"]),
        title=str(data["title"]),
        source=str(data["source"]),
        formula=formula,
        parameters=MappingProxyType(numbers),
        treats=MappingProxyType({str(key): str(value) for key, value in treats.items()}),
    )


@cache
def systems() -> Mapping[str, ScoringSystem]:
    """The shipped systems by name, read once from the package's ``systems/*.toml``."""
    found: dict[str, ScoringSystem] = {}
    folder = resources.files(__package__ or "dippouch.ranking") / "systems"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        system = parse_system(tomllib.loads(entry.read_text(encoding="utf-8")), f"systems/{entry.name}")
        if system.name in found:
            raise ScoringError(
                msg("systems/%(file)s: the name %(name)s is taken", file=entry.name, name=repr(system.name))
            )
        found[system.name] = system
    return MappingProxyType(found)


def system_names() -> list[str]:
    return sorted(systems())


def _closest(name: str, valid: Mapping[str, object] | list[str]) -> Msg | str:
    near = difflib.get_close_matches(name.lower(), list(valid), n=1, cutoff=0.0)
    return msg(" (did you mean %(close)s?)", close=repr(near[0])) if near else ""


def _nearest(name: str, valid: Mapping[str, object] | list[str]) -> str:
    near = difflib.get_close_matches(name.lower(), list(valid), n=1, cutoff=0.0)
    return repr(near[0]) if near else "''"


def load_system(name: str) -> ScoringSystem:
    """The shipped system called ``name`` (case-insensitive); an unknown name is refused naming the closest."""
    found = systems().get(name.strip().lower())
    if found is None:
        raise ScoringError(
            msg(
                "no scoring system %(name)s (did you mean %(close)s?); the systems are %(systems)s",
                name=repr(name),
                close=_nearest(name, systems()),
                systems=", ".join(system_names()),
            )
        )
    return found


def score(system: str | ScoringSystem, facts: GameFacts) -> Scores:
    """Score ``facts`` under ``system`` (a shipped system's name or a :class:`ScoringSystem`)."""
    chosen = load_system(system) if isinstance(system, str) else system
    return chosen.score(facts)
