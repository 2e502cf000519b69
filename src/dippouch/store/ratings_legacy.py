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

import re
from collections.abc import Callable
from functools import cache
from typing import Any

import sqlalchemy as sa

from dippouch.core.messages import N_, Arg, Msg
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

_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")
_DEPTH = 4
"""How deep reasons nest ("cannot be read: game 'x' cannot be scored under dss: ..."): a bound, not a rule."""


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str, dict[str, str]], ...]:
    out = []
    for template, kinds in TEMPLATES:
        said = dict(k.split("=") for k in kinds.split())
        parts: list[str] = []
        last = 0
        for m in _PLACEHOLDER.finditer(template):
            parts.append(re.escape(template[last : m.start()]))
            name, conv = m.group(1), m.group(2)
            parts.append(rf"(?P<{name}>-?\d+)" if conv == "d" else rf"(?P<{name}>.+?)")
            if conv == "d":
                said[name] = "d"
            last = m.end()
        parts.append(re.escape(template[last:]))
        out.append((re.compile("".join(parts), re.DOTALL), template, said))
    return tuple(out)


def problem_read_back(text: str, _depth: int = 0) -> Msg | None:
    """The message of a stored problem's English ``text``, or ``None`` when no template reads it whole (and
    says exactly ``text`` again)."""
    if _depth > _DEPTH:
        return None
    for pattern, template, kinds in _patterns():
        found = pattern.fullmatch(text)
        if found is None:
            continue
        args: dict[str, Arg] = {}
        for name, value in found.groupdict().items():
            kind = kinds.get(name, "s")
            if kind == "d":
                args[name] = int(value)
            elif kind == "m":
                inner = problem_read_back(value, _depth + 1)
                if inner is None:
                    break
                args[name] = inner
            else:
                args[name] = value
        else:
            said = Msg(template, args)
            # A reading that would change a single character is no reading.
            if str(said) == text:
                return said
    return None


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


def _walk(conn: sa.Connection, change: Callable[[str, Any], Msg | None], batch: int) -> int:
    """Ask ``change`` for each stored problem's message, ``batch`` rows at a time by id; write those it gives.
    The number of rows written."""
    ident = _GAMES.c.game_id
    written = 0
    last = -1
    while True:
        rows = conn.execute(
            sa.select(ident, _GAMES.c.problem, _GAMES.c.why)
            .where(ident > last, _GAMES.c.problem.is_not(None))
            .order_by(ident)
            .limit(batch)
        ).all()
        if not rows:
            return written
        for row_id, problem, why in rows:
            m = change(str(problem), why)
            if m is not None:
                conn.execute(_GAMES.update().where(ident == row_id).values(why=m.to_data()))
                written += 1
        last = rows[-1][0]
