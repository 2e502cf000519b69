"""A variant's geometry document in one call: its board, seeds, the fitted (or plain) shapes, the JSON.

Kept apart from :mod:`dippouch.render.mapgen.build` (the board, shapes and document) and
:mod:`dippouch.render.mapgen.fit` (moving seeds until the checks pass), since fitting uses the build's shapes:
this module imports both, and neither imports the other back (tests/project/test_import_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shapely.errors import GEOSException

from dippouch.core.messages import msg
from dippouch.core.variant import Variant
from dippouch.render.mapgen.build import (
    MapgenError,
    Shapes,
    base_seeds,
    make_board,
    outline_shapes,
    plain_shapes,
    to_json,
)
from dippouch.render.mapgen.fit import fit_seeds

I18N_DOMAIN = "rules"
"""The catalogue of the map builder's refusals (said where they are shown: the command line)."""

__all__ = ["build"]


def build(variant: Variant, *, fit: bool = True) -> dict[str, Any]:
    """The geometry document. Fitting is an improvement, not a requirement: should it fail on a map the
    geometry library cannot overlay (provinces on one spot, a graph no plane drawing has), the plain shapes
    are written instead; should those fail too, the error names the variant (no traceback)."""
    try:
        b = make_board(variant)
    except MapgenError:
        raise
    except _FAILURES as e:
        raise _refusal(variant, e) from None
    seeds = base_seeds(b)
    # An imported picture's own shapes are drawn as given: nothing to fit.
    attempts: list[Callable[[], Shapes]]
    if b.outlines:
        attempts = [lambda: outline_shapes(b, seeds)]
    elif fit:
        attempts = [lambda: fit_seeds(b, seeds), lambda: plain_shapes(b, seeds)]
    else:
        attempts = [lambda: plain_shapes(b, seeds)]
    failure: Exception | None = None
    for attempt in attempts:
        try:
            return to_json(variant, b, attempt())
        except MapgenError:
            raise
        except (GEOSException, *_FAILURES) as e:
            failure = e
    if isinstance(failure, GEOSException):
        raise failure  # the command says it was the geometry library, and what to move
    raise _refusal(variant, failure)


#: What a geometry step raises on a map it cannot draw (numpy, scipy and shapely included).
_FAILURES = (ArithmeticError, LookupError, TypeError, ValueError)


def _refusal(variant: Variant, e: Exception | None) -> MapgenError:
    return MapgenError(
        msg(
            "the map of %(variant)s could not be built (%(error)s); check the provinces' points (two on one spot?) "
            "and borders with `dippouch mapcheck`",
            variant=repr(variant.name),
            error=f"{type(e).__name__}: {e}",
        )
    )
