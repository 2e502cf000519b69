"""The board picture on the web pages: one function between the pages and the map renderer.

The renderer (:mod:`dippouch.render`, the maps issue) draws a position with its orders and results as
SVG. Until it is installed this module answers ``None`` and the pages show a plain "map not yet
available" panel in its place; nothing else in the web app knows how maps are drawn. Pictures are
cached per phase: a processed phase never changes, and an open phase's picture depends only on its
position (orders stay hidden until processing).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from dippouch.core.variant import Variant

__all__ = ["map_available", "phase_svg"]

_CACHE: OrderedDict[tuple[Any, ...], str | None] = OrderedDict()
_LOCK = threading.Lock()
_CACHE_SIZE = 256


def map_available() -> bool:
    try:
        import dippouch.render  # noqa: F401
    except ImportError:
        return False
    return True


def phase_svg(
    variant: Variant,
    key: tuple[Any, ...],
    position: Mapping[str, Any],
    orders: Mapping[str, Sequence[str]] | None = None,
    results: Sequence[Mapping[str, Any]] | None = None,
) -> str | None:
    """The SVG of a stored position (``game.position_to_data`` shape) with orders and results, or None.

    ``key`` names the picture for the cache (game, phase id, which view); the same key must always mean
    the same picture.
    """
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    svg = _draw(variant, position, orders, results)
    with _LOCK:
        _CACHE[key] = svg
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return svg


def _draw(
    variant: Variant,
    position: Mapping[str, Any],
    orders: Mapping[str, Sequence[str]] | None,
    results: Sequence[Mapping[str, Any]] | None,
) -> str | None:
    try:
        from dippouch import render
    except ImportError:
        return None
    from dippouch.game import position_from_data

    pos = position_from_data(variant, position)
    return str(render.render_svg(variant, pos, orders, results))
