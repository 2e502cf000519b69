"""The command line's words: every line it prints for people is a message value said in the locale's language
(:func:`dippouch.cli.errors.cli_language`), as its refusals are, so a German coordinator reads German from the
first line of a command's output to its last.

What a program reads is not words: JSON, CSV, a report or a variant file written to stdout stays as it is, and
so do names, orders and numbers inside a message (they are its values)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dippouch.cli.errors import cli_language

if TYPE_CHECKING:
    from rich.console import Console

    from dippouch.core.messages import Msg

__all__ = ["figure", "said", "share", "tell"]


def figure(value: float, places: int | None = None) -> str:
    """A score, a rating or a measure as the locale's language writes numbers (``14.29``, ``14,29``)."""
    from dippouch.saying import number

    return number(value, cli_language(), places)


def share(value: float) -> str:
    """``value`` per cent as the locale's language writes a share (``57%``, ``57 %``)."""
    from dippouch.saying import percent

    return percent(value, cli_language())


def said(message: Msg | str) -> str:
    """``message`` in the locale's language (a table's heading, a part of a longer line)."""
    from dippouch.saying import say

    return say(message, cli_language())


def tell(console: Console, message: Msg, *, indent: str = "", end: str = "\n") -> None:
    """Print ``message`` in the locale's language on ``console``: as plain text, since its values (a player's
    name, an order) are people's words, never console markup. ``indent`` sets a line under the one it belongs
    to: layout, not words, so it stays out of the catalogue (a translator would have to keep it)."""
    console.print(indent + said(message), markup=False, end=end)
