"""Deadlines: extending the running one, the time each kind of phase gets, and pausing and resuming the
clock (a paused game keeps the time that was left and gets it back, rounded up to its time of day).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from dippouch.core.messages import msg
from dippouch.game import GameError, GameSettings, as_utc
from dippouch.store.db import Database
from dippouch.store.rows import game_row, game_settings, log_event, require_current

I18N_DOMAIN = "rules"
"""The catalogue of the store's refusals, said in the reader's language where they are shown (dippouch.saying)."""

__all__ = ["extend", "pause", "resume", "set_deadlines"]


def extend(db: Database, name: str, by: timedelta, *, now: datetime) -> datetime | timedelta:
    """Give the open phase more time (a paused game: more of the time it gets back when it resumes); returns
    the new deadline, or the time left while paused."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        ph = require_current(s, g)
        if g.status == "paused":
            g.paused_remaining = (g.paused_remaining or 0) + by.total_seconds()
            log_event(s, g, now, "extend", phase=ph.name, by=by.total_seconds())
            return timedelta(seconds=g.paused_remaining)
        assert ph.deadline is not None
        ph.deadline = ph.deadline + by
        log_event(s, g, now, "extend", phase=ph.name, by=by.total_seconds(), deadline=ph.deadline.isoformat())
        return ph.deadline


def set_deadlines(db: Database, name: str, deadlines: Mapping[str, str], *, now: datetime) -> GameSettings:
    """Change the time each kind of phase gets, for phases opened from now on (the running deadline stays)."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        old = game_settings(g)
        new = GameSettings.from_data({**old.to_data(), "deadlines": {**old.deadlines, **dict(deadlines)}})
        g.settings = new.to_data()
        log_event(s, g, now, "deadlines", deadlines=dict(new.deadlines))
        return new


def pause(db: Database, name: str, *, now: datetime, why: str | None = None) -> timedelta:
    """Stop the clock: the open phase loses its deadline, and the game keeps the time that was left. ``why``:
    the reason, when the game paused itself rather than at a coordinator's word (kept with the event)."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        ph = require_current(s, g)
        if g.status == "paused":
            raise GameError(msg("game %(game)s is already paused", game=repr(name)))
        assert ph.deadline is not None
        remaining = max(ph.deadline - now, timedelta(0))
        g.status = "paused"
        g.paused_remaining = remaining.total_seconds()
        ph.deadline = None
        log_event(
            s, g, now, "pause", phase=ph.name, remaining=remaining.total_seconds(), **({"why": why} if why else {})
        )
        return remaining


def resume(db: Database, name: str, *, now: datetime) -> datetime:
    """Restart the clock with the time that was left, rounded up to the game's time of day."""
    now = as_utc(now)
    with db.session() as s, s.begin():
        g = game_row(s, name, lock=True)
        ph = require_current(s, g)
        if g.status != "paused":
            raise GameError(msg("game %(game)s is not paused", game=repr(name)))
        settings = game_settings(g)
        ph.deadline = settings.round_up(now + timedelta(seconds=g.paused_remaining or 0))
        g.status = "active"
        g.paused_remaining = None
        log_event(s, g, now, "resume", phase=ph.name, deadline=ph.deadline.isoformat())
        return ph.deadline
