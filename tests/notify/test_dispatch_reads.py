"""What the dispatcher reads for a look: the seats, choices and targets of a page of the event log's games in a
few queries for all of them (not a few for each event), and nothing kept from one look to the next, so a notice
says the deadline as it is now (an extension between two looks of the same worker)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.game import GameSettings
from dippouch.notify.dispatch import dispatch
from dippouch.notify.events import save_preferences
from dippouch.notify.task import NotifyTask
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store.notify.stored import deliveries, first_mark
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def _seated(store: GameStore, game: str, *, zone: str = "UTC") -> list[int]:
    store_games.create_game(store, game, "standard", now=T0, settings=GameSettings(deadlines=DEADLINES, timezone=zone))
    out = []
    for power in ("France", "England"):
        pid = create_person(store, f"{power} {game}", now=T0, email=f"{power.lower()}.{game}@example.org")
        store_games.assign(store, game, power, f"{power} {game}", now=T0)
        seat_person(store, game, power, pid, now=T0)
        out.append(pid)
    return out


class Selects:
    """The SELECTs sent to the database (both engines: the writer's and the reads')."""

    def __init__(self, store: GameStore) -> None:
        self.engines = {store.engine, store.read_engine}
        self.seen: list[str] = []
        for engine in self.engines:
            sa.event.listen(engine, "before_cursor_execute", self._add)

    def _add(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        text = " ".join(statement.split()).lower()
        if text.startswith("select"):
            self.seen.append(text)

    def close(self) -> None:
        for engine in self.engines:
            sa.event.remove(engine, "before_cursor_execute", self._add)

    def of(self, pattern: str) -> list[str]:
        return [s for s in self.seen if re.search(pattern, s)]


def test_a_page_of_events_reads_its_games_seats_and_their_peoples_choices_once(store: GameStore) -> None:
    games = [f"g{i}" for i in range(5)]
    for g in games:
        _seated(store, g)
    first_mark(store, "notify:started", T0)
    for g in games:
        store_processing.process(store, g, now=T0 + timedelta(days=2, minutes=1))
    sql = Selects(store)
    try:
        done = dispatch(store, T0 + timedelta(days=2, minutes=2), slow=False)
    finally:
        sql.close()
    assert done.of("phase_processed") >= 2 * len(games)  # each person told, by e-mail at least
    # One read of the five games' seats, one of their ten people's choices, one of their targets: not one each.
    assert len(sql.of(r"\bfrom players\b.*players\.person_id")) == 1, sql.of(r"\bfrom players\b")
    assert len(sql.of(r"\bfrom notify_prefs\b")) == 1
    assert len(sql.of(r"\bfrom notify_targets\b")) == 1


def test_a_deadline_extended_between_two_looks_is_the_one_the_next_notice_says(store: GameStore) -> None:
    """The worker's notification task lives for the worker's life; what a look reads (the game's settings, its
    seats, the people's choices) is read again by the next, so the reminder after an extension names the new
    deadline, in the game's time zone."""
    people = _seated(store, "demo", zone="Europe/Paris")
    for pid in people:
        save_preferences(store, pid, {}, deadline_hours=12)
    # A budget no loaded machine reaches: a call that stopped on it would leave the notices to the next call.
    task = NotifyTask(every=0, budget=600.0)
    task(store, T0 + timedelta(minutes=1))  # the start, told with the first deadline
    zone = GameSettings(timezone="Europe/Paris")
    first, later = T0 + timedelta(days=2), T0 + timedelta(days=3)
    starting = [d for d in deliveries(store) if d.event == "game_starting"]
    assert starting and all(zone.describe(first) in d.body for d in starting)
    store_deadlines.extend(store, "demo", timedelta(days=1), now=T0 + timedelta(hours=1))
    task(store, later - timedelta(hours=11))
    assert not task.behind
    reminders = [d for d in deliveries(store) if d.event == "deadline"]
    assert sorted(d.person_id for d in reminders) == sorted(people)
    assert all(zone.describe(later) in d.body and zone.describe(first) not in d.body for d in reminders)
