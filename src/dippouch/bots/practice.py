"""Practice games against bots, and games bots alone play: when a visit is worth writing down, and when a game
nobody comes to any more stops.

A practice game is started from the web (:mod:`dippouch.web.views.practice`) with bots in every other seat. Its
person may simply go away; the bots would then play on, and the game hold its place under the caps on
practice games, for ever. So each visit is noted (at most every :data:`PRACTICE_SEEN_EVERY`), and the
workers pause a game not visited for :func:`practice_idle`.

A game whose every seat is a bot's (a coordinator's, or a person's own game filled with bots) has no player to
come back: it is watched, or nobody's. A signed-in person's look at it is noted (at most every
:data:`WATCH_EVERY`), and so is its clock restarting; the workers pause it once nobody has looked for
:data:`UNWATCHED`, and its coordinator resumes it. What is stored, and how, is :mod:`dippouch.store.bots`'s.
"""

from __future__ import annotations

import functools
import os
import time
from datetime import datetime, timedelta

from dippouch.game import GameError, GameSettings, as_utc
from dippouch.store import deadlines as store_deadlines
from dippouch.store.bots import games_of_bots_alone, note_practice_left, practice_game, practice_games
from dippouch.store.db import Database
from dippouch.store.repository import GameStore

__all__ = [
    "PRACTICE_SEEN_EVERY",
    "PRACTICE_WAIT",
    "PROBE_LIMIT",
    "UNWATCHED",
    "WATCH_EVERY",
    "practice_idle",
    "practice_visit_due",
    "stop_left_practice_games",
    "stop_unwatched_bot_games",
    "strongest_level",
    "watch_due",
]

PRACTICE_SEEN_EVERY = timedelta(minutes=10)
"""A visit is written down at most this often (a page reloaded every few seconds writes nothing)."""


def practice_idle(settings: GameSettings) -> timedelta:
    """How long a practice game runs on without its person before it is stopped: ten of its movement
    phases, at least an hour and at most a week (a game "a phase every 2 minutes" would otherwise play
    itself to the end, bots against nobody; one "when I'm ready" would hold its place under the caps)."""
    return min(max(10 * settings.duration("movement"), timedelta(hours=1)), timedelta(days=7))


def practice_visit_due(db: Database, game: str, *, now: datetime) -> bool:
    """Whether a visit to ``game`` now is one to write down: it is a running practice game whose last visit
    written is older than :data:`PRACTICE_SEEN_EVERY`. Reads only (give it a reader store: on SQLite a page
    view then takes no write lock)."""
    found = practice_game(db, game)
    if found is None:
        return False
    seen = found.settings.practice_seen
    return not seen or as_utc(now) - as_utc(datetime.fromisoformat(seen)) >= PRACTICE_SEEN_EVERY


def stop_left_practice_games(store: GameStore, *, now: datetime) -> list[str]:
    """Pause every practice game whose person has not come to it for :func:`practice_idle` (since it started,
    if never): its bots stop playing, its clock stops, and it leaves the caps. The game and its history stay
    as they are (the person's link still shows it). The games stopped, by name."""
    now = as_utc(now)
    left: list[str] = []
    for game in practice_games(store):
        settings = game.settings
        seen = as_utc(datetime.fromisoformat(settings.practice_seen)) if settings.practice_seen else game.created_at
        if now - seen < practice_idle(settings):
            continue
        try:
            store_deadlines.pause(store, game.name, now=now)
        except GameError:
            continue  # paused or over meanwhile (another worker, the game's last phase)
        note_practice_left(store, game.name, last_seen=seen, now=now)
        left.append(game.name)
    return left


WATCH_EVERY = timedelta(minutes=10)
"""A look at a game bots alone play is written down at most this often."""
UNWATCHED = timedelta(hours=1)
"""How long a game bots alone play goes on with nobody looking at it: sixty of its phases at the default pace,
enough for whoever set it going to come back, too short to keep a processor busy for nobody."""
UNWATCHED_WHY = (
    "bots alone play {game} and nobody has looked at it for an hour: paused until its coordinator resumes it"
)


def watch_due(db: Database, game: str, *, now: datetime) -> bool:
    """Whether a signed-in person's look at ``game`` now is one to write down: bots alone play it, and nobody
    has looked at it for :data:`WATCH_EVERY` (reads only: most looks write nothing)."""
    found = games_of_bots_alone(db, game)
    return bool(found) and as_utc(now) - found[0].looked >= WATCH_EVERY


def stop_unwatched_bot_games(store: GameStore, *, now: datetime) -> list[str]:
    """Pause every game bots alone play that nobody has looked at for :data:`UNWATCHED`: its bots stop, its
    clock stops, and it waits for its coordinator (who resumes it) as it is. The games paused, by name."""
    now = as_utc(now)
    stopped: list[str] = []
    for game in games_of_bots_alone(store):
        if now - game.looked < UNWATCHED:
            continue
        try:
            store_deadlines.pause(store, game.name, now=now, why=UNWATCHED_WHY.format(game=game.name))
        except GameError:
            continue  # paused or over meanwhile (another worker, the game's last phase)
        stopped.append(game.name)
    return stopped


PRACTICE_WAIT = 3.0
"""Seconds of the bots' thinking a practice game's person may wait for after marking orders ready: a phase
is processed, and the bots' next orders asked for, in that request (the bots play one after another)."""
PROBE_LIMIT = 0.03
"""Seconds one heuristic decision on the standard map's opening may take on a machine that can afford the search
level (2 ms is typical; a machine ten times slower than that is busy or small, and the search would find
little in its budget)."""


def strongest_level(bots: int = 6, *, budget: float | None = None, cpus: int | None = None) -> str:
    """The strongest bot level this machine can afford for a practice game with ``bots`` bots: ``search`` when
    their budgets together fit in :data:`PRACTICE_WAIT` (``DIPPOUCH_SEARCH_BUDGET`` unless ``budget`` is
    given), the machine has a second processor for everyone else meanwhile, and a probe decision is quick
    (:data:`PROBE_LIMIT`); else ``heuristic``. The probe is made once a process."""
    from dippouch import settings

    seconds = budget if budget is not None else settings.current().search_budget
    if bots * seconds > PRACTICE_WAIT or (cpus if cpus is not None else os.cpu_count() or 1) < 2:
        return "heuristic"
    return "search" if _probe() <= PROBE_LIMIT else "heuristic"


@functools.cache
def _probe() -> float:
    """Seconds of one heuristic decision for one power on the standard map's opening (the second one: the
    first builds the map's tables once)."""
    import random

    from dippouch.bots.heuristic import HeuristicBot
    from dippouch.catalog import load_variant

    variant = load_variant("standard")
    bot = HeuristicBot()
    power = variant.power_names[0]
    bot.orders(variant, variant.start, power, random.Random(0))
    started = time.perf_counter()
    bot.orders(variant, variant.start, power, random.Random(0))
    return time.perf_counter() - started
