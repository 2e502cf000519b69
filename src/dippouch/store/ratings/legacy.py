"""Why a counted game could not be scored, as the ratings stored it before it was a message value, read back
into its message (migration 0032).

Until then ``rating_games.problem`` kept only the English: the scoring's refusal ("game 'x' cannot be scored
under dss: nobody survived to share the game") or a game that could not be read ("cannot be read: ..."). The
migration reads each such text, once, against the sentences the ratings and the scoring wrote then
(:data:`TEMPLATES`, a frozen copy: a migration must do the same on every database whenever it runs, whatever
the scoring's wording becomes) and stores the message beside it (``why``), so the ratings page says it in its
reader's language. A text no template reads whole, with every nested reason read too, is left as it is (said
as it is) and counted.

Each template says what its placeholders held, as :mod:`dippouch.store.legacy_text`'s do: a name (``s``, the
default), a number (``%d``) or a nested message (``m``).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import N_, Msg
from dippouch.store.legacy_reader import Change, SentenceReader, walk_texts
from dippouch.store.legacy_text import BATCH, Counts

__all__ = [
    "I18N_DOMAIN",
    "TEMPLATES",
    "add_problem_messages",
    "problem_read_back",
    "remove_problem_messages",
]

I18N_DOMAIN = "rules"
"""The catalogue the frozen templates are translated in (the scoring's)."""

TEMPLATES: tuple[tuple[str, str], ...] = (
    # dippouch.play.ratings and dippouch.play.records: the wrappers around the reason.
    (N_("game %(game)s cannot be scored under %(system)s: %(reason)s"), "reason=m"),
    (N_("cannot be read: %(reason)s"), "reason=m"),
    (N_("game %(game)s: the game is not finished: it is scored once it ends"), ""),
    # dippouch.ranking.scoring: a game's facts no system can score, and the formulas' refusals.
    (N_("a game to score needs at least one power"), ""),
    (N_("a power is listed twice: %(powers)s"), ""),
    (N_("%(power)s cannot hold %(centres)d centres"), ""),
    (N_("%(power)s is eliminated but holds %(centres)d centres"), ""),
    (N_("a game ends in a solo or a draw, not both"), ""),
    (N_("the winner %(winner)s is not one of the powers (%(powers)s)"), ""),
    (N_("the draw names powers not in the game: %(powers)s"), ""),
    (N_("an eliminated power cannot share the result: %(powers)s"), ""),
    (N_("the centres for victory must be at least 1"), ""),
    (N_("the board has %(board)d centres but the powers hold %(held)d"), ""),
    (N_("nobody survived to share the game"), ""),
    (N_("no power holds a centre: sum of squares has nothing to share"), ""),
)
"""Each sentence the stored problems were written with, and the kinds of its placeholders."""

_READER = SentenceReader(TEMPLATES, depth=4)
"""Reasons nest at most four deep ("cannot be read: game 'x' cannot be scored under dss: ..."): a bound, not a
rule."""


def problem_read_back(text: str) -> Msg | None:
    """The message of a stored problem's English ``text``, or ``None`` when no template reads it whole (and
    says exactly ``text`` again)."""
    return _READER.read_back(text)


# --------------------------------------------------------------------------------------------------
# The rows: rating_games' "problem" beside "why", as migration 0032 found them.

_GAMES = sa.table(
    "rating_games",
    sa.column("game_id", sa.Integer()),
    sa.column("problem", sa.Text()),
    sa.column("why", sa.JSON()),
)


def add_problem_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Give every stored problem without message data its message (``why``), beside its text (which stays);
    a text no template reads is left alone and counted. A second walk finds nothing left to do."""
    counts = Counts()

    def add(problem: str, why: Any) -> Msg | None:
        if why is not None:
            return None
        m = problem_read_back(problem)
        if m is None:
            counts.unreadable += 1
            return None
        counts.converted += 1
        return m

    counts.rows = _walk(conn, add, batch)
    return counts


def remove_problem_messages(conn: sa.Connection, batch: int = BATCH) -> Counts:
    """Count the message data :func:`add_problem_messages` would add back (the downgrade drops the column)."""
    counts = Counts()

    def count(problem: str, why: Any) -> Msg | None:
        if why is not None:
            counts.converted += 1
        return None

    counts.rows = _walk(conn, count, batch)
    return counts


def _walk(conn: sa.Connection, change: Change, batch: int) -> int:
    return walk_texts(conn, _GAMES, "game_id", "problem", "why", change, batch)
