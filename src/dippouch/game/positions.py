"""Positions as stored data (the adjudication contract's shape, with names, so a game file is readable), and what one power sees of a position in fog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dippouch.core.jsonio import JsonInputError, position_from_json, position_to_json
from dippouch.core.messages import msg
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game.errors import GameError
from dippouch.game.settings import GameSettings

I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""


def seen_position(variant: Variant, position: Position, power: str, settings: GameSettings) -> Position:
    """The position ``power``'s orders are checked on when they arrive: in a fog-of-war game only what the power
    sees (:mod:`dippouch.core.sight`), so that neither the check's verdicts nor its suggestions tell of a unit out of
    sight (a support of a unit the power cannot see is refused as of no unit there); else the position itself."""
    if not settings.fog:
        return position
    from dippouch.core.sight import sight, veil

    return veil(position, sight(variant, position, power))


def in_fog(record: Mapping[str, Any]) -> bool:
    """Whether a stored phase (with its game's ``settings`` and ``ending``, as the store's phase record has them)
    is of a fog-of-war game still running (:attr:`GameSettings.fog`): what it tells each power must then be narrowed
    to their sight (:func:`dippouch.render.fog.fog_record`)."""
    settings = record.get("settings") or {}
    return bool(isinstance(settings, Mapping) and settings.get("fog")) and not record.get("ending")


def position_to_data(variant: Variant, position: Position) -> dict[str, Any]:
    """A position as games store it: the adjudication contract's JSON shape, so there is one serialisation."""
    return position_to_json(variant, position)


# What a stored position leaves out is empty, not the variant's start (the contract's reading default).
_STORED_DEFAULTS: dict[str, Any] = {"units": [], "supply_centers": {}, "home_centers": {}, "state": {}}


def position_from_data(variant: Variant, data: Mapping[str, Any]) -> Position:
    """Read a stored or imported position; wrong names give a :class:`GameError`, not a traceback."""
    if not isinstance(data, Mapping):
        raise GameError(msg("a position is a JSON object with 'phase', 'units', 'supply_centers' and 'home_centers'"))
    if data.get("phase") is None:
        raise GameError(msg("position: bad or missing phase (no 'phase')"))
    try:
        return position_from_json(variant, {**_STORED_DEFAULTS, **data})
    except JsonInputError as e:
        raise GameError(msg("position: %(reason)s", reason=e.msg)) from None
