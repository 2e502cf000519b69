"""Bots that play any variant through its own rules: ``hold``, ``random``, ``heuristic`` and ``search``.

See docs/bots.md. Every bot chooses among the engine's legal orders for its power; :func:`make_bot` makes
one by level name.
"""

from __future__ import annotations

from dippouch.bots.base import Bot, HoldBot, RandomBot
from dippouch.bots.engine import DippouchError
from dippouch.bots.heuristic import HeuristicBot
from dippouch.bots.search import SearchBot

__all__ = ["LEVELS", "Bot", "BotError", "HeuristicBot", "HoldBot", "RandomBot", "SearchBot", "make_bot"]

LEVELS = ("hold", "random", "heuristic", "search")
"""The bot levels, weakest first."""


class BotError(DippouchError):
    """An unknown level or a bad bot setting, with what would have been accepted."""


def make_bot(level: str, *, budget: float | None = None) -> Bot:
    """The bot of ``level``; ``budget`` is the search level's seconds per movement decision."""
    name = str(level).strip().lower()
    if name == "hold":
        return HoldBot()
    if name == "random":
        return RandomBot()
    if name == "heuristic":
        return HeuristicBot()
    if name == "search":
        return SearchBot() if budget is None else SearchBot(budget=budget)
    raise BotError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
