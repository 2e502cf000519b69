"""Ratings: the leaderboards (overall and per variant) and the hall of fame."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer

__all__ = ["FameLine", "Leaderboard", "RatingLine", "RatingsView"]


class RatingLine(Answer):
    """A person's place on a leaderboard."""

    rank: int = Field(description="1 for the best; equal ratings share a rank.")
    person_id: int
    name: str | None = Field(description="Their name now; null for a person who deleted their data.")
    rating: float = Field(description="Ghost Ratings' rating, two decimals; everybody starts at 100.")
    games: int = Field(description="Rated games they played in this pool.")
    finished: float | None = Field(
        description="The rating's reliability: percent of their rated games they finished without civil disorder; "
        "null when that is known for none of them."
    )


class Leaderboard(Answer):
    """One pool's best players."""

    variant: str | None = Field(description="The variant group; null for the overall leaderboard.")
    title: str
    people: int = Field(description="Everybody rated in this pool (the lines are the best of them).")
    games: int = Field(description="The games that rated somebody in this pool.")
    page: int = Field(description="The page of the leaderboard the lines are (from 1).")
    pages: int = Field(description="Its pages of ``top`` lines.")
    one_on_one: bool = Field(
        default=False, description="A one-on-one variant's pool: rated apart, its games not in the overall one."
    )
    lines: list[RatingLine]


class FameLine(Answer):
    """A result in the hall of fame, with its game."""

    game: str
    variant: str
    ended_at: datetime
    power: str
    person_id: int
    name: str | None
    score: float = Field(description="Under the game's own scoring system (system), two decimals.")
    system: str
    share: float = Field(description="Percent of the game's points its rated players scored between them.")


class RatingsView(Answer):
    """``GET /api/ratings``: the overall leaderboard and one per variant (or only ``?variant=``'s), and the hall
    of fame: every solo (newest first) and the best results short of a solo (largest share first)."""

    top: int = Field(description="The most lines a leaderboard or a hall-of-fame list holds.")
    page: int = Field(description="The page asked for, of the overall leaderboard or of ``variant``'s.")
    variant: str | None = Field(description="The variant asked for; null for all of them.")
    variants: list[str] = Field(description="Every variant that has a leaderboard.")
    overall: Leaderboard
    by_variant: list[Leaderboard]
    solos: list[FameLine]
    best: list[FameLine]
    unscored: list[str] = Field(description="Finished games that count but could not be scored (with why).")
    variant_titles: SkipJsonSchema[dict[str, str] | None] = Field(default=None, exclude=True)
    """Variant name -> its title, for the page."""
