"""A game over time: deadlines, submissions checked line by line, missed orders, civil disorder, endings.

This package is the game's *rules of procedure*, kept apart from storage (:mod:`dippouch.store`) and from
the command line so that every decision can be tested with plain values. It never reads the clock: every
function that depends on time takes ``now`` as an argument, which is what lets a coordinator (and the
tests) process a game deterministically with ``--now``.

The rules are a package by concern, each module one idea: :mod:`.errors` (the refusals), :mod:`.clock`
(durations, times, zones), :mod:`.settings` (a game's settings), :mod:`.positions` (positions as stored data,
and sight in fog), :mod:`.turns` (who acts, civil disorder), :mod:`.submissions` (the line checks, version
lines and bounds) and :mod:`.endings` (victory and draws). Every public name is here too, so a caller imports
``from dippouch.game import ...`` whichever module holds it.
"""

from __future__ import annotations

from dippouch.core.rules.base import DRAW_HOOKS, VICTORY_HOOKS
from dippouch.game.clock import (
    MAX_DURATION,
    MAX_ZONE_NAME,
    as_utc,
    format_duration,
    parse_duration,
    parse_time,
    read_time_zone,
)
from dippouch.game.endings import (
    DrawNeeds,
    Ending,
    check_victory,
    draw_agreed,
    draw_needs,
    draw_reached,
    game_end,
    surviving_powers,
)
from dippouch.game.errors import Changed, GameError, RecordNotFound
from dippouch.game.positions import in_fog, position_from_data, position_to_data, seen_position
from dippouch.game.settings import DEFAULT_DEADLINES, VOTE_RULES, GameSettings
from dippouch.game.submissions import (
    MAX_ORDER_LINES,
    MAX_ORDER_TEXT,
    MAX_TEXT,
    NO_ORDERS_NOTE,
    SUBMISSION,
    TYPED,
    LineCheck,
    OrderBounds,
    VersionLines,
    check_orders,
    check_size,
    read_version_lines,
    ready_refusal,
    stored_msg,
    submission_stands,
    unordered,
)
from dippouch.game.turns import adjustment_delta, civil_disorder_streak, may_submit, powers_to_act

__all__ = [
    "DEFAULT_DEADLINES",
    "DRAW_HOOKS",
    "MAX_DURATION",
    "MAX_ORDER_LINES",
    "MAX_ORDER_TEXT",
    "MAX_TEXT",
    "MAX_ZONE_NAME",
    "NO_ORDERS_NOTE",
    "SUBMISSION",
    "TYPED",
    "VICTORY_HOOKS",
    "VOTE_RULES",
    "Changed",
    "DrawNeeds",
    "Ending",
    "GameError",
    "GameSettings",
    "LineCheck",
    "OrderBounds",
    "RecordNotFound",
    "VersionLines",
    "adjustment_delta",
    "as_utc",
    "check_orders",
    "check_size",
    "check_victory",
    "civil_disorder_streak",
    "draw_agreed",
    "draw_needs",
    "draw_reached",
    "format_duration",
    "game_end",
    "in_fog",
    "may_submit",
    "parse_duration",
    "parse_time",
    "position_from_data",
    "position_to_data",
    "powers_to_act",
    "read_time_zone",
    "read_version_lines",
    "ready_refusal",
    "seen_position",
    "stored_msg",
    "submission_stands",
    "surviving_powers",
    "unordered",
]
