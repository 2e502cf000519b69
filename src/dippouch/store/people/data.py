"""The registry of a person's data across modules: "download my data" and "delete my data" ask every module
that keeps something about a person, through the functions registered here.

Each module that stores personal data (accounts, postal addresses, absences, sign-ups, notification
settings...) gives an ``export_person(db, person_id) -> dict`` and a ``forget_person(db, person_id, *, now)``
and registers them under its name. The accounts' own pair is registered here and runs last on forgetting:
the others may still need the person's row (their address) while they forget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from dippouch.store import duels, openings
from dippouch.store.db import Database
from dippouch.store.learning import lessons
from dippouch.store.moderation import stored as moderation
from dippouch.store.notify import stored as notify
from dippouch.store.people import absences, accounts, addresses
from dippouch.store.ratings import ledger as ratings
from dippouch.store.sandboxes import boards as sandboxes
from dippouch.store.tournaments import stored as tournaments

__all__ = ["ExportFn", "ForgetFn", "export_all", "forget_all", "register", "registered"]

ExportFn = Callable[[Database, int], dict[str, Any]]
ForgetFn = Callable[..., None]
"""``forget(db, person_id, *, now)``."""

_lock = threading.Lock()
_registry: dict[str, tuple[ExportFn, ForgetFn]] = {
    # The store's own modules, named here rather than registering themselves on import: a module that was
    # never imported in this process would otherwise be left out of a download or a deletion.
    "absences": (absences.export_person, absences.forget_person),
    "addresses": (addresses.export_person, addresses.forget_person),
    "duels": (duels.export_person, duels.forget_person),
    "lessons": (lessons.export_person, lessons.forget_person),
    "moderation": (moderation.export_person, moderation.forget_person),
    "notifications": (notify.export_person, notify.forget_person),
    "openings": (openings.export_person, openings.forget_person),
    "ratings": (ratings.export_person, ratings.forget_person),
    "sandboxes": (sandboxes.export_person, sandboxes.forget_person),
    "tournaments": (tournaments.export_person, tournaments.forget_person),
}


def register(name: str, export_fn: ExportFn, forget_fn: ForgetFn) -> None:
    """Add (or replace, by ``name``: registering twice on re-import is harmless) a module's pair."""
    if name == "account":
        raise ValueError("'account' is the accounts' own section")
    with _lock:
        _registry[name] = (export_fn, forget_fn)


def registered() -> list[str]:
    with _lock:
        return sorted(_registry)


def export_all(db: Database, person_id: int) -> dict[str, Any]:
    """The person's data, one section per module (``account`` first), as "download my data" hands it out."""
    out: dict[str, Any] = {"account": accounts.export_person(db, person_id)}
    with _lock:
        pairs = sorted(_registry.items())
    for name, (export_fn, _) in pairs:
        out[name] = export_fn(db, person_id)
    return out


def forget_all(db: Database, person_id: int, *, now: datetime) -> None:
    """Every module forgets the person, the accounts last (they empty the person's row)."""
    with _lock:
        pairs = sorted(_registry.items())
    for _, (_, forget_fn) in pairs:
        forget_fn(db, person_id, now=now)
    accounts.forget_person(db, person_id, now=now)
