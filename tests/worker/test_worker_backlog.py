"""Deadlines first: a worker with a backlog of notifications processes a phase that falls due before it has
told the whole backlog, and tells the rest over its next looks, every event once and in order.

Each test runs on SQLite and on PostgreSQL (``db_url``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa

from dippouch.game import GameSettings
from dippouch.notify.dispatch import Event, Look, register, unregister
from dippouch.notify.task import NotifyTask
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store.models import GameRow, PhaseRow
from dippouch.store.notify.stored import deliveries, first_mark
from dippouch.store.people.persons import create_person, seat_person
from dippouch.worker.service import Worker

BACKLOG = 8
"""Games processed before the worker's first look: a phase_processed event each, told to two people."""
DUE_AT = 3
"""The channel makes the waiting game's phase due while it is handed this many events of the backlog."""


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


class Recorder:
    """A channel that keeps the event-log rows it is handed, and makes the game ``waiting`` due (its deadline
    a minute past, by the database's clock) while it is handed the backlog's ``DUE_AT``-th event: a phase
    falling due while the notifications are being told."""

    name = "backlog_recorder"
    kinds = frozenset({"phase_processed"})

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.rows: list[int] = []

    def handle(self, event: Event, look: Look) -> int:
        assert event.row is not None
        self.rows.append(event.row.id)
        if len(self.rows) == DUE_AT:
            with self.store.engine.begin() as c:
                gid = c.scalar(sa.select(GameRow.id).where(GameRow.name == "waiting"))
                c.execute(
                    sa.update(PhaseRow)
                    .where(PhaseRow.game_id == gid, PhaseRow.status == "open")
                    .values(deadline=self.store.clock() - timedelta(minutes=1))
                )
        return 1


@pytest.fixture
def recorder(store: GameStore) -> Iterator[Recorder]:
    ch = register(Recorder(store))
    yield ch
    unregister(ch.name)


def _backlog(store: GameStore) -> dict[str, list[int]]:
    """``BACKLOG`` games with two seated people each (e-mail on by default), every first phase processed
    (the backlog), and the game ``waiting``, due in an hour. Notifications started before all of it."""
    now = store.clock()
    first_mark(store, "notify:started", now - timedelta(hours=3))
    settings = GameSettings(deadlines={"movement": "1h", "retreats": "1h", "adjustments": "1h"})
    people: dict[str, list[int]] = {}
    for i in range(BACKLOG):
        name = f"g{i:02d}"
        store_games.create_game(store, name, "standard", now=now - timedelta(hours=2), settings=settings)
        for power in ("France", "England"):
            pid = create_person(store, f"{power} {name}", now=now, email=f"{power.lower()}.{name}@example.org")
            store_games.assign(store, name, power, f"{power} {name}", now=now)
            seat_person(store, name, power, pid, now=now)
            people.setdefault(name, []).append(pid)
        store_processing.process(store, name, now=now - timedelta(minutes=30))
    store_games.create_game(store, "waiting", "standard", now=now, settings=settings)
    return people


def _waiting_processed(store: GameStore) -> bool:
    return any(r.status == "processed" for r in store_history.history(store, "waiting"))


def test_a_phase_due_during_a_backlog_of_notifications_is_processed_before_the_backlog_is_told(
    store: GameStore, recorder: Recorder
) -> None:
    people = _backlog(store)
    task = NotifyTask(every=3600, budget=60.0, due_every=0.0)  # only the phase falling due stops it
    worker = Worker(store, tasks=[task], fetch=None)
    worker.look()
    # The phase that fell due while the backlog was told was processed in that same look, the backlog not
    # yet told through: it stopped just after the event that made the phase due.
    assert _waiting_processed(store)
    assert len(recorder.rows) == DUE_AT < BACKLOG
    assert task.behind and worker.behind
    looks = 1
    while worker.behind and looks < 10:
        worker.look()
        looks += 1
    assert not worker.behind
    # Over the next looks the whole backlog was told, and the waiting game's results after it: every event
    # once, in the log's order.
    assert len(recorder.rows) == BACKLOG + 1
    assert recorder.rows == sorted(set(recorder.rows))
    # And each person got each of their game's results once, by e-mail (their default).
    got = [(d.person_id, d.key) for d in deliveries(store) if d.event == "phase_processed"]
    assert len(got) == len(set(got)) == 2 * BACKLOG
    assert {pid for pid, _ in got} == {pid for pids in people.values() for pid in pids}
    # Another look tells nothing again.
    worker.look()
    assert len(recorder.rows) == BACKLOG + 1
    assert len([d for d in deliveries(store) if d.event == "phase_processed"]) == 2 * BACKLOG


def test_a_backlog_is_told_in_slices_of_the_budget_and_nothing_is_lost_or_told_twice(
    store: GameStore, recorder: Recorder
) -> None:
    _backlog(store)
    # A budget spent at once: every slice tells one event (the stop is asked before each), and the worker
    # looks again at once while the task is behind.
    task = NotifyTask(every=3600, budget=0.0, due_every=3600.0)
    worker = Worker(store, tasks=[task], fetch=None)
    seen = []
    for _ in range(3 * BACKLOG):
        worker.look()
        seen.append(len(recorder.rows))
        if not worker.behind:
            break
    assert not worker.behind
    assert seen[:DUE_AT] == list(range(1, DUE_AT + 1)), "a slice told more than one event: the budget was not kept"
    # The backlog, and the waiting game's results (due while it was told) after it, every event once, in order.
    assert recorder.rows == sorted(set(recorder.rows)) and len(recorder.rows) == BACKLOG + 1
    got = [d.key for d in deliveries(store) if d.event == "phase_processed"]
    assert len(got) == len(set(got)) == 2 * BACKLOG


def test_the_photograph_reader_reads_no_games_open_phase_while_no_photograph_waits(store: GameStore) -> None:
    """The reader's scan reads each game's open phase (seconds at a thousand games, holding due phases back):
    with no photograph to read it asks one question and reads none."""
    from dippouch.worker.service import PhotoReading

    now = store.clock()
    for i in range(3):
        store_games.create_game(store, f"p{i}", "standard", now=now - timedelta(hours=2), settings=GameSettings())
    sent: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        sent.append(" ".join(statement.split()).lower())

    engines = {store.engine, store.read_engine}
    for engine in engines:
        sa.event.listen(engine, "before_cursor_execute", seen)
    try:
        PhotoReading(every=0)(store, now)
    finally:
        for engine in engines:
            sa.event.remove(engine, "before_cursor_execute", seen)
    selects = [q for q in sent if q.startswith("select")]
    assert len(selects) == 1 and "from mail_attachments" in selects[0], selects
