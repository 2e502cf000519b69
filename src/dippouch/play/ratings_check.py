"""The stored ratings against a recomputation from scratch (``dippouch ratings check [--fix]``): every finished
game's facts read afresh from the games (:func:`dippouch.store.ratings.ledger.finished_facts`, never the ledger, and
checked against a second reading, :func:`dippouch.store.finished_games.finished_games`),
every counted one scored again, every pool's standings computed from nothing in the order of the games' end
(:class:`dippouch.ranking.ratings.Rater`), and the whole compared with what is stored, exactly: each game's
data and lines, each person's rating to the last bit, each pool's size, the hall of fame.

The figures must be equal: :func:`dippouch.play.ratings.update_ratings` applies the same updates in the same
order to the same doubles. A difference is either the ratings running behind (games finished since the last
update, which :attr:`Check.pending` counts and ``dippouch ratings update`` takes in) or a fault, and
``--fix`` rewrites everything stored from the recomputation (:func:`rewrite_ratings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dippouch.play.ratings import counts, pools_of, rated_game, take
from dippouch.ranking.ratings import Rater
from dippouch.store.db import Database
from dippouch.store.finished_games import finished_games
from dippouch.store.ratings import ledger as stored
from dippouch.store.ratings.ledger import OVERALL, FameEntry, PoolCount, PoolStanding, TakenGame

__all__ = ["Check", "Recomputed", "check_ratings", "compare", "recompute", "rewrite_ratings"]


@dataclass(frozen=True)
class Recomputed:
    """The ratings from scratch: every finished game as it would be taken in now, and every pool."""

    games: dict[int, TakenGame]
    standings: dict[str, dict[int, PoolStanding]]
    sizes: dict[str, PoolCount]
    solos: list[FameEntry]
    best: list[FameEntry]
    readings: tuple[str, ...] = ()
    """Where the two readings of the finished games disagree (none, unless a game changed between them)."""


@dataclass(frozen=True)
class Check:
    """A comparison of the stored ratings with a recomputation."""

    games: int
    """Finished games."""
    rated: int
    """Of those, the games that rated somebody."""
    people: int
    """People with an overall rating."""
    pending: int
    """Games the stored ratings have not taken in as they stand now (their update has not run since)."""
    differences: tuple[str, ...]

    @property
    def equal(self) -> bool:
        return not self.differences


def recompute(db: Database) -> Recomputed:
    """The ratings from scratch (the module's note)."""
    games = {f.game_id: take(db, f) for f in stored.finished_facts(db)}
    rating = sorted((t for t in games.values() if t.rated), key=lambda t: t.key)
    rater = Rater()
    rater.extend(rated_game(t) for t in rating)
    overall, by_group = rater.standings()
    standings = {
        pool: {int(p): PoolStanding(s.rating, s.games, s.known, s.steady) for p, s in table.items()}
        for pool, table in {OVERALL: overall, **by_group}.items()
    }
    counted: dict[str, int] = {OVERALL: 0}
    for t in rating:
        for pool in pools_of(t.facts.variant):
            counted[pool] = counted.get(pool, 0) + 1
    sizes = {pool: PoolCount(pool, len(standings.get(pool, {})), n) for pool, n in counted.items() if n}
    solos, best = _hall(games.values())
    return Recomputed(games, standings, sizes, solos, best, _second_reading(db, games.values()))


def _second_reading(db: Database, games: Iterable[TakenGame]) -> tuple[str, ...]:
    """The finished games read a second way (:func:`dippouch.store.finished_games.finished_games`, one query of
    its own), compared with the facts the recomputation started from: what counts and when each game ended."""
    mine = {
        t.facts.name: (t.facts.variant, t.facts.ended_at, t.facts.scoring, t.facts.visibility, t.counted)
        for t in games
        if t.facts.ended_at is not None
    }
    other = {g.name: (g.variant, g.ended_at, g.scoring, g.visibility, counts(g)) for g in finished_games(db)}
    return tuple(
        f"game {name}: read as {mine.get(name)}, and as {other.get(name)}"
        for name in sorted(set(mine) | set(other))
        if mine.get(name) != other.get(name)
    )


def _hall(games: Iterable[TakenGame]) -> tuple[list[FameEntry], list[FameEntry]]:
    """The hall of fame's two lists, as :func:`dippouch.store.ratings.ledger.hall` orders them."""
    solos: list[FameEntry] = []
    best: list[FameEntry] = []
    for t in games:
        if not t.counted or t.facts.visibility != "public" or t.facts.ended_at is None:
            continue
        for ln in t.lines:
            if ln.score > 0:
                entry = FameEntry(
                    t.facts.name,
                    t.facts.variant,
                    t.facts.ended_at,
                    ln.power,
                    ln.person_id,
                    ln.score,
                    t.system or "",
                    ln.share,
                )
                (solos if ln.solo else best).append(entry)
    solos.sort(key=lambda h: (h.ended_at, h.game), reverse=True)
    best.sort(key=lambda h: (-h.share, h.ended_at, h.game, h.power))
    return solos, best


def _data(t: TakenGame) -> tuple[object, ...]:
    """What a game's entry says (its markers, the branch and the last event, say when to look again only)."""
    f = t.facts
    # The problem by its English: a row stored before 0032 whose text no template read says the same.
    problem = None if t.problem is None else str(t.problem)
    return (f.name, f.variant, f.scoring, f.visibility, f.ended_at, t.counted, t.system, problem, t.rated, t.weight)


def compare(fresh: Recomputed, db: Database) -> list[str]:
    """The differences between ``fresh`` and what is stored, each a line a person can read."""
    have = stored.everything(db)
    out: list[str] = list(fresh.readings)
    for gid in sorted(set(fresh.games) | set(have.games)):
        new, old = fresh.games.get(gid), have.games.get(gid)
        if old is None and new is not None:
            out.append(f"game {new.facts.name}: finished, not taken in")
        elif new is None and old is not None:
            out.append(f"game {old.facts.name}: taken in, no longer finished")
        elif new is not None and old is not None:
            if _data(new) != _data(old):
                out.append(f"game {new.facts.name}: stored {_data(old)}, recomputed {_data(new)}")
            elif new.lines != old.lines:
                out.append(f"game {new.facts.name}: stored lines {old.lines}, recomputed {new.lines}")
    out.extend(_standings(fresh.standings, have.standings))
    sizes = {p: s for p, s in have.sizes.items() if s.people or s.games}
    if sizes != fresh.sizes:
        out.append(
            f"pool sizes: stored {sorted(sizes.values(), key=str)}, recomputed {sorted(fresh.sizes.values(), key=str)}"
        )
    for kind, mine in ((stored.FAME_SOLO, fresh.solos), (stored.FAME_RESULT, fresh.best)):
        kept = stored.hall(db, kind, None, limit=len(mine) + 1)
        if kept != mine:
            out.append(f"hall of fame ({kind}): {len(kept)} lines stored, {len(mine)} recomputed, or in another order")
    return out


def _standings(
    fresh: Mapping[str, Mapping[int, PoolStanding]], have: Mapping[str, Mapping[int, PoolStanding]]
) -> list[str]:
    out = []
    for pool in sorted(set(fresh) | set(have)):
        name = "overall" if pool == OVERALL else pool
        a, b = fresh.get(pool, {}), have.get(pool, {})
        for person in sorted(set(a) | set(b)):
            new, old = a.get(person), b.get(person)
            if new != old:
                # repr: the doubles to their last bit.
                out.append(f"{name}: person {person}: stored {old!r}, recomputed {new!r}")
    return out


def check_ratings(db: Database, fresh: Recomputed | None = None) -> Check:
    """The stored ratings compared with ``fresh`` (recomputed now when not given)."""
    fresh = recompute(db) if fresh is None else fresh
    waiting = stored.pending(db)
    return Check(
        games=len(fresh.games),
        rated=sum(1 for t in fresh.games.values() if t.rated),
        people=len(fresh.standings.get(OVERALL, {})),
        pending=len(waiting.enter) + len(waiting.gone),
        differences=tuple(compare(fresh, db)),
    )


def rewrite_ratings(db: Database, fresh: Recomputed | None = None) -> Check:
    """Everything stored replaced by ``fresh`` (recomputed now when not given), in one transaction under the
    ratings' lock; then compared again."""
    fresh = recompute(db) if fresh is None else fresh
    with stored.writing(db, None) as w:
        w.clear()
        w.take_in(fresh.games.values())
        w.replace(fresh.standings, {p: s.games for p, s in fresh.sizes.items()})
    return check_ratings(db, fresh)
