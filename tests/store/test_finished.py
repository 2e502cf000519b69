"""A game's record as the scores and statistics read it (:mod:`dippouch.store.finished`): frozen values with the
current line of play (a rollback's abandoned phases left out), the ending, each seat's holder (a person, a bot,
nobody) and civil disorder, the practice flag, and the scoring system kept in the game's settings and its
event log."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.bots.seats import seat_bot
from dippouch.game import GameSettings, RecordNotFound
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import rows as store_rows
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from dippouch.store import votes as store_votes
from dippouch.store.finished import SCORING_KEY, game_record, save_scoring

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_a_new_game_s_record(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    store_games.assign(store, "g", "France", "Fay", now=NOW)
    seat_bot(store, "g", "Germany", "hold", now=NOW)
    rec = game_record(store, "g")
    assert (rec.name, rec.status, rec.finished, rec.ending, rec.scoring, rec.practice) == (
        "g",
        "active",
        False,
        None,
        None,
        False,
    )
    assert [p.name for p in rec.phases] == ["Spring 1901 Movement"]
    seats = {s.power: s for s in rec.seats}
    assert list(seats) == list(rec.variant.power_names)
    assert seats["France"].player == "Fay" and not seats["France"].bot
    assert seats["Germany"].player == "bot:hold" and seats["Germany"].bot
    assert seats["Italy"].player is None and not seats["Italy"].bot
    assert not any(s.civil_disorder for s in rec.seats)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.status = "finished"  # type: ignore[misc]


def test_civil_disorder_the_ending_and_the_line_of_play(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    store_games.assign(store, "g", "France", "Fay", now=NOW)
    for day in (1, 2):
        store_submissions.submit(store, "g", "France", "A Par H", now=NOW + timedelta(days=day))
        store_processing.process(store, "g", now=NOW + timedelta(days=day, hours=1), force=True)
    rec = game_record(store, "g")
    # No builds are due: the winter is skipped.
    assert [p.name for p in rec.phases] == ["Spring 1901 Movement", "Fall 1901 Movement", "Spring 1902 Movement"]
    disorder = {s.power for s in rec.seats if s.civil_disorder}
    assert disorder == set(rec.variant.power_names) - {"France"}  # two movement phases missed
    store_history.rollback(store, "g", "Fall 1901", now=NOW + timedelta(days=3))
    assert [p.name for p in game_record(store, "g").phases] == ["Spring 1901 Movement", "Fall 1901 Movement"]
    for power in rec.variant.power_names:  # civil disorder lapsed with the phases undone: everyone votes
        if not game_record(store, "g").finished:
            store_votes.vote(store, "g", power, True, now=NOW + timedelta(days=3))
    rec = game_record(store, "g")
    assert rec.finished and rec.ending is not None and rec.ending.kind == "draw"


def test_a_practice_game_is_marked(store: GameStore) -> None:
    store_games.create_game(store, "p", "standard", now=NOW, settings=GameSettings(practice="tag"))
    assert game_record(store, "p").practice


def test_the_scoring_system_is_kept_in_the_settings(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=NOW)
    save_scoring(store, "g", "sos", now=NOW)
    assert game_record(store, "g").scoring == "sos"
    with store.session() as s:
        assert store_rows.game_row(s, "g").settings[SCORING_KEY] == "sos"
    # The game's other settings are untouched.
    assert store_status.status(store, "g", now=NOW).settings == GameSettings(scoring="sos")
    save_scoring(store, "g", None, now=NOW)
    assert game_record(store, "g").scoring is None


def test_the_scoring_system_survives_a_rewrite_of_the_settings_and_the_game_file(store: GameStore) -> None:
    """The choice is one of the game's settings (``GameSettings.scoring``): changing the deadlines rewrites the
    settings with it, and the game file carries it."""
    store_games.create_game(store, "g", "standard", now=NOW)
    save_scoring(store, "g", "sos", now=NOW)
    store_deadlines.set_deadlines(store, "g", {"movement": "3d"}, now=NOW)
    with store.session() as s:
        assert store_rows.game_row(s, "g").settings[SCORING_KEY] == "sos"
    assert game_record(store, "g").scoring == "sos"
    store_transfer.import_game(store, store_transfer.export_game(store, "g"), name="copy")
    assert game_record(store, "copy").scoring == "sos"
    save_scoring(store, "g", None, now=NOW)  # back to the default: the latest choice says so
    store_deadlines.set_deadlines(store, "g", {"movement": "4d"}, now=NOW)
    assert game_record(store, "g").scoring is None


def test_an_unknown_game_is_refused_naming_the_closest(store: GameStore) -> None:
    store_games.create_game(store, "alpha", "standard", now=NOW)
    with pytest.raises(RecordNotFound, match="did you mean 'alpha'"):
        game_record(store, "alpah")
    with pytest.raises(RecordNotFound):
        save_scoring(store, "alpah", "sos", now=NOW)
