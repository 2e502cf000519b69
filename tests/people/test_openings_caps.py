"""What one person's games and sign-ups may hold at once, on SQLite and PostgreSQL: every game they made and
that is not finished counts against :data:`MAX_CREATED`, whoever plays it (filling a game with bots ends its
sign-up, and it used to stop counting then); creations at the same instant are counted under the person's
lock, so six at once make exactly as many games as the cap allows and the refused ones leave nothing behind;
and a person waits for a power in at most :data:`MAX_SIGNUPS` games at once.

Real concurrency: threads calling the use case, released together by a barrier, each on its own connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime

from dippouch.bots.seats import seat_bot
from dippouch.game import GameError, GameSettings
from dippouch.play.openings import TemplateChoices, create_from_template
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.openings import (
    MAX_CREATED,
    MAX_SIGNUPS,
    created_games,
    open_game,
    opening,
    sign_up,
    signups_of,
    withdraw,
)
from dippouch.store.people.persons import create_person

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _together(count: int, work: Callable[[int], object]) -> list[str]:
    """``work(i)`` for i in range(count) in as many threads, released at the same instant; each one's answer
    ("made", or its refusal's message)."""
    barrier = threading.Barrier(count)
    answers: list[str] = []
    unexpected: list[BaseException] = []

    def one(i: int) -> None:
        barrier.wait()
        try:
            work(i)
            answers.append("made")
        except GameError as e:
            answers.append(str(e))
        except BaseException as e:  # shown by the test rather than as a thread's traceback
            unexpected.append(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not unexpected, unexpected
    return answers


def test_a_game_filled_with_bots_still_counts_against_its_makers_cap(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=T0)
    made = [
        create_from_template(store, ann, TemplateChoices("variant-hundred3", name=f"g{i}"), now=T0).game
        for i in range(3)
    ]
    assert MAX_CREATED == 3
    for power in store_status.status(store, made[0], now=T0).game_variant.power_names:  # type: ignore[union-attr]
        seat_bot(store, made[0], power, "hold", now=T0)
    o = opening(store, made[0])
    assert o is not None and o.closed_at is not None  # sign-up ended: every power is a bot's
    try:
        create_from_template(store, ann, TemplateChoices("variant-hundred3", name="one-more"), now=T0)
        raise AssertionError("a fourth game was made while three of Ann's were not finished")
    except GameError as e:
        assert "you have 3 games of your own not finished (at most 3)" in str(e)
        assert "when it ends" in str(e)
    assert [name for name, *_ in store_games.games(store)] == made  # the refusal left no game behind


def test_six_creations_at_once_make_exactly_the_cap_and_the_refused_leave_nothing(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=T0)
    answers = _together(
        6, lambda i: create_from_template(store, ann, TemplateChoices("variant-hundred3", name=f"race{i}"), now=T0)
    )
    assert answers.count("made") == MAX_CREATED, answers
    refused = [a for a in answers if a != "made"]
    assert all("not finished (at most 3)" in a for a in refused), refused
    # Exactly the games made exist: a refused creation made no game, opened or not.
    assert len(store_games.games(store)) == MAX_CREATED
    assert len(created_games(store, ann)) == MAX_CREATED


def _open_games(store: GameStore, count: int) -> list[str]:
    names = []
    for i in range(count):
        name = f"o{i}"
        store_games.create_game(store, name, "hundred3", now=T0, settings=GameSettings(deadlines={"movement": "2d"}))
        open_game(store, name, now=T0, mode="coordinator")
        names.append(name)
    return names


def test_a_person_waits_for_a_power_in_a_few_games_at_once(store: GameStore) -> None:
    games = _open_games(store, MAX_SIGNUPS + 1)
    bo = create_person(store, "Bo", now=T0)
    for name in games[:MAX_SIGNUPS]:
        sign_up(store, name, bo, ["any"], now=T0)
    try:
        sign_up(store, games[-1], bo, ["any"], now=T0)
        raise AssertionError("an eleventh sign-up was taken")
    except GameError as e:
        assert str(e) == (
            f"you wait for a power in {MAX_SIGNUPS} games already (at most {MAX_SIGNUPS}): withdraw from one of "
            "them (Withdraw, on its page; My games lists them) before you sign up to another"
        )
    sign_up(store, games[0], bo, ["England"], now=T0)  # changing one's wishes is no new sign-up
    withdraw(store, games[0], bo, now=T0)
    sign_up(store, games[-1], bo, ["any"], now=T0)  # a place freed is taken
    assert len(signups_of(store, bo)) == MAX_SIGNUPS


def test_sign_ups_at_once_to_different_games_keep_to_the_cap(store: GameStore) -> None:
    games = _open_games(store, MAX_SIGNUPS + 4)
    cy = create_person(store, "Cy", now=T0)
    answers = _together(len(games), lambda i: sign_up(store, games[i], cy, ["any"], now=T0))
    assert answers.count("made") == MAX_SIGNUPS, answers
    assert len(signups_of(store, cy)) == MAX_SIGNUPS
