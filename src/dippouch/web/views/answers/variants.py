"""The JSON API's answers: variants, their moves and the adjudication contract."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer, Said
from dippouch.web.views.answers.games import Place

__all__ = [
    "AdjudicationAnswer",
    "KeyPlace",
    "MovesAnswer",
    "ProvinceAnswer",
    "UnitMoves",
    "VariantOption",
    "VariantPower",
    "VariantView",
]


# Variants


class VariantPower(Answer):
    name: str
    adjective: str
    letter: str
    colour: str
    homes: list[str]
    units: list[str]
    centres: int


class KeyPlace(Answer):
    abbr: str
    name: str
    kind: str
    centre: bool
    coasts: list[str]
    aliases: list[str]
    owner: str | None


class VariantOption(Answer):
    key: str
    default: Any
    description: str
    values: list[str]


class VariantView(Answer):
    name: str
    title: str
    description: str
    summary: list[Said]
    powers: list[VariantPower]
    builds_anywhere: bool
    centres: list[str]
    key: list[KeyPlace]
    options: list[VariantOption]
    map_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """The opening position's picture, for the variant's page only: never sent, not in the OpenAPI document."""


class ProvinceAnswer(Answer):
    abbr: str
    name: str
    kind: str
    centre: bool


class UnitMoves(Answer):
    unit: str
    location: str
    label: str
    moves: list[Place]


class MovesAnswer(Answer):
    variant: str
    query: str
    province: ProvinceAnswer | None
    matches: list[Place]
    units: list[UnitMoves]
    suggestions: list[str] | None = None


class AdjudicationAnswer(Answer):
    """docs/adjudication-contract.md: each order's resolution and the next phase's request (or an error)."""

    results: list[dict[str, Any]] | None = None
    next: dict[str, Any] | None = None
    error: str | None = None
