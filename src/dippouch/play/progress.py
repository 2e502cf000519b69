"""Going on with a game once its powers are ready: the phase is processed now rather than at its deadline, and
the bots send their orders in each phase that opens, so a game whose remaining powers are bots goes on."""

from __future__ import annotations

from datetime import datetime

from dippouch.bots.seats import bot_seats, process_with_bots
from dippouch.store import processing as store_processing
from dippouch.store.repository import GameStore

__all__ = ["MAX_STEPS", "go_on"]

MAX_STEPS = 20
"""Phases one request may process, each one every person in the game was ready in (a game bots alone play
goes one phase a request at most, at the installation's pace: :func:`dippouch.bots.seats.bot_pace`)."""


def go_on(store: GameStore, game: str, *, now: datetime, limit: int = MAX_STEPS) -> list[str]:
    """Process ``game``'s open phase if every power that must act is ready (never before otherwise), then, while
    bots hold seats, let them order each phase opened and process it when they alone had to act
    (:func:`dippouch.bots.seats.process_with_bots`). The phases processed, in order."""
    processed = store_processing.process(store, game, now=now)
    if processed and bot_seats(store, game):
        processed += process_with_bots(store, game, now=now, limit=limit - len(processed))
    return processed
