"""A game's records: its centre counts over time, its key events and, once it is finished, its scores."""

from __future__ import annotations

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer

__all__ = ["CentreLine", "KeyEvent", "RecordsView", "ScoreLine", "ScoringSystemInfo"]


class ScoringSystemInfo(Answer):
    """A shipped scoring system: its name (for ``?system=``), title and where it is published."""

    name: str
    title: str
    source: str


class ScoreLine(Answer):
    """One power's score under the system asked for."""

    power: str
    player: str | None = Field(description="Its player at the end; null where an anonymous game hides it.")
    centres: int
    score: float
    result: str = Field(description="solo, draw (shares the draw), eliminated, or empty.")


class CentreLine(Answer):
    """A power's centre count at the start of each phase of ``phases``."""

    power: str
    colour: str
    counts: list[int]


class KeyEvent(Answer):
    """A key event: the first centre taken, an elimination, or a stab."""

    phase: str
    phase_id: int | None = Field(description="The phase's id (its page); null for the board after the last phase.")
    kind: str
    power: str
    other: str | None
    province: str | None
    text: str


class RecordsView(Answer):
    """A game's records as ``GET /api/games/{name}/records`` answers them and its page shows them."""

    game: str
    variant: str
    variant_title: str
    finished: bool
    ending: str | None
    phases: list[str]
    centres: list[CentreLine]
    events: list[KeyEvent]
    game_system: str = Field(description="The game's own scoring system (its choice, or draw-size scoring).")
    system: ScoringSystemInfo = Field(description="The system the scores are under (?system=, else the game's).")
    scores: list[ScoreLine] | None = Field(
        description="Null until the game is finished, or when the system cannot score how it ended (see scores_note)."
    )
    scores_note: str | None = Field(description="Why there are no scores; null when there are.")
    systems: list[ScoringSystemInfo]
    chart: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """The centre chart as inline SVG, for the page only."""
    refusal: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """Why the system asked for on the page was refused (the page shows it beside the form)."""
