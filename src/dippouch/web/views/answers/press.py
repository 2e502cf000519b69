"""The JSON API's answers: press (dippouch.web.routes.press)."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dippouch.web.views.answers.base import Answer

__all__ = [
    "PressBlocks",
    "PressChannelView",
    "PressDesk",
    "PressMessage",
    "PressMessages",
    "PressRead",
    "PressReport",
    "PressRulesAnswer",
    "PressSent",
    "PressThread",
    "PressView",
]


# Press (web/routes/press.py)


class PressMessage(Answer):
    id: int
    channel: int
    sender: str = Field(description="The sending power, Coordinator, or Anonymous (grey press).")
    text: str = Field(description="As written: plain text, never HTML (a page escapes it).")
    sent_at: str
    held: bool = Field(description="Postal press waiting for its phase's results (seen by its sender only).")
    mine: bool
    kind: str = Field(description="The channel's kind: private, group, public or announcement.")
    members: list[str] = Field(description="The channel's powers.")
    phase: str = Field("", description='The phase it was written in ("" when written after the game ended).')


class PressThread(Answer):
    id: int = Field(description="The channel's id (0: the announcements, before the first one).")
    kind: str = Field(description="private, group, public or announcement")
    members: list[str]
    unread: int
    last_id: int
    last_at: str | None


class PressView(Answer):
    game: str
    power: str | None
    rules: dict[str, Any]
    rules_text: list[str] = Field(description="The rules as the players are shown them.")
    powers: list[dict[str, Any]] = Field(
        description="Each power, and its player's name unless the game is anonymous; eliminated: no unit or centre "
        "left (offered as no recipient)."
    )
    threads: list[PressThread]
    blocks: dict[str, str] = Field(description="Powers this player mutes or blocks.")
    latest: int = Field(description="The newest message id this reader may read (where to listen from).")
    by_mail: str | None = Field(
        None,
        description="Where copies of this power's messages are mailed (with a reply code), or null: none are "
        "(the game's mail does not take replies, the seat has no address, or its person chose no press by e-mail).",
    )
    # What only the player's page shows (its threads inline, beside the board): never sent by the API.
    recent: SkipJsonSchema[dict[int, list[PressMessage]] | None] = Field(default=None, exclude=True)
    sendable: SkipJsonSchema[dict[str, bool] | None] = Field(default=None, exclude=True)
    quiet: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    inline_threads: SkipJsonSchema[int | None] = Field(default=None, exclude=True)


class PressChannelView(Answer):
    thread: PressThread
    messages: list[PressMessage]
    more: bool = Field(description="Older messages are left: ask again with before=the first id.")
    read_up_to: int = Field(description="The last message id the reader had read in this channel.")


class PressMessages(Answer):
    messages: list[PressMessage]


class PressSent(Answer):
    id: int
    channel: int
    kind: str
    held: bool
    mailed: int = Field(description="Copies queued by mail for recipients with an address.")


class PressRead(Answer):
    channel: int
    read_up_to: int


class PressBlocks(Answer):
    blocks: dict[str, str]


class PressReport(Answer):
    report: int


class PressRulesAnswer(Answer):
    rules: dict[str, Any]
    rules_text: list[str]


class PressDesk(Answer):
    game: str
    rules: dict[str, Any]
    rules_text: list[str]
    threads: list[PressThread]
    reports: list[dict[str, Any]]
