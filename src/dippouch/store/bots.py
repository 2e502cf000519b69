"""Bot seats and practice games as stored: the rows behind them, read and written here only.

A bot sits in a seat like a person does, as the power's current player, under the name ``bot:LEVEL``
(``bot:heuristic``): the seat's history, the players list and every page show it, and a person takes the
seat back the usual way (``dippouch players replace``), which ends the bot's turn. No new table is needed,
and nothing here changes how a player is stored. The civil-disorder policy is a game setting,
``GameSettings.disorder_bot``, kept with the game's other settings (so export and import carry it); a practice
game is a game whose settings carry ``practice`` (the tag of the client that started it).

What a level is, and when a practice game is left, are the bots' rules (:mod:`dippouch.bots.seats`,
:mod:`dippouch.bots.practice`): this module stores what they decide and never imports them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from weakref import WeakKeyDictionary

import sqlalchemy as sa

from dippouch.core.messages import msg
from dippouch.game import GameSettings, RecordNotFound, as_utc
from dippouch.store.db import Database
from dippouch.store.models import EventRow, GameRow, PlayerRow

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = [
    "BOT_PREFIX",
    "BotsAlone",
    "PracticeGame",
    "games_of_bots_alone",
    "games_with_bots",
    "note_practice_left",
    "note_practice_visit",
    "note_watched",
    "open_practice_games",
    "practice_game",
    "practice_games",
    "practice_slot",
    "save_disorder_bot",
]

BOT_PREFIX = "bot:"
"""A player named ``bot:LEVEL`` is a bot of that level."""


def save_disorder_bot(db: Database, game: str, level: str | None, *, now: datetime) -> None:
    """Store the game's policy: a bot of ``level`` (already checked by the caller) takes over powers in civil
    disorder; ``None`` clears it. The change is an event of the game."""
    with db.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game).with_for_update()).first()
        if g is None:
            names = list(s.scalars(sa.select(GameRow.name).order_by(GameRow.name)))
            raise RecordNotFound(
                msg("no game %(game)s; games: %(games)s", game=repr(game), games=", ".join(names) or "none yet")
            )
        settings = dataclasses.replace(GameSettings.from_data(g.settings), disorder_bot=level)
        g.settings = settings.to_data()
        s.add(EventRow(game_id=g.id, at=as_utc(now), kind="bot_policy", detail={"disorder_bot": level}))


def games_with_bots(db: Database) -> list[str]:
    """Active games where a bot plays a power or a bot takes over powers in civil disorder: the only games a
    worker needs to look at for bots (one query each, whatever the number of games)."""
    with db.read_session() as s:
        seated = set(
            s.scalars(
                sa.select(GameRow.name)
                .join(PlayerRow, PlayerRow.game_id == GameRow.id)
                .where(
                    GameRow.status == "active",
                    PlayerRow.replaced_at.is_(None),
                    PlayerRow.name.like(BOT_PREFIX + "%"),
                )
            )
        )
        q = sa.select(GameRow.name, GameRow.settings).where(GameRow.status == "active", _set("disorder_bot"))
        for name, settings in s.execute(q):
            if isinstance(settings, dict) and settings.get("disorder_bot"):
                seated.add(name)
    return sorted(seated)


def _set(key: str) -> sa.ColumnElement[bool]:
    """Whether the game's settings give ``key`` a value (not absent, null or empty), tried by the database: a
    worker asks it of every active game at each look, and reading each game's settings back to try them in
    Python was a sixth of a busy worker's time and most of PostgreSQL's CPU a phase at a thousand games
    (benchmarks/README.md, issue 57). The rows it keeps are tried again in Python, where a value the database
    takes for set (false, 0) is not."""
    return sa.func.coalesce(GameRow.settings[key].as_string(), "") != ""


def open_practice_games(db: Database) -> dict[str, str]:
    """Game -> client tag of every practice game against bots still running: what the web's caps on practice
    games count, in one query whatever the number of games. A practice game stopped because its person left
    it (:func:`dippouch.bots.practice.stop_left_practice_games`) is paused and no longer counts."""
    out: dict[str, str] = {}
    with db.session() as s:
        rows = s.execute(sa.select(GameRow.name, GameRow.settings).where(GameRow.status == "active", _set("practice")))
        for name, settings in rows:
            if isinstance(settings, dict) and settings.get("practice"):
                out[name] = str(settings["practice"])
    return out


@dataclass(frozen=True, slots=True)
class PracticeGame:
    """A running practice game, as the rules about its person's visits read it."""

    name: str
    settings: GameSettings
    created_at: datetime


def _running_practice(db: Database, where: sa.ColumnElement[bool] | None = None) -> list[PracticeGame]:
    q = sa.select(GameRow.name, GameRow.settings, GameRow.created_at).where(
        GameRow.status == "active", _set("practice")
    )
    if where is not None:
        q = q.where(where)
    with db.session() as s:
        rows = s.execute(q).all()
    return [
        PracticeGame(name, GameSettings.from_data(data), as_utc(created))
        for name, data, created in rows
        if isinstance(data, dict) and data.get("practice")
    ]


