"""A claim, a draw, a coordinator's choice and an opening are each one transaction, on SQLite and PostgreSQL:
a process that dies while seating (simulated by making a seating step raise, which rolls its transaction
back as a killed connection does) leaves the game as it was before, never a seat half handed over, and the
same request made again then works.

Each crash is raised at a step that ran in a transaction of its own after the first one committed: the
seat's hand-over (``seat_power``), naming its person (``seat_person``), or holding the clock (``pause``). A
claim hands the seat over in one call (``change_seat``), which also revokes the old player's links: it dies
there, or inside it once the seat rows are written (``revoke_power_keys_in``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore, access, openings
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.access import AccessStore
from dippouch.store.openings import (
    assign_signup,
    claim_seat,
    export_person,
    fill_from_preferences,
    free_seat,
    offered_seats,
    open_game,
    opening,
    sign_up,
)
from dippouch.store.people.persons import create_person, seats_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}
STEPS = ["seat_power", "seat_person"]
CLAIM_STEPS = [(openings, "change_seat"), (access, "revoke_power_keys_in")]


class Crash(Exception):
    """The process dies here."""


def _crash_at(monkeypatch: pytest.MonkeyPatch, step: str, *, call: int = 1, module: Any = openings) -> None:
    """Make the ``call``-th call of the seating step ``step`` (as ``module``, by default
    :mod:`dippouch.store.openings`, calls it) die; the calls before it run as usual."""
    real: Callable[..., Any] = getattr(module, step)
    calls = 0

    def dying(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == call:
            raise Crash(step)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, step, dying)


def _game(store: GameStore, mode: str, name: str = "hy") -> str:
    """A three-power game opened for players, its clock held until its seats are filled."""
    store_games.create_game(store, name, "hundred3", now=T0, settings=GameSettings(deadlines=DEADLINES))
    open_game(store, name, now=T0, mode=mode)
    return name


def _seated(store: GameStore, game: str) -> dict[str, str | None]:
    return {power: current for power, current, _ in store_games.players(store, game)}


@pytest.mark.parametrize(("module", "step"), CLAIM_STEPS)
def test_a_claim_that_dies_while_seating_leaves_the_seat_in_the_pool(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, module: Any, step: str
) -> None:
    game = _game(store, "coordinator")
    ann, bo = (create_person(store, n, now=T0) for n in ("Ann", "Bo"))
    sign_up(store, game, ann, ["England"], now=T0)
    assign_signup(store, game, ann, "England", now=T0)
    keys = AccessStore(store)
    _, link = keys.create_key("player", game=game, power="England", label="Ann", now=T0)
    free_seat(store, game, "England", now=T0)
    with monkeypatch.context() as m:
        _crash_at(m, step, module=module)
        with pytest.raises(Crash):
            claim_seat(store, game, "England", bo, now=T0 + timedelta(hours=1))
    # As before the claim: Ann keeps the seat and her link, it is still offered, and no claim is recorded.
    assert keys.find_key(link) is not None
    assert [(o.power, o.reason) for o in offered_seats(store)] == [("England", "freed")]
    history = {p: hist for p, _, hist in store_games.players(store, game)}["England"]
    assert [h[0] for h in history] == ["Ann"]
    assert [s.power for s in seats_of(store, ann)] == ["England"] and seats_of(store, bo) == []
    assert export_person(store, bo)["replacement_pool"] == []
    with pytest.raises(GameError, match="in the pool already"):
        free_seat(store, game, "England", now=T0 + timedelta(hours=2))
    # The same claim made again takes the seat, and Ann's link stops working with it.
    assert claim_seat(store, game, "England", bo, now=T0 + timedelta(hours=2)) == "England"
    assert [s.power for s in seats_of(store, bo)] == ["England"] and seats_of(store, ann) == []
    assert keys.find_key(link) is None
    assert offered_seats(store) == []


@pytest.mark.parametrize("step", STEPS)
def test_a_draw_that_dies_while_seating_leaves_the_sign_ups_waiting_and_the_clock_held(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    game = _game(store, "preferences")
    ann, bo, cy = (create_person(store, n, now=T0) for n in ("Ann", "Bo", "Cy"))
    sign_up(store, game, ann, ["England"], now=T0)
    sign_up(store, game, bo, ["France"], now=T0)
    with monkeypatch.context() as m:
        _crash_at(m, step, call=2)  # one power seated already when it dies
        with pytest.raises(Crash):
            sign_up(store, game, cy, ["Burgundy"], now=T0 + timedelta(hours=1))
    # As before Cy's sign-up: nobody marked with a power or seated, no draw, sign-up open, the clock held.
    got = opening(store, game)
    assert got is not None
    assert [(s.name, s.seated_as) for s in got.signups] == [("Ann", None), ("Bo", None)]
    assert got.draw is None and got.closed_at is None and got.deadline is None
    assert _seated(store, game) == {"Burgundy": None, "England": None, "France": None}
    # Cy signs up again: the draw seats all three and restarts the clock.
    got = sign_up(store, game, cy, ["Burgundy"], now=T0 + timedelta(hours=2))
    assert _seated(store, game) == {"Burgundy": "Cy", "England": "Ann", "France": "Bo"}
    assert got.draw is not None and got.closed_at is not None and not got.waiting
    assert got.deadline == T0 + timedelta(hours=2, days=2)


@pytest.mark.parametrize("step", STEPS)
def test_draw_now_that_dies_while_seating_can_be_drawn_again(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    game = _game(store, "coordinator")
    ann, bo = (create_person(store, n, now=T0) for n in ("Ann", "Bo"))
    sign_up(store, game, ann, ["England"], now=T0)
    sign_up(store, game, bo, ["France"], now=T0)
    with monkeypatch.context() as m:
        _crash_at(m, step, call=2)
        with pytest.raises(Crash):
            fill_from_preferences(store, game, now=T0, seed=7)
    got = opening(store, game)
    assert got is not None and got.draw is None and [s.seated_as for s in got.signups] == [None, None]
    assert _seated(store, game) == {"Burgundy": None, "England": None, "France": None}
    assert fill_from_preferences(store, game, now=T0, seed=7) == {ann: "England", bo: "France"}
    assert _seated(store, game) == {"Burgundy": None, "England": "Ann", "France": "Bo"}


@pytest.mark.parametrize("step", STEPS)
def test_a_coordinators_choice_that_dies_while_seating_can_be_made_again(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    game = _game(store, "coordinator")
    ann = create_person(store, "Ann", now=T0)
    sign_up(store, game, ann, ["France"], now=T0)
    with monkeypatch.context() as m:
        _crash_at(m, step)
        with pytest.raises(Crash):
            assign_signup(store, game, ann, "France", now=T0)
    got = opening(store, game)
    assert got is not None and [s.seated_as for s in got.signups] == [None]
    assert _seated(store, game)["France"] is None
    assert assign_signup(store, game, ann, "France", now=T0) == "France"
    assert [s.power for s in seats_of(store, ann)] == ["France"]


def test_an_opening_that_dies_before_holding_the_clock_can_be_opened_again(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store_games.create_game(store, "hy", "hundred3", now=T0, settings=GameSettings(deadlines=DEADLINES))
    with monkeypatch.context() as m:
        _crash_at(m, "pause")
        with pytest.raises(Crash):
            open_game(store, "hy", now=T0, mode="preferences")
    assert opening(store, "hy") is None
    assert store_status.status(store, "hy", now=T0).deadline is not None  # the clock runs: the game was never opened
    got = open_game(store, "hy", now=T0, mode="preferences")
    assert got.deadline is None  # opened now, and its clock held until the seats are filled
