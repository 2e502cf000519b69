"""Open games in the store, on SQLite and PostgreSQL: sign-up with wishes, the draw when full, the
coordinator's choice, the replacement pool (first claim wins), reliability from the games' own records,
and a person's data exported and forgotten."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store.openings import (
    assign_signup,
    claim_seat,
    export_person,
    fill_from_preferences,
    forget_person,
    free_seat,
    offered_seats,
    open_game,
    open_games,
    opening,
    sign_up,
    withdraw,
)
from dippouch.store.people.persons import create_person, seat_person, seats_of
from dippouch.store.people.reliability import profile, record_of

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _game(store: GameStore, name: str = "hy", variant: str = "hundred3") -> str:
    store_games.create_game(store, name, variant, now=T0, settings=GameSettings(deadlines=DEADLINES))
    return name


def _people(store: GameStore, *names: str) -> list[int]:
    return [create_person(store, n, now=T0) for n in names]


def test_a_full_automatic_game_draws_every_power_from_the_wishes_and_restarts_its_clock(store: GameStore) -> None:
    game = _game(store)
    opened = open_game(store, game, now=T0, press="Gunboat: no press", mode="preferences")
    assert opened.deadline is None  # nobody misses the first deadline while waiting for players
    assert [o.game for o in open_games(store)] == [game]
    ann, bo, cy = _people(store, "Ann", "Bo", "Cy")
    sign_up(store, game, ann, ["England", "any"], now=T0)
    got = sign_up(store, game, bo, ["france"], now=T0 + timedelta(hours=1))
    assert (
        got.taken == 0
        and len(got.waiting) == 2
        and got.needed == 1
        and got.closed_at is None
        and store_games.players(store, game)[0][1] is None
    )
    got = sign_up(store, game, cy, ["England", "France"], now=T0 + timedelta(hours=2))
    seated = {p: cur for p, cur, _ in store_games.players(store, game)}
    # Ann takes "any" power after England; Cy named only England and France: Cy's England costs less.
    assert seated == {"Burgundy": "Ann", "England": "Cy", "France": "Bo"}
    assert {s.game: s.power for s in seats_of(store, ann)} == {game: "Burgundy"}
    assert got.closed_at is not None and got.draw is not None and isinstance(got.draw["seed"], int)
    assert got.draw["ranks"] == {str(ann): 2, str(bo): 1, str(cy): 1}
    assert got.deadline == T0 + timedelta(hours=2, days=2)  # the held clock restarted with the time it had
    assert open_games(store) == []


def test_seating_the_last_powers_by_hand_starts_the_game_as_a_draw_does(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    ann = _people(store, "Ann")[0]
    sign_up(store, game, ann, ["England"], now=T0)
    assign_signup(store, game, ann, "England", now=T0)
    # The coordinator seats the other two powers on the game's desk (no sign-up behind them).
    store_games.assign(store, game, "France", "Bo", now=T0 + timedelta(hours=1))
    assert (
        store_status.status(store, game, now=T0 + timedelta(hours=1)).deadline is None
    )  # still held: Burgundy is empty
    store_games.assign(store, game, "Burgundy", "Cy", now=T0 + timedelta(hours=3))
    st = store_status.status(store, game, now=T0 + timedelta(hours=3))
    assert st.state == "active" and st.deadline == T0 + timedelta(hours=3, days=2)  # restarted with the time it had
    got = opening(store, game)
    assert got is not None and got.closed_at == T0 + timedelta(hours=3)
    assert open_games(store) == []
    with pytest.raises(GameError, match="sign-up to hy has ended"):
        sign_up(store, game, _people(store, "Di")[0], ["England"], now=T0 + timedelta(hours=4))


def test_a_clock_resumed_by_hand_before_the_last_seat_is_left_running(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    store_deadlines.resume(store, game, now=T0 + timedelta(hours=1))
    deadline = store_status.status(store, game, now=T0 + timedelta(hours=1)).deadline
    for power, player in (("England", "Ann"), ("France", "Bo"), ("Burgundy", "Cy")):
        store_games.assign(store, game, power, player, now=T0 + timedelta(hours=2))
    assert store_status.status(store, game, now=T0 + timedelta(hours=2)).deadline == deadline
    got = opening(store, game)
    assert got is not None and got.closed_at == T0 + timedelta(hours=2)


def test_the_recorded_seed_draws_the_same_powers_again(store: GameStore) -> None:
    for name in ("a1", "a2"):
        _game(store, name)
        open_game(store, name, now=T0, mode="coordinator")
    people = _people(store, "Ann", "Bo", "Cy")
    for name in ("a1", "a2"):
        for p in people:
            sign_up(store, name, p, ["France"], now=T0)
    assert fill_from_preferences(store, "a1", now=T0, seed=99) == fill_from_preferences(store, "a2", now=T0, seed=99)


def test_the_coordinator_assigns_a_sign_up_an_empty_power(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    ann, bo = _people(store, "Ann", "Bo")
    sign_up(store, game, ann, ["France"], now=T0)
    assert assign_signup(store, game, ann, "France", now=T0) == "France"
    with pytest.raises(GameError, match="France is already played"):
        sign_up(store, game, bo, [], now=T0) and assign_signup(store, game, bo, "France", now=T0)
    with pytest.raises(GameError, match="has not signed up"):
        assign_signup(store, game, 999, "England", now=T0)
    got = opening(store, game)
    assert got is not None and [s.name for s in got.waiting] == ["Bo"]


def test_sign_up_refusals_say_what_is_wrong(store: GameStore) -> None:
    game = _game(store)
    ann, bo, cy, di = _people(store, "Ann", "Bo", "Cy", "Di")
    with pytest.raises(GameError, match="not open for players"):
        sign_up(store, game, ann, [], now=T0)
    open_game(store, game, now=T0, mode="preferences", min_reliability=0)
    with pytest.raises(GameError, match=r"no power|did you mean"):
        sign_up(store, game, ann, ["Spain"], now=T0)
    with pytest.raises(GameError, match="France is in your wishes twice"):
        sign_up(store, game, ann, ["France", "france"], now=T0)
    with pytest.raises(GameError, match="unknown assignment mode 'lottery'"):
        open_game(store, game, now=T0, mode="lottery")
    with pytest.raises(GameError, match="from 0 to 100, not 101"):
        open_game(store, game, now=T0, min_reliability=101, mode="preferences")
    with pytest.raises(GameError, match="at most 2000"):
        open_game(store, game, now=T0, press="x" * 2001, mode="preferences")
    sign_up(store, game, ann, [], now=T0)
    withdraw(store, game, ann, now=T0)
    with pytest.raises(GameError, match="have not signed up"):
        withdraw(store, game, ann, now=T0)
    for p in (ann, bo, cy):
        sign_up(store, game, p, [], now=T0)
    with pytest.raises(GameError, match="sign-up to hy has ended"):
        sign_up(store, game, di, [], now=T0)
    with pytest.raises(GameError, match=r"play .* already"):
        withdraw(store, game, ann, now=T0)


def test_a_person_below_the_minimum_is_refused_with_the_numbers(store: GameStore) -> None:
    game = _game(store, "strict")
    open_game(store, game, now=T0, min_reliability=60, mode="preferences")
    ann, bo = _people(store, "Ann", "Bo")
    # A newcomer (no record yet) is on probation: let in (issue 55: a newcomer could never qualify).
    sign_up(store, game, bo, [], now=T0)
    # Ann misses both movement phases of a game she plays: 0 %.
    _game(store, "past", "standard")
    store_games.assign(store, "past", "France", "Ann", now=T0)
    seat_person(store, "past", "France", ann, now=T0)
    _play_movement_phases(store, "past", 2)
    assert profile(store, ann) is not None
    with pytest.raises(GameError, match=r"at least 60%; yours is 0%"):
        sign_up(store, game, ann, [], now=T0)


def _play_movement_phases(store: GameStore, game: str, n: int) -> None:
    """Process phases, nobody sending orders, until ``n`` movement phases are done."""
    at = T0
    done = 0
    while done < n:
        at += timedelta(days=3)
        for name in store_processing.process(store, game, now=at, force=True):
            done += "Movement" in name


def test_a_freed_seat_goes_to_the_first_claim_and_keeps_the_games_history(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    ann, bo, cy = _people(store, "Ann", "Bo", "Cy")
    sign_up(store, game, ann, ["France"], now=T0)
    assign_signup(store, game, ann, "France", now=T0)
    with pytest.raises(GameError, match="not offered to the replacement pool"):
        claim_seat(store, game, "France", bo, now=T0)
    with pytest.raises(GameError, match="nobody plays England"):
        free_seat(store, game, "England", now=T0)
    free_seat(store, game, "France", now=T0)
    with pytest.raises(GameError, match="in the pool already"):
        free_seat(store, game, "France", now=T0)
    assert [(o.game, o.power, o.reason) for o in offered_seats(store)] == [(game, "France", "freed")]
    with pytest.raises(GameError, match="you are France's player already"):
        claim_seat(store, game, "France", ann, now=T0)
    assert claim_seat(store, game, "France", bo, now=T0 + timedelta(hours=1)) == "France"
    with pytest.raises(GameError, match="not offered"):
        claim_seat(store, game, "France", cy, now=T0 + timedelta(hours=2))
    history = {p: hist for p, _, hist in store_games.players(store, game)}["France"]
    assert [h[0] for h in history] == ["Ann", "Bo"]
    assert seats_of(store, ann) == [] and [s.power for s in seats_of(store, bo)] == ["France"]
    assert offered_seats(store) == []
    assert record_of(store, ann).abandoned == 1


def test_a_power_in_civil_disorder_is_offered_in_an_opened_game(store: GameStore) -> None:
    game = _game(store, "cd", "standard")
    ann, bo = _people(store, "Ann", "Bo")
    store_games.assign(store, game, "France", "Ann", now=T0)
    seat_person(store, game, "France", ann, now=T0)
    _play_movement_phases(store, game, 2)
    assert offered_seats(store) == []  # not opened: its coordinator has not asked the pool
    open_game(store, game, now=T0 + timedelta(days=30), mode="coordinator")
    assert [(o.power, o.reason) for o in offered_seats(store)] == [("France", "disorder")]
    claim_seat(store, game, "France", bo, now=T0 + timedelta(days=31))
    assert [s.power for s in seats_of(store, bo)] == ["France"]
    assert offered_seats(store) == []


def test_two_claims_at_once_seat_exactly_one(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    ann, *rest = _people(store, "Ann", "Bo", "Cy", "Di", "Ed")
    sign_up(store, game, ann, [], now=T0)
    assign_signup(store, game, ann, "England", now=T0)
    free_seat(store, game, "England", now=T0)
    barrier = threading.Barrier(len(rest))
    won: list[int] = []
    lost: list[str] = []

    def claim(pid: int) -> None:
        barrier.wait()
        try:
            claim_seat(store, game, "England", pid, now=T0 + timedelta(hours=1))
            won.append(pid)
        except GameError as e:
            lost.append(str(e))

    threads = [threading.Thread(target=claim, args=(p,)) for p in rest]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1, (won, lost)
    assert len(lost) == len(rest) - 1 and all("not offered" in m or "just claimed" in m for m in lost)
    history = {p: hist for p, _, hist in store_games.players(store, game)}["England"]
    assert history[0][0] == "Ann" and len(history) == 2


def test_a_persons_data_is_exported_and_forgotten(store: GameStore) -> None:
    game = _game(store)
    open_game(store, game, now=T0, mode="coordinator")
    ann, bo = _people(store, "Ann", "Bo")
    sign_up(store, game, ann, ["France", "any"], now=T0)
    assign_signup(store, game, ann, "France", now=T0)
    free_seat(store, game, "France", now=T0)
    claim_seat(store, game, "France", bo, now=T0)
    data = export_person(store, ann)
    assert data["signups"][0]["preferences"] == ["France", "any"] and data["signups"][0]["seated_as"] == "France"
    assert data["replacement_pool"][0]["left"] is True
    assert export_person(store, bo)["replacement_pool"][0]["claimed"] is True
    forget_person(store, ann, now=T0)
    forget_person(store, bo, now=T0)
    assert export_person(store, ann) == {"signups": [], "replacement_pool": [], "games_started": []}
    assert export_person(store, bo) == {"signups": [], "replacement_pool": [], "games_started": []}
    assert offered_seats(store) == []  # a claimed seat stays claimed once the names are gone
