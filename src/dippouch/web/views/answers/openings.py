"""The JSON API's answers: open games, the replacement pool and people's profiles (dippouch.web.routes.openings)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from dippouch.web.views.answers.base import Answer

__all__ = [
    "ClaimAnswer",
    "DrawAnswer",
    "NewGameAnswer",
    "OpenGame",
    "OpenList",
    "OpeningView",
    "PersonProfile",
    "PersonRecord",
    "Replacement",
    "ResignAnswer",
    "SignupAnswer",
    "WaitingSignup",
]


# Open games, the replacement pool and people's profiles (dippouch.web.routes.openings)


class OpenGame(Answer):
    """A game opened for players, as anyone sees it."""

    game: str
    variant: str
    press: str = Field(description="The press rules, as the coordinator wrote them.")
    min_reliability: int = Field(description="Percent a player's reliability must reach (0: none asked).")
    mode: str = Field(description="coordinator (the coordinator assigns) or preferences (drawn when full)")
    deadlines: dict[str, str] = Field(description="Phase lengths by kind (movement, retreats, adjustments).")
    deadline: str | None = Field(description="The open phase's deadline (null while the clock is held).")
    seats_total: int
    seats_taken: int = Field(description="Seats filled: powers a person, a named player or a bot plays now.")
    seats_empty: int = Field(description="Powers nobody plays yet (sign-ups waiting are not seats).")
    needed: int = Field(description="Sign-ups still wanted before every empty power has someone waiting.")
    waiting_list: int = Field(description="Sign-ups beyond the empty powers: they get a power as one comes free.")
    empty: list[str] = Field(description="Powers nobody plays yet.")
    powers: list[str]
    signups: int = Field(description="Sign-ups waiting for a power.")
    open: bool = Field(description="Whether sign-up is open.")
    full: bool = Field(description="Every power played or promised: a sign-up joins the waiting list.")
    signed_up: bool = Field(description="Whether the signed-in person is among the sign-ups.")
    started_by_player: bool = Field(description="Started by a player from a template (who coordinates it).")
    newcomers: bool = Field(True, description="Whether newcomers (fewer than 3 seats played) may join.")
    press_kind: str | None = Field(None, description="The press kind its rules set: none, white, grey, public...")
    my_wishes: list[str] | None = None
    on_waiting_list: bool | None = None


class Replacement(Answer):
    """A seat in the replacement pool."""

    game: str
    variant: str
    power: str
    reason: str = Field(description="disorder (its power fell into civil disorder) or freed (by the coordinator)")
    min_reliability: int
    deadline: str | None


class OpenList(Answer):
    games: list[OpenGame]
    replacements: list[Replacement]
    filters: dict[str, Any] = Field(description="The filters applied (variant, length, press, soon, seats).")
    choices: dict[str, Any] = Field(description="What each filter may be set to.")


class WaitingSignup(Answer):
    """A sign-up as the game's coordinator sees it."""

    person: int
    name: str
    preferences: list[str]
    reliability: int | None = Field(description="Percent; null for a person with no record yet.")
    signed_at: str


class OpeningView(Answer):
    """A game's opening (as :class:`OpenGame` says, field by field); for its coordinator also the sign-ups and
    the draw. A game not opened yet answers its coordinator only its name, its powers and ``opened: false``."""

    game: str
    opened: bool
    powers: list[str]
    variant: str | None = None
    press: str | None = None
    min_reliability: int | None = None
    mode: str | None = None
    deadlines: dict[str, str] | None = None
    deadline: str | None = None
    seats_total: int | None = None
    seats_taken: int | None = None
    seats_empty: int | None = None
    needed: int | None = None
    waiting_list: int | None = None
    empty: list[str] | None = None
    signups: int | None = None
    open: bool | None = None
    full: bool | None = None
    signed_up: bool | None = None
    started_by_player: bool | None = None
    newcomers: bool | None = None
    my_wishes: list[str] | None = None
    on_waiting_list: bool | None = None
    replacements: list[str] | None = Field(None, description="Powers of this game in the replacement pool.")
    waiting: list[WaitingSignup] | None = None
    draw: dict[str, Any] | None = Field(None, description="The automatic draw: seed, powers and ranks by person.")


class PersonRecord(Answer):
    on_time: int
    late: int
    missed: int
    seats: int
    excused: int = Field(
        0, description="Phases of an announced absence or covered by the game's absence policy: for and against nobody."
    )
    abandoned: int = Field(
        description="Seats abandoned: left in civil disorder, freed to the replacement pool by a coordinator, or "
        "handed to someone else after a phase the person sent nothing for (each seat counted once)."
    )


class PersonProfile(Answer):
    """A person as anyone sees them: never an address."""

    id: int
    name: str
    games: int
    reliability: int | None = Field(description="Percent; null for a person with no record yet.")
    record: PersonRecord
    hidden_games: int | None = Field(
        None,
        description="Games counted here that hide their players' names until they end: given only to the "
        "person and those games' coordinators (everyone else's record leaves them out, and says nothing).",
    )


class SignupAnswer(Answer):
    game: str
    signed_up: bool
    seated_as: str | None = Field(description="The power given, when this sign-up filled the game.")
    seats_taken: int | None = None
    signups: int | None = Field(None, description="Sign-ups waiting for a power, this one included.")
    seats_empty: int | None = None
    waiting_list: bool | None = Field(None, description="Whether this sign-up is on the game's waiting list.")
    text: str | None = Field(None, description="What the sign-up did, in English.")

    _english = field_validator("text", mode="before")(lambda v: None if v is None else str(v))


class ResignAnswer(Answer):
    game: str
    power: str | None = Field(description="The power given up (null: a sign-up withdrawn).")
    how: str = Field(description="withdrawn, freed (before the start: the power is open again) or pool.")
    text: str = Field(description="What the resignation did, in English.")

    _english = field_validator("text", mode="before")(lambda v: str(v))


class NewGameAnswer(Answer):
    game: str
    invitation: str | None = Field(description="A private game's invitation link (shown once), else null.")


class ClaimAnswer(Answer):
    game: str
    power: str


class DrawAnswer(Answer):
    game: str
    seated: dict[str, str] = Field(description="Person (id) -> the power drawn for them.")
