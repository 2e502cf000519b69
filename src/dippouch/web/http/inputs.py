"""What the web takes from its visitors and says back to them in words: names, order text and durations
checked at the door (refused with what is wrong, before any work is done), and the game layer's messages
with the web's own page and button for what the command line would do."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import timedelta
from typing import Any

from fastapi.exceptions import RequestValidationError

from dippouch.characters import hidden_character
from dippouch.core.messages import Msg, msg
from dippouch.game import parse_duration
from dippouch.numbers import MAX_DIGITS, number_or_none
from dippouch.saying import DOOR_HINTS
from dippouch.web.http.security import BadInput

I18N_DOMAIN = "site"

__all__ = [
    "WEB_HINTS",
    "duration",
    "duration_text",
    "json_object",
    "names",
    "number",
    "number_or_none",
]

WEB_HINTS: dict[str, Msg] = {
    "replace": msg("use Replace on the game's coordinator page to hand it over"),
    "assign": msg("seat a player first (Seat, on the game's coordinator page)"),
    "new-game": msg("create one on the Coordinate page"),
    "import-name": msg('import it under another name (the form\'s "As name")'),
    "export-unsealed": msg(
        "export it again from that game's coordinator page with \"Export with this phase's orders unsealed\" (with "
        "a reason, which its players are shown)"
    ),
    "upgrade-variant": msg(
        "the game's coordinator can switch the game to the variant file (upgrade-variant, on the server)"
    ),
    "run-upgrade-variant": msg("the game's coordinator runs upgrade-variant on the server"),
    "history": msg("the game page's history lists its phases"),
    "variant": msg("create the game with variant %(variant)s"),
}
"""What the layers' hints (:class:`dippouch.core.messages.Hint`, by key) say on the web: the page and button that
do what the command line's command would. The layers write the command line's words; the web says these."""
DOOR_HINTS["web"] = WEB_HINTS


Say = Callable[[str], str]
"""A reader's gettext (``words(request).gettext``), or ``str`` for English (the JSON API, the command line)."""


def names(value: str, what: str | Msg, limit: int = 100, *, say: Say = str) -> str:
    """``value`` as a one-line name of 1 to ``limit`` characters, each shown as itself (no control, zero-width or
    bidirectional character: :func:`dippouch.characters.hidden_character`). The refusal is a message value, said
    where it is shown; ``what`` names the field in it (a message, said with it, or words the caller already put
    in the reader's language: ``say`` is the caller's, kept for the words it passes)."""
    text = str(value).strip()
    if not text or len(text) > limit:
        raise BadInput(msg("%(what)s must be 1 to %(most)s characters", what=what, most=limit))
    hidden = hidden_character(text)
    if hidden is not None:
        raise BadInput(
            msg(
                "%(what)s contains %(character)s at position %(position)s: invisible and control characters are "
                "not allowed (they make one name look like another)",
                what=what,
                character=hidden[1],
                position=hidden[0],
            )
        )
    return text


def number(text: str | None, what: str | Msg, *, lo: int = 0, hi: int = 10**MAX_DIGITS - 1, say: Say = str) -> int:
    """``text`` as a whole number from ``lo`` to ``hi``, or :class:`BadInput` saying what was wrong with it (a
    message value, as :func:`names`): one reading for every number a form, a query or a header brings."""
    value = number_or_none(text)
    if value is None:
        shown = (text or "")[:20] + ("..." if text and len(text) > 20 else "")
        raise BadInput(
            msg(
                "%(what)s must be a whole number from %(least)s to %(most)s, not %(value)s",
                what=what,
                least=lo,
                most=hi,
                value=repr(shown),
            )
        )
    if not lo <= value <= hi:
        raise BadInput(
            msg("%(what)s must be from %(least)s to %(most)s, not %(value)s", what=what, least=lo, most=hi, value=value)
        )
    return value


def duration(text: str, what: str | Msg, *, say: Say = str) -> timedelta:
    """A typed duration (12d, 36h ...), at most ten years; refused with a message value, as :func:`names`."""
    try:
        td = parse_duration(names(text, what, 20, say=say))
    except OverflowError:
        raise BadInput(msg("%(what)s %(text)s is far too long", what=what, text=repr(text))) from None
    if td > timedelta(days=3650):
        raise BadInput(msg("%(what)s %(text)s is more than ten years", what=what, text=repr(text)))
    return td


def duration_text(td: timedelta) -> str:
    total = int(td.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days}d"] if days else []
    if hours or days:
        parts.append(f"{hours}h")
    parts.append(f"{minutes}m")
    return " ".join(parts)


def phase_deadlines(deadlines: Mapping[str, str], *, say: Say) -> None:
    """Each phase kind's typed deadline (``movement``, ``retreats``, ``adjustments``) read as a duration of at
    least one minute (a field's name in a refusal is a message value; the plain refusals are in ``say``'s words,
    the caller's gettext): the new-game form and the desk's change of deadlines read them alike."""
    _ = say
    deadline_of = {
        "movement": msg("the movement deadline"),
        "retreats": msg("the retreats deadline"),
        "adjustments": msg("the adjustments deadline"),
    }
    too_short = {
        "movement": _("the movement deadline must be at least one minute"),
        "retreats": _("the retreats deadline must be at least one minute"),
        "adjustments": _("the adjustments deadline must be at least one minute"),
    }
    for k, t in deadlines.items():
        if duration(t, deadline_of[k], say=say) < timedelta(minutes=1):
            raise BadInput(too_short[k])


def json_object(raw: bytes) -> dict[str, Any]:
    """A request body read by its route (one that must know its caller first), as a JSON object: refused as
    FastAPI refuses a body parameter's, so the answer says the same whichever way the body was read."""
    if not raw:
        raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}])
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as e:  # bad JSON or UTF-8, an integer of thousands of digits, [[[[...
        where = e.pos if isinstance(e, json.JSONDecodeError) else e.start if isinstance(e, UnicodeDecodeError) else 0
        raise RequestValidationError(
            [{"type": "json_invalid", "loc": ("body", where), "msg": "JSON decode error", "input": {}}]
        ) from None
    if not isinstance(data, dict):
        raise RequestValidationError(
            [{"type": "dict_type", "loc": ("body",), "msg": "Input should be a valid dictionary", "input": data}]
        )
    return data
