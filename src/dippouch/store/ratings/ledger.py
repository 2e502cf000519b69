"""The stored ratings (migration 0020; the tables are :mod:`dippouch.store.ratings.models`): a ledger of the
finished games the ratings have taken in, each rated person's line in them, every pool's standings and sizes.

What a rating is, and how a game changes it, is the ranking engine's to say (:mod:`dippouch.ranking.ratings`),
and which games count is the use case's (:mod:`dippouch.play.ratings`): this module stores what it is handed
and never imports either. It offers three things:

- **What is pending** (:func:`pending`): the finished games without a ledger row, and the ledger rows whose
  game is no longer as it was taken in (gone, no longer finished, renamed, rolled back to another branch,
  another visibility or scoring system; with ``deep``, also any game whose event log has grown since, which
  every other change of a game writes). Two queries joined on keys, whatever the number of games.
- **One writer at a time** (:func:`writing`): a transaction that locks the ratings' one state row and checks
  its version against the one the caller planned on; a plan made on an older version raises
  :class:`StaleRatings` and is planned again. So two updates (two workers, a worker and ``dippouch ratings
  update``) never interleave, and neither works from what the other has changed under it.
- **Reads for the pages** (leaderboards, a person's standings, the hall of fame, the unscored games), each one
  index range: nothing is computed on a read.

The pools: :data:`OVERALL` (every rated game) and one per variant group, named by the group.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVarTuple

import sqlalchemy as sa
from sqlalchemy.orm import Session

from dippouch.core.messages import Msg, as_msg, msg
from dippouch.game import GameError, as_utc
from dippouch.people.anonymity import names_hidden
from dippouch.store.db import Database
from dippouch.store.finished import SCORING_KEY
from dippouch.store.models import EventRow, GameRow, PhaseRow
from dippouch.store.models_web import GameWebRow
from dippouch.store.ratings.models import RatedGameRow, RatingLineRow, RatingPoolRow, RatingRow, RatingStateRow
from dippouch.store.records import iso_time

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "FAME_RESULT",
    "FAME_SOLO",
    "OVERALL",
    "FameEntry",
    "FinishedFacts",
    "PoolCount",
    "PoolStanding",
    "RatedLine",
    "RatingsBacklog",
    "RatingsWriter",
    "StaleRatings",
    "Stored",
    "TakenGame",
    "better_than",
    "everything",
    "export_person",
    "finished_facts",
    "forget_person",
    "hall",
    "leaderboard",
    "pending",
    "person_standings",
    "pools",
    "unscored",
    "version",
    "writing",
]

OVERALL = ""
"""The overall pool's name (a variant group is never empty)."""
FAME_SOLO = "solo"
FAME_RESULT = "result"

_Columns = TypeVarTuple("_Columns")

_SLICE = 500
"""Ids per ``IN (...)``: under every database's limit of bound parameters."""


class StaleRatings(GameError):
    """The stored ratings changed since the update was planned: plan it again."""


@dataclass(frozen=True)
class FinishedFacts:
    """A finished game as it stands now: what decides whether it counts, where it stands in the order, and
    what, if it changed, means taking it in again."""

    game_id: int
    name: str
    variant: str
    branch: int
    scoring: str | None
    """The scoring system it chose, as stored (None: the default)."""
    practice: bool
    visibility: str
    names_hidden: bool
    ended_at: datetime | None
    """When its last phase was closed; None for a finished game without any processed phase."""
    last_event: int | None


@dataclass(frozen=True)
class RatedLine:
    """A rated person's result in a game."""

    person_id: int
    power: str
    score: float
    share: float
    solo: bool
    civil_disorder: bool | None


@dataclass(frozen=True)
class TakenGame:
    """A finished game as the ratings take it in: its facts, how it was scored, and its rated people's lines."""

    facts: FinishedFacts
    counted: bool
    system: str | None
    problem: Msg | None
    """Why a counted game could not be scored: a message value, said in the reader's language where it is
    shown (one stored before 0032 that no template read is its English text, said as it is)."""
    rated: bool
    """Whether it changes somebody's rating (the use case decides, with the ranking engine)."""
    weight: float
    lines: tuple[RatedLine, ...]

    @property
    def key(self) -> tuple[datetime, str]:
        """Its place in the order ratings are computed in: end time, then name."""
        if self.facts.ended_at is None:
            raise GameError(msg("game %(game)s has no end time and cannot be rated", game=self.facts.name))
        return (self.facts.ended_at, self.facts.name)


