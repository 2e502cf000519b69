"""Pages made once and shared by every web process: what every reader of a game's phase sees, kept in the
database under the game's state it was made from, so that the first process asked for it makes it and every
other one (and every reader after) reads it back in one query instead of making it again.

A page's version is the game's change marker (its last event, phase, open-phase submission and vote: what the
game page shows moves one of them), its page version (:func:`bump_pages`: for the events that change a page and
none of those, such as press in public channels or proposals and their votes), and the open phase's deadline
(a page says when the deadline has passed). The web composes its version of these
(:mod:`dippouch.web.views.page_cache`) with what its own code adds (the templates' digest, the language).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from dippouch.game import as_utc
from dippouch.people.anonymity import PERSONAL_EVENTS
from dippouch.store import domains
from dippouch.store.db import Database, unsynced_row
from dippouch.store.loop_reads import LoopReads
from dippouch.store.models import EventRow, GameRow, PhaseRow, SubmissionRow, VoteRow
from dippouch.store.models_pages import PageVersionRow, SharedPageRow
from dippouch.store.models_web import GameWebRow
from dippouch.store.records import submission_to_data

__all__ = [
    "Shared",
    "bump_pages",
    "bump_pages_in",
    "keep_page",
    "phase_submissions",
    "phase_submissions_in",
    "seat_submissions",
    "shared_page",
    "shared_page_on_loop",
    "shared_pages_on_loop",
]


@dataclass(frozen=True)
class Shared:
    """A game's state as its pages are versioned by, and the page of the kind asked for as last made."""

    game_id: int
    visibility: str
    """``public``, ``unlisted`` or ``private`` (:class:`~dippouch.store.models_web.GameWebRow`)."""
    state: tuple[int, ...]
    """Last event, phase, open-phase submission and vote ids, and the page version."""
    deadline: datetime | None
    """The open phase's deadline (UTC), None without one."""
    version: str | None
    """The version the kept page was made for (None: none kept)."""
    data: bytes | None
    """The kept page's text in UTF-8, as the database sends it (its readers serve it as bytes: :attr:`body` only
    where a text is wanted)."""
    changed: datetime | None = None
    """When the game last changed as its state shows it (UTC): the latest of its last event, a phase opened or
    processed, the open phase's last submission and the last draw vote; None for a game with none of them. The
    page version's bumps carry no time: a page they change is told apart by its ETag alone."""
    marker: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """The game's change marker as :meth:`dippouch.store.access.GameAccess.marker` reads it, read with the page so
    that the page made next need not read it again."""
    variant_hash: str | None = None
    """The hash of the game's stored variant (:meth:`~dippouch.store.access.GameAccess.marker`'s third part)."""
    deflated: bytes | None = None
    """The kept page's pieces deflated by whoever made it (:func:`keep_page`), None without."""
    may_wait: bool = True
    """Whether a phase of the game may wait for the coordinator (mail held for review:
    :attr:`dippouch.store.domains.Review.may_hold`). False: past its deadline the open phase waits for
    processing, and nothing more need be asked to say so."""
    languages: tuple[str, ...] | None = None
    """The languages a page of this kind of the game is kept in, whatever its version (those its readers read it
    in: a worker that processed the game makes it in each), read by a lookup without the page; None: not read."""

    @property
    def body(self) -> str | None:
        """The kept page's text (None: none kept), decoded at each call."""
        return None if self.data is None else self.data.decode()


class _Utf8(FunctionElement[bytes]):
    """A text column's UTF-8 bytes: a kept page is read back as the bytes it is served as, not decoded into a text
    to be encoded again (PostgreSQL's ``convert_to``, read in the binary format; SQLite's text as a blob)."""

    type = sa.LargeBinary()
    inherit_cache = True
    name = "utf8"


