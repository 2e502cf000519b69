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
from datetime import datetime

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
    "open_practice_games",
    "seat_bot",
    "set_disorder_bot",
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
    """Game -> client tag of every practice game against bots not yet over (active or paused): what the web's
    caps on practice games count, in one query whatever the number of games."""
    out: dict[str, str] = {}
    with store.session() as s:
        rows = s.execute(sa.select(GameRow.name, GameRow.settings).where(GameRow.status.in_(("active", "paused"))))
        for name, settings in rows:
            if isinstance(settings, dict) and settings.get("practice"):
                out[name] = str(settings["practice"])
    return out
