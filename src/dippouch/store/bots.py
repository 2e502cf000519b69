"""Bot seats as stored: a power a bot plays, and a game's policy for powers in civil disorder.

A bot sits in a seat like a person does, as the power's current player, under the name ``bot:LEVEL``
(``bot:heuristic``): the seat's history, the players list and every page show it, and a person takes the
seat back the usual way (``dippouch players replace``), which ends the bot's turn. No new table is needed,
and nothing here changes how a player is stored. The civil-disorder policy is a game setting,
``Settings.disorder_bot``, kept with the game's other settings (so export and import carry it).

Only the store speaks SQL; the rest goes through :class:`~dippouch.store.GameStore`'s public methods.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from weakref import WeakKeyDictionary

import sqlalchemy as sa

from dippouch.bots import LEVELS
from dippouch.game import GameError, Settings, as_utc
from dippouch.store.models import EventRow, GameRow, PlayerRow
from dippouch.store.repository import GameStore

__all__ = [
    "BOT_PREFIX",
    "bot_level",
    "bot_player",
    "bot_seats",
    "check_level",
    "games_with_bots",
    "note_practice_visit",
    "open_practice_games",
    "practice_idle",
    "practice_slot",
    "practice_visit_due",
    "seat_bot",
    "set_disorder_bot",
    "stop_left_practice_games",
]

BOT_PREFIX = "bot:"
"""A player named ``bot:LEVEL`` is a bot of that level."""


def check_level(level: str) -> str:
    """The level's canonical name, or a clear error listing the levels."""
    name = str(level).strip().lower()
    if name.startswith(BOT_PREFIX):
        name = name[len(BOT_PREFIX) :]
    if name not in LEVELS:
        raise GameError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    return name


def bot_player(level: str) -> str:
    """The player name a bot of ``level`` sits under."""
    return BOT_PREFIX + check_level(level)


def bot_level(player: str | None) -> str | None:
    """The level of the bot playing as ``player``, or ``None`` for a person (or nobody)."""
    if player and player.startswith(BOT_PREFIX) and player[len(BOT_PREFIX) :] in LEVELS:
        return player[len(BOT_PREFIX) :]
    return None


def seat_bot(store: GameStore, game: str, power: str, level: str, *, now: datetime) -> str:
    """Seat a bot of ``level`` on ``power`` (replacing whoever plays it, or taking an empty seat)."""
    return store.assign(game, power, bot_player(level), now=now, replace=True)


def bot_seats(store: GameStore, game: str) -> dict[str, str]:
    """Power -> level of every power a bot plays now."""
    out: dict[str, str] = {}
    for power, current, _ in store.players(game):
        level = bot_level(current)
        if level is not None:
            out[power] = level
    return out


def set_disorder_bot(store: GameStore, game: str, level: str | None, *, now: datetime) -> str | None:
    """Set (or with ``None`` clear) the game's policy: a bot of ``level`` takes over powers in civil disorder.
    Returns the level set."""
    chosen = check_level(level) if level is not None else None
    with store.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game).with_for_update()).first()
        if g is None:
            names = list(s.scalars(sa.select(GameRow.name).order_by(GameRow.name)))
            raise GameError(f"no game {game!r}; games: {', '.join(names) or 'none yet'}")
        settings = dataclasses.replace(Settings.from_data(g.settings), disorder_bot=chosen)
        g.settings = settings.to_data()
        s.add(EventRow(game_id=g.id, at=as_utc(now), kind="bot_policy", detail={"disorder_bot": chosen}))
    return chosen


def games_with_bots(store: GameStore) -> list[str]:
    """Active games where a bot plays a power or a bot takes over powers in civil disorder: the only games a
    worker needs to look at for bots (one query each, whatever the number of games)."""
    with store.session() as s:
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
        for name, settings in s.execute(sa.select(GameRow.name, GameRow.settings).where(GameRow.status == "active")):
            if isinstance(settings, dict) and settings.get("disorder_bot"):
                seated.add(name)
    return sorted(seated)


def open_practice_games(store: GameStore) -> dict[str, str]:
    """Game -> client tag of every practice game against bots still running: what the web's caps on practice
    games count, in one query whatever the number of games. A practice game stopped because its person left
    it (:func:`stop_left_practice_games`) is paused and no longer counts."""
    out: dict[str, str] = {}
    with store.session() as s:
        rows = s.execute(sa.select(GameRow.name, GameRow.settings).where(GameRow.status == "active"))
        for name, settings in rows:
            if isinstance(settings, dict) and settings.get("practice"):
                out[name] = str(settings["practice"])
    return out


