"""The waiting list and leaving, in the store, on SQLite and PostgreSQL: more sign-ups than empty powers are drawn
first come first served (the coordinator's draw refused outright before: "4 people wait for 3 empty powers"); a
full game takes a sign-up only onto its waiting list; the one ``started`` event is written with the draw; a
creator may have only so many games waiting; a person forgotten stops coordinating the games they started."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.models import EventRow
from dippouch.store.openings import (
    MAX_CREATED,
    check_creator,
    created_games,
    fill_from_preferences,
    forget_person,
    open_game,
    opening,
    resign,
    sign_up,
    signups_of,
)
from dippouch.store.people.persons import create_person, seats_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _game(store: GameStore, name: str, *, mode: str = "coordinator", creator: int | None = None) -> str:
    store_games.create_game(store, name, "hundred3", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
    open_game(store, name, now=T0, mode=mode, creator_id=creator)
    return name


def test_a_draw_with_more_people_than_powers_seats_the_first_to_sign_up(store: GameStore) -> None:
    game = _game(store, "hy")
    people = [create_person(store, n, now=T0) for n in ("Ann", "Bo", "Cy", "Di")]
    for i, p in enumerate(people):
        sign_up(store, game, p, ["any"], now=T0 + timedelta(minutes=i))
    got = fill_from_preferences(store, game, now=T0 + timedelta(hours=1), seed=7)
    assert sorted(got) == people[:3]
    assert seats_of(store, people[3]) == []
    (mine,) = signups_of(store, people[3])
    assert mine.game == game and mine.on_waiting_list
    with store.session() as s:
        starts = s.query(EventRow).filter(EventRow.kind == "started").all()
        assert len(starts) == 1 and starts[0].detail["powers"] == ["Burgundy", "England", "France"]


def test_a_full_game_takes_a_sign_up_only_onto_its_waiting_list(store: GameStore) -> None:
    game = _game(store, "auto", mode="preferences")
    for i, n in enumerate(("Ann", "Bo", "Cy")):
        sign_up(store, game, create_person(store, n, now=T0), ["any"], now=T0 + timedelta(minutes=i))
    di = create_person(store, "Di", now=T0)
    with pytest.raises(GameError, match="join its waiting list"):
        sign_up(store, game, di, ["any"], now=T0 + timedelta(hours=1))
    o = sign_up(store, game, di, ["any"], now=T0 + timedelta(hours=1), wait=True)
    assert [s.person_id for s in o.waiting] == [di] and o.taken == 3
    assert resign(store, game, di, now=T0 + timedelta(hours=2)).how == "withdrawn"
    assert signups_of(store, di) == []


def test_a_creator_has_a_limit_of_games_waiting_and_forgetting_them_ends_their_coordination(
    store: GameStore,
) -> None:
    ann = create_person(store, "Ann", now=T0)
    for i in range(MAX_CREATED):
        _game(store, f"g{i}", mode="preferences", creator=ann)
    with pytest.raises(GameError, match=f"at most {MAX_CREATED}"):
        check_creator(store, ann)
    assert created_games(store, ann) == [f"g{i}" for i in range(MAX_CREATED)]
    forget_person(store, ann, now=T0)
    assert created_games(store, ann) == []
    assert (o := opening(store, "g0")) is not None and o.creator_id is None
