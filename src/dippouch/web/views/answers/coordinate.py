"""The JSON API's answers: the coordinator's desk."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dippouch.web.views.answers.base import Answer, Said
from dippouch.web.views.answers.games import GameView, LineVerdict

__all__ = [
    "ActionAnswer",
    "BotSeatAnswer",
    "CoordinatorView",
    "CreatedAnswer",
    "DeskSubmission",
    "KeyAnswer",
    "KeyEntry",
    "RevokedAnswer",
    "SeatAnswer",
    "SeatedPlayer",
]


# The coordinator's desk


class SeatedPlayer(Answer):
    power: str
    player: str | None
    person_id: int | None = Field(None, description="The person playing it (their page: /people/ID), if a person.")
    email: str | None
    history: list[tuple[str, str, str | None]] = Field(description="(player, assigned at, replaced at)")


class KeyEntry(Answer):
    id: int
    role: str
    power: str | None
    label: str | None
    created_at: str
    revoked: bool


class DeskSubmission(Answer):
    power: str
    version: int
    submitted_at: str
    ready: bool
    late: bool
    source: str | None
    count: int
    text: str | None = Field(None, description="Only once the deadline has passed.")
    lines: list[LineVerdict] | None = None


class CoordinatorView(Answer):
    game: GameView
    players: list[SeatedPlayer]
    keys: list[KeyEntry]
    submissions: list[DeskSubmission]
    sealed: bool
    visibilities: list[str]
    unseated: list[str]
    people_seats: int = Field(
        description="Powers a person (not a bot) plays: with one left, a bot policy's takeover of that seat pauses "
        "the game instead of leaving it to bots alone."
    )
    mail_unavailable: Said | None
    mail: dict[str, Any] = Field(
        description="The mail review's summary: powers with photographs this phase, items waiting, whether the "
        "phase waits for the review."
    )
    away: list[Said] = Field(
        default_factory=list,
        description="Players away today, each with what the game's absence policy does if the phase is "
        "processed now (as the confirmation of 'process now' says).",
    )
    table_decides: bool = Field(
        False,
        description="The game is player-run (its creator plays) and the caller is not the installation's "
        "coordinator: a pause beyond the one grace, an extension, processing before the deadline, a roll back, "
        "a replacement and unsealing are refused to them alone; the table votes for them.",
    )


class CreatedAnswer(Answer):
    name: str


class SeatAnswer(Answer):
    power: str
    key: str = Field(description="The player's secret key, shown once.")
    link: str


class KeyAnswer(Answer):
    role: str
    power: str | None
    key: str = Field(description="The secret key, shown once.")
    link: str


class ActionAnswer(Answer):
    message: str


class BotSeatAnswer(Answer):
    power: str
    player: str = Field(description='The bot as a player: "bot:LEVEL".')
    version: int | None = Field(description="The version the bot sent for the open phase, if it sent one.")


class RevokedAnswer(Answer):
    revoked: int
