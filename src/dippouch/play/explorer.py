"""The opening explorer, for every door: for a variant and a power, the openings played in the installation's
public finished games, browsable move by move as chess servers' explorers are (lichess's: each continuation
with how many games played it and how they ended).

A **step** is the power's set of orders in one phase of a game's line of play: its adjudicated orders in
canonical text, sorted, so the same set given in another order is one step; a phase it had to act in and sent
nothing is the empty set ("no orders"), and a phase it had nothing to do in (no retreat, no build) is no step.
A **path** is the steps from the game's start. At the root the continuations are the power's Spring 1901 sets
(the variant's first phase); under one of them, what followed it, and so on over the first :data:`YEARS` years.

Each node's **figures**: how many games reached it, the power's mean centres at the end of each of the first
years over the games that got that far, and how the games ended for the power: a win (its solo), a draw (it
shares the draw), an elimination (no centre and no unit on the final board) or a survival (any other end: still
on the board when someone else won, or when the year limit or the last powers' ranking ended it).

The centres at the **end of a year** are the power's on the first board after the year's last movement and
retreats (the winter's, in the standard calendar); a game that ended within the year counts its final board.
Only games played from the variant's first phase count (a game set up from another board opens nothing).
The games are :func:`dippouch.store.learning.explorer.explored_games`'s: public and finished, read in one query.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dippouch.catalog import load_variant, variant_names, variants_usable
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.messages import msg
from dippouch.core.variant import Variant
from dippouch.game import GameError
from dippouch.store.db import Database
from dippouch.store.learning.explorer import ExploredGame, ExploredPhase, explored_games, public_finished_counts

I18N_DOMAIN = "rules"
"""The catalogue of the explorer's refusals, said in the reader's language where they are shown."""

__all__ = [
    "OUTCOMES",
    "YEARS",
    "Branch",
    "Explored",
    "ExploredVariant",
    "Figures",
    "PhaseOrders",
    "UnknownChoice",
    "YearCentres",
    "explore",
    "explorer_variants",
    "find_power",
    "find_variant",
    "parse_path",
    "path_text",
]

YEARS = 3
"""The first years the explorer follows (and gives mean centres at the end of)."""

MAX_PATH = 4000
"""The longest path read, in characters (a path is the steps of at most :data:`YEARS` years)."""

STEP_SEP = " | "
ORDER_SEP = "; "

OUTCOMES = ("wins", "draws", "survivals", "eliminations")


class UnknownChoice(GameError):
    """A variant or a power the explorer does not know (the message names the closest)."""


@dataclass(frozen=True, order=True)
class PhaseOrders:
    """The power's set of orders in one phase: its phase's name and its orders sorted (empty: no orders)."""

    phase: str
    orders: tuple[str, ...]

    @property
    def text(self) -> str:
        """``Spring 1901 Movement: A par - bur; F bre - mao``: a path's step as written in an address."""
        return f"{self.phase}: {ORDER_SEP.join(self.orders)}".rstrip()


def path_text(path: Iterable[PhaseOrders]) -> str:
    """A path as an address writes it (``?path=``): its steps, ``|`` between them."""
    return STEP_SEP.join(s.text for s in path)


def parse_path(text: str) -> tuple[PhaseOrders, ...]:
    """A path as :func:`path_text` writes it (spacing and the orders' order do not matter); empty: the root."""
    if len(text) > MAX_PATH:
        raise GameError(msg("the path is longer than %(most)s characters", most=MAX_PATH))
    steps = []
    for part in text.split("|"):
        if not part.strip():
            continue
        phase, colon, orders = part.partition(":")
        if not colon or not phase.strip():
            raise GameError(
                msg("the path's step %(step)s is not of the form 'phase: order; order'", step=repr(part.strip()))
            )
        steps.append(
            PhaseOrders(
                " ".join(phase.split()), tuple(sorted(" ".join(o.split()) for o in orders.split(";") if o.strip()))
            )
        )
    return tuple(steps)


