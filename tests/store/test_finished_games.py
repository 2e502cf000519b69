"""The finished games as the ratings read them (:mod:`dippouch.store.finished_games`): frozen values with each
game's end time (when its last phase was closed), chosen system, practice flag and visibility; games in play
and a finished game rolled back are not listed; and people's names for a leaderboard."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from dippouch.store.access import AccessStore
from dippouch.store.finished import save_scoring
from dippouch.store.finished_games import FinishedGame, finished_games, person_names
from dippouch.store.people.accounts import forget_person
from dippouch.store.people.persons import create_person

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _draw(store: GameStore, name: str, at: datetime, settings: GameSettings | None = None) -> None:
    """``name`` ends at ``at``: every power votes for a draw in Spring 1901."""
    store_games.create_game(store, name, "standard", now=NOW, settings=settings)
    for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
        store_votes.vote(store, name, power, True, now=at)
    assert store_status.status(store, name, now=at).state == "finished"


def test_only_finished_games_are_listed_in_order_of_their_end(store: GameStore) -> None:
    assert finished_games(store) == ()
    store_games.create_game(store, "running", "standard", now=NOW)
    _draw(store, "late", NOW + timedelta(days=2))
    _draw(store, "early", NOW + timedelta(days=1), GameSettings(practice="tag", anonymous=True))
    save_scoring(store, "late", "sos", now=NOW + timedelta(days=3))
    AccessStore(store).set_visibility("early", "private")
    games = finished_games(store)
    assert [(g.name, g.ended_at) for g in games] == [
        ("early", NOW + timedelta(days=1)),
        ("late", NOW + timedelta(days=2)),  # the choice of a system later does not move its end
    ]
    early, late = games
    assert (early.variant, early.scoring, early.practice, early.visibility) == ("standard", None, True, "private")
    assert (late.scoring, late.practice, late.visibility) == ("sos", False, "public")
    # An anonymous game reveals its players at its end.
    assert not early.names_hidden and not late.names_hidden
    with pytest.raises(dataclasses.FrozenInstanceError):
        late.name = "x"  # type: ignore[misc]
    assert all(type(g) is FinishedGame for g in games)


def test_a_finished_game_rolled_back_is_no_longer_listed(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    store_processing.process(store, "g", now=NOW + timedelta(hours=1), force=True)
    for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
        store_votes.vote(store, "g", power, True, now=NOW + timedelta(hours=2))
    assert [g.ended_at for g in finished_games(store)] == [NOW + timedelta(hours=2)]
    store_history.rollback(store, "g", "Spring 1901", now=NOW + timedelta(hours=3))
    assert finished_games(store) == ()


def test_person_names_now_and_a_deleted_person(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=NOW)
    bob = create_person(store, "Bob", now=NOW)
    forget_person(store, bob, now=NOW)
    got = person_names(store, [ann, bob, ann, 999_999])
    assert set(got) == {ann, bob}
    assert (got[ann].name, got[ann].deleted) == ("Ann", False)
    assert got[bob].deleted
    assert person_names(store, []) == {}
