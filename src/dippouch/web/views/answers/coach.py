"""The JSON API's answers for the coach (:mod:`dippouch.play.coach`): a game's analysed phases and turning points,
and a hint for one power."""

from __future__ import annotations

from pydantic import Field

from dippouch.web.views.answers.base import Answer

__all__ = ["CoachPhase", "CoachPower", "CoachView", "HintView", "TurningPointView"]


class CoachPower(Answer):
    """One power in an analysed phase: what it played and what the search bot would have, with what each expected."""

    power: str
    centres: int = Field(description="The power's centres when the phase opened.")
    coach: list[str] = Field(description="The search bot's orders (canonical text).")
    coach_expected: float = Field(
        description="The centres the bot's orders expected: their mean, a year's end counted on each board they "
        "lead to against the replies the bot sampled for the other powers."
    )
    played: list[str] = Field(description="The orders adjudicated in the phase (empty: none sent).")
    played_expected: float = Field(description="The centres the played orders expected, against the same replies.")


class CoachPhase(Answer):
    """One analysed movement phase."""

    phase_id: int
    phase: str
    frame: int | None = Field(description="The replay's frame of the phase's orders (its page's ``?at=``).")
    powers: list[CoachPower]
    seconds: float = Field(description="The CPU seconds its analysis took.")


class TurningPointView(Answer):
    """A turning point of the game."""

    kind: str = Field(description="swing, stab (a first attack on a power, and a gain) or lost (a lost chance).")
    phase_id: int
    phase: str
    power: str
    before: float = Field(description="swing, stab: the expected centres in the phase; lost: the played orders'.")
    after: float = Field(description="swing, stab: the expected centres in the next analysed phase; lost: the bot's.")
    change: float
    victim: str | None = Field(default=None, description="stab: the power attacked for the first time.")
    text: str = Field(description="The turning point in words (the language asked for with ``?lang=``).")
    frame: int | None = Field(description="The replay's frame of the phase's orders (its page's ``?at=``).")


class CoachView(Answer):
    """What the coach says about a game: nothing while a game of people runs; else its analysed phases in order
    and its turning points."""

    game: str
    shown: bool = Field(description="False while the game is played by people: the coach speaks once it is over.")
    note: str = Field(description="Why nothing is shown, or how many phases wait for their analysis, in words.")
    waiting: int = Field(description="Movement phases the workers have not analysed yet.")
    phases: list[CoachPhase]
    turning_points: list[TurningPointView]


class HintView(Answer):
    """The search bot's orders for a power in the position at hand (a practice game's open phase, a sandbox)."""

    power: str
    phase: str
    orders: list[str]
    expected: float = Field(description="The centres the orders expected (movement; else the power's centres).")