def practice_game(db: Database, game: str) -> PracticeGame | None:
    """``game`` if it is a running practice game (one query; reads only, so a reader store serves it)."""
    found = _running_practice(db, GameRow.name == game)
    return found[0] if found else None


def practice_games(db: Database) -> list[PracticeGame]:
    """Every running practice game."""
    return _running_practice(db)


PRACTICE_LOCK = 0x64_70_62_6F_74  # "dpbot": the PostgreSQL advisory lock key of the practice games' caps
_slot_locks: WeakKeyDictionary[Database, threading.Lock] = WeakKeyDictionary()
_slot_guard = threading.Lock()


@contextmanager
def practice_slot(db: Database) -> Iterator[None]:
    """Held while the caps on practice games are checked and a new one is created, so that requests at the
    same moment, in any process, take turns: none of them counts the open games before another's new game
    is committed, and the caps hold exactly.

    Within a process, a lock per store (one database connection waits for the turn, not one per request:
    the pool is never emptied by waiters). Across processes on PostgreSQL, an advisory lock taken in a
    transaction left open on a connection of its own for the whole block (the block's writes are several
    transactions of other connections). Not a session's lock, unlocked after: behind a pooler in transaction
    mode the session is the server's, handed to whoever asks next once a transaction ends, and so would be
    the lock (tests/store/test_pgbouncer.py); an open transaction keeps its session. SQLite is served by one
    process: the local lock is the whole story."""
    with _slot_guard:
        local = _slot_locks.setdefault(db, threading.Lock())
    with local:
        if db.engine.dialect.name != "postgresql":
            yield
            return
        with db.engine.connect() as conn, conn.begin():
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": PRACTICE_LOCK})
            yield


def note_practice_visit(db: Database, game: str, *, now: datetime) -> None:
    """The person playing the practice game ``game`` came to it now (nothing for any other game)."""
    with db.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game).with_for_update()).first()
        if g is None or not isinstance(g.settings, dict) or not g.settings.get("practice"):
            return
        settings = dataclasses.replace(GameSettings.from_data(g.settings), practice_seen=as_utc(now).isoformat())
        g.settings = settings.to_data()


def note_practice_left(db: Database, game: str, *, last_seen: datetime, now: datetime) -> None:
    """Record that the practice game ``game`` was stopped because its person left it (last seen then)."""
    with db.session() as s, s.begin():
        gid = s.scalars(sa.select(GameRow.id).where(GameRow.name == game)).one()
        s.add(EventRow(game_id=gid, at=as_utc(now), kind="practice_left", detail={"last_seen": last_seen.isoformat()}))


@dataclass(frozen=True, slots=True)
class BotsAlone:
    """A running game whose every seat taken is a bot's, as the rule about who watches it reads it."""

    name: str
    looked: datetime
    """When someone last looked at it, as far as anything stored tells: a signed-in person's look written down
    (``GameSettings.watched``), its clock last restarted (a ``resume`` event: by its coordinator, or when its last
    seat was filled), or its making."""


def games_of_bots_alone(db: Database, game: str | None = None) -> list[BotsAlone]:
    """Running games (``game``'s only, if named) in which a bot plays and no seat is anyone else's (a person, a
    named player, a practice game's player: even one whose power is out), in one query."""
    bot = PlayerRow.name.like(BOT_PREFIX + "%")
    seated = sa.and_(PlayerRow.game_id == GameRow.id, PlayerRow.replaced_at.is_(None))
    resumed = (
        sa.select(sa.func.max(EventRow.at))
        .where(EventRow.game_id == GameRow.id, EventRow.kind == "resume")
        .scalar_subquery()
    )
    q = sa.select(GameRow.name, GameRow.settings, GameRow.created_at, resumed).where(
        GameRow.status == "active", sa.exists().where(seated, bot), ~sa.exists().where(seated, ~bot)
    )
    if game is not None:
        q = q.where(GameRow.name == game)
    with db.read_session() as s:
        rows = s.execute(q.order_by(GameRow.name)).all()
    out = []
    for name, data, created, restarted in rows:
        watched = data.get("watched") if isinstance(data, dict) else None
        times = [as_utc(created), *([as_utc(restarted)] if restarted else [])]
        if watched:
            times.append(as_utc(datetime.fromisoformat(str(watched))))
        out.append(BotsAlone(name, max(times)))
    return out


def note_watched(db: Database, game: str, *, now: datetime) -> None:
    """A signed-in person looked at ``game`` now (kept in its settings: a game bots alone play that nobody
    looks at is paused after a while)."""
    with db.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game).with_for_update()).first()
        if g is None or not isinstance(g.settings, dict):
            return
        g.settings = dataclasses.replace(GameSettings.from_data(g.settings), watched=as_utc(now).isoformat()).to_data()
