"""The opening explorer: a power's openings in a variant's public finished games, node by node."""

from __future__ import annotations

from pydantic import Field

from dippouch.web.views.answers.base import Answer

__all__ = [
    "ExplorerBranch",
    "ExplorerIndex",
    "ExplorerStep",
    "ExplorerVariant",
    "ExplorerView",
    "NodeFigures",
    "OutcomeCount",
    "YearMean",
]


class YearMean(Answer):
    year: int
    mean: float | None = Field(description="The power's mean centres at the end of the year; null: no game got there.")
    games: int = Field(description="How many games the mean is over (those that reached the end of the year).")


class OutcomeCount(Answer):
    outcome: str = Field(description="wins, draws, survivals or eliminations (of the power).")
    games: int
    share: float = Field(description="Percent of the node's games, one decimal.")


class NodeFigures(Answer):
    """What the games through a node did."""

    games: int
    centres: list[YearMean]
    outcomes: list[OutcomeCount]


class ExplorerStep(Answer):
    """One step of the path: the power's orders in a phase (sorted; empty: it sent none)."""

    phase: str
    orders: list[str]
    path: str = Field(description="The path up to and with this step (for ?path=).")


class ExplorerBranch(Answer):
    """A continuation: the next step some games played, with what those games did."""

    phase: str
    orders: list[str]
    path: str = Field(description="The path to it (for ?path=).")
    share: float = Field(description="Percent of the node's games that played it, one decimal.")
    figures: NodeFigures


class ExplorerView(Answer):
    """``GET /api/explorer/{variant}/{power}``: one node of the power's openings (``?path=``; empty: the root)."""

    variant: str
    variant_title: str
    power: str
    powers: list[str] = Field(description="Every power of the variant (to explore another).")
    path: str
    steps: list[ExplorerStep]
    total: int = Field(description="The variant's public finished games played from its first phase.")
    years: list[int] = Field(description="The first years the explorer follows.")
    figures: NodeFigures
    branches: list[ExplorerBranch] = Field(description="The continuations, most played first.")


class ExplorerVariant(Answer):
    name: str
    title: str
    powers: list[str]
    games: int = Field(description="Its public finished games.")


class ExplorerIndex(Answer):
    """``GET /api/explorer``: every variant with its powers and its public finished games, the most first."""

    variants: list[ExplorerVariant]
