"""Tournaments, the use cases every door calls (the web's ``/tournaments`` pages and JSON calls, ``dippouch
tournament``): a set of games scored under one system, and its standings.

The standings are computed from the stored games each time they are asked for, never from stored scores: each
finished game of the tournament is scored under the tournament's system (:func:`dippouch.play.records.score_record`,
the numbers ``dippouch score --system`` prints), whatever system the game itself chose, and each player's scores
are added up (the web app keeps a finished game's result in memory until the game changes: :class:`ScoresCache`).
What counts is what the ratings count (:mod:`dippouch.play.ratings`), for the same reasons:

- **Practice games** never: one cannot be added, and one found in a tournament is listed as not counted.
- **Bots** never: a bot's seat scores nothing in the standings (the game is still scored whole, so the other
  players' scores are the game's own). A seat held at the end by nobody scores for nobody.
- **Private games** cannot be added (a tournament's page is public; a private game's existence is not shown
  outside it). A game made private after it was added is left out and not named; the page says how many.
- A player is a **person** where a person holds the seat at the end, else the **name** the seat was given (a
  club's face-to-face game entered by name), so a club without accounts still has standings. A person (or
  name) holding two seats of one game counts once, for the better of them, as the ratings do.
- A game that cannot be scored (its ending leaves nothing to share) is listed with the reason and counts for
  nobody; a game not finished is listed as in progress.

**Order and ties**: by total score (highest first); equal totals by the best single game's score; still
equal, the players share the rank (listed by name). The number of games each played is shown beside.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, msg
from dippouch.game import GameError, RecordNotFound
from dippouch.play.records import find_system, score_record
from dippouch.ranking.scoring import ScoringSystem, systems
from dippouch.store.db import Database
from dippouch.store.finished import game_record
from dippouch.store.finished_games import person_names
from dippouch.store.tournaments.stored import (
    Tournament,
    TournamentGame,
    TournamentGameFacts,
    create_tournament,
    games_facts,
    tournament,
    tournaments,
)
from dippouch.store.tournaments.stored import add_game as store_add_game
from dippouch.store.tournaments.stored import remove_game as store_remove_game

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = [
    "MAX_ROUND",
    "GameLine",
    "Key",
    "ScoresCache",
    "Standings",
    "TournamentStanding",
    "TournamentSummary",
    "add_game",
    "list_tournaments",
    "new_tournament",
    "rank_players",
    "remove_game",
    "round_number",
    "standings",
    "system_of",
]

MAX_ROUND = 99
"""The highest round number a game may be given."""

PLACES = 6
"""Decimals a total is compared to for ranks: sums of the systems' fractions (100/3 ...) differ in the last bits
by the order they are added in, and must still tie."""


def system_of(t: Tournament) -> ScoringSystem:
    """The tournament's system (a system no longer shipped is refused naming the valid ones: the standings
    would otherwise be under another system than the one announced)."""
    return find_system(t.system)


def _variant_name(variant: str | None) -> str | None:
    """A variant's name as the catalogue spells it (an unknown one refused with the catalogue's words)."""
    text = (variant or "").strip()
    if not text:
        return None
    from dippouch.catalog import load_variant

    try:
        return load_variant(text).name
    except DippouchError as e:
        raise GameError(msg("variant: %(reason)s", reason=e.msg)) from None


def new_tournament(
    db: Database, name: str, system: str, *, variant: str | None = None, creator_id: int | None = None, now: datetime
) -> Tournament:
    """A new tournament scored under ``system`` (a shipped system's name; unknown: refused naming the
    closest), of ``variant``'s games only when given; ``creator_id`` is the person who runs it."""
    chosen = find_system(system.strip()) if system.strip() else None
    if chosen is None:
        raise GameError(
            msg("a tournament needs a scoring system: one of %(systems)s", systems=", ".join(sorted(systems())))
        )
    return create_tournament(
        db, name, system=chosen.name, variant=_variant_name(variant), creator_id=creator_id, now=now
    )


