"""A game's clock, once for every door: pause, resume, extend, process now and roll back, as the coordinator's
desk, the JSON API, the command line (``dippouch pause/resume/extend/process --force/rollback``) and a passed
vote of the table (``by_vote=True``) ask for them.

Each asks :func:`dippouch.play.fairness.require_alone` first: in a player-run game (its creator plays) these are
the table's to decide, not one person's; the creator's one short pause is the exception
(:data:`~dippouch.play.fairness.GRACE`). What each does to the game is the store's, in one transaction under
the game's lock (:mod:`dippouch.store.deadlines`, :func:`dippouch.store.history.rollback`,
:func:`dippouch.play.processing.process_now`). Refusals are message values; what happened is returned as a
value, which each door words its own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from dippouch.bots.seats import Think
from dippouch.core.messages import msg
from dippouch.game import GameError
from dippouch.play.fairness import GRACE_WHY, Actor, grace_used, in_grace, player_run, require_alone
from dippouch.play.processing import ProcessedNow, process_now
from dippouch.store import deadlines as store_deadlines
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.history import Carried
from dippouch.store.repository import GameStore

I18N_DOMAIN = "rules"
"""The catalogue of this module's refusals."""

__all__ = [
    "MAX_EXTENSION",
    "Extended",
    "Paused",
    "RolledBack",
    "ask",
    "extend",
    "pause",
    "process",
    "resume",
    "rollback",
]

MAX_EXTENSION = timedelta(days=365)
"""The longest one extension may be: a longer one is a typing mistake, not a wish."""


@dataclass(frozen=True)
class Paused:
    """A pause: the time that was left on the clock, and whether it is the creator's one grace pause (it ends
    by itself :data:`~dippouch.play.fairness.GRACE` later)."""

    game: str
    left: timedelta
    grace: bool = False


@dataclass(frozen=True)
class Extended:
    """An extension: the new deadline, or, in a paused game, the time it now gets back when it resumes."""

    game: str
    deadline: datetime | None
    left: timedelta | None


@dataclass(frozen=True)
class RolledBack:
    """A roll back: the phase opened again and the submissions carried into it."""

    game: str
    phase: str
    carried: list[Carried]


def pause(store: GameStore, game: str, *, by: Actor, now: datetime, by_vote: bool = False) -> Paused:
    """Stop ``game``'s clock. In a player-run game its creator may take one pause of at most a day alone; any
    other pause there is the table's to vote (:class:`~dippouch.play.fairness.TableMustVote`)."""
    if not (by.installation or by_vote) and player_run(store, game):
        if grace_used(store, game):
            require_alone(store, game, "pause", by=by, by_vote=by_vote)  # refuses: the grace is spent
        return Paused(game, store_deadlines.pause(store, game, now=now, why=GRACE_WHY), grace=True)
    return Paused(game, store_deadlines.pause(store, game, now=now))


def resume(store: GameStore, game: str, *, by: Actor, now: datetime, by_vote: bool = False) -> datetime:
    """Restart ``game``'s clock with the time that was left; returns the new deadline. In a player-run game the
    creator alone ends only their own grace pause: a pause the table voted for, or one the game took itself,
    is the table's to end."""
    if not (by.installation or by_vote) and not in_grace(store, game):
        require_alone(store, game, "resume", by=by, by_vote=by_vote)
    return store_deadlines.resume(store, game, now=now)


def extend(
    store: GameStore, game: str, length: timedelta, *, by: Actor, now: datetime, by_vote: bool = False
) -> Extended:
    """Give the open phase ``length`` more (between a second and :data:`MAX_EXTENSION`)."""
    if length <= timedelta(0) or length > MAX_EXTENSION:
        raise GameError(msg("an extension is between one second and a year"))
    require_alone(store, game, "extend", by=by, by_vote=by_vote)
    got = store_deadlines.extend(store, game, length, now=now)
    if isinstance(got, datetime):
        return Extended(game, got, None)
    return Extended(game, None, got)


def process(
    store: GameStore,
    game: str,
    *,
    by: Actor,
    now: datetime,
    by_vote: bool = False,
    think: Think | None = None,
    limit: int | None = None,
) -> ProcessedNow:
    """Process ``game``'s open phase now, before its deadline and with powers not ready (the coordinator's
    word; :func:`dippouch.play.processing.process_now`). Before the deadline a player-run game's table decides
    it; once the deadline has passed, processing is what the workers would do anyway and anyone coordinating
    may ask for it."""
    if not (by.installation or by_vote):
        st = store_status.status(store, game, now=now, drift=False, due=False)
        if st.deadline is None or now < st.deadline:
            require_alone(store, game, "process", by=by, by_vote=by_vote)
    if limit is None:
        return process_now(store, game, now=now, force=True, think=think)
    return process_now(store, game, now=now, force=True, think=think, limit=limit)


def rollback(store: GameStore, game: str, phase: str, *, by: Actor, now: datetime, by_vote: bool = False) -> RolledBack:
    """Open ``phase`` again (the phases after it stay in the history, marked rolled back); each power's orders
    for it are carried into it, not ready."""
    require_alone(store, game, "rollback", by=by, by_vote=by_vote)
    back, carried = store_history.rollback(store, game, phase, now=now)
    return RolledBack(game, back, list(carried))


def ask(store: GameStore, game: str, action: str, *, by: Actor, now: datetime) -> None:
    """Refuse ``action`` (``process`` or ``rollback``) as the use case itself would, changing nothing: a page
    that asks the coordinator to confirm it first says the table must vote instead."""
    if by.installation:
        return
    if action == "process":
        st = store_status.status(store, game, now=now, drift=False, due=False)
        if st.deadline is not None and now >= st.deadline:
            return
    require_alone(store, game, action, by=by)