@dataclass(frozen=True)
class YearCentres:
    year: int
    mean: float | None
    """The power's mean centres at the end of the year (None: no game got that far)."""
    games: int
    """How many games it is the mean of."""


@dataclass(frozen=True)
class Figures:
    """What the games through one node did."""

    games: int
    centres: tuple[YearCentres, ...]
    wins: int
    draws: int
    survivals: int
    eliminations: int

    def count(self, outcome: str) -> int:
        return int(getattr(self, outcome))

    def share(self, outcome: str) -> float:
        """The share of the games that ended so, from 0 to 1 (0 for no game)."""
        return self.count(outcome) / self.games if self.games else 0.0


@dataclass(frozen=True)
class Branch:
    """A continuation of the node: its step, the path to it, and the figures of the games that played it."""

    step: PhaseOrders
    path: tuple[PhaseOrders, ...]
    figures: Figures
    share: float
    """The share of the node's games that played it, from 0 to 1."""


@dataclass(frozen=True)
class Explored:
    """One node of a power's openings: its figures and its continuations, most played first."""

    variant: str
    variant_title: str
    power: str
    powers: tuple[str, ...]
    """Every power of the variant."""
    path: tuple[PhaseOrders, ...]
    figures: Figures
    branches: tuple[Branch, ...]
    years: tuple[int, ...]
    total: int
    """The public finished games the explorer reads for the variant (the root's games)."""


@dataclass(frozen=True)
class ExploredVariant:
    name: str
    title: str
    powers: tuple[str, ...]
    games: int
    """Its public finished games."""


@dataclass(frozen=True)
class _Line:
    """One game as the explorer counts it: its steps, the power's centres at the end of each year, its outcome."""

    steps: tuple[PhaseOrders, ...]
    centres: Mapping[int, int]
    outcome: str


def _closest(word: str, choices: Sequence[str]) -> str | None:
    found = difflib.get_close_matches(word.lower()[:100], [c.lower() for c in choices], n=1, cutoff=0.0)
    return next((c for c in choices if found and c.lower() == found[0]), None)


def find_variant(name: str) -> Variant:
    """The variant ``name``, or :class:`UnknownChoice` naming the closest and every one."""
    known = variant_names()
    if name not in known:
        close = _closest(name, known)
        values = {"name": repr(name[:100]), "all": ", ".join(known)}
        if close is None:
            raise UnknownChoice(msg("no variant %(name)s Variants: %(all)s", **values))
        raise UnknownChoice(
            msg("no variant %(name)s; did you mean %(close)s? Variants: %(all)s", close=repr(close), **values)
        )
    return load_variant(name)  # a broken variant's file is refused in the catalog's own words


def find_power(v: Variant, name: str) -> str:
    """The power ``name`` of ``v`` (any case), or :class:`UnknownChoice` naming the closest and every one."""
    for p in v.power_names:
        if p.lower() == name.strip().lower():
            return p
    close = _closest(name, v.power_names)
    raise UnknownChoice(
        msg(
            "no power %(power)s in %(variant)s; did you mean %(close)s? Powers: %(powers)s",
            power=repr(name[:100]),
            variant=v.name,
            close=repr(close),
            powers=", ".join(v.power_names),
        )
    )


def _steps(phases: Sequence[ExploredPhase]) -> tuple[PhaseOrders, ...]:
    return tuple(PhaseOrders(p.name, tuple(sorted(p.orders or ()))) for p in phases if p.orders or p.missed)


def _settled(v: Variant, ph: Phase) -> bool:
    """Whether a board of phase ``ph`` comes after its year's last movement and retreats."""
    steps = v.calendar.steps
    base = ph.year - steps[ph.step].offset
    return all(
        steps[i].kind is PhaseKind.ADJUSTMENTS for i in range(ph.step, len(steps)) if base + steps[i].offset == ph.year
    )


