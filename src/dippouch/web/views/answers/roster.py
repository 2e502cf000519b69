"""The JSON API's answers: the player list, addresses and absences (dippouch.web.routes.roster)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dippouch.web.views.answers.base import Answer, Said

__all__ = [
    "AbsenceAnswer",
    "AbsenceGame",
    "AbsencesAnswer",
    "AddressAnswer",
    "AddressesAnswer",
    "AllyAnswer",
    "AppliedAnswer",
    "AwayAnswer",
    "DoneAnswer",
    "GameAbsencesAnswer",
    "RosterAnswer",
    "RosterChange",
    "RosterEntryAnswer",
    "RosterSettingsAnswer",
]


class AddressAnswer(Answer):
    id: int
    address: str = Field(description="One line of the envelope a line.")
    primary: bool
    first_day: str | None = Field(description="First day an alternate is preferred (None: the primary).")
    last_day: str | None = Field(description="Last day it is preferred, inclusive.")
    when: Said = Field(description='"primary" or the days, as "3-21 Aug".')
    in_force: bool = Field(description="The address correspondence goes to today.")


class AddressesAnswer(Answer):
    today: str
    addresses: list[AddressAnswer]


class DoneAnswer(Answer):
    """A change the API made, told as a message value: said in the caller's language, with its code and values."""

    message: str = Field(description="What was done, in the language asked for (?lang=; English otherwise).")
    code: str = Field(description="Which message it is (its English template), the same in every language.")
    params: dict[str, Any] = Field(description="The values the message's placeholders take, by name.")


class AbsenceAnswer(Answer):
    id: int
    first_day: str
    last_day: str = Field(description="Inclusive.")
    text: Said = Field(description='How games show it: "away 3–21 Aug" (in the language of the answer).')
    reason: str = Field(description="The person's own note; never shown to a game.")


class AbsenceGame(Answer):
    game: str
    power: str
    policy: str
    policy_text: str
    proxy_orders: bool = Field(description="The game's rules let an ally order your units (W3K).")
    ally: str | None = Field(description="The ally you named there, if any.")
    powers: list[str] | None = Field(None, description="The powers you may name as ally (where proxy orders exist).")


class AllyAnswer(Answer):
    game: str
    ally: str | None


class AbsencesAnswer(Answer):
    today: str
    absences: list[AbsenceAnswer]
    games: list[AbsenceGame] = Field(description="Each game the person plays, with its policy for absent players.")


class RosterChange(Answer):
    first_day: str = Field(description="The day this address comes into force.")
    address: str | None


class RosterEntryAnswer(Answer):
    power: str
    player: str | None = Field(
        description="None in an anonymous game before its end, but for the reader's own seats (and the coordinator)."
    )
    person_id: int | None = Field(None, description="The person playing it (their page: /people/ID), as ``player``.")
    away: Said | None = Field(None, description='"away 3–21 Aug" while or before the player is away.')
    emails: list[str] | None = Field(None, description="Only for those the game lets read addresses.")
    address: str | None = Field(None, description="The postal address in force today (same rule).")
    until: str | None = Field(None, description="The last day of the alternate in force, if one is.")
    changes: list[RosterChange] | None = Field(None, description="Upcoming changes of the address in force.")


class RosterAnswer(Answer):
    game: str
    variant: str
    status: str
    visibility: str = Field(description="Who reads addresses: coordinator, co-players or nobody.")
    visibility_text: str
    addresses_shown: bool = Field(description="Whether this caller reads the addresses.")
    names_hidden: bool | None = Field(
        None, description="An anonymous game before its end: other players' rows carry their power only."
    )
    day: str
    entries: list[RosterEntryAnswer]


class AwayAnswer(Answer):
    power: str
    player: str | None = Field(description="None where the game is anonymous and the reader may not know.")
    person_id: int | None = Field(None, description="The player's person (/people/ID), beside the name.")
    text: Said
    now: bool


class AppliedAnswer(Answer):
    phase: str
    power: str
    policy: str
    days: float
    text: Said
    """In English in the game's answer (/api/games/NAME); in ``?lang=``'s language in /api/games/NAME/absences."""


class GameAbsencesAnswer(Answer):
    policy: str
    policy_text: str
    budget_days: int
    stand_in: str | None
    stand_in_person_id: int | None = Field(None, description="The stand-in's person (/people/ID), beside the name.")
    away: list[AwayAnswer]
    applied: list[AppliedAnswer] = Field(description="What the game did at past deadlines for absent players.")


class RosterSettingsAnswer(Answer):
    roster_visibility: str
    absence_policy: str
    budget_days: int
    stand_in: str | None
    proxy_orders: bool = Field(description="The variant lets allies order an absent player's units (W3K).")
