"""The JSON API's answers for sandboxes: a board copied from a game's phase or a variant's opening, edited and
adjudicated at will, never touching a game."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer

__all__ = [
    "SandboxCentre",
    "SandboxItem",
    "SandboxLine",
    "SandboxList",
    "SandboxResult",
    "SandboxStarted",
    "SandboxStep",
    "SandboxUnit",
    "SandboxView",
]


class SandboxUnit(Answer):
    """A unit on the sandbox's board."""

    power: str
    unit: str = Field(description="The unit as orders write it: 'A lon', 'F stp/sc'.")
    province: str = Field(description="Its province's name.")
    dislodged: bool = Field(description="Dislodged, waiting to retreat (a retreat phase's board).")


class SandboxCentre(Answer):
    """A supply centre and who owns it."""

    province: str = Field(description="Its abbreviation, as orders write it.")
    name: str
    owner: str | None = Field(description="The owning power; None for a centre nobody owns.")


class SandboxLine(Answer):
    """One line of the order box and its verdict (the check a player's orders get in a game)."""

    line: int
    text: str
    power: str | None = Field(description="Whose order it is: named on the line, under a heading, or the unit's.")
    order: str | None = Field(description="The order as it will be carried out; None if refused.")
    error: str | None = Field(description="Why the line is refused (with the closest valid order or name).")
    note: str | None = None
    code: str | None = Field(None, description="The refusal's message id, for programs (None if accepted).")
    params: dict[str, Any] | None = Field(None, description="The refusal's values by name (places, units, powers).")


class SandboxResult(Answer):
    """One order's result in the last step (the contract's result)."""

    power: str
    order: str
    result: str = Field(description="What the adjudicator decided: succeeds, fails, bounces, dislodged...")
    reason: str | None = None
    dislodged: bool
    automatic: bool = Field(description="An order the adjudicator gave (a hold of an unordered unit, a disband).")


class SandboxStep(Answer):
    """The last step adjudicated: the phase it was, the orders carried out and what became of them."""

    phase: str
    orders: dict[str, list[str]]
    results: list[SandboxResult]


class SandboxView(Answer):
    """A sandbox: its board, the orders typed with their verdicts, and its last step."""

    share: str = Field(description="The read-only link (a path on this site): anyone who holds it sees the board.")
    editable: bool = Field(
        description="Whether this caller may change it: by its edit link, or signed in as the person who made it."
    )
    variant: str
    variant_title: str
    game: str | None = Field(description="The game it was copied from, if any (never changed by the sandbox).")
    phase_id: int | None = Field(description="The phase of that game it was copied from.")
    phase: str = Field(description="The board's phase, e.g. 'Fall 1901 Movement'.")
    kind: str = Field(description="movement, retreats or adjustments: what 'Adjudicate' runs.")
    units: list[SandboxUnit]
    centres: list[SandboxCentre]
    powers: list[str]
    orders: str = Field(description="The order box as last kept: every power's orders, one a line.")
    lines: list[SandboxLine] = Field(description="Each line of the order box with its verdict.")
    step: SandboxStep | None = Field(description="The last step adjudicated; None before one, or after an edit.")
    back: int = Field(description="How many earlier states 'Back' can return to.")
    updated_at: str
    map_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """The board drawn (the page only)."""
    step_svg: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """The last step's board with its orders and results drawn (the page only)."""
    provinces: SkipJsonSchema[list[str] | None] = Field(default=None, exclude=True)
    """Every place a unit may stand, coasts too, for the page's pick list."""


class SandboxStarted(Answer):
    """A new sandbox: its links (the edit link is shown once; keep it) and the sandbox."""

    edit: str = Field(description="The edit link (a path on this site): who holds it may change the sandbox.")
    share: str = Field(description="The read-only link.")
    sandbox: SandboxView


class SandboxItem(Answer):
    """One of a person's sandboxes."""

    share: str = Field(description="Its link (its maker, signed in, edits it there).")
    variant: str
    game: str | None
    phase: str
    updated_at: str


class SandboxList(Answer):
    """The signed-in person's sandboxes, the last changed first (none for a visitor not signed in)."""

    sandboxes: list[SandboxItem]