@dataclass(frozen=True)
class RatingsBacklog:
    """What the ratings have not taken in yet, as seen at ``version`` of the stored ratings."""

    version: int
    enter: tuple[FinishedFacts, ...]
    """Finished games to take in (new, or changed since they were), in order of end time, then name."""
    gone: tuple[int, ...]
    """Ids of games taken in that are no longer finished, or no longer exist."""
    waiting: int
    """Games to take in beyond the ``limit`` asked for (the next update's)."""

    @property
    def empty(self) -> bool:
        return not self.enter and not self.gone


@dataclass(frozen=True)
class PoolStanding:
    """A person's stored standing in a pool (:class:`dippouch.ranking.ratings.Standing`'s numbers)."""

    rating: float
    games: int
    known: int
    steady: int


@dataclass(frozen=True)
class PoolCount:
    pool: str
    people: int
    games: int


@dataclass(frozen=True)
class FameEntry:
    """A line of the hall of fame, with its game."""

    game: str
    variant: str
    ended_at: datetime
    power: str
    person_id: int
    score: float
    system: str
    share: float


@dataclass(frozen=True)
class Stored:
    """Everything stored, for a comparison with a recomputation (``dippouch ratings check``)."""

    games: dict[int, TakenGame]
    standings: dict[str, dict[int, PoolStanding]]
    sizes: dict[str, PoolCount]


# ---- what is pending -----------------------------------------------------------------------------------


def _visibility() -> sa.ColumnElement[str]:
    return sa.func.coalesce(GameWebRow.visibility, "public")


def _chosen() -> sa.ColumnElement[str]:
    return sa.func.coalesce(GameRow.settings[SCORING_KEY].as_string(), "")


def _last_event(game_id: Any) -> sa.ScalarSelect[Any]:
    return sa.select(sa.func.max(EventRow.id)).where(EventRow.game_id == game_id).scalar_subquery()


def pending(db: Database, *, deep: bool = False, limit: int | None = None) -> RatingsBacklog:
    """The finished games the ratings have not taken in as they stand now (the module's note says how that is
    seen); at most ``limit`` of them to take in, the earliest ending first, so an update of a large backlog
    proceeds in order, a bounded step at a time."""
    new = (
        sa.select(GameRow.id)
        .outerjoin(RatedGameRow, RatedGameRow.game_id == GameRow.id)
        .where(GameRow.status == "finished", RatedGameRow.game_id.is_(None))
    )
    differs = [
        GameRow.id.is_(None),
        GameRow.status != "finished",
        GameRow.branch != RatedGameRow.branch,
        GameRow.name != RatedGameRow.name,
        _visibility() != RatedGameRow.visibility,
        _chosen() != RatedGameRow.scoring,
    ]
    if deep:
        differs.append(
            sa.func.coalesce(_last_event(RatedGameRow.game_id), 0) != sa.func.coalesce(RatedGameRow.last_event, 0)
        )
    changed = (
        sa.select(RatedGameRow.game_id, GameRow.status)
        .outerjoin(GameRow, GameRow.id == RatedGameRow.game_id)
        .outerjoin(GameWebRow, GameWebRow.game_id == RatedGameRow.game_id)
        .where(sa.or_(*differs))
    )
    with db.read_session() as s:
        current = s.scalar(sa.select(RatingStateRow.version).where(RatingStateRow.id == 1))
        ids = set(s.scalars(new))
        gone: list[int] = []
        for gid, status in s.execute(changed):
            (ids.add if status == "finished" else gone.append)(int(gid))
        facts = _facts(s, sorted(ids))
    facts.sort(key=_order)
    take = facts if limit is None else facts[:limit]
    return RatingsBacklog(int(current or 0), tuple(take), tuple(sorted(gone)), len(facts) - len(take))


