"""Ratings and leaderboards from the finished games, the use case every door calls (the web's ratings page and
``GET /api/ratings``, a person's page, ``dippouch ratings``, the worker): every finished game scored under its
own scoring system (:mod:`dippouch.play.records`), its players' shares fed to Ghost Ratings
(:mod:`dippouch.ranking.ratings`), overall and per variant group, and kept in the database
(:mod:`dippouch.store.ratings.ledger`); and a hall of fame, the solos and the best results ever.

What counts, and why:

- **Practice games** never: they are played against bots for practice (the ratings engine drops them too).
- **Bots** never: dropped from the game before the shares are taken, so the people are rated among themselves.
  A seat held at the end by nobody, or by a name that is no person (a seat assigned by name only), is
  dropped the same way: a rating belongs to a person.
- **Private games** never: their existence is not shown outside them (a person's public record leaves them
  out for the same reason). A game that still hides its players' names is left out too; an anonymous game
  reveals them at its end (:func:`dippouch.people.anonymity.names_hidden`), so a finished one counts.
- A game that cannot be scored (its ending leaves nothing to share, say) is listed as unscored with the
  reason, and rates nobody.

The **variant group** is the variant's name: variant files name no group of their own (no ``group`` key in
their TOML today), so each variant is its own leaderboard. A **one-on-one** variant's games (two powers: the
``duel`` variant, docs/duels.md) are rated in their group's pool only, never the overall one
(:func:`one_on_one`): a won duel is no result among seven.

**Order.** Ghost Ratings depends on the order games are rated in; here it is the order of the games' end (when
their last phase was closed), then their names, whenever and in whatever order they were taken in. Two games
finishing at once, or a game whose end is taken in after a later one's, are rated as if taken in in that order.

**Kept up to date** by :func:`update_ratings`, which the worker runs at every look (:class:`RatingsTask`) and
``dippouch ratings update`` runs by hand. It is idempotent: it takes in the finished games the store has not
taken in as they stand now (:func:`dippouch.store.ratings.ledger.pending`), scoring each once, and

- a game that ends after every game already rated continues the standings from where they are stored (the
  usual case: one game, seven rows of each of two pools);
- anything else (a game ending before one already rated, a finished game rolled back or made private, another
  scoring system chosen) replays every rated game from the ledger's stored lines, in order; nothing is scored
  again. A game whose visibility moves between public and unlisted is only re-listed in the hall of fame.

Either way the stored standings are exactly those a recomputation from scratch gives
(:mod:`dippouch.play.ratings_check`, ``dippouch ratings check``): the same updates, in the same order, over
the same doubles. Two updates never interleave: each writes in one transaction holding the ratings' lock, and
one planned on ratings another has changed since is planned again.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from dippouch.catalog import load_variant
from dippouch.core.errors import DippouchError
from dippouch.core.messages import Msg, msg
from dippouch.game import GameError, RecordNotFound
from dippouch.play.records import PowerScore, game_system, score_record
from dippouch.ranking.ratings import (
    PlayerResult,
    RatedGame,
    Rater,
    Standing,
    rate_game,
    rated_players,
)
from dippouch.store.db import Database
from dippouch.store.finished import game_record
from dippouch.store.finished_games import FinishedGame, PersonName, person_names
from dippouch.store.ratings import ledger as stored
from dippouch.store.ratings.ledger import (
    OVERALL,
    FinishedFacts,
    PoolCount,
    PoolStanding,
    RatedLine,
    RatingsWriter,
    StaleRatings,
    TakenGame,
)

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals, said in the reader's language where they are shown."""

__all__ = [
    "GameResult",
    "HallEntry",
    "PersonRating",
    "RatingBoard",
    "RatingPlace",
    "RatingsTask",
    "RatingsUpdate",
    "ResultLine",
    "UnknownGroup",
    "board",
    "counts",
    "game_result",
    "groups",
    "hall_of_fame",
    "person_rating",
    "rated_game",
    "take",
    "unscored",
    "update_ratings",
]

log = logging.getLogger("dippouch.ratings")


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
    problem: Msg | None = None
    """Why the game could not be scored (then ``lines`` is empty), said where it is shown."""

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
            overall=not one_on_one(self.game.variant),
        )


@functools.cache
def one_on_one(variant: str) -> bool:
    """Whether games of ``variant`` are one-on-one (two powers, whatever its options choose): rated in their
    own group's pool only, never the overall one, and shown apart on the ratings page. A variant that no
    longer loads by its name is not (its games stay where they were rated). Kept per process: a variant
    file's power count is no thing an installation changes under running games."""
    try:
        return len(load_variant(variant).power_names) == 2
    except DippouchError:
        return False