def round_number(text: str | int | None) -> int | None:
    """A round as typed ("" or None: no round), refused unless a whole number from 1 to :data:`MAX_ROUND`."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    try:
        n = int(text.strip()) if isinstance(text, str) else int(text)
    except ValueError:
        raise GameError(
            msg(
                "a round is a whole number from 1 to %(most)s, not %(value)s",
                most=MAX_ROUND,
                value=repr(str(text)[:20]),
            )
        ) from None
    if not 1 <= n <= MAX_ROUND:
        raise GameError(msg("a round is a whole number from 1 to %(most)s, not %(value)s", most=MAX_ROUND, value=n))
    return n


def add_game(db: Database, name: str, game: str, *, in_round: str | int | None = None, now: datetime) -> Tournament:
    """Add the existing ``game`` to the tournament (in round ``in_round``, typed or a number). Refused: a game that does not exist, a
    practice game, a private game, a game of another variant than the tournament's, one already in it."""
    t = tournament(db, name)
    number = round_number(in_round)
    game = game.strip()
    facts = games_facts(db, [game]).get(game)
    if facts is None:
        # The store's refusal of an unknown game, naming the closest.
        game_record(db, game)
        raise RecordNotFound(msg("no game %(game)s", game=repr(game)))
    if facts.practice:
        raise GameError(
            msg("game %(game)s is a practice game: practice games never count in a tournament", game=repr(game))
        )
    if facts.visibility == "private":
        raise GameError(
            msg(
                "game %(game)s is private: a tournament's standings are public, so make the game public or unlisted "
                "first",
                game=repr(game),
            )
        )
    if t.variant is not None and facts.variant != t.variant:
        raise GameError(
            msg(
                "game %(game)s plays %(variant)s; tournament %(tournament)s is for %(wanted)s games only",
                game=repr(game),
                variant=facts.variant,
                tournament=repr(t.name),
                wanted=t.variant,
            )
        )
    return store_add_game(db, t.name, game, round_number=number, now=now)


def remove_game(db: Database, name: str, game: str) -> Tournament:
    """Take ``game`` out of the tournament (the game itself is untouched)."""
    return store_remove_game(db, name, game.strip())


@dataclass(frozen=True)
class TournamentSummary:
    """A line of the list of tournaments."""

    tournament: Tournament
    system: ScoringSystem | None
    """None for a system no longer shipped."""
    finished: int
    """Its games that are finished (counted or not)."""


def list_tournaments(db: Database) -> list[TournamentSummary]:
    """Every tournament, newest first, with how many of its games are finished."""
    found = tournaments(db)
    facts = games_facts(db, (g.game for t in found for g in t.games))
    shipped = systems()
    return [
        TournamentSummary(
            t,
            shipped.get(t.system),
            sum(1 for g in t.games if (f := facts.get(g.game)) is not None and f.status == "finished"),
        )
        for t in found
    ]


@dataclass(frozen=True)
class TournamentStanding:
    """A player's line of the standings."""

    rank: int
    person_id: int | None
    """The person; None for a seat given by name only."""
    name: str | None
    """Their name now (a person's) or the seat's name; None for a person who deleted their data."""
    total: float
    games: int
    """The counted games they played (finished, scored, not practice)."""
    best: float
    """Their best single game's score (the first tie-break)."""


@dataclass(frozen=True)
class GameLine:
    """One game of the tournament as the standings list it."""

    game: str
    round: int | None
    variant: str | None
    """None for a game that no longer exists."""
    status: str
    """``counted``, ``in progress``, ``unscored`` (finished but could not be scored), ``practice`` or ``missing``."""
    note: Msg | None
    """Why a finished game was not counted; its ending for a counted one (said where it is shown)."""


@dataclass(frozen=True)
class Standings:
    tournament: Tournament
    system: ScoringSystem
    lines: tuple[TournamentStanding, ...]
    games: tuple[GameLine, ...]
    """Every game of the tournament but the private ones, by round (games without one last), then as added."""
    hidden: int
    """Games left out because they are private now (not named)."""

    @property
    def counted(self) -> int:
        return sum(1 for g in self.games if g.status == "counted")


Key = tuple[str, int | str]
"""("person", id) or ("name", the seat's name): who a score belongs to."""


def _order(g: TournamentGame) -> int:
    return g.round if g.round is not None else MAX_ROUND + 1


