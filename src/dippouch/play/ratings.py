"""Ratings and leaderboards from the finished games, the use case every door calls (the web's ratings page and
``GET /api/ratings``, ``dippouch ratings``): every finished game scored under its own scoring system
(:mod:`dippouch.play.records`), its players' shares fed to Ghost Ratings (:mod:`dippouch.ranking.ratings`),
overall and per variant group; and a hall of fame, the solos and the best results ever.

What counts, and why:

- **Practice games** never: they are played against bots for practice (the ratings engine drops them too).
- **Bots** never: dropped from the game before the shares are taken, so the people are rated among themselves.
  A seat held at the end by nobody, or by a name that is no person (a seat assigned by name only), is
  dropped the same way: a rating belongs to a person.
- **Private games** never: their existence is not shown outside them (a person's public record leaves them
  out for the same reason). A game that still hides its players' names is left out too; an anonymous game
  reveals them at its end (:func:`dippouch.people.anonymity.names_hidden`), so a finished one counts.
- A game that cannot be scored (its ending leaves nothing to share, say) is listed in :attr:`Standings.unscored`
  with the reason, and rates nobody.

The **variant group** is the variant's name: variant files name no group of their own (no ``group`` key in
their TOML today), so each variant is its own leaderboard.

Kept up to date as the finished games change (:class:`RatingsCache`): each game's result is kept by its name,
end time and chosen system, so a new finished game scores that one game, and the ratings continue from where
they stood (:class:`dippouch.ranking.ratings.Rater`: the same numbers as from scratch); a game gone, rescored
or ended before one already rated makes them start again from every game.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import datetime

from dippouch.game import GameError
from dippouch.play.records import PowerScore, game_system, score_record
from dippouch.ranking.ratings import PlayerResult, RatedGame, Rater, Rating, Ratings, compute_ratings
from dippouch.store.db import Database
from dippouch.store.finished import game_record
from dippouch.store.finished_games import FinishedGame, PersonName, finished_games, person_names
from dippouch.store.reliability import reliabilities

__all__ = [
    "GameResult",
    "HallEntry",
    "Place",
    "RatingsCache",
    "ResultLine",
    "Standings",
    "UnknownGroup",
    "compute_standings",
    "counts",
    "game_result",
    "leaderboard",
    "standings",
]


class UnknownGroup(GameError):
    """A variant group with no rated game (the message names the groups that have some)."""


@dataclass(frozen=True)
class ResultLine:
    """One power's result in a finished game."""

    power: str
    person_id: int | None
    """The person who held the seat at the end; None for a bot, nobody, or a name that is no person."""
    score: float
    share: float
    """The score over the game's rated players' total (0 when they scored nothing between them)."""
    solo: bool
    civil_disorder: bool


@dataclass(frozen=True)
class GameResult:
    game: FinishedGame
    system: str
    """The scoring system the game was scored under (its own)."""
    lines: tuple[ResultLine, ...]
    """The rated players' lines only (no bot, nobody, no unknown name)."""
    problem: str | None = None
    """Why the game could not be scored (then ``lines`` is empty)."""

    def rated_game(self) -> RatedGame:
        return RatedGame(
            name=self.game.name,
            ended_at=self.game.ended_at,
            players=tuple(
                PlayerResult(str(line.person_id), line.power, line.score, civil_disorder=line.civil_disorder)
                for line in self.lines
            ),
            group=self.game.variant,
            practice=self.game.practice,
        )


def counts(game: FinishedGame) -> bool:
    """Whether ``game`` may count toward the ratings at all (the module's note)."""
    return not game.practice and game.visibility != "private" and not game.names_hidden


def game_result(db: Database, game: FinishedGame) -> GameResult:
    """``game`` scored under its own system (:func:`dippouch.play.records.score_record`, the numbers
    ``dippouch score`` prints), its seats joined to the people who held them at the end."""
    record = game_record(db, game.name)
    system = game_system(record)
    try:
        scored = score_record(record, system)
    except GameError as e:
        return GameResult(game, system.name, (), str(e))
    seats = {s.power: s for s in record.seats}
    people: list[tuple[PowerScore, int, bool]] = []
    for row in scored.rows:
        seat = seats.get(row.power)
        if seat is None or seat.bot or seat.person_id is None:
            continue
        people.append((row, seat.person_id, seat.civil_disorder))
    # A person who holds two seats at the end is rated once, for the better of them (the engine refuses twice).
    best: dict[int, tuple[PowerScore, int, bool]] = {}
    for entry in people:
        if entry[1] not in best or entry[0].score > best[entry[1]][0].score:
            best[entry[1]] = entry
    kept = [entry for entry in people if best[entry[1]] is entry]
    total = math.fsum(row.score for row, _, _ in kept)
    lines = tuple(
        ResultLine(
            power=row.power,
            person_id=pid,
            score=row.score,
            share=row.score / total if total > 0 else 0.0,
            solo=row.result == "solo",
            civil_disorder=cd,
        )
        for row, pid, cd in kept
    )
    return GameResult(game, system.name, lines)


@dataclass(frozen=True)
class HallEntry:
    """A result in the hall of fame."""

    game: str
    variant: str
    ended_at: datetime
    power: str
    person_id: int
    score: float
    system: str
    share: float