def finished_facts(db: Database) -> list[FinishedFacts]:
    """The facts of every finished game, read afresh from the games (never from the ledger), in the order
    ratings are computed in: what a recomputation from scratch starts from."""
    with db.session() as s:
        ids = sorted(s.scalars(sa.select(GameRow.id).where(GameRow.status == "finished")))
        facts = _facts(s, ids)
    return sorted(facts, key=_order)


def _order(f: FinishedFacts) -> tuple[bool, datetime, str]:
    return (f.ended_at is not None, f.ended_at or datetime.min.replace(tzinfo=UTC), f.name)


def _facts(s: Session, ids: Sequence[int]) -> list[FinishedFacts]:
    """The facts of the finished games ``ids`` (a game no longer finished is left out), in a few queries."""
    out: list[FinishedFacts] = []
    for i in range(0, len(ids), _SLICE):
        part = list(ids[i : i + _SLICE])
        ends: dict[int, datetime] = {
            int(gid): as_utc(at)
            for gid, at in s.execute(
                sa.select(PhaseRow.game_id, sa.func.max(PhaseRow.processed_at))
                .where(PhaseRow.game_id.in_(part), PhaseRow.status == "processed", PhaseRow.processed_at.is_not(None))
                .group_by(PhaseRow.game_id)
            )
            if at is not None
        }
        last: dict[int, int] = {
            int(gid): int(top)
            for gid, top in s.execute(
                sa.select(EventRow.game_id, sa.func.max(EventRow.id))
                .where(EventRow.game_id.in_(part))
                .group_by(EventRow.game_id)
            )
        }
        q = (
            sa.select(GameRow.id, GameRow.name, GameRow.variant, GameRow.branch, GameRow.settings, _visibility())
            .outerjoin(GameWebRow, GameWebRow.game_id == GameRow.id)
            .where(GameRow.id.in_(part), GameRow.status == "finished")
        )
        for gid, name, variant, branch, settings, visibility in s.execute(q):
            data = dict(settings or {})
            chosen = data.get(SCORING_KEY)
            ended = ends.get(gid)
            out.append(
                FinishedFacts(
                    game_id=int(gid),
                    name=str(name),
                    variant=str(variant),
                    branch=int(branch),
                    scoring=str(chosen) if chosen else None,
                    practice=bool(data.get("practice")),
                    visibility=str(visibility),
                    names_hidden=names_hidden(data, "finished"),
                    ended_at=ended,
                    last_event=last.get(gid),
                )
            )
    return out


# ---- one writer at a time ------------------------------------------------------------------------------


def _fame(visibility: str, line: RatedLine) -> str | None:
    # The hall links its games: only a public game's lines are listed (an unlisted game's address is its secret).
    if visibility != "public" or not line.score > 0:
        return None
    return FAME_SOLO if line.solo else FAME_RESULT