@compiles(_Utf8)
def _utf8_sqlite(element: _Utf8, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST({compiler.process(element.clauses, **kw)} AS BLOB)"


@compiles(_Utf8, "postgresql")
def _utf8_postgresql(element: _Utf8, compiler: SQLCompiler, **kw: Any) -> str:
    return f"convert_to({compiler.process(element.clauses, **kw)}, 'UTF8')"


class _Joined(FunctionElement[str]):
    """A text column's values joined by commas (PostgreSQL's ``string_agg``, SQLite's ``group_concat``), the comma
    written in the statement: SQLAlchemy's own ``aggregate_strings`` leaves it to be filled in when sent, which a
    statement sent as the driver's SQL (:class:`_Driver`) is not."""

    type = sa.Text()
    inherit_cache = True
    name = "joined"


@compiles(_Joined)
def _joined_sqlite(element: _Joined, compiler: SQLCompiler, **kw: Any) -> str:
    return f"group_concat({compiler.process(element.clauses, **kw)}, ',')"


@compiles(_Joined, "postgresql")
def _joined_postgresql(element: _Joined, compiler: SQLCompiler, **kw: Any) -> str:
    return f"string_agg({compiler.process(element.clauses, **kw)}, ',')"


_PAGES = cast(sa.Table, SharedPageRow.__table__)
_VERSIONS = cast(sa.Table, PageVersionRow.__table__)


def _languages(g: Any) -> Any:
    """The languages a page of the bound ``kind`` of game ``g`` is kept in, joined by commas (None: none)."""
    kept = _PAGES.alias("kept")
    return (
        sa.select(_Joined(kept.c.lang))
        .where(kept.c.game_id == g.c.id, kept.c.kind == sa.bindparam("kind"))
        .scalar_subquery()
    )


@functools.cache
def _lookup(*, many: bool = False, page: bool = True) -> sa.Select[Any]:
    """Built once (constructing the statement costs more than running it), at its first use (every domain has
    registered what it adds by then: :mod:`dippouch.store.domains`): the state and the kept page in one round
    trip; ``many``: of every game named in the list ``games``, each row ending with the game's name. Without
    ``page``, the kept page's version alone (its text and pieces None): what the maker of a page ahead of its
    readers asks, to learn whether the state's page is made already (the page kept is nearly always an older
    state's then, some 60 KB read for nothing), with the languages the page is kept in where the pieces would be
    (:attr:`Shared.languages`: which it makes, a statement of its own before). The page's text comes as its UTF-8
    bytes (:class:`_Utf8`)."""
    g = cast(sa.Table, GameRow.__table__).alias("g")

    def most(col: Any, *where: Any) -> Any:
        return sa.select(sa.func.coalesce(sa.func.max(col), 0)).where(*where).scalar_subquery()

    def latest(col: Any, order: Any, *where: Any) -> Any:
        return sa.select(col).where(*where).order_by(order.desc()).limit(1).scalar_subquery()

    def most_at(col: Any, *where: Any) -> Any:
        return sa.select(sa.func.max(col)).where(*where).scalar_subquery()

    open_phase = sa.and_(PhaseRow.game_id == g.c.id, PhaseRow.status == "open")
    return (
        sa.select(
            g.c.id,
            sa.select(GameWebRow.visibility).where(GameWebRow.game_id == g.c.id).scalar_subquery(),
            most(EventRow.id, EventRow.game_id == g.c.id),
            most(PhaseRow.id, PhaseRow.game_id == g.c.id),
            sa.select(sa.func.coalesce(sa.func.max(SubmissionRow.id), 0))
            .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
            .where(open_phase)
            .scalar_subquery(),
            most(VoteRow.id, VoteRow.game_id == g.c.id),
            sa.select(sa.func.coalesce(sa.func.max(_VERSIONS.c.version), 0))
            .where(_VERSIONS.c.game_id == g.c.id)
            .scalar_subquery(),
            sa.select(sa.func.max(PhaseRow.deadline)).where(open_phase).scalar_subquery(),
            _PAGES.c.version,
            _Utf8(_PAGES.c.body) if page else sa.null(),
            # When it changed: each table's latest row by its id (the index the state's maxima use already).
            latest(EventRow.at, EventRow.id, EventRow.game_id == g.c.id),
            most_at(PhaseRow.opened_at, PhaseRow.game_id == g.c.id),
            most_at(PhaseRow.processed_at, PhaseRow.game_id == g.c.id),
            sa.select(SubmissionRow.submitted_at)
            .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
            .where(open_phase)
            .order_by(SubmissionRow.id.desc())
            .limit(1)
            .scalar_subquery(),
            latest(VoteRow.at, VoteRow.id, VoteRow.game_id == g.c.id),
            # The marker's last part (the last event but a person's own) and the variant's hash: the web's
            # change marker (GameAccess.marker), so a page made after this lookup is made of this reading.
            # (As plain comparisons: an IN list would be expanded when sent, which the driver's SQL is not.)
            most(EventRow.id, EventRow.game_id == g.c.id, *(EventRow.kind != kind for kind in PERSONAL_EVENTS)),
            g.c.variant_hash,
            _PAGES.c.deflated if page else _languages(g),
            sa.or_(*waits) if (waits := domains.may_hold(g.c.id)) else sa.false(),
            *([g.c.name] if many else []),
        )
        .select_from(g)
        .outerjoin(
            _PAGES,
            sa.and_(
                _PAGES.c.game_id == g.c.id,
                _PAGES.c.kind == sa.bindparam("kind"),
                _PAGES.c.lang == sa.bindparam("lang"),
            ),
        )
        .where(
            g.c.name == sa.func.any(sa.bindparam("games", type_=sa.ARRAY(sa.Text())))
            if many
            else g.c.name == sa.bindparam("game")
        )
    )


@dataclass(frozen=True)
class _Driver:
    """A statement compiled once for PostgreSQL and sent through the driver's cursor: SQLAlchemy otherwise walks
    the statement's whole tree for its cache key and wraps the row at every execution (the lookup's fifteen
    subqueries: about half of the query's CPU in the web process). Only for statements whose values need no
    conversion on the way in or out (integers, texts, bytes, times with their zone)."""

    sql: str
    defaults: dict[str, Any]

    @classmethod
    def of(cls, statement: sa.Select[Any], dialect: sa.Dialect) -> _Driver:
        compiled = statement.compile(dialect=dialect)
        return cls(str(compiled), dict(compiled.params))


_DRIVER: dict[str, _Driver] = {}
""":func:`_lookup`'s statements as the PostgreSQL driver's SQL, each compiled at its first use (the dialect is the
engine's). The one of many names is PostgreSQL's alone (an array of names): read on the loop
(:func:`shared_pages_on_loop`)."""


def _lookup_sql(dialect: sa.Dialect, *, many: bool = False, page: bool = True) -> _Driver:
    key = f"postgresql{' many' if many else ''}{'' if page else ' state'}"
    driver = _DRIVER.get(key)
    if driver is None:
        driver = _DRIVER[key] = _Driver.of(_lookup(many=many, page=page), dialect)
    return driver


def _lookup_row(conn: sa.Connection, params: dict[str, str], *, page: bool = True) -> Any:
    """The lookup's one row (None: no such game): on PostgreSQL as the driver's SQL (:class:`_Driver`)."""
    if conn.dialect.name != "postgresql":
        return conn.execute(_lookup(page=page), params).first()
    driver = _lookup_sql(conn.dialect, page=page)
    values = {**driver.defaults, **params}
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor(binary=True)  # type: ignore[union-attr]
    try:
        cursor.execute(driver.sql, values)
        return cursor.fetchone()
    except dbapi.Error as e:
        # As SQLAlchemy's own execution does: a connection the server dropped leaves the pool, and the error
        # is SQLAlchemy's (the app answers a database that is down or busy as such, not as a fault of its own).
        gone = conn.dialect.is_disconnect(e, conn.connection.dbapi_connection, cursor)
        if gone:
            conn.invalidate(e)
        raise sa.exc.DBAPIError.instance(
            driver.sql, values, e, dbapi.Error, connection_invalidated=gone, dialect=conn.dialect
        ) from e
    finally:
        cursor.close()


def shared_page(db: Database, game: str, kind: str, lang: str, *, page: bool = True) -> Shared | None:
    """The game's visibility, its state and its kept page of ``kind`` in ``lang`` (without ``page``: the kept page's
    version alone, its :attr:`Shared.data` None), in one query; None: no such game."""
    with db.one_read.connect() as conn:
        row = _lookup_row(conn, {"game": game, "kind": kind, "lang": lang}, page=page)
        conn.rollback()
    return _shared(row, page=page)


async def shared_page_on_loop(reads: LoopReads, game: str, kind: str, lang: str) -> Shared | None:
    """:func:`shared_page`, sent and awaited on the event loop (:mod:`dippouch.store.loop_reads`)."""
    driver = _lookup_sql(reads.dialect)
    return _shared(await reads.first(driver.sql, {**driver.defaults, "game": game, "kind": kind, "lang": lang}))


async def shared_pages_on_loop(reads: LoopReads, games: list[str], kind: str, lang: str) -> dict[str, Shared]:
    """:func:`shared_page_on_loop` of each of ``games`` in one query, by name (a game not there: left out)."""
    driver = _lookup_sql(reads.dialect, many=True)
    rows = await reads.rows(driver.sql, {**driver.defaults, "games": games, "kind": kind, "lang": lang})
    return {str(row[19]): got for row in rows if (got := _shared(row)) is not None}


def _shared(row: Any, *, page: bool = True) -> Shared | None:
    if row is None:
        return None
    languages = None if page else tuple(sorted(str(row[17]).split(","))) if row[17] else ()
    deadline = as_utc(row[7]) if row[7] is not None else None
    times = [as_utc(t) for t in row[10:15] if t is not None]
    changed = max(times) if times else None
    state = tuple(int(x) for x in row[2:7])
    marker = (state[0], state[1], state[2], state[3], int(row[15]))
    deflated = bytes(row[17]) if page and row[17] is not None else None  # a memoryview from some drivers
    return Shared(
        int(row[0]),
        row[1] or "public",
        state,
        deadline,
        row[8],
        bytes(row[9]) if row[9] is not None else None,
        changed,
        marker,
        row[16],
        deflated,
        bool(row[18]),
        languages,
    )


_KEPT = ("game_id", "kind", "lang", "version", "body", "deflated", "made_at")


def _keep(new: Any) -> Any:
    return new.on_conflict_do_update(
        index_elements=[_PAGES.c.game_id, _PAGES.c.kind, _PAGES.c.lang],
        set_={c: new.excluded[c] for c in ("version", "body", "deflated", "made_at")},
    )


_KEEP = {
    "postgresql": _keep(pg_insert(_PAGES).from_select(_KEPT, unsynced_row(_PAGES, _KEPT))),
    "sqlite": _keep(sqlite_insert(_PAGES).values({c: sa.bindparam(c, type_=_PAGES.c[c].type) for c in _KEPT})),
}


def keep_page(
    db: Database,
    game_id: int,
    kind: str,
    lang: str,
    version: str,
    body: str,
    now: datetime,
    deflated: bytes | None = None,
) -> None:
    """Keep a page made for ``version`` (with its pieces ``deflated``, for a kind served gzipped as kept), replacing
    the one kept before (one row per game, kind and language).
    Two processes making it at once both write; the page is the same. Made again when lost, so its commit does
    not wait for the disk (:meth:`Database.derived_write`)."""
    db.derived_write(
        _KEEP,
        {
            "game_id": game_id,
            "kind": kind,
            "lang": lang,
            "version": version,
            "body": body,
            "deflated": deflated,
            "made_at": now,
        },
    )


def _bump(insert: Any) -> Any:
    new = insert(_VERSIONS).values(game_id=sa.bindparam("game_id"), version=1)
    return new.on_conflict_do_update(index_elements=[_VERSIONS.c.game_id], set_={"version": _VERSIONS.c.version + 1})


_BUMP = {"postgresql": _bump(pg_insert), "sqlite": _bump(sqlite_insert)}


def bump_pages_in(s: Session, game_id: int) -> None:
    """:func:`bump_pages` inside the caller's transaction (the change and the bump are committed together, so
    no reader sees the change under the old version)."""
    s.execute(_BUMP[s.get_bind().dialect.name], {"game_id": game_id})


def bump_pages(db: Database, game: str) -> None:
    """Every page made of ``game`` is stale: the next reader of each makes it again. For the events that change
    what a game's pages show without moving its change marker (press in public channels, proposals and their
    votes); processing, submissions, draw votes and the events of the game's log (seats, settings) move the
    marker already. A game that does not exist is left alone."""
    with db.session() as s, s.begin():
        game_id = s.scalar(sa.select(GameRow.id).where(GameRow.name == game))
        if game_id is not None:
            bump_pages_in(s, game_id)


def seat_submissions(db: Database, phase_id: int, power: str) -> tuple[list[dict[str, Any]], Any]:
    """One seat's versions of a phase, oldest first, as :func:`dippouch.store.records.phase_to_data` writes
    them, and the phase's stored position (None when the seat sent none): the part of a player's page that is
    the seat's own, in one query (the phase's whole record reads the game, the phase, the next one and every
    seat's versions)."""
    q = (
        sa.select(SubmissionRow, PhaseRow.deadline, PhaseRow.position)
        .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
        .where(SubmissionRow.phase_id == phase_id, SubmissionRow.power == power)
        .order_by(SubmissionRow.id)
    )
    out: list[dict[str, Any]] = []
    position: Any = None
    with db.session() as s:
        for sub, deadline, stored in s.execute(q):
            position = stored
            out.append(submission_to_data(sub, deadline))
    return out, position


def phase_submissions(db: Database, phase_id: int) -> list[dict[str, Any]]:
    """Every version sent in a phase, oldest first, as :func:`dippouch.store.records.phase_to_data` writes them:
    what a phase's report needs beside the rows a page has loaded already, in one query (the phase's whole
    record reads the game, the phase and the next one again)."""
    with db.session() as s:
        return phase_submissions_in(s, phase_id)


_PHASE_SUBMISSIONS = (
    sa.select(SubmissionRow, PhaseRow.deadline)
    .join(PhaseRow, PhaseRow.id == SubmissionRow.phase_id)
    .where(SubmissionRow.phase_id == sa.bindparam("phase_id"))
    .order_by(SubmissionRow.id)
)
"""Built once: every game page made after a phase sends it (building a statement costs more than sending it)."""


def phase_submissions_in(s: Session, phase_id: int) -> list[dict[str, Any]]:
    """:func:`phase_submissions` in the caller's session (the game page's one read)."""
    return [
        submission_to_data(sub, deadline) for sub, deadline in s.execute(_PHASE_SUBMISSIONS, {"phase_id": phase_id})
    ]
