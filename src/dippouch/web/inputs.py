"""What the web takes from its visitors and says back to them in words: names, order text and durations
checked at the door (refused with what is wrong, before any work is done), and the game layer's messages
with the web's own page and button for what the command line would do."""

from __future__ import annotations

import re
from datetime import timedelta

from dippouch.game import parse_duration
from dippouch.web.security import BadInput

__all__ = [
    "duration",
    "duration_text",
    "names",
    "number",
    "number_or_none",
    "web_words",
]

# The game layer's messages end with what to do at the command line; on the web each says what to do there.
_WEB_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (
            r"use `dippouch players replace` to hand it over",
            "use Replace on the game's coordinator page to hand it over",
        ),
        (
            r"seat a player first \(`dippouch players assign`\)",
            "seat a player first (Seat, on the game's coordinator page)",
        ),
        (r"create one with `dippouch new`", "create one on the Coordinate page"),
        (r"import it with --name NEW", 'import it under another name (the form\'s "As name")'),
        (
            r"export it again with `dippouch export --unsealed(?: --reason TEXT)?`",
            "export it again from that game's coordinator page with \"Export with this phase's orders unsealed\" (with a reason, which its players are shown)",
        ),
        (
            r"`dippouch upgrade-variant [^`]*` switches the game to the variant file",
            "the game's coordinator can switch the game to the variant file (upgrade-variant, on the server)",
        ),
        (r"`dippouch upgrade-variant [^`]*`", "the game's coordinator runs upgrade-variant on the server"),
        (r" \(see `dippouch history`\)", " (the game page's history lists its phases)"),
        (r" \(use --variant ([\w-]+)\)", r" (create the game with variant \1)"),
    )
)


def web_words(message: str) -> str:
    """A game layer message as a web visitor should read it: a command-line hint becomes the page and button
    that do the same on the web (the rule and the refusal stay the game layer's own words)."""
    for pattern, words in _WEB_WORDS:
        message = pattern.sub(words, message)
    return message


def names(value: str, what: str, limit: int = 100) -> str:
    text = str(value).strip()
    if not text or len(text) > limit:
        raise BadInput(f"{what} must be 1 to {limit} characters")
    if any(ord(c) < 32 for c in text) or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise BadInput(f"{what} contains control characters")
    return text


MAX_DIGITS = 12
"""Digits a typed number may have: every count, id and year here fits in twelve, and a longer string is refused
before ``int`` spends time on it (Python limits ``int`` of a long string, but only past 4,300 digits)."""


def number_or_none(text: str | None) -> int | None:
    """``text`` as a whole number of ASCII digits (an optional minus sign), or None when it is not one.

    ``str.isdigit`` also accepts superscripts and other scripts' digits, some of which ``int`` refuses (``'²'``):
    only ``0-9`` are a number here, so a typed character is a refusal, never a 500."""
    if text is None:
        return None
    t = text.strip()
    body = t[1:] if t.startswith("-") else t
    if not body or len(body) > MAX_DIGITS or not (body.isascii() and body.isdigit()):
        return None
    return int(t)


def number(text: str | None, what: str, *, lo: int = 0, hi: int = 10**MAX_DIGITS - 1) -> int:
    """``text`` as a whole number from ``lo`` to ``hi``, or :class:`BadInput` saying what was wrong with it: one
    reading for every number a form, a query or a header brings."""
    value = number_or_none(text)
    if value is None:
        shown = (text or "")[:20] + ("..." if text and len(text) > 20 else "")
        raise BadInput(f"{what} must be a whole number from {lo} to {hi}, not {shown!r}")
    if not lo <= value <= hi:
        raise BadInput(f"{what} must be from {lo} to {hi}, not {value}")
    return value


def duration(text: str, what: str) -> timedelta:
    try:
        td = parse_duration(names(text, what, 20))
    except OverflowError:
        raise BadInput(f"{what} {text!r} is far too long") from None
    if td > timedelta(days=3650):
        raise BadInput(f"{what} {text!r} is more than ten years")
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