class ScoresCache:
    """Each finished game's scores under a system, kept until the game changes (its status and end time: a
    rollback reopens it, a new end moves the time), so a tournament's page does not read and score every
    finished game again at each request. The list of games, their facts and the people's names are read each
    time. Thread-safe; one per web app (the command line keeps none)."""

    MAX = 5000
    """Results kept (past this many, the cache starts again)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, datetime | None], tuple[str | None, Msg | None, dict[Key, float]]] = {}

    def get(self, key: tuple[str, str, datetime | None]) -> tuple[str | None, Msg | None, dict[Key, float]] | None:
        with self._lock:
            return self._kept.get(key)

    def put(
        self, key: tuple[str, str, datetime | None], value: tuple[str | None, Msg | None, dict[Key, float]]
    ) -> None:
        with self._lock:
            if len(self._kept) >= self.MAX:
                self._kept.clear()
            self._kept[key] = value


def standings(db: Database, name: str, cache: ScoresCache | None = None) -> Standings:
    """The tournament's standings now, from its stored games (the module's note says what counts); a
    finished game's scores through ``cache`` when given."""
    t = tournament(db, name)
    system = system_of(t)
    facts = games_facts(db, (g.game for g in t.games))
    scores: dict[Key, list[float]] = {}
    lines: list[GameLine] = []
    hidden = 0
    for g in sorted(t.games, key=_order):  # sorted() keeps the order added within a round
        f = facts.get(g.game)
        if f is not None and f.visibility == "private":
            hidden += 1
            continue
        line, got = _game(db, g, f, system, cache)
        lines.append(line)
        for key, points in got.items():
            scores.setdefault(key, []).append(points)
    return Standings(t, system, _ranked(db, scores), tuple(lines), hidden)


def _game(
    db: Database, g: TournamentGame, f: TournamentGameFacts | None, system: ScoringSystem, cache: ScoresCache | None
) -> tuple[GameLine, dict[Key, float]]:
    """One game's line and, when it counts, each player's score in it."""
    if f is None:
        return GameLine(g.game, g.round, None, "missing", msg("the game no longer exists")), {}
    if f.practice:
        return GameLine(g.game, g.round, f.variant, "practice", msg("practice games never count")), {}
    if f.status != "finished":
        return GameLine(g.game, g.round, f.variant, "in progress", None), {}
    key = (g.game, system.name, f.ended_at)
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        hit = _scored(db, g.game, system)
        if cache is not None:
            cache.put(key, hit)
    status, note, got = hit
    return GameLine(g.game, g.round, f.variant, status or "counted", note), dict(got)


def _scored(db: Database, game: str, system: ScoringSystem) -> tuple[str | None, Msg | None, dict[Key, float]]:
    """A finished game scored under ``system``: (``unscored`` or None, the note, each player's score)."""
    record = game_record(db, game)
    try:
        scored = score_record(record, system)
    except GameError as e:
        return "unscored", e.msg, {}
    seats = {s.power: s for s in record.seats}
    got: dict[Key, float] = {}
    for row in scored.rows:
        seat = seats.get(row.power)
        if seat is None or seat.bot or seat.player is None:
            continue
        key: Key = ("person", seat.person_id) if seat.person_id is not None else ("name", seat.player)
        # Two seats of one game held by one player at the end: the better counts, once.
        got[key] = max(got.get(key, -math.inf), row.score)
    return None, record.ending.message if record.ending is not None and record.ending.text else None, got


def _ranked(db: Database, scores: dict[Key, list[float]]) -> tuple[TournamentStanding, ...]:
    names = person_names(db, (int(k[1]) for k in scores if k[0] == "person"))

    def shown(key: Key) -> str | None:
        if key[0] == "name":
            return str(key[1])
        known = names.get(int(key[1]))
        return known.name if known is not None and not known.deleted else None

    return rank_players(scores, {key: shown(key) for key in scores})


def rank_players(
    scores: Mapping[Key, Sequence[float]], names: Mapping[Key, str | None]
) -> tuple[TournamentStanding, ...]:
    """The standings' lines from each player's scores (one a counted game): the module's order and ties."""
    rows = [
        (round(math.fsum(points), PLACES), round(max(points), PLACES), key, math.fsum(points), max(points))
        for key, points in scores.items()
        if points
    ]
    rows.sort(key=lambda r: (-r[0], -r[1], (names.get(r[2]) or "").casefold(), str(r[2][1])))
    out: list[TournamentStanding] = []
    for i, (total, best, key, exact, top) in enumerate(rows):
        tied = i > 0 and (rows[i - 1][0], rows[i - 1][1]) == (total, best)
        out.append(
            TournamentStanding(
                rank=out[-1].rank if tied else i + 1,
                person_id=int(key[1]) if key[0] == "person" else None,
                name=names.get(key),
                total=exact,
                games=len(scores[key]),
                best=top,
            )
        )
    return tuple(out)