PRACTICE_LOCK = 0x64_70_62_6F_74  # "dpbot": the PostgreSQL advisory lock key of the practice games' caps
_slot_locks: WeakKeyDictionary[GameStore, threading.Lock] = WeakKeyDictionary()
_slot_guard = threading.Lock()


@contextmanager
def practice_slot(store: GameStore) -> Iterator[None]:
    """Held while the caps on practice games are checked and a new one is created, so that requests at the
    same moment, in any process, take turns: none of them counts the open games before another's new game
    is committed, and the caps hold exactly.

    Within a process, a lock per store (one database connection waits for the turn, not one per request:
    the pool is never emptied by waiters). Across processes on PostgreSQL, a session advisory lock held on
    a connection of its own for the whole block (the block's writes are several transactions, so a lock
    scoped to one transaction would not cover them). SQLite is served by one process: the local lock is
    the whole story."""
    with _slot_guard:
        local = _slot_locks.setdefault(store, threading.Lock())
    with local:
        if store.engine.dialect.name != "postgresql":
            yield
            return
        with store.engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": PRACTICE_LOCK})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": PRACTICE_LOCK})
                conn.commit()


PRACTICE_SEEN_EVERY = timedelta(minutes=10)
"""A visit is written down at most this often (a page reloaded every few seconds writes nothing)."""


def practice_idle(settings: Settings) -> timedelta:
    """How long a practice game runs on without its person before it is stopped: ten of its movement
    phases, at least an hour and at most a week (a game "a phase every 2 minutes" would otherwise play
    itself to the end, bots against nobody; one "when I'm ready" would hold its place under the caps)."""
    return min(max(10 * settings.duration("movement"), timedelta(hours=1)), timedelta(days=7))


def practice_visit_due(store: GameStore, game: str, *, now: datetime) -> bool:
    """Whether a visit to ``game`` now is one to write down: it is a running practice game whose last visit
    written is older than :data:`PRACTICE_SEEN_EVERY`. Reads only (give it a reader store: on SQLite a page
    view then takes no write lock)."""
    with store.session() as s:
        row = s.execute(sa.select(GameRow.status, GameRow.settings).where(GameRow.name == game)).first()
    if row is None or row.status != "active" or not isinstance(row.settings, dict):
        return False
    if not row.settings.get("practice"):
        return False
    seen = row.settings.get("practice_seen")
    return not seen or as_utc(now) - as_utc(datetime.fromisoformat(str(seen))) >= PRACTICE_SEEN_EVERY


def note_practice_visit(store: GameStore, game: str, *, now: datetime) -> None:
    """The person playing the practice game ``game`` came to it now (nothing for any other game)."""
    with store.session() as s, s.begin():
        g = s.scalars(sa.select(GameRow).where(GameRow.name == game).with_for_update()).first()
        if g is None or not isinstance(g.settings, dict) or not g.settings.get("practice"):
            return
        settings = dataclasses.replace(Settings.from_data(g.settings), practice_seen=as_utc(now).isoformat())
        g.settings = settings.to_data()


def stop_left_practice_games(store: GameStore, *, now: datetime) -> list[str]:
    """Pause every practice game whose person has not come to it for :func:`practice_idle` (since it started,
    if never): its bots stop playing, its clock stops, and it leaves the caps. The game and its history stay
    as they are (the person's link still shows it). The games stopped, by name."""
    now = as_utc(now)
    left: list[str] = []
    with store.session() as s:
        rows = s.execute(
            sa.select(GameRow.name, GameRow.settings, GameRow.created_at).where(GameRow.status == "active")
        ).all()
    for name, data, created in rows:
        if not isinstance(data, dict) or not data.get("practice"):
            continue
        settings = Settings.from_data(data)
        seen = as_utc(datetime.fromisoformat(settings.practice_seen)) if settings.practice_seen else as_utc(created)
        if now - seen < practice_idle(settings):
            continue
        try:
            store.pause(name, now=now)
        except GameError:
            continue  # paused or over meanwhile (another worker, the game's last phase)
        with store.session() as s, s.begin():
            gid = s.scalars(sa.select(GameRow.id).where(GameRow.name == name)).one()
            s.add(EventRow(game_id=gid, at=now, kind="practice_left", detail={"last_seen": seen.isoformat()}))
        left.append(name)
    return left