def pools_of(variant: str) -> tuple[str, ...]:
    """The pools a rated game of ``variant`` counts toward: the overall one and its group's, or its group's
    alone for a one-on-one game."""
    return (variant,) if one_on_one(variant) else (OVERALL, variant)


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
        return GameResult(game, system.name, (), e.msg)
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


# ---- taking finished games in ------------------------------------------------------------------------


def _finished(f: FinishedFacts) -> FinishedGame | None:
    if f.ended_at is None:
        return None
    return FinishedGame(f.name, f.variant, f.ended_at, f.scoring, f.practice, f.visibility, f.names_hidden)


def take(db: Database, f: FinishedFacts) -> TakenGame:
    """The finished game ``f`` as the ratings take it in: scored when it counts, with its people's lines."""
    game = _finished(f)
    if game is None or not counts(game):
        # A finished game without a processed phase has no end to order it by: it cannot be rated either.
        return TakenGame(f, False, None, None, False, 1.0, ())
    try:
        result = game_result(db, game)
    except RecordNotFound:
        # Renamed or gone since it was listed: the next update sees its new facts, or takes it out.
        return TakenGame(f, False, None, None, False, 1.0, ())
    except DippouchError as e:
        # A game that cannot be read (its variant gone, say) is listed as unscored rather than stopping every
        # update after it.
        return TakenGame(f, True, None, msg("cannot be read: %(reason)s", reason=e.msg), False, 1.0, ())
    # By person, as the ledger keeps them: the order of a game's players changes no rating (ranking.ratings).
    lines = tuple(
        sorted(
            (
                RatedLine(ln.person_id, ln.power, ln.score, ln.share, ln.solo, ln.civil_disorder)
                for ln in result.lines
                if ln.person_id is not None
            ),
            key=lambda ln: ln.person_id,
        )
    )
    rated = result.problem is None and bool(rated_players(result.rated_game()))
    return TakenGame(f, True, result.system, result.problem, rated, 1.0, lines)


def rated_game(t: TakenGame) -> RatedGame:
    """A game of the ledger as the ranking engine rates it."""
    return RatedGame(
        name=t.facts.name,
        ended_at=t.key[0],
        players=tuple(
            PlayerResult(str(ln.person_id), ln.power, ln.score, civil_disorder=ln.civil_disorder) for ln in t.lines
        ),
        group=t.facts.variant,
        weight=t.weight,
        overall=not one_on_one(t.facts.variant),
    )


def _rates_alike(old: TakenGame, new: TakenGame) -> bool:
    """Whether taking ``new`` in instead of ``old`` leaves every standing as it is: neither rates anybody, or
    both rate the same people the same way at the same place in the order."""
    if not old.rated and not new.rated:
        return True
    return (
        old.rated == new.rated
        and old.key == new.key
        and old.facts.variant == new.facts.variant
        and old.weight == new.weight
        and old.lines == new.lines
    )


@dataclass(frozen=True)
class RatingsUpdate:
    """What one :func:`update_ratings` did."""

    entered: int
    """Games taken in (new, or again as they changed)."""
    taken_out: int
    """Games taken out (no longer finished, or gone)."""
    replayed: bool
    """Whether the standings were replayed from the ledger (a game ending before one already rated, or one
    taken out), rather than continued."""
    waiting: int
    """Finished games left for the next update (beyond its ``limit``)."""
    version: int
    """The stored ratings' version after it."""
    seconds: float

    @property
    def changed(self) -> bool:
        return bool(self.entered or self.taken_out)


def update_ratings(db: Database, *, deep: bool = False, limit: int | None = None, attempts: int = 10) -> RatingsUpdate:
    """Bring the stored ratings up to date with the finished games (the module's note); ``deep`` also takes
    in again every game whose event log has grown since it was taken in; ``limit``: the most games to take in
    (the earliest ending first; the rest wait for the next update). Returns what it did; does nothing, and
    writes nothing, when nothing has changed."""
    t0 = time.perf_counter()
    scored: dict[FinishedFacts, TakenGame] = {}
    for _ in range(attempts):
        plan = stored.pending(db, deep=deep, limit=limit)
        if plan.empty:
            return RatingsUpdate(0, 0, False, plan.waiting, plan.version, time.perf_counter() - t0)
        # Scored outside the lock: reading and scoring a game takes milliseconds, and the lock holds every other
        # update (and on SQLite, every writer) up. A plan overtaken meanwhile keeps what it scored.
        taken = []
        for f in plan.enter:
            if f not in scored:
                scored[f] = take(db, f)
            taken.append(scored[f])
        try:
            with stored.writing(db, plan.version) as w:
                replayed = _apply(w, plan.gone, taken)
        except StaleRatings:
            continue
        return RatingsUpdate(
            len(taken), len(plan.gone), replayed, plan.waiting, plan.version + 1, time.perf_counter() - t0
        )
    raise GameError(msg("the ratings kept changing under %(count)s updates in a row; try again", count=attempts))


