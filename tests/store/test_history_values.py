"""A game's phases leave the store as frozen values, read while the session was open: the history counts the
versions sent in each phase without loading them, and the web's reads hand out the same values."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.access import AccessStore
from dippouch.store.records import StoredPhase, phase_to_data
from dippouch.store.web_queries import game_phase, phase_by_id

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_history_counts_each_phases_versions_and_hands_out_values(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines={"movement": "12d"}))
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    store_submissions.submit(store, "g", "France", "A par - pic", now=T0 + timedelta(minutes=1))
    store_submissions.submit(store, "g", "Turkey", "A con - bul", now=T0 + timedelta(minutes=2))
    store_processing.process(store, "g", now=T0, force=True)

    hist = store_history.history(store, "g")
    assert [(h.name, h.status, h.versions) for h in hist] == [
        ("Spring 1901 Movement", "processed", 3),
        ("Fall 1901 Movement", "open", 0),
    ]
    first = hist[0]
    assert isinstance(first, StoredPhase) and first.next_position is not None and first.orders is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.status = "open"  # type: ignore[misc]

    # The web's reads: the same values, without a count of the versions (a page does not need it).
    assert AccessStore(store).phases("g") == [dataclasses.replace(h, versions=None) for h in hist]
    assert phase_by_id(store, first.id) == dataclasses.replace(first, versions=None)
    assert game_phase(store, "g", first.id) == dataclasses.replace(first, versions=None)
    assert game_phase(store, "other", first.id) is None and phase_by_id(store, 10**9) is None


def test_a_phase_value_is_written_as_data_without_submissions(store: GameStore) -> None:
    """A value carries no submissions: asking for them is a mistake of the caller's, said as such."""
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines={"movement": "12d"}))
    ph = store_history.history(store, "g")[0]
    assert phase_to_data(ph, submissions=False)["submissions"] == []
    with pytest.raises(TypeError, match="submissions=False"):
        phase_to_data(ph)
