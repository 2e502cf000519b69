"""People in the store: a person, the seats they play, and what a browser signed in as them may open."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.access import AccessStore, Grant
from dippouch.store.people.persons import create_person, person, person_by_email, rename_person, seat_person, seats_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _game(store: GameStore, name: str) -> None:
    deadlines = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(deadlines=deadlines))


def test_a_person_is_found_by_their_address_whatever_its_case(store: GameStore) -> None:
    pid = create_person(store, "  Ann   Lee ", now=T0, email="Ann@Example.org")
    got = person(store, pid)
    assert got is not None and got.name == "Ann Lee" and got.email == "ann@example.org"
    found = person_by_email(store, "ANN@example.ORG")
    assert found is not None and found.id == pid
    assert person_by_email(store, "nobody@example.org") is None
    assert person_by_email(store, "not an address") is None


def test_an_address_belongs_to_one_person_only(store: GameStore) -> None:
    create_person(store, "Ann", now=T0, email="ann@example.org")
    with pytest.raises(GameError, match="already belongs to a person"):
        create_person(store, "Impostor", now=T0, email="ANN@example.org")


def test_a_person_needs_a_name_of_bounded_length(store: GameStore) -> None:
    with pytest.raises(GameError, match="needs a name"):
        create_person(store, "   ", now=T0)
    with pytest.raises(GameError, match="at most 200 characters"):
        create_person(store, "x" * 201, now=T0)
    pid = create_person(store, "Bo", now=T0)
    with pytest.raises(GameError, match="needs a name"):
        rename_person(store, pid, "")
    rename_person(store, pid, "Bo Diddley")
    assert (p := person(store, pid)) is not None and p.name == "Bo Diddley"


def test_a_person_plays_seats_in_several_games_and_loses_a_seat_handed_over(store: GameStore) -> None:
    _game(store, "alpha")
    _game(store, "beta")
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    for game, power in (("alpha", "France"), ("beta", "Turkey")):
        store_games.assign(store, game, power, "Ann", now=T0)
        seat_person(store, game, power, pid, now=T0)
    seats = seats_of(store, pid)
    assert [(s.game, s.power) for s in seats] == [("alpha", "France"), ("beta", "Turkey")]
    assert all(s.phase == "Spring 1901 Movement" and s.deadline is not None for s in seats)

    store_games.assign(store, "alpha", "France", "Someone else", now=T0 + timedelta(hours=1), replace=True)
    assert [(s.game, s.power) for s in seats_of(store, pid)] == [("beta", "Turkey")]


def test_seating_a_person_needs_a_seated_power_and_a_live_person(store: GameStore) -> None:
    _game(store, "alpha")
    pid = create_person(store, "Ann", now=T0)
    with pytest.raises(GameError, match="nobody plays France"):
        seat_person(store, "alpha", "France", pid, now=T0)
    store_games.assign(store, "alpha", "France", "Ann", now=T0)
    with pytest.raises(GameError, match="no person 999"):
        seat_person(store, "alpha", "France", 999, now=T0)
    with pytest.raises(GameError, match="no game"):
        seat_person(store, "gamma", "France", pid, now=T0)


def test_a_session_signed_in_as_a_person_holds_their_seats_besides_its_keys(store: GameStore) -> None:
    _game(store, "alpha")
    access = AccessStore(store)
    pid = create_person(store, "Ann", now=T0)
    store_games.assign(store, "alpha", "England", "Ann", now=T0)
    seat_person(store, "alpha", "England", pid, now=T0)
    key_id, _ = access.create_key("player", now=T0, game="alpha", power="Italy")
    token = access.start_session([key_id, 0], now=T0, person_id=pid)
    info = access.session_info(token, now=T0)
    assert info is not None
    grants, who = info
    assert who == pid
    assert Grant(key_id, "player", "alpha", "Italy") in grants
    assert Grant(0, "player", "alpha", "England") in grants
    assert access.session_person(token, now=T0) == pid

    # A session without a person has only its keys; a stranger's seat is nobody else's grant.
    other = access.start_session([key_id], now=T0)
    assert access.session_grants(other, now=T0) == [Grant(key_id, "player", "alpha", "Italy")]
    assert access.session_person(other, now=T0) is None

    # The seat handed over leaves the person's grants at once.
    store_games.assign(store, "alpha", "England", "Cy", now=T0 + timedelta(minutes=5), replace=True)
    assert Grant(0, "player", "alpha", "England") not in (access.session_grants(token, now=T0) or [])
