"""What the variant loader and the variant file checker (:mod:`dippouch.core.schema`) both need at once.

Kept out of the schema so that a command playing a variant already built (read back from
:mod:`dippouch.core.compiled`) does not import the schema's declarations, which only checking a file needs.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

__all__ = ["BEHAVIOUR_SOURCE", "NAME_SOURCES", "closest"]

#: Names from the core's registries, provided by the modules that own them (``core.variant``: map hooks;
#: ``core.rules.base``: hook sets, victory and draw hooks, and the behaviours of each hook point), so that
#: the schema imports none of them and the core's imports keep pointing one way.
NAME_SOURCES: dict[str, Callable[[], list[str]]] = {}
BEHAVIOUR_SOURCE: list[Callable[[str], list[str]]] = []


def closest(word: str, pool: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The closest name in ``pool`` (case-insensitive), for "did you mean" hints."""
    lowered = {p.lower(): p for p in pool}
    got = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[got[0]] if got else None