class RatingsWriter:
    """The stored ratings inside the transaction :func:`writing` opened (and locked)."""

    def __init__(self, s: Session) -> None:
        self._s = s

    def taken(self, ids: Collection[int]) -> dict[int, TakenGame]:
        """The ledger's games among ``ids``, with their lines."""
        return self._read(RatedGameRow.game_id.in_(sorted(ids))) if ids else {}

    def _read(self, *where: sa.ColumnElement[bool], everything: bool = False) -> dict[int, TakenGame]:
        """The ledger's games that meet ``where``, with their lines (``everything``: read the lines of all the
        games so chosen in one query, rather than by slices of ids)."""
        cols = [getattr(RatedGameRow, c) for c in _GAME_COLUMNS]
        rows = [dict(zip(_GAME_COLUMNS, r, strict=True)) for r in self._s.execute(sa.select(*cols).where(*where))]
        lines: dict[int, list[RatedLine]] = {}
        line_cols = [getattr(RatingLineRow, c) for c in ("game_id", *_LINE_COLUMNS)]
        queries = []
        if everything:
            queries.append(
                sa.select(*line_cols).join(RatedGameRow, RatedGameRow.game_id == RatingLineRow.game_id).where(*where)
            )
        else:
            ids = [r["game_id"] for r in rows]
            queries.extend(
                sa.select(*line_cols).where(RatingLineRow.game_id.in_(ids[i : i + _SLICE]))
                for i in range(0, len(ids), _SLICE)
            )
        for q in queries:
            for gid, *values in self._s.execute(q.order_by(RatingLineRow.game_id, RatingLineRow.person_id)):
                lines.setdefault(int(gid), []).append(RatedLine(*values))
        return {r["game_id"]: _taken(r, tuple(lines.get(r["game_id"], ()))) for r in rows}

    def last_rated(self) -> tuple[datetime, str] | None:
        """The key (end time, name) of the last game in the order that rated somebody."""
        row = self._s.execute(
            sa.select(RatedGameRow.ended_at, RatedGameRow.name)
            .where(RatedGameRow.rated.is_(True), RatedGameRow.ended_at.is_not(None))
            .order_by(RatedGameRow.ended_at.desc(), RatedGameRow.name.desc())
            .limit(1)
        ).first()
        if row is None or row[0] is None:
            return None
        return (as_utc(row[0]), str(row[1]))

    def take_out(self, ids: Collection[int]) -> None:
        wanted = sorted(ids)
        for i in range(0, len(wanted), _SLICE):
            part = wanted[i : i + _SLICE]
            self._s.execute(sa.delete(RatingLineRow).where(RatingLineRow.game_id.in_(part)))
            self._s.execute(sa.delete(RatedGameRow).where(RatedGameRow.game_id.in_(part)))

    def take_in(self, games: Iterable[TakenGame]) -> None:
        """Add these games to the ledger (none of them in it now)."""
        rows: list[dict[str, Any]] = []
        lines: list[dict[str, Any]] = []
        for g in games:
            f = g.facts
            rows.append(
                {
                    "game_id": f.game_id,
                    "name": f.name,
                    "variant": f.variant,
                    "branch": f.branch,
                    "last_event": f.last_event,
                    "scoring": f.scoring or "",
                    "visibility": f.visibility,
                    "counted": g.counted,
                    "ended_at": f.ended_at,
                    "system": g.system,
                    "problem": None if g.problem is None else str(g.problem),
                    "why": None if g.problem is None else g.problem.to_data(),
                    "rated": g.rated,
                    "weight": g.weight,
                }
            )
            if g.lines and f.ended_at is None:
                raise GameError(msg("game %(game)s has lines but no end time", game=f.name))
            lines.extend(
                {
                    "game_id": f.game_id,
                    "person_id": ln.person_id,
                    "power": ln.power,
                    "score": ln.score,
                    "share": ln.share,
                    "solo": ln.solo,
                    "civil_disorder": ln.civil_disorder,
                    "game": f.name,
                    "variant": f.variant,
                    "ended_at": f.ended_at,
                    "fame": _fame(f.visibility, ln),
                }
                for ln in g.lines
            )
        if rows:
            self._s.execute(sa.insert(RatedGameRow), rows)
        if lines:
            self._s.execute(sa.insert(RatingLineRow), lines)

    def standings(self, pool: str, people: Collection[int]) -> dict[int, PoolStanding]:
        """The stored standings of ``people`` in ``pool`` (a person not rated there yet is left out)."""
        wanted = sorted(people)
        out: dict[int, PoolStanding] = {}
        cols = (RatingRow.person_id, RatingRow.rating, RatingRow.games, RatingRow.known, RatingRow.steady)
        for i in range(0, len(wanted), _SLICE):
            q = sa.select(*cols).where(RatingRow.pool == pool, RatingRow.person_id.in_(wanted[i : i + _SLICE]))
            for p, r, g, k, st in self._s.execute(q):
                out[int(p)] = PoolStanding(float(r), int(g), int(k), int(st))
        return out

    def put(self, pool: str, after: Mapping[int, PoolStanding], *, known: Collection[int], games: int) -> None:
        """Store ``after`` in ``pool`` (``known``: those of them already rated there), and count ``games`` more
        rated games in it."""
        rated = set(known)
        old = [_standing_row(pool, p, after[p]) for p in sorted(after) if p in rated]
        fresh = [_standing_row(pool, p, after[p]) for p in sorted(after) if p not in rated]
        if old:
            q = (
                sa.update(RatingRow)
                .where(RatingRow.pool == sa.bindparam("b_pool"), RatingRow.person_id == sa.bindparam("b_person"))
                .values(
                    rating=sa.bindparam("b_rating"),
                    games=sa.bindparam("b_games"),
                    known=sa.bindparam("b_known"),
                    steady=sa.bindparam("b_steady"),
                )
            )
            self._s.connection().execute(
                q, [{f"b_{k if k != 'person_id' else 'person'}": v for k, v in r.items()} for r in old]
            )
        for i in range(0, len(fresh), 5000):
            self._s.execute(sa.insert(RatingRow), fresh[i : i + 5000])
        size = self._s.get(RatingPoolRow, pool)
        if size is None:
            self._s.add(RatingPoolRow(pool=pool, people=len(fresh), games=games))
        else:
            size.people += len(fresh)
            size.games += games
        self._s.flush()

    def rated_in_order(self) -> list[TakenGame]:
        """Every game of the ledger that rated somebody, with its lines, in the order ratings are computed."""
        games = self._read(RatedGameRow.rated.is_(True), everything=True)
        return sorted(games.values(), key=lambda g: g.key)

    def replace(self, standings: Mapping[str, Mapping[int, PoolStanding]], games: Mapping[str, int]) -> None:
        """Every pool's standings and rated games, instead of what is stored."""
        self._s.execute(sa.delete(RatingRow))
        self._s.execute(sa.delete(RatingPoolRow))
        rows = [
            _standing_row(pool, p, st) for pool, table in sorted(standings.items()) for p, st in sorted(table.items())
        ]
        for i in range(0, len(rows), 5000):
            self._s.execute(sa.insert(RatingRow), rows[i : i + 5000])
        sizes = [
            {"pool": pool, "people": len(standings.get(pool, {})), "games": games.get(pool, 0)}
            for pool in sorted(set(standings) | set(games))
        ]
        if sizes:
            self._s.execute(sa.insert(RatingPoolRow), sizes)

    def clear(self) -> None:
        """Forget every game taken in and every standing (a rewrite from a recomputation follows)."""
        self._s.execute(sa.delete(RatingLineRow))
        self._s.execute(sa.delete(RatedGameRow))
        self.replace({}, {})


