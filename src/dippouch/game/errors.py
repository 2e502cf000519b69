"""The game layer's refusals: what a coordinator or player asked for that the game cannot do."""

from __future__ import annotations

from dippouch.core.errors import DippouchError, NotFound


class GameError(DippouchError):
    """Something a coordinator or player asked for that the game cannot do (as it stands)."""


class RecordNotFound(GameError, NotFound):
    """A game, person, phase, channel or seat asked for by name or number is not in the database.

    A :class:`GameError` as well, so a caller that turns the game's refusals into its own answer (a mail
    reply, a coordinator's message) answers this one too; the doors read :class:`NotFound` and say 404."""


# --------------------------------------------------------------------------------------------------
# Time


I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""