def _year_ends(v: Variant, game: ExploredGame, first: int, years: Sequence[int]) -> dict[int, int]:
    """The power's centres at the end of each of ``years`` the game got to (see the module's words)."""
    boards: list[tuple[Phase, int]] = []
    for p in game.phases:
        if p.centres is not None:
            boards.append((v.calendar.parse(p.name), len(p.centres)))
    ended: Phase | None = None
    if game.last_seq < first and game.phases:
        last = game.phases[-1]
        ended = v.calendar.parse(last.name)
        if last.status == "processed" and last.centres_after is not None:
            ended = v.calendar.next(ended)
            boards.append((ended, len(last.centres_after)))
    out: dict[int, int] = {}
    for year in years:
        got = next((n for ph, n in boards if ph.year > year or (ph.year == year and _settled(v, ph))), None)
        if got is None and ended is not None and ended.year == year:
            got = game.final_centres
        if got is not None:
            out[year] = got
    return out


def _outcome(game: ExploredGame, power: str) -> str:
    ending = game.ending or {}
    kind = ending.get("kind")
    powers = [str(p) for p in ending.get("powers") or ()]
    if kind == "victory" and powers[:1] == [power]:
        return "wins"
    if kind == "draw" and power in powers:
        return "draws"
    if game.final_centres == 0 and game.final_units == 0:
        return "eliminations"
    return "survivals"


def _figures(lines: Sequence[_Line], years: Sequence[int]) -> Figures:
    counts = {o: 0 for o in OUTCOMES}
    for line in lines:
        counts[line.outcome] += 1
    centres = []
    for year in years:
        got = [line.centres[year] for line in lines if year in line.centres]
        centres.append(YearCentres(year, round(sum(got) / len(got), 2) if got else None, len(got)))
    return Figures(len(lines), tuple(centres), **counts)


def _lines(db: Database, v: Variant, power: str) -> tuple[list[_Line], tuple[int, ...]]:
    cal = v.calendar
    first = YEARS * len(cal.steps) * max(cal.cycle_years, 1)
    start = cal.name(cal.start)
    years = tuple(range(cal.start.year, cal.start.year + YEARS * max(cal.cycle_years, 1)))
    lines = []
    for game in explored_games(db, v.name, power, first=first):
        if not game.phases or game.phases[0].name != start:
            continue  # set up from another board: it opens nothing
        lines.append(_Line(_steps(game.phases), _year_ends(v, game, first, years), _outcome(game, power)))
    return lines, years


def explore(db: Database, variant: str, power: str, path: str | Sequence[PhaseOrders] = ()) -> Explored:
    """The node ``path`` (a path's text or its steps; empty: the root) of ``power``'s openings in ``variant``.
    An unknown variant or power is refused naming the closest (:class:`UnknownChoice`)."""
    v = find_variant(variant)
    chosen = find_power(v, power)
    steps = parse_path(path) if isinstance(path, str) else tuple(path)
    lines, years = _lines(db, v, chosen)
    here = [line for line in lines if line.steps[: len(steps)] == steps]
    by_step: dict[PhaseOrders, list[_Line]] = defaultdict(list)
    for line in here:
        if len(line.steps) > len(steps):
            by_step[line.steps[len(steps)]].append(line)
    branches = [
        Branch(step, (*steps, step), _figures(games, years), len(games) / len(here)) for step, games in by_step.items()
    ]
    branches.sort(key=lambda b: (-b.figures.games, b.step))
    return Explored(
        variant=v.name,
        variant_title=v.title,
        power=chosen,
        powers=tuple(v.power_names),
        path=steps,
        figures=_figures(here, years),
        branches=tuple(branches),
        years=years,
        total=len(lines),
    )


def explorer_variants(db: Database) -> tuple[ExploredVariant, ...]:
    """Every usable variant with its powers and its public finished games (the most games first): one query."""
    usable, _ = variants_usable()
    counts = public_finished_counts(db)
    out = [ExploredVariant(v.name, v.title, tuple(v.power_names), counts.get(v.name, 0)) for v in usable]
    return tuple(sorted(out, key=lambda e: (-e.games, e.title.lower())))
