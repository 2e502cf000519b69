"""Numbers read from text that others wrote: a web form, a query, a path, a header, a token in a mail's link.

One reader for all of them, low in the stack so that every door (the web, mail) reads a number the same way:
``str.isdigit`` followed by ``int`` is not one, because ``isdigit`` also accepts superscripts and other
scripts' digits, some of which ``int`` refuses (``'²'``: a 500 where a refusal was due) and some of which it
reads (``'١٢'`` is 12), and ``int`` also takes ``'1_000'`` and spaces."""

from __future__ import annotations

__all__ = ["MAX_DIGITS", "number_or_none"]

MAX_DIGITS = 12
"""Digits a typed number may have: every count, id and year here fits in twelve, and a longer string is refused
before ``int`` spends time on it (Python limits ``int`` of a long string, but only past 4,300 digits)."""


def number_or_none(text: str | None) -> int | None:
    """``text`` as a whole number of ASCII digits (an optional minus sign, spaces around it), or None when it is
    not one: only ``0-9`` are a number here, so a typed character is a refusal, never a 500."""
    if text is None:
        return None
    t = text.strip()
    body = t[1:] if t.startswith("-") else t
    if not body or len(body) > MAX_DIGITS or not (body.isascii() and body.isdigit()):
        return None
    return int(t)