def _standing_row(pool: str, person: int, st: PoolStanding) -> dict[str, Any]:
    return {
        "pool": pool,
        "person_id": person,
        "rating": st.rating,
        "games": st.games,
        "known": st.known,
        "steady": st.steady,
    }


_GAME_COLUMNS = (
    "game_id",
    "name",
    "variant",
    "branch",
    "last_event",
    "scoring",
    "visibility",
    "counted",
    "ended_at",
    "system",
    "problem",
    "why",
    "rated",
    "weight",
)
_LINE_COLUMNS = ("person_id", "power", "score", "share", "solo", "civil_disorder")


def _taken(r: Mapping[str, Any], lines: tuple[RatedLine, ...]) -> TakenGame:
    facts = FinishedFacts(
        game_id=int(r["game_id"]),
        name=str(r["name"]),
        variant=str(r["variant"]),
        branch=int(r["branch"]),
        scoring=r["scoring"] or None,
        # Only counted games are rated, and a finished game never hides its players' names; an uncounted game's
        # reason is not kept (its lines are none).
        practice=False,
        visibility=str(r["visibility"]),
        names_hidden=False,
        ended_at=as_utc(r["ended_at"]) if r["ended_at"] is not None else None,
        last_event=r["last_event"],
    )
    return TakenGame(facts, bool(r["counted"]), r["system"], _problem(r), bool(r["rated"]), float(r["weight"]), lines)


