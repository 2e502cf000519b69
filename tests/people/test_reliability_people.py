"""Reliability that counts people: only the phases a person held their seat in, an abandoned seat counted once,
a bot's or a stand-in's phases never the person's, an announced absence excused, practice games never counted;
and the person's page, its API and a game's minimum reliability say the same numbers.

Every game here is played through the store (and the bots' own player), as the scheduler plays it: a bot run
processes many phases with one "now", the instant its seat was taken (players' trial, dl5)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from dippouch.bots.seats import bot_pace, process_with_bots, seat_bot
from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.openings import open_game, sign_up
from dippouch.store.people.absences import record_absence, set_absence_policy
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.people.reliability import profile, record_of
from websupport import Site

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DAILY = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


def _counts(store: GameStore, person: int) -> tuple[int, int, int, int, int, int]:
    r = record_of(store, person)
    return (r.on_time, r.late, r.missed, r.excused, r.seats, r.abandoned)


def _bot_game(store: GameStore, name: str, person: int, *, practice: str | None = None) -> str:
    """hundred3 with the person as Burgundy and bots in England and France."""
    store_games.create_game(store, name, "hundred3", now=T0, settings=GameSettings(deadlines=DAILY, practice=practice))
    store_games.assign(store, name, "Burgundy", "Carol", now=T0)
    seat_person(store, name, "Burgundy", person, now=T0)
    for power in ("England", "France"):
        seat_bot(store, name, power, "heuristic", now=T0)
    return name


def _carol_replaced_by_a_bot(store: GameStore, game: str, carol: int) -> datetime:
    """The players' trial's dl5: Carol sends nothing; after two missed movement phases a bot takes her seat
    and plays 13 phases more (or to the game's end), a phase a minute (bots alone play it: the installation's
    pace). The instant of its last phase."""
    _bot_game(store, game, carol)
    at = T0
    for _ in range(2):
        at += timedelta(days=2)
        assert [n for n in process_with_bots(store, game, now=at, force=True, limit=1) if "Movement" in n]
    seat_bot(store, game, "Burgundy", "heuristic", now=at)
    played: list[str] = []
    for _ in range(40):
        if len(played) >= 13 or store_status.status(store, game, now=at).state == "finished":
            break
        at += bot_pace()
        played += process_with_bots(store, game, now=at, limit=13 - len(played))
    # Thirteen phases, or fewer when a bot wins first (the bots' play decides where the game ends); enough for
    # the bot's phases to count for her record if they were counted at all.
    assert len(played) == 13 or (len(played) >= 5 and store_status.status(store, game, now=at).state == "finished"), (
        played
    )
    return at


def test_the_players_trial_case_a_bots_phases_are_not_hers_and_her_abandonment_counts(store: GameStore) -> None:
    carol = create_person(store, "Carol", now=T0)
    _carol_replaced_by_a_bot(store, "dl5", carol)
    # Was 9 on time (the bot's), 2 missed, abandoned 0: 81% (86% in the trial, with 13 bot phases to act in).
    assert _counts(store, carol) == (0, 0, 2, 0, 1, 1)
    got = profile(store, carol)
    assert got is not None and got.reliability == 0 and got.games == 1


def test_a_person_who_takes_the_seat_back_from_a_bot_has_both_turns_and_none_of_the_bots(
    store: GameStore,
) -> None:
    ann = create_person(store, "Ann", now=T0)
    game = _bot_game(store, "back", ann)
    store_submissions.submit(store, game, "Burgundy", "no orders", now=T0 + timedelta(hours=1))
    at = T0 + timedelta(days=1)
    assert process_with_bots(store, game, now=at, force=True, limit=1) == ["1425 Movement"]
    # The coordinator seats a bot for her while she asks for a break; bots alone, they play on at the
    # installation's pace (a phase a minute), to the next year's movement phase.
    seat_bot(store, game, "Burgundy", "heuristic", now=at)
    bot: list[str] = []
    while not bot or "Movement" not in str(store_status.status(store, game, now=at).phase):
        at += bot_pace()
        bot += process_with_bots(store, game, now=at, limit=1)
    assert len(bot) >= 1
    # She takes the seat back, and sends the next orders herself.
    back = at + timedelta(hours=1)
    store_games.assign(store, game, "Burgundy", "Ann", now=back, replace=True)
    seat_person(store, game, "Burgundy", ann, now=back)
    store_submissions.submit(store, game, "Burgundy", "no orders", now=back)
    assert process_with_bots(store, game, now=back + timedelta(hours=1), force=True, limit=1)
    # Two turns, one phase each, on time: none of the bot's phases; a seat given up after orders that came and a
    # seat taken back are no abandonment.
    assert _counts(store, ann) == (2, 0, 0, 0, 2, 0)
    assert profile(store, ann).games == 1  # type: ignore[union-attr]


def test_a_seat_handed_over_after_a_missed_phase_is_abandoned_once(store: GameStore) -> None:
    ann, bo, cy = (create_person(store, n, now=T0) for n in ("Ann", "Bo", "Cy"))
    # A limit of three: one missed phase is no civil disorder, for the game or for the record.
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(deadlines=DAILY, missed_limit=3))
    for power, person, name in (("France", ann, "Ann"), ("Italy", cy, "Cy")):
        store_games.assign(store, "g", power, name, now=T0)
        seat_person(store, "g", power, person, now=T0)
    store_submissions.submit(store, "g", "Italy", "A Rom H", now=T0 + timedelta(hours=1))
    store_processing.process(store, "g", now=T0 + timedelta(days=2, hours=1))  # Spring: Ann missed, Cy on time
    # The coordinator hands both seats over; Ann's after her missed phase: she abandoned it.
    later = T0 + timedelta(days=2, hours=2)
    store_games.assign(store, "g", "France", "Bo", now=later, replace=True)
    seat_person(store, "g", "France", bo, now=later)
    store_games.assign(store, "g", "Italy", "Di", now=later, replace=True)
    assert _counts(store, ann) == (0, 0, 1, 0, 1, 1)  # was abandoned 0
    assert _counts(store, cy) == (1, 0, 0, 0, 1, 0)
    got = profile(store, ann)
    assert got is not None and got.reliability == 0


def test_a_stand_ins_orders_during_an_absence_are_excused_not_hers(store: GameStore) -> None:
    ann, sam = create_person(store, "Ann", now=T0), create_person(store, "Sam", now=T0)
    store_games.create_game(store, "s", "standard", now=T0, settings=GameSettings(deadlines=DAILY))
    store_games.assign(store, "s", "France", "Ann", now=T0)
    seat_person(store, "s", "France", ann, now=T0)
    set_absence_policy(store, "s", "stand_in", now=T0, stand_in_person_id=sam)
    record_absence(store, ann, date(2026, 3, 2), date(2026, 3, 5), now=T0)
    # Spring 1901 (deadline 3 March): Sam, standing in, orders France on time.
    store_submissions.submit(store, "s", "France", "A Par H\nA Mar H\nF Bre H", now=T0 + timedelta(days=1))
    store_processing.process(store, "s", now=T0 + timedelta(days=2, minutes=1))
    # Fall 1901 (deadline 5 March): Sam sends nothing; France misses it.
    store_processing.process(store, "s", now=T0 + timedelta(days=4, minutes=2))
    assert "France" in store_history.phase_record(store, "s", "Fall 1901 Movement", submissions=False)["missed"]
    # Ann is back on 6 March: Spring 1902 (deadline 7 March) is hers, and she orders it on time.
    assert store_status.status(store, "s", now=T0 + timedelta(days=5)).phase == "Spring 1902 Movement"
    store_submissions.submit(store, "s", "France", "A Par H", now=T0 + timedelta(days=5))
    store_processing.process(store, "s", now=T0 + timedelta(days=6, minutes=3))
    # Was 2 on time, 1 missed: 66%.
    assert _counts(store, ann) == (1, 0, 0, 2, 1, 0)
    assert profile(store, ann).reliability == 100  # type: ignore[union-attr]
    assert _counts(store, sam) == (0, 0, 0, 0, 0, 0)


def test_a_phase_missed_in_an_announced_absence_is_excused_and_one_announced_afterwards_is_not(
    store: GameStore,
) -> None:
    bo = create_person(store, "Bo", now=T0)
    store_games.create_game(store, "h", "standard", now=T0, settings=GameSettings(deadlines=DAILY, missed_limit=3))
    store_games.assign(store, "h", "Germany", "Bo", now=T0)
    seat_person(store, "h", "Germany", bo, now=T0)
    # Spring (deadline 3 March) missed; on 4 March Bo records an absence reaching back to 1 March.
    store_processing.process(store, "h", now=T0 + timedelta(days=2, minutes=1))
    record_absence(store, bo, date(2026, 3, 1), date(2026, 3, 6), now=T0 + timedelta(days=3))
    # Fall (deadline 5 March) missed, in the absence he announced before it.
    store_processing.process(store, "h", now=T0 + timedelta(days=4, minutes=2))
    # Was 2 missed: the absence announced in time excuses Fall, not the Spring he had missed already.
    assert _counts(store, bo) == (0, 0, 1, 1, 1, 0)


def test_a_practice_game_against_bots_never_counts(store: GameStore) -> None:
    ann = create_person(store, "Ann", now=T0)
    game = _bot_game(store, "practice-1", ann, practice="client-tag")
    process_with_bots(store, game, now=T0 + timedelta(days=2), force=True, limit=1)  # Ann missed it
    store_submissions.submit(store, game, "Burgundy", "A dij H", now=T0 + timedelta(days=2, hours=1))
    process_with_bots(store, game, now=T0 + timedelta(days=3), force=True, limit=1)
    assert _counts(store, ann) == (0, 0, 0, 0, 0, 0)
    got = profile(store, ann)
    assert got is not None and (got.games, got.reliability) == (0, None)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_the_persons_page_its_api_and_a_games_minimum_say_the_same_numbers(site: Site) -> None:
    store = site.web.store
    carol = create_person(store, "Carol", now=T0)
    _carol_replaced_by_a_bot(store, "dl5", carol)
    visitor = site.browser()
    data = visitor.get(f"/api/people/{carol}").json()
    assert data["reliability"] == 0  # was 81
    assert {k: data["record"][k] for k in ("on_time", "late", "missed", "seats", "abandoned")} == {
        "on_time": 0,
        "late": 0,
        "missed": 2,
        "seats": 1,
        "abandoned": 1,
    }
    page = visitor.get(f"/people/{carol}").text
    assert "0%" in page and "0 on time, 0 late, 2 missed" in page and "81%" not in page
    # A game asking 50% refuses her, with her number (81% let her in).
    site.new_game("lobby2", "hundred3")
    open_game(store, "lobby2", now=T0, min_reliability=50, mode="preferences")
    with pytest.raises(GameError, match=r"lobby2 asks a reliability of at least 50%; yours is 0%"):
        sign_up(store, "lobby2", carol, [], now=T0)
