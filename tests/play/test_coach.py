"""The coach's rules (:mod:`dippouch.play.coach`): the centres a board would count at a year's end, the turning
points read from analysed phases (swings, stabs, lost chances, the biggest kept), and the worker's task on the store:
finished games analysed a bounded look at a time, never a running game of people, each phase once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dippouch.catalog import load_variant
from dippouch.play.coach import (
    CoachTask,
    NotCoached,
    PhaseLook,
    PowerLook,
    game_coach,
    game_hint,
    hint,
    projected_centres,
    turning_points,
)
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.learning.coach import phases_to_analyse
from helpers import board

T = datetime(2026, 3, 2, 9, tzinfo=UTC)


def test_a_board_counts_the_centres_held_and_those_stood_on_as_a_year_s_end_would() -> None:
    v = load_variant("standard")
    # France owns par, bre, mar; a German army stands in mar; a French army stands in bel (not France's yet).
    pos = board(
        v,
        "Fall 1901",
        {"France": ["A par", "A bel"], "Germany": ["A mar"]},
        {"France": ["par", "bre", "mar"], "Germany": ["mun"]},
    )
    assert projected_centres(v, pos, "France") == 3  # par, bre (empty, owned), bel (stood on); not mar
    assert projected_centres(v, pos, "Germany") == 2  # mun (owned, empty), mar (stood on)
    assert projected_centres(v, pos, "Italy") == 0


def _look(pid: int, phase: str, *powers: PowerLook) -> PhaseLook:
    return PhaseLook(pid, phase, powers, 0.0, 0.0)


def _p(power: str, coach: float, played: float | None = None, attacked: tuple[str, ...] = ()) -> PowerLook:
    return PowerLook(power, 3, ("A par H",), coach, ("A par H",), coach if played is None else played, attacked)


def test_turning_points_swings_stabs_and_lost_chances() -> None:
    looks = [
        # France attacks nobody and gains 1.5: a swing.
        _look(1, "Spring 1901 Movement", _p("France", 3.0), _p("Germany", 3.0)),
        # France attacks Germany, gaining nothing: no turn. Germany's orders fell 2 short of the coach's.
        _look(2, "Fall 1901 Movement", _p("France", 4.5, attacked=("Germany",)), _p("Germany", 3.5, played=1.5)),
        # France attacks England for the first time (Germany again) and gains 2: a stab. Germany falls by 0.5.
        _look(3, "Spring 1902 Movement", _p("France", 4.5, attacked=("England", "Germany")), _p("Germany", 3.0)),
        _look(4, "Fall 1902 Movement", _p("France", 6.5), _p("Germany", 2.5)),
    ]
    got = turning_points(looks)
    assert [(t.kind, t.phase_id, t.power, t.before, t.after, t.victim) for t in got] == [
        ("swing", 1, "France", 3.0, 4.5, None),
        ("lost", 2, "Germany", 1.5, 3.5, None),
        ("stab", 3, "France", 4.5, 6.5, "England"),
    ]
    assert str(got[2].words) == (
        "Spring 1902 Movement: France attacked England for the first time; its expected centres went from 4.5 to 6.5"
    )
    assert str(got[1].words) == (
        "Fall 1901 Movement: a lost chance for Germany: its orders expected 1.5 centres, the coach's 3.5"
    )
    # A first attack that loses is a swing, not a stab.
    down = [looks[2], _look(4, "Fall 1902 Movement", _p("France", 3.0))]
    assert [(t.kind, t.change) for t in turning_points(down)] == [("swing", -1.5)]
    # The biggest only, still in the game's order.
    assert [(t.phase_id, t.kind) for t in turning_points(looks, most=2)] == [(2, "lost"), (3, "stab")]


def test_a_hint_gives_legal_orders_for_the_power_named_in_any_case() -> None:
    v = load_variant("standard")
    got = hint(v, v.start, "austria", budget=0.02)
    assert got.power == "Austria" and len(got.orders) == 3 and got.phase == "Spring 1901 Movement"
    assert 2.0 <= got.expected <= 6.0
    with pytest.raises(NotCoached, match="no power 'Narnia' here"):
        hint(v, v.start, "Narnia")
    pos = board(v, "Spring 1901", {"France": [], "Germany": ["A mun"]}, {"Germany": ["mun"]})
    assert hint(v, pos, "France", budget=0.02).orders == ()  # nothing to order: no hint to give


def _finished(store: GameStore, game: str) -> None:
    """A standard game of three seats, France moving in both phases of 1901, then drawn."""
    store_games.create_game(store, game, "standard", now=T)
    for power in ("France", "Germany", "England"):
        store_games.assign(store, game, power, f"{game} {power}", now=T)
    for turn, text in enumerate(("A Par-Bur\nA Mar-Spa\nF Bre-Mao", "A Bur-Bel\nA Spa H\nF Mao-Por"), start=1):
        store_submissions.submit(store, game, "France", text, now=T + timedelta(hours=turn))
        store_processing.process(store, game, now=T + timedelta(hours=turn, minutes=30), force=True)
    done = T + timedelta(hours=5)
    for power in ("France", "Germany", "England"):
        if store_status.status(store, game, now=done).state != "finished":
            store_votes.vote(store, game, power, True, now=done)
    assert store_status.status(store, game, now=done).state == "finished"


def test_the_task_analyses_finished_games_a_phase_a_look_and_never_a_running_game_of_people(store: GameStore) -> None:
    _finished(store, "done")
    store_games.create_game(store, "running", "standard", now=T)
    store_games.assign(store, "running", "France", "Fran", now=T)
    store_processing.process(store, "running", now=T + timedelta(hours=1), force=True)
    assert [t.game for t in phases_to_analyse(store, limit=10)] == ["done", "done"]
    assert game_coach(store, "running").shown is False
    task = CoachTask(seconds=0.0, budget=0.02)
    assert [task(store, T), task(store, T), task(store, T)] == [1, 1, 0]
    got = game_coach(store, "done")
    assert got.shown and got.waiting == 0
    assert [p.phase for p in got.phases] == ["Spring 1901 Movement", "Fall 1901 Movement"]
    france = [p.of("France") for p in got.phases]
    assert [sorted(f.played) for f in france if f is not None] == [
        ["A mar - spa", "A par - bur", "F bre - mao"],
        ["A bur - bel", "A spa H", "F mao - por"],
    ]
    assert phases_to_analyse(store, limit=10) == []
    with pytest.raises(NotCoached, match="never in a game of people"):
        game_hint(store, "running", "France")
    with pytest.raises(NotCoached, match="is over"):
        game_hint(store, "done", "France")


def test_a_phase_that_no_longer_reads_is_kept_empty_and_does_not_hold_the_others_up(store: GameStore) -> None:
    import sqlalchemy as sa

    from dippouch.store.models import GameRow, PhaseRow

    _finished(store, "broken")
    _finished(store, "fine")
    with store.session() as s, s.begin():
        gid = s.scalar(sa.select(GameRow.id).where(GameRow.name == "broken"))
        first = s.scalars(sa.select(PhaseRow).where(PhaseRow.game_id == gid).order_by(PhaseRow.seq)).first()
        assert first is not None
        first.position = {**first.position, "units": "not a list"}
    task = CoachTask(seconds=0.0, budget=0.02)
    assert [task(store, T) for _ in range(5)] == [1, 1, 1, 1, 0]
    broken = game_coach(store, "broken")
    assert [len(p.powers) for p in broken.phases] == [0, 7]  # the broken one empty, the next one whole
    assert [len(p.powers) for p in game_coach(store, "fine").phases] == [7, 7]
