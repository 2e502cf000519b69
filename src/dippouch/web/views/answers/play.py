"""The JSON API's answers: a power's page and its orders."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dippouch.web.views.answers.base import Answer
from dippouch.web.views.answers.games import CheckedLine, GameView, LineVerdict, PowerState, Submission

__all__ = [
    "CheckAnswer",
    "DislodgedUnit",
    "LastTurn",
    "LeftOut",
    "LegalOrder",
    "PlayerVersion",
    "PlayerView",
    "ProposalAnswer",
    "ProposalEntry",
    "ProposalsView",
    "Receipt",
    "TurnResult",
    "UnitEntry",
    "UnitOrders",
    "VoteAnswer",
]


# A power's page and orders


class UnitEntry(Answer):
    unit: str = Field(description="Short form, e.g. 'A par'.")
    name: str = Field(description="Full form, e.g. 'Army Paris'.")
    loc: str


class LegalOrder(Answer):
    """A legal order as the click-entry script needs it: its text, kind and the provinces it names."""

    text: str
    type: str
    subject: str | None
    dest: str | None
    target: str | None
    via: bool
    coast: str | None = Field(None, description="The coast's name, when the destination is one.")


class UnitOrders(Answer):
    loc: str
    province: str
    label: str
    orders: list[LegalOrder]


class LeftOut(Answer):
    units: list[str]
    notes: list[str]


class PlayerVersion(Submission):
    counts: bool = Field(description="This is the version that stands.")


class TurnResult(Answer):
    """One order of a processed phase and what became of it, as the phase's public page gives it."""

    power: str
    order: str = Field(description="The order in full place names, e.g. 'A Paris - Burgundy'.")
    result: str = Field(
        description="The adjudicator's word: succeeds, fails, cut, given, stands, dislodged, disrupted, "
        "available, illegal or invalid."
    )
    dislodged: bool = Field(description="The ordered unit was dislodged.")
    destroyed: bool = Field(description="The unit was dislodged with nowhere to retreat, and is gone.")
    automatic: bool = Field(description="The rules gave the order (the power sent none for this unit).")
    reason: str = Field(description="Why, in words (a bounce names the unit bounced with); may be empty.")
    code: str | None = Field(None, description="The reason's message id, for programs (None without a reason).")
    params: dict[str, Any] | None = Field(None, description="The reason's values by name (units, places, strengths).")


class DislodgedUnit(Answer):
    power: str
    unit: str = Field(description="Full form, e.g. 'Army Munich'.")
    loc: str = Field(description="Where it was dislodged, short form, e.g. 'mun'.")
    retreats: list[str] = Field(description="Where it may retreat (full names); empty: it is destroyed.")


class LastTurn(Answer):
    """The game's latest processed phase, as its public page shows it (orders are public once processed)."""

    phase_id: int
    phase: str
    kind: str
    processed_at: str | None = Field(description="ISO 8601, UTC.")
    report_url: str = Field(description="The phase's page: its report, orders and results, and maps.")
    map_url: str | None = Field(description="Its map with the orders and results drawn (SVG); None: no map.")
    results: list[TurnResult] = Field(description="Every order; the seat's own power's first.")
    dislodged: list[DislodgedUnit] = Field(description="Every unit the phase dislodged.")
    must_retreat: list[DislodgedUnit] = Field(
        description="The seat's own units that must retreat (or disband) in the open phase, a retreat phase."
    )


class ProposalEntry(Answer):
    """One proposal of the table, as the asker may see it: ballots by power only where the game shows them."""

    id: int
    kind: str = Field(description="pause, extend, cancel, concede, draw, process, rollback, replace or unseal.")
    values: dict[str, Any] = Field(description="hours, power, powers, phase, player: what the kind needs.")
    what: str = Field(description="The proposal in words, in the asker's language.")
    proposer: str | None = Field(description="The power that proposed it (None in a secret-ballot or anonymous game).")
    status: str = Field(description="open, passed, refused, withdrawn, expired or failed.")
    yes: int
    no: int
    needed: int = Field(description="Yes votes it needs under the game's rule.")
    voters: list[str] = Field(description="The powers whose ballots count.")
    ballots: dict[str, bool] | None = Field(description="Power -> yes/no (None in a secret-ballot or anonymous game).")
    mine: bool | None = Field(description="The asking seat's own ballot (None: not cast).")
    may_vote: bool
    may_withdraw: bool
    expires_at: str | None = Field(description="When it lapses: the phase's deadline (ISO; None while paused).")


class ProposalsView(Answer):
    """The table's proposals on the player's page: the rule, what may be proposed, the open and recent ones."""

    rule: str = Field(description="unanimous, majority or unconcerned (of the players not concerned).")
    kinds: list[str] = Field(description="What this seat may propose in this game now.")
    secret: bool = Field(description="Ballots are shown as counts only (secret ballot or anonymous game).")
    powers: list[str] = Field(description="The surviving powers (a draw's or a concession's choices).")
    entries: list[ProposalEntry]


class PlayerView(Answer):
    """A power's own page: its units, legal orders, the versions it sent (its own only), and the last phase
    processed with every power's orders and their results."""

    game: GameView
    power: str
    variant: str
    me: PowerState
    resignable: bool
    """Whether the asker may leave this seat here: the person who plays it, in a game not finished."""
    proposals: ProposalsView | None = Field(None, description="The table's proposals (None when the game is over).")
    colour: str
    power_index: int
    open: bool
    units: list[UnitEntry]
    legal: list[UnitOrders]
    versions: list[PlayerVersion]
    latest_text: str
    latest_version: int = Field(
        0,
        description="The number of the seat's latest version in the open phase (0: none yet), whoever sent it: send "
        "it as based_on with new orders, and they are refused (409) if another version arrives first.",
    )
    must_act: bool
    example: str
    unordered: LeftOut
    last_turn: LastTurn | None = Field(description="The phase processed last (None before the first is).")
    earlier_turns: list[LastTurn] = Field(
        default_factory=list,
        description="The turn's phases processed before the last, newest first, back to its movement phase (a "
        "Fall's moves and retreats before the Winter's adjustments).",
    )
    phase_id: int | None = None
    phase: str | None = None
    kind: str | None = None
    ready: bool | None = None
    adjust: int | None = Field(None, description="Builds (positive) or removals (negative) owed this Winter.")


class CheckAnswer(Answer):
    lines: list[CheckedLine]
    unordered: list[str] = Field(description="The power's units these lines give no order (full names).")
    unordered_notes: list[str] = Field(description="What happens to them, and builds or removals not ordered.")


class Receipt(Answer):
    """A recorded version of a power's orders."""

    phase: str
    power: str
    version: int
    late: bool
    ready: bool
    lines: list[LineVerdict]
    stands: bool = Field(description="Whether this version replaced the earlier ones.")
    standing: int | None = Field(description="The version that stands now.")
    ready_refused: str | None = Field(description="Why 'ready' was refused (the version is recorded, not ready).")
    accepted: int
    rejected: int
    processed: list[str] = Field(description="Phases processed at once because every power was ready.")
    unordered: list[str]
    unordered_notes: list[str]


class ProposalAnswer(Answer):
    """A proposal after it was made, voted on or withdrawn, and what the door says of it."""

    proposal: ProposalEntry
    said: str
    ending: str | None = Field(description="The game's ending, when passing it ended the game.")


class VoteAnswer(Answer):
    ending: str | None = Field(description="The game's ending, if every surviving power has now agreed.")
