"""Bots that play any variant through its own rules: ``hold``, ``random``, ``heuristic`` and ``search``.

See docs/bots.md. Every bot chooses among the engine's legal orders for its power; :func:`make_bot` makes
one by level name.
"""

from __future__ import annotations

from collections.abc import Callable

from dippouch.bots.base import Bot, HoldBot, RandomBot
from dippouch.bots.engine import DippouchError
from dippouch.bots.heuristic import HeuristicBot
from dippouch.bots.search import SearchBot

__all__ = ["LEVELS", "Bot", "BotError", "HeuristicBot", "HoldBot", "RandomBot", "SearchBot", "make_bot"]

LEVELS = ("hold", "random", "heuristic", "search")
"""The bot levels, weakest first."""


class BotError(DippouchError):
    """An unknown level or a bad bot setting, with what would have been accepted."""


def make_bot(level: str, *, budget: float | None = None, clock: Callable[[], float] | None = None) -> Bot:
    """The bot of ``level``; ``budget`` is the search level's seconds per movement decision, measured by
    ``clock`` (wall time by default)."""
    name = str(level).strip().lower()
    if name == "hold":
        return HoldBot()
    if name == "random":
        return RandomBot()
    if name == "heuristic":
        return HeuristicBot()
    if name == "search":
        bot = SearchBot()
        if budget is not None:
            bot.budget = budget
        if clock is not None:
            bot.clock = clock
        return bot
    raise BotError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
