"""Ratings from finished games: Ghost Ratings' multi-player update, recomputed from scratch.

The update is the one webDiplomacy publishes for its Ghost Ratings (https://www.webdiplomacy.net/ghostRatings.php,
the "classic" formula for games of more than two players), applied to every rated player of a game at once,
from the ratings they brought to it:

    S        = the sum of the game's rated players' ratings
    expected = rating / S
    actual   = the player's share of the game's points (their score / the game's total score)
    change   = S / (17.5 × weight) × (actual − expected)

Under draw-size scoring the share is 1/n for each of n drawers and under sum of squares c² / Σc², exactly the
"actual score" the page gives for those systems; a solo is 1 and a defeat 0 under every system. A new player
starts at 100 (TheGhostmaker's choice). Since the shares and the expectations each sum to 1, a game moves
rating points between its players and never makes or destroys any: the sum of all ratings in a pool is 100 ×
the players rated in it (``tests/ranking/test_ratings_ghost.py`` checks it).

What is not rated: practice games, and bots (dropped from the game before the shares are taken, so the humans
are rated among themselves); a game with fewer than two rated players, or whose rated players scored nothing
between them (a bot's solo), tells nothing about them and changes no rating.

Order is the games' end time, then their name: the same games give the same ratings whatever order they are
handed in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType

from dippouch.core.errors import DippouchError
from dippouch.core.messages import msg

I18N_DOMAIN = "rules"
"""The catalogue of the rating refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "DIVISOR",
    "START",
    "PlayerResult",
    "RatedGame",
    "Rater",
    "Rating",
    "RatingError",
    "Ratings",
    "Standing",
    "compute_ratings",
    "order_key",
    "rate_game",
    "rate_pool",
    "rated_players",
]

START = 100.0
"""A new player's rating (Ghost Ratings')."""

DIVISOR = 17.5
"""Ghost Ratings' scale: a game moves at most its rating sum / 17.5 between its players (weight 1)."""


class RatingError(DippouchError, ValueError):
    """Games that cannot be rated as given, with a message a person can act on (a value, said in the reader's
    language; a ``ValueError`` still for the callers that catch one)."""


@dataclass(frozen=True, slots=True)
class PlayerResult:
    person: str
    """The person's stable id (never a display name, which may change)."""
    power: str
    score: float
    """The player's score under the game's scoring system (any system: only shares of the total count)."""
    bot: bool = False
    civil_disorder: bool | None = None
    """Whether the player left the game in civil disorder; None when not known."""


@dataclass(frozen=True, slots=True)
class RatedGame:
    name: str
    ended_at: datetime
    players: tuple[PlayerResult, ...]
    group: str = ""
    """The variant group the game counts toward (its own leaderboard beside the overall one)."""
    practice: bool = False
    weight: float = 1.0
    """Ghost Ratings' press × variant modifier: a weight of 4 moves a quarter of the points. At least 1, so no
    game can take more than 1/17.5 of a player's rating."""
    overall: bool = True
    """Whether the game counts toward the overall pool too; a one-on-one game does not (it is rated in its own
    group only, as webDiplomacy rates one-on-one apart: a won duel is no seven-player result)."""

    def __post_init__(self) -> None:
        if not self.name:
            raise RatingError(msg("a rated game needs a name (the tiebreak of its end time)"))
        if not self.weight >= 1:
            raise RatingError(
                msg("game %(game)s: the weight must be at least 1, not %(weight)s", game=self.name, weight=self.weight)
            )
        people = [p.person for p in self.players]
        if len(set(people)) != len(people):
            raise RatingError(msg("game %(game)s: a person holds two seats; rate them once", game=self.name))
        for p in self.players:
            if not p.score >= 0:
                raise RatingError(
                    msg(
                        "game %(game)s: %(person)s's score %(score)s is not a share (below 0)",
                        game=self.name,
                        person=p.person,
                        score=p.score,
                    )
                )


@dataclass(frozen=True, slots=True)
class Rating:
    person: str
    rating: float
    games: int
    """Rated games the person played in this pool."""
    reliability: float | None
    """The share of those games they finished without civil disorder, over the games where that is known;
    None when it is known for none (then ``games`` is the only figure beside the rating)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A person's running state in one pool, everything the next game reads and writes: a store that keeps
    these between games continues exactly where a recomputation from scratch would be (:func:`rate_game`)."""

    rating: float = START
    games: int = 0
    known: int = 0
    """Rated games whose civil disorder is known."""
    steady: int = 0
    """Of those, the games finished without civil disorder."""

    def as_rating(self, person: str) -> Rating:
        return Rating(person, self.rating, self.games, self.steady / self.known if self.known else None)


@dataclass(frozen=True, slots=True)
class Ratings:
    overall: Mapping[str, Rating]
    by_group: Mapping[str, Mapping[str, Rating]]

    def leaderboard(self, group: str | None = None) -> list[Rating]:
        """Best first; equal ratings by person id, so the order is stable."""
        pool = self.overall if group is None else self.by_group.get(group, {})
        return sorted(pool.values(), key=lambda r: (-r.rating, r.person))


def order_key(game: RatedGame) -> tuple[datetime, str]:
    """Where ``game`` stands in the order ratings are computed: its end time, then its name (unique), so games
    ending at the same moment are ordered the same way by everybody who rates them."""
    return (game.ended_at, game.name)


