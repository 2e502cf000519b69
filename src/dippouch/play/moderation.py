"""The installation's moderation, once for every door: what a sign-in leaves behind (the device and the
network, hashed), the signals that two accounts may be one person, merging two accounts, banning one, and the
reports players make about a message, a person or a game, with what the moderators do about each.

Only the installation's coordinator reads the signals and the queue; the doors check that before calling here
(:mod:`dippouch.web.routes.moderation`). Every action is logged (:func:`dippouch.store.moderation.stored.log`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.people.blocks import network_of
from dippouch.play.seats import resign
from dippouch.store.db import Database
from dippouch.store.moderation import stored as store
from dippouch.store.moderation.stored import LogEntry, Report, Signal
from dippouch.store.press.messages import readable
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of the refusals said here."""

__all__ = [
    "Banned",
    "LogEntry",
    "Report",
    "Signal",
    "act_on_report",
    "ban",
    "ban_from",
    "lift_ban",
    "merge",
    "record_sign_in",
    "report_game",
    "report_message",
    "report_person",
    "signals",
]

log = logging.getLogger("dippouch.moderation")


def record_sign_in(db: Database, person_id: int, *, device: str | None, address: str | None, now: datetime) -> None:
    """Keep the device cookie's id and the client address's network (both hashed) of a sign-in; refused, with
    the browser left signed out, for a banned person (the door asks :func:`signin_refused` first)."""
    store.record_sign_in(db, person_id, device=device, network=network_of(address) if address else None, now=now)


def signin_refused(db: Database, person_id: int) -> bool:
    """Whether ``person_id`` is banned from signing in."""
    return store.banned(db, person_id, "signin")


def signals(db: Database, *, now: datetime) -> list[Signal]:
    return store.signals(db, now=now)


@dataclass(frozen=True)
class Banned:
    """What a ban did to the person's games: those they left (a sign-up withdrawn, a seat freed or offered to
    the replacement pool), and those whose seat stays until the game's coordinator hands it on (a game never
    opened for players has no pool)."""

    left: list[str]
    kept: list[str]


def ban(store_: GameStore, person_id: int, reason: str, *, now: datetime, by: str) -> Banned:
    """Ban ``person_id`` from signing in (their browsers signed out) and free their seats through the seat use
    case (a sign-up withdrawn, a seat freed before the start or offered to the pool)."""
    store.ban(store_, person_id, "signin", reason, now=now, by=by)
    left, kept = [], []
    for game in store.seats_of(store_, person_id):
        try:
            resign(store_, game, person_id, now=now)
            left.append(game)
        except GameError as e:  # a game that cannot let them go: its coordinator hands the seat on; the ban stands
            log.info("ban of person %s: %s: %s", person_id, game, e)
            kept.append(game)
    return Banned(left, kept)


def ban_from(db: Database, person_id: int, kind: str, reason: str, *, now: datetime, by: str) -> None:
    """A ban of another kind than signing in (press): the person stays in their games; logged, with who."""
    store.ban(db, person_id, kind, reason, now=now, by=by)


def lift_ban(db: Database, person_id: int, kind: str, *, now: datetime, by: str) -> bool:
    """The person's ban of ``kind`` lifted, logged; whether there was one."""
    return store.unban(db, person_id, kind, now=now, by=by)


def merge(store_: GameStore, from_id: int, into_id: int, *, now: datetime, by: str) -> list[str]:
    """One person's seats, sign-ups and rated results moved to another, the first account banned from signing
    in; the ratings taken in again for the games whose seats changed (their event logs grew)."""
    games = store.merge(store_, from_id, into_id, now=now, by=by)
    if games:
        from dippouch.play.ratings import update_ratings

        update_ratings(store_, deep=True)
    return games


def report_message(
    db: Database, person_id: int, game: str, power: str, message_id: int, reason: str, *, now: datetime
) -> int:
    """``person_id``, playing ``power``, reports a message they may read (the same refusal as for a message
    that is not there, otherwise)."""
    _readable(db, game, power, message_id)
    return store.report(db, person_id, "message", reason, now=now, game=game, message_id=message_id)


def _readable(db: Database, game: str, power: str, message_id: int) -> None:
    if not readable(db, game, power, message_id):
        raise GameError(msg("no message %(message)s in %(game)s that you may read", message=message_id, game=game))


def report_person(db: Database, person_id: int, other_id: int, reason: str, *, now: datetime) -> int:
    if person_id == other_id:
        raise GameError(msg("you cannot report yourself"))
    return store.report(db, person_id, "person", reason, now=now, person_id=other_id)


def report_game(db: Database, person_id: int, game: str, reason: str, *, now: datetime) -> int:
    return store.report(db, person_id, "game", reason, now=now, game=game)


def reports(db: Database) -> list[Report]:
    return store.reports(db)


def act_on_report(store_: GameStore, report_id: int, action: str, note: str, *, now: datetime, by: str) -> Report:
    """Close a report: dismissed, a warning the person reads on their account page, their press stopped in
    every game (``mute``), or a ban from signing in (:func:`ban`); logged."""
    got = store.decide_report(store_, report_id, action, now=now, by=by, note=note)
    if got.person_id is not None and action == "mute":
        store.ban(store_, got.person_id, "press", note or got.reason, now=now, by=by)
    elif got.person_id is not None and action == "ban":
        ban(store_, got.person_id, note or got.reason, now=now, by=by)
    return got


def moderation_log(db: Database) -> list[LogEntry]:
    return store.moderation_log(db)
