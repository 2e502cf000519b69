"""The player list's use cases: a person's postal addresses and holidays (given once, for every game they play)
and a game's roster settings (who reads the addresses, what the game does for a player away at a deadline).

The rulebooks' postal games keep such a list (W3K's Coordinator mails it with addresses and holiday dates); the
player's pages, the JSON API and any later door call these, so a holiday recorded one way is the holiday every
other way sees, checked by the same rules (:mod:`dippouch.store.people.addresses`, :mod:`dippouch.store.people.absences`)."""

from __future__ import annotations

from datetime import date, datetime

from dippouch.store.db import Database
from dippouch.store.people import absences as absence_store
from dippouch.store.people import addresses as address_store

__all__ = [
    "add_address",
    "choose_proxy_ally",
    "edit_address",
    "record_absence",
    "remove_absence",
    "remove_address",
    "set_roster_settings",
]


def add_address(
    db: Database,
    person_id: int,
    text: str,
    *,
    now: datetime,
    first_day: date | None = None,
    last_day: date | None = None,
) -> int:
    """A postal address of the person: the primary one (no days) or one preferred from ``first_day`` to
    ``last_day`` (a holiday address); its id."""
    return address_store.add_address(db, person_id, text, now=now, first_day=first_day, last_day=last_day)


def edit_address(
    db: Database, person_id: int, address_id: int, text: str, *, first_day: date | None, last_day: date | None
) -> None:
    """One of the person's own addresses changed (another's is refused as one they do not have)."""
    address_store.edit_address(db, person_id, address_id, text, first_day=first_day, last_day=last_day)


def remove_address(db: Database, person_id: int, address_id: int) -> None:
    """One of the person's own addresses removed."""
    address_store.remove_address(db, person_id, address_id)


def record_absence(
    db: Database, person_id: int, first_day: date, last_day: date, *, now: datetime, reason: str = ""
) -> int:
    """A holiday, recorded once for every game the person plays (days inclusive); its id."""
    return absence_store.record_absence(db, person_id, first_day, last_day, now=now, reason=reason)


def remove_absence(db: Database, person_id: int, absence_id: int, *, now: datetime) -> None:
    """One of the person's own holidays taken back (their games see it gone)."""
    absence_store.remove_absence(db, person_id, absence_id, now=now)


def choose_proxy_ally(db: Database, person_id: int, game: str, ally: str | None, *, now: datetime) -> str | None:
    """The ally who orders the person's units in ``game`` while they are away, where the game's rules allow
    proxy orders (None: nobody); the ally named."""
    return absence_store.set_proxy_ally(db, person_id, game, ally, now=now)


def set_roster_settings(
    db: Database,
    game: str,
    *,
    now: datetime,
    visibility: str = "",
    policy: str = "",
    budget_days: int | None = None,
    stand_in_person_id: int | None = None,
) -> None:
    """The coordinator's choices for the game's roster: who reads its addresses (``visibility``) and what the
    game does for a player away at a deadline (``policy``, with its days a year or its stand-in); a choice left
    empty stays as it is."""
    if visibility:
        address_store.set_roster_visibility(db, game, visibility, now=now)
    if policy:
        absence_store.set_absence_policy(
            db, game, policy, budget_days=budget_days, stand_in_person_id=stand_in_person_id, now=now
        )
