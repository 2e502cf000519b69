"""Characters a name others typed may not hold: those not shown as themselves.

A zero-width space makes ``ben-z2-0\u200b`` a second game that looks like ``ben-z2-0`` in every list, and a
right-to-left override turns ``\u202eevil`` around on the page: names are refused with any of them, naming the
character and where it is (security review, finding 14). One finder for the web's doors and the store's own
checks of a game's and its players' names."""

from __future__ import annotations

import unicodedata

__all__ = ["HIDDEN", "hidden_character"]

HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode's categories of characters a reader does not see as themselves: controls (Cc), format characters
such as the zero-width space and the bidirectional overrides (Cf), lone surrogates (Cs), private use (Co),
unassigned code points (Cn), and the line and paragraph separators (Zl, Zp)."""


def hidden_character(text: str) -> tuple[int, str] | None:
    """The first character of ``text`` in :data:`HIDDEN`: its position (the first character is 1) and its code
    point with its Unicode name (``'U+200B ZERO WIDTH SPACE'``; a control has no name: ``'U+0007'``), or
    ``None`` when every character is shown as itself."""
    for position, c in enumerate(text, 1):
        if unicodedata.category(c) in HIDDEN:
            return position, f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip()
    return None