def _ordered(games: Iterable[RatedGame]) -> list[RatedGame]:
    out = sorted(games, key=order_key)
    seen: set[str] = set()
    for g in out:
        if g.name in seen:
            raise RatingError(msg("game %(game)s is listed twice", game=g.name))
        seen.add(g.name)
    return out


def rated_players(game: RatedGame) -> tuple[PlayerResult, ...]:
    """The players whose ratings ``game`` changes: none for practice, never a bot, nobody when fewer than two
    people are left or they scored nothing between them."""
    if game.practice:
        return ()
    humans = tuple(p for p in game.players if not p.bot)
    if len(humans) < 2 or math.fsum(p.score for p in humans) <= 0:
        return ()
    return humans


def rate_game(game: RatedGame, before: Mapping[str, Standing]) -> dict[str, Standing]:
    """The standings of ``game``'s rated players after it, from those they brought (a person missing from
    ``before`` is new: :data:`START`, no games); empty when the game rates nobody. Every player is updated from
    the ratings brought to the game, and the sums are correctly rounded (``math.fsum``), so neither the order
    of the players nor where ``before`` was kept (memory, a database's doubles) changes a bit of the result."""
    players = rated_players(game)
    if not players:
        return {}
    fresh = Standing()
    brought = [before.get(p.person, fresh) for p in players]
    total = math.fsum(b.rating for b in brought)
    points = math.fsum(p.score for p in players)
    scale = total / (DIVISOR * game.weight)
    out: dict[str, Standing] = {}
    for p, b in zip(players, brought, strict=True):
        known = p.civil_disorder is not None
        out[p.person] = Standing(
            rating=b.rating + scale * (p.score / points - b.rating / total),
            games=b.games + 1,
            known=b.known + known,
            steady=b.steady + (known and not p.civil_disorder),
        )
    return out


class _Pool:
    """One pool's running state: every rated person's :class:`Standing` so far."""

    __slots__ = ("standings",)

    def __init__(self) -> None:
        self.standings: dict[str, Standing] = {}

    def add(self, game: RatedGame) -> None:
        self.standings.update(rate_game(game, self.standings))

    def table(self) -> dict[str, Rating]:
        return {person: self.standings[person].as_rating(person) for person in sorted(self.standings)}


def rate_pool(games: Iterable[RatedGame]) -> dict[str, Rating]:
    """One pool's ratings, from nothing, over ``games`` in end-time-then-name order."""
    pool = _Pool()
    for game in _ordered(games):
        pool.add(game)
    return pool.table()


class Rater:
    """Ratings kept up to date as games end: each game is applied once, in end-time-then-name order, to the
    overall pool and its group's. A game that sorts after every game applied so far continues from where the
    ratings stand; one that sorts earlier (a game whose end was recorded late) starts them again from nothing.
    Either way the ratings are exactly those :func:`compute_ratings` gives for the same games: the same
    updates in the same order, to the last bit (``tests/ranking/test_ratings_ghost.py``).

    At 50,000 games a new game costs one update instead of all of them again (benchmarks/bench_ratings.py)."""

    def __init__(self) -> None:
        self._overall = _Pool()
        self._groups: dict[str, _Pool] = {}
        self._last: tuple[datetime, str] | None = None
        self._names: set[str] = set()

    @property
    def applied(self) -> frozenset[str]:
        """The names of the games applied so far."""
        return frozenset(self._names)

    def extend(self, games: Iterable[RatedGame]) -> bool:
        """Apply ``games`` (none applied before); False if one sorts before a game already applied, when
        nothing has changed and the caller starts a new :class:`Rater` over every game instead."""
        new = _ordered(games)
        if not new:
            return True
        for g in new:
            if g.name in self._names:
                raise RatingError(msg("game %(game)s is listed twice", game=g.name))
        if self._last is not None and (new[0].ended_at, new[0].name) < self._last:
            return False
        for g in new:
            if g.overall:
                self._overall.add(g)
            self._groups.setdefault(g.group, _Pool()).add(g)
            self._names.add(g.name)
        self._last = (new[-1].ended_at, new[-1].name)
        return True

    def standings(self) -> tuple[dict[str, Standing], dict[str, dict[str, Standing]]]:
        """The overall pool's standings and each group's (copies): what a store keeps to continue from."""
        groups = {group: dict(pool.standings) for group, pool in sorted(self._groups.items()) if pool.standings}
        return dict(self._overall.standings), groups

    def ratings(self) -> Ratings:
        groups = {group: pool.table() for group, pool in sorted(self._groups.items())}
        return Ratings(
            overall=MappingProxyType(self._overall.table()),
            # A group none of whose games rated anybody (all practice, say) has no leaderboard.
            by_group=MappingProxyType({group: MappingProxyType(t) for group, t in groups.items() if t}),
        )


def compute_ratings(games: Iterable[RatedGame]) -> Ratings:
    """Every person's overall rating (all games, one pool) and a rating per variant group (each group's
    games a pool of their own), recomputed from scratch. Within a game every rated player is updated from
    the ratings they brought to it, so the order of a game's players does not matter either."""
    rater = Rater()
    rater.extend(games)
    return rater.ratings()
