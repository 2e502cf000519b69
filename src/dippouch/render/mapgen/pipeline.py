"""A variant's geometry document in one call: its board, seeds, the fitted (or plain) shapes, the JSON.

Kept apart from :mod:`dippouch.render.mapgen.build` (the board, shapes and document) and
:mod:`dippouch.render.mapgen.fit` (moving seeds until the checks pass), since fitting uses the build's shapes:
this module imports both, and neither imports the other back (tests/project/test_import_layers.py).
"""

from __future__ import annotations

from typing import Any

from dippouch.core.variant import Variant
from dippouch.render.mapgen.build import base_seeds, make_board, outline_shapes, plain_shapes, to_json
from dippouch.render.mapgen.fit import fit_seeds

__all__ = ["build"]


def build(variant: Variant, *, fit: bool = True) -> dict[str, Any]:
    b = make_board(variant)
    seeds = base_seeds(b)
    # An imported picture's own shapes are drawn as given: nothing to fit.
    shapes = outline_shapes(b, seeds) if b.outlines else fit_seeds(b, seeds) if fit else plain_shapes(b, seeds)
    return to_json(variant, b, shapes)