def _problem(r: Mapping[str, Any]) -> Msg | None:
    """A game's stored problem: its message data, else (a text no template of 0032 read) its English."""
    if isinstance(r["why"], dict):
        return Msg.from_data(r["why"])
    return None if r["problem"] is None else as_msg(str(r["problem"]))


@contextmanager
def writing(db: Database, planned_on: int | None) -> Iterator[RatingsWriter]:
    """One transaction over the stored ratings, holding their lock; ``planned_on``: the version the caller's
    plan was made on (:attr:`RatingsBacklog.version`), refused with :class:`StaleRatings` if another update has
    committed since (None: whatever is stored). Committed, with the version raised, when the block ends."""
    with db.session() as s, s.begin():
        # PostgreSQL: the row lock is the ratings' lock. SQLite: the transaction already holds the database's.
        state = s.get(RatingStateRow, 1, with_for_update=True, populate_existing=True)
        if state is None:
            state = RatingStateRow(id=1, version=0, updated_at=None)
            s.add(state)
            s.flush()
        if planned_on is not None and state.version != planned_on:
            raise StaleRatings(
                msg(
                    "the ratings moved from version %(planned)s to %(now)s: plan again",
                    planned=planned_on,
                    now=state.version,
                )
            )
        yield RatingsWriter(s)
        state.version += 1
        state.updated_at = db.db_now(s)


# ---- reads ---------------------------------------------------------------------------------------------


def _one(db: Database, q: sa.Select[*_Columns]) -> list[sa.Row[*_Columns]]:
    """The rows of one statement, read in one round trip (PostgreSQL: outside a transaction; one statement sees
    one snapshot anyway)."""
    with db.one_read.connect() as conn:
        return list(conn.execute(q))


def version(db: Database) -> int:
    rows = _one(db, sa.select(RatingStateRow.version).where(RatingStateRow.id == 1))
    return int(rows[0][0]) if rows else 0


def pools(db: Database) -> dict[str, PoolCount]:
    """Every pool somebody is rated in, by name (:data:`OVERALL` first in the sort)."""
    rows = _one(
        db,
        sa.select(RatingPoolRow.pool, RatingPoolRow.people, RatingPoolRow.games)
        .where(RatingPoolRow.people > 0)
        .order_by(RatingPoolRow.pool),
    )
    return {str(p): PoolCount(str(p), int(n), int(g)) for p, n, g in rows}


def leaderboard(db: Database, pool: str, *, offset: int = 0, limit: int = 20) -> list[tuple[int, PoolStanding]]:
    """(person id, standing) of ``pool``'s places ``offset`` to ``offset + limit``: best first, equal ratings
    by person id."""
    q = (
        sa.select(RatingRow.person_id, RatingRow.rating, RatingRow.games, RatingRow.known, RatingRow.steady)
        .where(RatingRow.pool == pool)
        .order_by(RatingRow.rating.desc(), RatingRow.person_id)
        .offset(offset)
        .limit(limit)
    )
    return [(int(p), PoolStanding(float(r), int(g), int(k), int(st))) for p, r, g, k, st in _one(db, q)]


def better_than(db: Database, pool: str, rating: float) -> int:
    """How many people of ``pool`` are rated above ``rating`` (a place's rank is one more)."""
    q = sa.select(sa.func.count()).select_from(RatingRow).where(RatingRow.pool == pool, RatingRow.rating > rating)
    return int(_one(db, q)[0][0] or 0)


def person_standings(db: Database, person_id: int) -> dict[str, PoolStanding]:
    """``person_id``'s standing in every pool they are rated in."""
    q = sa.select(RatingRow.pool, RatingRow.rating, RatingRow.games, RatingRow.known, RatingRow.steady).where(
        RatingRow.person_id == person_id
    )
    return {str(pool): PoolStanding(float(r), int(g), int(k), int(st)) for pool, r, g, k, st in _one(db, q)}


