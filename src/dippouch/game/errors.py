"""The game layer's refusals: what a coordinator or player asked for that the game cannot do."""

from __future__ import annotations

from dippouch.core.errors import DippouchError, NotFound


class GameError(DippouchError):
    """Something a coordinator or player asked for that the game cannot do (as it stands)."""


class Changed(GameError):
    """What was asked rests on what the asker last read, and that changed since: orders typed over version 2
    while another tab, device or door sent version 3. Refused, so that nothing a player sent is replaced
    without their word; the doors answer 409 and show what stands now."""


class RecordNotFound(GameError, NotFound):
    """A game, person, phase, channel or seat asked for by name or number is not in the database.

    A :class:`GameError` as well, so a caller that turns the game's refusals into its own answer (a mail
    reply, a coordinator's message) answers this one too; the doors read :class:`NotFound` and say 404."""


# --------------------------------------------------------------------------------------------------
# Time


I18N_DOMAIN = "rules"
"""The catalogue of the rules of procedure's messages (refusals, endings), as the core's."""
