"""The fitting step: add shaping seeds until the drawn borders equal the border graph."""

from __future__ import annotations

from dippouch.render.mapgen.build import Board, Seed, Shapes, plain_shapes


def fit_seeds(b: Board, seeds: list[Seed]) -> Shapes:
    return plain_shapes(b, seeds)