def hall(db: Database, fame: str, variant: str | None, *, offset: int = 0, limit: int = 20) -> list[FameEntry]:
    """The hall of fame's lines of kind ``fame``: :data:`FAME_SOLO` newest first, :data:`FAME_RESULT` by
    share (largest first, then earliest); every variant's or one's."""
    q = (
        sa.select(
            RatingLineRow.game,
            RatingLineRow.variant,
            RatingLineRow.ended_at,
            RatingLineRow.power,
            RatingLineRow.person_id,
            RatingLineRow.score,
            RatedGameRow.system,
            RatingLineRow.share,
        )
        .join(RatedGameRow, RatedGameRow.game_id == RatingLineRow.game_id)
        .where(RatingLineRow.fame == fame)
    )
    if variant is not None:
        q = q.where(RatingLineRow.variant == variant)
    if fame == FAME_SOLO:
        q = q.order_by(RatingLineRow.ended_at.desc(), RatingLineRow.game.desc())
    else:
        q = q.order_by(RatingLineRow.share.desc(), RatingLineRow.ended_at, RatingLineRow.game, RatingLineRow.power)
    return [
        FameEntry(str(g), str(v), as_utc(at), str(pw), int(p), float(sc), str(sy or ""), float(sh))
        for g, v, at, pw, p, sc, sy, sh in _one(db, q.offset(offset).limit(limit))
    ]


def unscored(db: Database, *, public: bool = True) -> list[tuple[str, Msg]]:
    """(game, why) for the counted games that could not be scored, in order of their end (``public``: only
    public games', as an unlisted game's name is its secret)."""
    q = (
        sa.select(RatedGameRow.name, RatedGameRow.problem, RatedGameRow.why)
        .where(RatedGameRow.counted.is_(True), RatedGameRow.rated.is_(False), RatedGameRow.problem.is_not(None))
        .order_by(RatedGameRow.ended_at, RatedGameRow.name)
    )
    if public:
        q = q.where(RatedGameRow.visibility == "public")
    return [(str(n), _problem({"problem": p, "why": w}) or as_msg("")) for n, p, w in _one(db, q)]


def everything(db: Database) -> Stored:
    """All that is stored, in one read."""
    with db.session() as s:
        games = RatingsWriter(s)._read(sa.true(), everything=True)
        standings: dict[str, dict[int, PoolStanding]] = {}
        q = sa.select(
            RatingRow.pool, RatingRow.person_id, RatingRow.rating, RatingRow.games, RatingRow.known, RatingRow.steady
        )
        for pool, p, r, g, k, st in s.execute(q):
            standings.setdefault(str(pool), {})[int(p)] = PoolStanding(float(r), int(g), int(k), int(st))
        sizes = {
            str(p): PoolCount(str(p), int(n), int(g))
            for p, n, g in s.execute(sa.select(RatingPoolRow.pool, RatingPoolRow.people, RatingPoolRow.games))
        }
    return Stored(games, standings, sizes)


# ---- a person's data -----------------------------------------------------------------------------------


def export_person(db: Database, person_id: int) -> dict[str, Any]:
    """A person's standings and rated games, for "download my data"."""
    with db.session() as s:
        standings = s.execute(
            sa.select(RatingRow.pool, RatingRow.rating, RatingRow.games)
            .where(RatingRow.person_id == person_id)
            .order_by(RatingRow.pool)
        )
        lines = s.execute(
            sa.select(
                RatingLineRow.game,
                RatingLineRow.power,
                RatingLineRow.score,
                RatingLineRow.share,
                RatingLineRow.ended_at,
            )
            .where(RatingLineRow.person_id == person_id)
            .order_by(RatingLineRow.ended_at, RatingLineRow.game)
        )
        return {
            "ratings": [{"pool": pool or "overall", "rating": r, "games": g} for pool, r, g in standings],
            "rated_games": [
                {"game": g, "power": pw, "score": sc, "share": sh, "ended_at": iso_time(at)}
                for g, pw, sc, sh, at in lines
            ],
        }


def forget_person(db: Database, person_id: int, *, now: datetime) -> None:
    """What "delete my data" does here: nothing. A rating is computed from public games, which keep their seats;
    the person's name is emptied with their row, so the leaderboards show "a former player", and a
    recomputation still gives the same numbers."""