def _apply(w: RatingsWriter, gone: Sequence[int], taken: Sequence[TakenGame]) -> bool:
    """Take ``gone`` out and ``taken`` in, and bring the standings along; True if they were replayed."""
    new = {t.facts.game_id: t for t in taken}
    before = w.taken(set(gone) | set(new))
    last = w.last_rated()
    out = [before[i] for i in gone if i in before]
    moved: list[TakenGame] = []  # games whose rating changes: their old line comes out, the new one goes in
    for gid, t in new.items():
        old = before.get(gid)
        if old is not None and not _rates_alike(old, t):
            out.append(old)
        if old is None or not _rates_alike(old, t):
            moved.append(t)
    w.take_out(set(gone) | set(new))
    w.take_in(taken)
    rating = sorted((t for t in moved if t.rated), key=lambda t: t.key)
    if not any(o.rated for o in out) and (last is None or not rating or rating[0].key > last):
        _continue(w, rating)
        return False
    _replay(w)
    return True


def _standing(st: PoolStanding) -> Standing:
    return Standing(st.rating, st.games, st.known, st.steady)


def _continue(w: RatingsWriter, games: Sequence[TakenGame]) -> None:
    """Rate ``games`` (in order, each ending after every game rated so far) from the stored standings of their
    people, in the overall pool and their groups': the standings read once, updated in memory game by game,
    written once."""
    if not games:
        return
    pools: dict[str, set[int]] = {}
    for t in games:
        people = {ln.person_id for ln in t.lines}
        for pool in pools_of(t.facts.variant):
            pools.setdefault(pool, set()).update(people)
    brought = {pool: w.standings(pool, people) for pool, people in pools.items()}
    tables = {pool: {str(p): _standing(st) for p, st in got.items()} for pool, got in brought.items()}
    changed: dict[str, set[str]] = {pool: set() for pool in pools}
    counted = dict.fromkeys(pools, 0)
    for t in games:
        game = rated_game(t)
        for pool in pools_of(t.facts.variant):
            after = rate_game(game, tables[pool])
            tables[pool].update(after)
            changed[pool].update(after)
            counted[pool] += 1
    for pool, moved in changed.items():
        w.put(
            pool,
            {int(p): PoolStanding(s.rating, s.games, s.known, s.steady) for p in moved for s in (tables[pool][p],)},
            known=brought[pool].keys(),
            games=counted[pool],
        )


def _replay(w: RatingsWriter) -> None:
    """Every pool's standings again from nothing, over the ledger's rated games in order."""
    games = w.rated_in_order()
    rater = Rater()
    rater.extend(rated_game(t) for t in games)
    overall, by_group = rater.standings()
    tables = {OVERALL: overall, **by_group}
    counted: dict[str, int] = {OVERALL: 0}
    for t in games:
        for pool in pools_of(t.facts.variant):
            counted[pool] = counted.get(pool, 0) + 1
    w.replace(
        {
            pool: {int(p): PoolStanding(s.rating, s.games, s.known, s.steady) for p, s in table.items()}
            for pool, table in tables.items()
        },
        counted,
    )


class RatingsTask:
    """The worker's task (and ``dippouch serve``'s scheduler's): :func:`update_ratings` at every look, bounded
    to ``limit`` games so a large backlog (the first look after an upgrade) does not hold processing up, and a
    deep look (every game's event log compared) at most every ``deep_every`` seconds."""

    def __init__(self, *, limit: int = 200, deep_every: float = 600.0) -> None:
        self.limit = limit
        self.deep_every = deep_every
        self.last_deep: float | None = None
        self.__name__ = "ratings_task"

    def __call__(self, db: Database, now: datetime) -> RatingsUpdate:
        deep = self.last_deep is None or time.monotonic() - self.last_deep >= self.deep_every
        done = update_ratings(db, deep=deep, limit=self.limit)
        if deep:
            self.last_deep = time.monotonic()
        if done.changed:
            log.info(
                "ratings: %d games taken in, %d taken out%s, %d waiting (%.2f s)",
                done.entered,
                done.taken_out,
                ", replayed" if done.replayed else "",
                done.waiting,
                done.seconds,
            )
        return done


# ---- what the doors read -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RatingPlace:
    """A leaderboard's line."""

    rank: int
    person_id: int
    name: str | None
    """The person's name now; None for a person who deleted their data."""
    rating: float
    games: int
    finished: float | None
    """The rating's reliability: the share of their rated games they finished without civil disorder (0 to 1);
    None when that is known for none of them."""


