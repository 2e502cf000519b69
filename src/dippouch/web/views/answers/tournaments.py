"""Tournaments: the list, and one tournament's standings and games."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer
from dippouch.web.views.answers.records import ScoringSystemInfo

__all__ = ["StandingLine", "TournamentGameLine", "TournamentLine", "TournamentView", "TournamentsView"]


class TournamentLine(Answer):
    """A tournament in the list."""

    name: str
    system: str = Field(description="The scoring system's name (its title in system_title).")
    system_title: str
    variant: str | None = Field(description="The one variant its games play; null for any.")
    games: int = Field(description="Its games, private ones included (they are not named anywhere).")
    finished: int = Field(description="Those of its games that are finished.")
    created_at: datetime


class TournamentsView(Answer):
    """``GET /api/tournaments``: every tournament, the newest first."""

    tournaments: list[TournamentLine]
    systems: list[ScoringSystemInfo] = Field(description="The systems a new tournament may be scored under.")
    may_create: SkipJsonSchema[bool | None] = Field(default=None, exclude=True)
    """Whether the page shows the form that creates one."""
    variants: SkipJsonSchema[list[str] | None] = Field(default=None, exclude=True)
    """The variants the form offers."""


class StandingLine(Answer):
    """A player's place in the standings."""

    rank: int = Field(description="1 for the best; equal totals with equal best games share a rank.")
    person_id: int | None = Field(description="The person; null for a player entered by name only.")
    name: str | None = Field(description="Their name; null for a person who deleted their data.")
    total: float = Field(description="The sum of their scores in the counted games, four decimals.")
    games: int = Field(description="The counted games they played.")
    best: float = Field(description="Their best single game's score (the first tie-break), four decimals.")


class TournamentGameLine(Answer):
    """A game of the tournament."""

    game: str
    round: int | None = Field(description="The round it is played in; null when the tournament has none.")
    variant: str | None = Field(description="null for a game that no longer exists.")
    status: str = Field(description="counted, in progress, unscored, practice or missing.")
    note: str | None = Field(description="Its ending when counted; why it is not counted otherwise.")


class TournamentView(Answer):
    """``GET /api/tournaments/{name}``: the standings under the tournament's system, and its games."""

    name: str
    system: ScoringSystemInfo = Field(description="The system every game is scored under (source: its definition).")
    variant: str | None
    created_at: datetime
    standings: list[StandingLine] = Field(description="Best first (the tie-breaks: docs/tournaments.md).")
    games: list[TournamentGameLine] = Field(description="By round (games without one last), then as added.")
    counted: int = Field(description="The games that counted.")
    hidden: int = Field(description="Games left out because they are private now (not named).")
    may_add: SkipJsonSchema[bool | None] = Field(default=None, exclude=True)
    """Whether the page shows the forms that add and remove games."""
