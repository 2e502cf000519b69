"""A person's postal addresses in the store, the rosters built from them, who reads a roster by default (the
variant's data), and a person's addresses in "download my data" and gone after "delete my data"."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import variant_copy as variant_copy
from dippouch.store.people import addresses as A
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _seat(store: GameStore, game: str, power: str, pid: int, name: str) -> None:
    store_games.assign(store, game, power, name, now=T0)
    seat_person(store, game, power, pid, now=T0)


def test_a_person_keeps_one_primary_address_and_dated_alternates(store: GameStore) -> None:
    pid = create_person(store, "Ann", now=T0, email="ann@example.org")
    home = A.add_address(store, pid, "  1 High Street \r\n\r\n Oxford ", now=T0)
    trip = A.add_address(
        store, pid, "Hotel du Port\nBrest", now=T0, first_day=date(2026, 8, 3), last_day=date(2026, 8, 21)
    )
    got = A.addresses_of(store, pid)
    assert [(a.id, a.text, a.first_day) for a in got] == [
        (home, "1 High Street\nOxford", None),
        (trip, "Hotel du Port\nBrest", date(2026, 8, 3)),
    ]
    with pytest.raises(GameError, match="you have a primary address already"):
        A.add_address(store, pid, "2 Low Road", now=T0)
    with pytest.raises(GameError, match="an alternate address needs both days"):
        A.add_address(store, pid, "2 Low Road", now=T0, first_day=date(2026, 9, 1))
    with pytest.raises(GameError, match=r"to: 2026-08-01 is before 'from' \(2026-09-01\); did you mean"):
        A.add_address(store, pid, "2 Low Road", now=T0, first_day=date(2026, 9, 1), last_day=date(2026, 8, 1))
    with pytest.raises(GameError, match="address: write the address"):
        A.add_address(store, pid, " \n ", now=T0, first_day=date(2026, 9, 1), last_day=date(2026, 9, 2))
    with pytest.raises(GameError, match="address: at most 12 lines"):
        A.add_address(store, pid, "x\n" * 13, now=T0, first_day=date(2026, 9, 1), last_day=date(2026, 9, 2))
    A.edit_address(store, pid, trip, "Hotel du Port\nBrest", first_day=date(2026, 8, 4), last_day=date(2026, 8, 21))
    with pytest.raises(GameError, match="you have a primary address already"):
        A.edit_address(store, pid, trip, "Brest", first_day=None, last_day=None)
    A.remove_address(store, pid, trip)
    assert [a.id for a in A.addresses_of(store, pid)] == [home]


def test_nobody_edits_or_removes_another_persons_address(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=T0)
    eve = create_person(store, "Eve", now=T0)
    home = A.add_address(store, ann, "1 High Street", now=T0)
    with pytest.raises(GameError, match=f"you have no address #{home}"):
        A.edit_address(store, eve, home, "Eve's now", first_day=None, last_day=None)
    with pytest.raises(GameError, match=f"you have no address #{home}"):
        A.remove_address(store, eve, home)
    assert [a.text for a in A.addresses_of(store, ann)] == ["1 High Street"]


def test_the_roster_lists_every_power_with_the_address_in_force_and_changes_ahead(store: GameStore) -> None:
    for name in ("powick", "edgehill"):
        store_games.create_game(store, name, "w3k", now=T0, settings=GameSettings(deadlines=DEADLINES))
    powers = variant_copy.variant_of(store, "powick").power_names
    ann = create_person(store, "Ann", now=T0, email="ann@example.org")
    A.add_address(store, ann, "1 High Street", now=T0)
    A.add_address(store, ann, "Brest", now=T0, first_day=date(2026, 8, 3), last_day=date(2026, 8, 21))
    _seat(store, "powick", powers[0], ann, "Ann")
    _seat(store, "edgehill", powers[1], ann, "Ann")  # a player in both games, as the rulebook has it
    store_games.assign(store, "powick", powers[2], "Bo (by post)", now=T0)  # a seat without a person: no address
    store_games.set_email(store, "powick", powers[2], "bo@example.org", now=T0)
    got = {r.game: r for r in A.roster(store, None, date(2026, 8, 5))}
    assert set(got) == {"powick", "edgehill"}
    first = {e.power: e for e in got["powick"].entries}
    assert first[powers[0]].address == "Brest" and first[powers[0]].until == date(2026, 8, 21)
    assert first[powers[0]].changes == ((date(2026, 8, 22), "1 High Street"),)
    assert first[powers[0]].emails == ("ann@example.org",)
    assert first[powers[2]].address is None and first[powers[2]].emails == ("bo@example.org",)
    assert [e.power for e in got["edgehill"].entries] == [powers[1]]
    assert [r.game for r in A.roster(store, ["edgehill"], date(2026, 8, 5))] == ["edgehill"]


def test_who_reads_the_roster_comes_from_the_variant_until_the_game_says(store: GameStore) -> None:
    store_games.create_game(store, "w", "w3k", now=T0, settings=GameSettings(deadlines=DEADLINES))
    store_games.create_game(store, "s", "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))
    assert A.roster_visibility(store, "w") == "co-players"  # the rulebook's document is every player's
    assert A.roster_visibility(store, "s") == "coordinator"
    assert A.set_roster_visibility(store, "w", "Nobody", now=T0) == "nobody"
    assert A.roster_visibility(store, "w") == "nobody"
    with pytest.raises(GameError, match="roster_visibility: 'everyone' is not a choice; choose one of coordinator"):
        A.set_roster_visibility(store, "w", "everyone", now=T0)


def test_a_persons_addresses_are_in_their_data_and_gone_when_they_delete_it(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=T0)
    A.add_address(store, ann, "1 High Street", now=T0)
    A.add_address(store, ann, "Brest", now=T0, first_day=date(2026, 8, 3), last_day=date(2026, 8, 21))
    data = A.export_person(store, ann)
    assert [(a["address"], a["from"], a["to"]) for a in data["postal_addresses"]] == [
        ("1 High Street", None, None),
        ("Brest", "2026-08-03", "2026-08-21"),
    ]
    A.forget_person(store, ann, now=T0)
    assert A.addresses_of(store, ann) == [] and A.export_person(store, ann) == {"postal_addresses": []}
