"""Bots that play any variant through its own rules: ``hold``, ``random``, ``heuristic`` and ``search``.

See docs/bots.md. Every bot chooses among the engine's legal orders for its power; :func:`make_bot` makes
one by level name. This module itself imports nothing heavy (the store and the worker read ``LEVELS`` at
start-up); the levels live in :mod:`dippouch.bots.base`, :mod:`~dippouch.bots.heuristic` and
:mod:`~dippouch.bots.search`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dippouch.core.errors import DippouchError
from dippouch.core.messages import N_, msg

if TYPE_CHECKING:
    from dippouch.bots.base import Bot

__all__ = ["LEVELS", "LEVEL_WORDS", "BotError", "make_bot"]

I18N_DOMAIN = "rules"
"""The catalogue of the bots' refusals, said in the reader's language where they are shown (dippouch.saying)."""

LEVELS = ("hold", "random", "heuristic", "search")
"""The bot levels, weakest first."""

LEVEL_WORDS = {
    "hold": N_("passive"),
    "random": N_("random"),
    "heuristic": N_("standard"),
    "search": N_("strong"),
}
"""What a list of levels shows a person, in their language (the level's name stays the value sent): the names
are the program's words, and "heuristic" and "search" tell a newcomer nothing. One word each: a list's width is
its longest choice's, on a phone's screen too (docs/bots.md says what each does)."""


class BotError(DippouchError):
    """An unknown level or a bad bot setting, with what would have been accepted."""


def make_bot(level: str, *, budget: float | None = None, clock: Callable[[], float] | None = None) -> Bot:
    """The bot of ``level``; ``budget`` is the search level's seconds per movement decision, measured by
    ``clock`` (wall time by default)."""
    name = str(level).strip().lower()
    if name == "hold":
        from dippouch.bots.base import HoldBot

        return HoldBot()
    if name == "random":
        from dippouch.bots.base import RandomBot

        return RandomBot()
    if name == "heuristic":
        from dippouch.bots.heuristic import HeuristicBot

        return HeuristicBot()
    if name == "search":
        from dippouch.bots.search import SearchBot

        bot = SearchBot()
        if budget is not None:
            bot.budget = budget
        if clock is not None:
            bot.clock = clock
        return bot
    raise BotError(
        msg("unknown bot level %(level)s; the levels are %(levels)s", level=repr(level), levels=", ".join(LEVELS))
    )
