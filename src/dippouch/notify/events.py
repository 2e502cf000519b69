"""The events a person can be told about, the channels, and what each person gets when they chose nothing.

Choices are stored per (person, event, channel) (:mod:`dippouch.store.notify.stored`); an unstored pair takes the
default here: everything by every channel the person has, except messages by e-mail (press can be many
messages a day, and mail is the slowest way to read them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dippouch.core.messages import N_, msg
from dippouch.game import GameError
from dippouch.store.db import Database
from dippouch.store.notify import stored

I18N_DOMAIN = "rules"
"""The catalogue of the notifications' refusals, said in the reader's language where they are shown
(dippouch.saying)."""

__all__ = [
    "CHANNELS",
    "DEFAULT_DEADLINE_HOURS",
    "EVENTS",
    "MAX_DEADLINE_HOURS",
    "NoticePreferences",
    "preferences",
    "preferences_of",
    "save_preferences",
]

EVENTS: dict[str, str] = {
    "phase_processed": N_("Results ready (a phase of your game was processed)"),
    "deadline": N_("Deadline near and your orders missing"),
    "game_starting": N_("Your game is starting"),
    "seat_offered": N_("A seat is offered to you (a replacement is wanted)"),
    "message_received": N_("A message (press) for you"),
    "seat_lost": N_("Your seat freed by the coordinator or taken by a replacement"),
    "game_ended": N_("Your game has ended (the result, scores and links to the replay)"),
    "proposal": N_("A proposal your table votes on (a pause, an extension, a draw...)"),
}
"""Event kind -> how the settings page names it: the catalogue's id, said in the reader's language by the doors."""

CHANNELS: dict[str, str] = {
    "email": N_("E-mail"),
    "push": N_("Browser push"),
    "webhook": N_("Chat webhooks (Discord, Slack, Matrix)"),
}

DEFAULT_DEADLINE_HOURS = 12
MAX_DEADLINE_HOURS = 168
"""A week: the longest lead a reminder can have (and how far ahead the worker's scan looks)."""

_DEFAULT_OFF = set() if stored.PRESS_BY_MAIL_DEFAULT else {stored.PRESS_BY_MAIL}
"""Choices off until made: press by e-mail (one truth with the press's copies, :mod:`dippouch.store.notify.stored`)."""


@dataclass(frozen=True)
class NoticePreferences:
    choices: dict[tuple[str, str], bool]
    """Every (event, channel), stored or default."""
    deadline_hours: int

    def wants(self, event: str, channel: str) -> bool:
        return self.choices.get((event, channel), False)


def preferences(db: Database, person_id: int) -> NoticePreferences:
    """The person's choices, defaults filled in."""
    return _filled(*stored.stored_preferences(db, person_id))


def preferences_of(db: Database, person_ids: Iterable[int]) -> dict[int, NoticePreferences]:
    """:func:`preferences` of several people in one read (an event's readers, a page of the event log's)."""
    return {pid: _filled(got, hours) for pid, (got, hours) in stored.stored_preferences_of(db, person_ids).items()}


def _filled(got: Mapping[tuple[str, str], bool], hours: int | None) -> NoticePreferences:
    choices = {(e, c): got.get((e, c), (e, c) not in _DEFAULT_OFF) for e in EVENTS for c in CHANNELS}
    return NoticePreferences(choices, DEFAULT_DEADLINE_HOURS if hours is None else hours)


def save_preferences(
    db: Database, person_id: int, choices: Mapping[tuple[str, str], bool], deadline_hours: int | None
) -> None:
    """Store choices after checking every name and the lead time (a refusal names what is wrong)."""
    for event, channel in choices:
        if event not in EVENTS:
            raise GameError(msg("no event %(event)s; events: %(events)s", event=repr(event), events=", ".join(EVENTS)))
        if channel not in CHANNELS:
            raise GameError(
                msg(
                    "no channel %(channel)s; channels: %(channels)s",
                    channel=repr(channel),
                    channels=", ".join(CHANNELS),
                )
            )
    if deadline_hours is not None and not 1 <= deadline_hours <= MAX_DEADLINE_HOURS:
        raise GameError(
            msg(
                "the deadline reminder is from 1 to %(most)d hours before the deadline (got %(got)d); try %(usual)d",
                most=MAX_DEADLINE_HOURS,
                got=deadline_hours,
                usual=DEFAULT_DEADLINE_HOURS,
            )
        )
    stored.set_preferences(db, person_id, choices, deadline_hours)