@dataclass(frozen=True)
class RatingBoard:
    """One pool's leaderboard, or a page of it."""

    group: str | None
    """The variant group; None for the overall leaderboard."""
    people: int
    """Everybody rated in the pool."""
    games: int
    """The games that rated somebody in it."""
    offset: int
    places: tuple[RatingPlace, ...]


def groups(db: Database, sizes: Mapping[str, PoolCount] | None = None) -> tuple[str, ...]:
    """The variant groups that have a leaderboard (``sizes``: the pools, when the caller has read them)."""
    return tuple(p for p in (stored.pools(db) if sizes is None else sizes) if p != OVERALL)


def board(
    db: Database,
    group: str | None = None,
    *,
    offset: int = 0,
    limit: int = 20,
    sizes: Mapping[str, PoolCount] | None = None,
) -> RatingBoard:
    """Places ``offset + 1`` to ``offset + limit`` of the overall leaderboard or of ``group``'s, best first;
    equal ratings share a rank. An unknown group is refused naming the ones that have a leaderboard.
    ``sizes``: :func:`dippouch.store.ratings.ledger.pools`, when the caller has read it for several boards.

    Beside each rating is the rating's own reliability, stored with it: the share of the person's rated games
    they finished without civil disorder. Not their public reliability (their page's): that is read from every
    phase of every game they played (:mod:`dippouch.store.people.reliability`), some 40 ms of CPU a person who played
    35 games, which made a board of twenty cost most of a second, whatever the size of the installation."""
    sizes = stored.pools(db) if sizes is None else sizes
    pool = OVERALL if group is None else group
    if group is not None and (group == OVERALL or group not in sizes):
        known = ", ".join(p for p in sizes if p != OVERALL) or "none yet"
        raise UnknownGroup(
            msg(
                "no rated games of variant %(variant)s (variants with ratings: %(variants)s)",
                variant=repr(group),
                variants=known,
            )
        )
    size = sizes.get(pool)
    lines = stored.leaderboard(db, pool, offset=offset, limit=limit)
    ids = [p for p, _ in lines]
    names: dict[int, PersonName] = person_names(db, ids)
    places: list[RatingPlace] = []
    for i, (pid, st) in enumerate(lines):
        if places and places[-1].rating == st.rating:
            rank = places[-1].rank
        elif i == 0 and offset > 0:
            rank = 1 + stored.better_than(db, pool, st.rating)
        else:
            rank = offset + i + 1
        known_name = names.get(pid)
        places.append(
            RatingPlace(
                rank=rank,
                person_id=pid,
                name=known_name.name if known_name is not None and not known_name.deleted else None,
                rating=st.rating,
                games=st.games,
                finished=st.steady / st.known if st.known else None,
            )
        )
    return RatingBoard(group, size.people if size else 0, size.games if size else 0, offset, tuple(places))


HallEntry = stored.FameEntry
"""A result in the hall of fame: the store's line as it is (a copy of each field gave nothing)."""


def hall_of_fame(
    db: Database, *, solo: bool, group: str | None = None, offset: int = 0, limit: int = 20
) -> list[HallEntry]:
    """The solos won by a person (newest first), or the best results short of a solo: the largest shares of a
    game's points (scores under different systems are on different scales; a share is the same measure under
    all), earliest first on a tie. Public games only: the hall links its games, and an unlisted game's address
    is its secret."""
    return stored.hall(db, stored.FAME_SOLO if solo else stored.FAME_RESULT, group, offset=offset, limit=limit)


def unscored(db: Database) -> list[tuple[str, Msg]]:
    """(game, why) for the public counted games that could not be scored."""
    return stored.unscored(db, public=True)


@dataclass(frozen=True)
class PersonRating:
    """A person's rating in a pool, with their place on its leaderboard."""

    group: str | None
    rating: float
    games: int
    rank: int
    rated: int
    """How many people the pool rates."""
    finished: float | None


def person_rating(db: Database, person_id: int) -> dict[str | None, PersonRating]:
    """``person_id``'s rating in every pool they are rated in (``None``: the overall one), with their rank
    (equal ratings share a place, as on the leaderboard); empty when they are not rated yet."""
    mine: Mapping[str, PoolStanding] = stored.person_standings(db, person_id)
    if not mine:
        return {}
    sizes = stored.pools(db)
    out: dict[str | None, PersonRating] = {}
    for pool in sorted(mine):
        st = mine[pool]
        size = sizes.get(pool)
        out[None if pool == OVERALL else pool] = PersonRating(
            group=None if pool == OVERALL else pool,
            rating=st.rating,
            games=st.games,
            rank=1 + stored.better_than(db, pool, st.rating),
            rated=size.people if size else 0,
            finished=st.steady / st.known if st.known else None,
        )
    return out