@dataclass(frozen=True)
class Standings:
    """Everything the doors show, computed at once from the finished games."""

    ratings: Ratings
    results: tuple[GameResult, ...]
    """Every counted finished game's result (in order of end time, then name)."""
    unscored: tuple[tuple[str, str], ...]
    """(game, why) for the counted games that could not be scored."""

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(sorted(self.ratings.by_group))

    def rated_games(self, group: str | None = None) -> int:
        """The games that rated somebody (in ``group``, or any)."""
        return sum(
            1
            for r in self.results
            if len(r.lines) >= 2
            and math.fsum(line.score for line in r.lines) > 0
            and (group is None or r.game.variant == group)
        )

    def _hall(self, *, solo: bool, group: str | None) -> list[HallEntry]:
        out = []
        for r in self.results:
            # The hall links its games: an unlisted game is not to be listed here (its address is its secret).
            if r.game.visibility != "public" or (group is not None and r.game.variant != group):
                continue
            for line in r.lines:
                if line.solo == solo and line.person_id is not None and line.score > 0:
                    out.append(
                        HallEntry(
                            r.game.name,
                            r.game.variant,
                            r.game.ended_at,
                            line.power,
                            line.person_id,
                            line.score,
                            r.system,
                            line.share,
                        )
                    )
        return out

    def solos(self, group: str | None = None, top: int | None = None) -> list[HallEntry]:
        """Every solo won by a person, newest first."""
        found = sorted(self._hall(solo=True, group=group), key=lambda h: (h.ended_at, h.game), reverse=True)
        return found[:top] if top is not None else found

    def best(self, group: str | None = None, top: int | None = None) -> list[HallEntry]:
        """The best results short of a solo: the largest shares of a game's points (scores under different
        systems are on different scales; a share is the same measure under all), earliest first on a tie."""
        found = sorted(self._hall(solo=False, group=group), key=lambda h: (-h.share, h.ended_at, h.game, h.power))
        return found[:top] if top is not None else found


def compute_standings(db: Database, games: tuple[FinishedGame, ...] | None = None) -> Standings:
    """From scratch: every finished game read and scored again."""
    listed = finished_games(db) if games is None else games
    results = [game_result(db, g) for g in listed if counts(g)]
    return _standings(results, compute_ratings(r.rated_game() for r in results if r.problem is None))


def _standings(results: list[GameResult], ratings: Ratings) -> Standings:
    return Standings(
        ratings=ratings,
        results=tuple(results),
        unscored=tuple((r.game.name, r.problem) for r in results if r.problem is not None),
    )


class RatingsCache:
    """The standings kept until the finished games change: the list of finished games (names, end times,
    chosen systems, visibility) is the marker, read in one query; each game's result is kept by its own
    entry, so one more finished game scores one game. Thread-safe; one per web app."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._marker: tuple[FinishedGame, ...] | None = None
        self._standings: Standings | None = None
        self._results: dict[FinishedGame, GameResult] = {}
        self._rater = Rater()

    def get(self, db: Database) -> Standings:
        listed = finished_games(db)
        with self._lock:
            if self._standings is not None and self._marker == listed:
                return self._standings
            known = dict(self._results)
        counted = [g for g in listed if counts(g)]
        # Scored outside the lock (reading a game is slow); a race scores a game twice, never wrongly.
        results = [known.get(g) or game_result(db, g) for g in counted]
        with self._lock:
            # Games that only ended since continue the ratings (exactly as from scratch: ranking.ratings.Rater);
            # a game gone, rescored or ended earlier than one already rated starts them again.
            rater = self._rater
            ours = {r.game for r in results}
            new = [r.rated_game() for r in results if r.game not in known and r.problem is None]
            if not all(g in ours for g in known) or not rater.extend(new):
                rater = Rater()
                rater.extend(r.rated_game() for r in results if r.problem is None)
            got = _standings(results, rater.ratings())
            self._rater = rater
            self._results = {r.game: r for r in results}
            self._marker, self._standings = listed, got
        return got


def standings(db: Database, cache: RatingsCache | None = None) -> Standings:
    """The standings now: through ``cache`` when given, else from scratch."""
    return cache.get(db) if cache is not None else compute_standings(db)


@dataclass(frozen=True)
class Place:
    """A leaderboard's line."""

    rank: int
    person_id: int
    name: str | None
    """The person's name now; None for a person who deleted their data."""
    rating: float
    games: int
    reliability: int | None
    """The person's reliability in percent as their page shows it (their public record:
    :mod:`dippouch.store.reliability`); None when they have no record yet."""
    finished: float | None
    """Share of their rated games they finished without civil disorder (0 to 1); None when unknown."""


def leaderboard(db: Database, s: Standings, group: str | None = None, top: int | None = None) -> list[Place]:
    """The best ``top`` (all when None) of the overall pool or of ``group``'s, best first. Equal ratings share
    a rank. An unknown group is refused naming the ones that have a leaderboard."""
    if group is not None and group not in s.ratings.by_group:
        known = ", ".join(s.groups) or "none yet"
        raise UnknownGroup(f"no rated games of variant {group!r} (variants with ratings: {known})")
    board: list[Rating] = s.ratings.leaderboard(group)
    shown = board[:top] if top is not None else board
    names: dict[int, PersonName] = person_names(db, (int(r.person) for r in shown))
    # Read now, not kept with the ratings: a person's reliability moves with every phase, not only at a game's end.
    reliable = reliabilities(db, (int(r.person) for r in shown))
    out: list[Place] = []
    for i, r in enumerate(shown):
        rank = out[-1].rank if out and board[i - 1].rating == r.rating else i + 1
        pid = int(r.person)
        known_name = names.get(pid)
        out.append(
            Place(
                rank=rank,
                person_id=pid,
                name=known_name.name if known_name is not None and not known_name.deleted else None,
                rating=r.rating,
                games=r.games,
                reliability=reliable.get(pid),
                finished=r.reliability,
            )
        )
    return out
