"""One dispatcher tells people what happened: the event log is read once per look for every channel (the game's
mail with report and map, e-mail, push, webhooks, and any channel added by one module), each channel keeps its
own mark, nothing queued by the scans it replaced is queued again, and one reminder policy serves the game's
mail and the notifications."""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
import sqlalchemy as sa

import dippouch.mail.notices  # noqa: F401  (the game mail is a registered channel)
from dippouch.game import GameSettings
from dippouch.mail.notices import queue_notices, setup
from dippouch.notify.dispatch import Event, Look, dispatch, register, registered, unregister
from dippouch.notify.events import save_preferences
from dippouch.notify.reminders import lead_reached
from dippouch.notify.task import run_once
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.games import game_id
from dippouch.store.mail.models import OutboxRow
from dippouch.store.mail.outbox import Notice, queue_notices_once
from dippouch.store.models import PhaseRow
from dippouch.store.notify.events import dispatch_mark
from dippouch.store.notify.stored import Delivery, deliveries, first_mark, queue_deliveries
from dippouch.store.people.persons import create_person, seat_person
from dippouch.worker.service import default_tasks, mail_task

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEADLINES = {"movement": "2d", "retreats": "1d", "adjustments": "1d"}


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


@pytest.fixture
def tally() -> Iterator[ModuleType]:
    """The test's own channel, registered by importing its module (as a new channel would be)."""
    mod = importlib.import_module("tally_channel")
    unregister("tally")
    mod = importlib.reload(mod)  # registers it afresh, as its first import did
    mod.received.clear()
    yield mod
    unregister("tally")


def _game(store: GameStore, *, mail: bool = True) -> dict[str, int]:
    """A game with two seated people (e-mail notifications on, by default) and, with ``mail``, its own mail."""
    store_games.create_game(store, "demo", "standard", now=T0, settings=GameSettings(deadlines=DEADLINES))
    people = {}
    for power in ("France", "England"):
        pid = create_person(store, f"{power} player", now=T0, email=f"{power.lower()}@example.org")
        store_games.assign(store, "demo", power, f"{power} player", now=T0, email=f"{power.lower()}@example.org")
        seat_person(store, "demo", power, pid, now=T0)
        people[power] = pid
    if mail:
        setup(store, "demo", now=T0, changes={})
    return people


def _mail(store: GameStore, kind: str) -> list[str]:
    with store.session() as s:
        return [r.to_addr for r in s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == kind).order_by(OutboxRow.id))]


def _notes(store: GameStore, event: str) -> list[Delivery]:
    return [d for d in deliveries(store) if d.event == event]


class Statements:
    """The SQL a database is sent, as the engine sends it (SQLAlchemy's ``before_cursor_execute``)."""

    def __init__(self, store: GameStore) -> None:
        self.engines = {store.engine, store.read_engine}  # the writer's and the reads' (on SQLite a second one)
        self.seen: list[str] = []
        for engine in self.engines:
            sa.event.listen(engine, "before_cursor_execute", self._add)

    def _add(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.seen.append(" ".join(statement.split()).lower())

    def close(self) -> None:
        for engine in self.engines:
            sa.event.remove(engine, "before_cursor_execute", self._add)

    def selects(self, pattern: str) -> list[str]:
        return [s for s in self.seen if s.startswith("select") and re.search(pattern, s)]


def test_a_processed_phase_is_read_once_for_all_channels(store: GameStore, tally: ModuleType) -> None:
    _game(store)
    run_once(store, T0 + timedelta(minutes=1))  # the game's start, told and out of the way
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    at = T0 + timedelta(days=2, minutes=2)
    sql = Statements(store)
    try:
        done = dispatch(store, at, slow=False)
    finally:
        sql.close()
    # Every channel had it: the game's mail (the report to both players), e-mail notifications, the test's own.
    assert {name for (name, kind) in done.queued if kind == "phase_processed"} >= {"game_mail", "email", "tally"}
    assert sorted(_mail(store, "results")) == ["england@example.org", "france@example.org"]
    # One mail a phase: the game's report goes to both players, so no notification e-mail says it again.
    assert _notes(store, "phase_processed") == []
    [event] = [e for e in tally.received if e.kind == "phase_processed"]
    assert event.phase is not None and event.phase.name == "Spring 1901 Movement"
    # Found once: one read of the event log, one read of the phases it names; no channel looks for processed
    # phases on its own (the scans this replaced each asked for phases processed since a moment).
    # (the log's heads, then the new events whole)
    assert len(sql.selects(r"\bfrom events\b")) == 2 and len(sql.selects(r"events\.detail.*\bfrom events\b")) == 1
    assert len(sql.selects(r"\bfrom phases\b.*\bphases\.seq in\b")) == 1
    assert sql.selects(r"phases\.processed_at >=") == []
    # The next look hands the processed phase to no one again, and the real channels queue nothing again (the
    # reminders, handed every look, are the test channel's to count as it likes).
    sql = Statements(store)
    try:
        again = dispatch(store, at + timedelta(minutes=1), slow=False)
    finally:
        sql.close()
    assert not [key for key in again.queued if key[1] == "phase_processed"]
    # Its heads are read again (its mark waits GRACE behind the clock), but not the event whole: its detail and
    # its game's settings are decoded once, by the look that told it.
    assert sql.selects(r"\bfrom events\b") and not sql.selects(r"events\.detail.*\bfrom events\b")
    assert sum(n for (name, _), n in again.queued.items() if name != "tally") == 0


def test_a_channel_is_one_module_and_one_registration(store: GameStore, tally: ModuleType) -> None:
    assert "tally" in [ch.name for ch in registered()]
    _game(store, mail=False)
    store_deadlines.pause(store, "demo", now=T0 + timedelta(hours=1))
    store_deadlines.resume(store, "demo", now=T0 + timedelta(hours=2))
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, hours=2))
    run_once(store, T0 + timedelta(days=2, hours=3))
    assert [e.kind for e in tally.received] == ["pause", "phase_processed"]  # the kinds it takes, in order
    run_once(store, T0 + timedelta(days=2, hours=4))
    assert len(tally.received) == 2  # each once


def test_a_channel_registered_later_gets_what_happened_before_it_from_its_own_mark(store: GameStore) -> None:
    _game(store, mail=False)
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    run_once(store, T0 + timedelta(days=3))  # the other channels have it, and their marks moved past it
    assert (dispatch_mark(store, "email") or 0) > 0
    got: list[Event] = []

    class Late:
        name = "late"
        kinds = frozenset({"phase_processed"})

        def handle(self, event: Event, look: Look) -> int:
            got.append(event)
            return 0

    register(Late())
    try:
        run_once(store, T0 + timedelta(days=3, minutes=1))
    finally:
        unregister("late")
    assert [e.phase.name for e in got if e.phase is not None] == ["Spring 1901 Movement"]
    assert dispatch_mark(store, "late") == dispatch_mark(store, "email")


def test_nothing_the_replaced_scans_queued_is_queued_again(store: GameStore) -> None:
    """A database the notification scan and the mail's notices worked on: their marks are honoured."""
    people = _game(store)
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    with store.session() as s:
        phase_id = s.scalars(sa.select(PhaseRow.id).where(PhaseRow.status == "processed")).one()
    gid = game_id(store, "demo")
    at = T0 + timedelta(days=2, minutes=2)
    first_mark(store, "notify:started", T0)  # the scan's first look
    # What the scans recorded, as they recorded it: the notification scan's marks (one for all channels, with
    # its deliveries: none here, as if each person had been told already) and the mail's results record.
    queue_deliveries(store, [], now=at, mark=f"phase_processed:{phase_id}")
    for pid in people.values():
        queue_deliveries(store, [], now=at, mark=f"game_starting:{gid}:{pid}")
    queue_notices_once(store, [Notice(f"results:{phase_id}", gid, [])], at)

    done = dispatch(store, at + timedelta(minutes=1))
    assert _notes(store, "phase_processed") == [] and _notes(store, "game_starting") == []
    assert _mail(store, "results") == []
    assert done.of("phase_processed") == 0


def test_without_the_old_marks_the_same_database_is_told(store: GameStore) -> None:
    """The control for the test above: the same events on a database the scans never saw are queued."""
    _game(store)
    first_mark(store, "notify:started", T0)
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    dispatch(store, T0 + timedelta(days=2, minutes=3))
    assert len(_notes(store, "game_starting")) == 2
    assert len(_mail(store, "results")) == 2  # the phase's one mail to each player: the game's report


def test_two_workers_dispatching_at_once_queue_each_message_once(db_url: str) -> None:
    first = GameStore(db_url)
    _game(first)
    first_mark(first, "notify:started", T0)
    store_processing.process(first, "demo", now=T0 + timedelta(days=2, minutes=1))
    stores = [first, GameStore(db_url)]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def look(s: GameStore) -> None:
        try:
            start.wait()
            dispatch(s, T0 + timedelta(days=2, minutes=2))
        except BaseException as e:  # reported below: a thread's failure must fail the test
            errors.append(e)

    threads = [threading.Thread(target=look, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert len(_mail(first, "results")) == 2  # the game's report: each player's one mail of the phase
        assert _notes(first, "phase_processed") == []
    finally:
        for s in stores:
            s.close()


def test_one_lead_time_rule() -> None:
    deadline = T0 + timedelta(days=2)
    leads = [timedelta(hours=48), timedelta(hours=12)]
    assert lead_reached(deadline, leads, deadline - timedelta(hours=49)) is None
    assert lead_reached(deadline, leads, deadline - timedelta(hours=20)) == timedelta(hours=48)
    assert lead_reached(deadline, leads, deadline - timedelta(hours=10)) == timedelta(hours=12)  # the nearest only
    assert lead_reached(deadline, leads, deadline) is None  # past: no reminder


def test_one_reminder_policy_for_the_game_mail_and_the_notifications(store: GameStore) -> None:
    people = _game(store)
    save_preferences(store, people["England"], {}, deadline_hours=12)
    save_preferences(store, people["France"], {}, deadline_hours=12)
    store_submissions.submit(store, "demo", "France", "A par - bur", now=T0 + timedelta(hours=1))
    near = T0 + timedelta(days=2) - timedelta(hours=11)
    run_once(store, near)
    # England has no orders: reminded by its game's mail and by its own notification; France has orders.
    assert _mail(store, "reminder") == ["england@example.org"]
    assert [d.person_id for d in _notes(store, "deadline")] == [people["England"]]
    run_once(store, near + timedelta(minutes=5))
    assert _mail(store, "reminder") == ["england@example.org"] and len(_notes(store, "deadline")) == 1


def test_a_ready_power_with_no_orders_is_reminded_by_neither(store: GameStore) -> None:
    people = _game(store)
    for pid in people.values():
        save_preferences(store, pid, {}, deadline_hours=12)
    store_submissions.submit(store, "demo", "France", "no orders", now=T0 + timedelta(hours=1), ready=True)
    run_once(store, T0 + timedelta(days=2) - timedelta(hours=11))
    assert _mail(store, "reminder") == ["england@example.org"]
    assert [d.person_id for d in _notes(store, "deadline")] == [people["England"]]


def test_a_channel_for_no_known_event_is_refused_with_the_kinds() -> None:
    class Odd:
        name = "odd"
        kinds = frozenset({"phase_procesed"})

        def handle(self, event: Event, look: Look) -> int:
            return 0

    with pytest.raises(ValueError, match=r"no event kind phase_procesed; kinds: phase_processed, "):
        register(Odd())
    assert "odd" not in [ch.name for ch in registered()]


def test_a_second_channel_of_the_same_name_is_refused(tally: ModuleType) -> None:
    class Other:
        name = "tally"
        kinds = frozenset({"pause"})

        def handle(self, event: Event, look: Look) -> int:
            return 0

    with pytest.raises(ValueError, match="a channel named 'tally' is registered already; choose another name"):
        register(Other())


def test_queue_notices_leaves_the_channels_marks_where_they_are(store: GameStore) -> None:
    _game(store)
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    assert queue_notices(store, T0 + timedelta(days=3)).messages == 2
    assert dispatch_mark(store, "game_mail") is None
    run_once(store, T0 + timedelta(days=3, minutes=1))
    assert len(_mail(store, "results")) == 2  # the worker's look after it sends no second report


def test_a_channel_that_fails_gets_the_event_again_and_holds_no_other_up(store: GameStore, tally: ModuleType) -> None:
    _game(store, mail=False)
    tries: list[str] = []

    class Flaky:
        name = "flaky"
        kinds = frozenset({"phase_processed"})

        def handle(self, event: Event, look: Look) -> int:
            tries.append(event.kind)
            if len(tries) == 1:
                raise OSError("the chat service is down")
            return 1

    register(Flaky())
    try:
        store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
        first = dispatch(store, T0 + timedelta(days=3))
        assert first.failed == ["flaky: phase_processed demo: OSError: the chat service is down"]
        assert [e.kind for e in tally.received] == ["phase_processed"]  # the others had it at once
        assert dispatch_mark(store, "flaky") is None  # its mark waits at the event it could not take
        second = dispatch(store, T0 + timedelta(days=3, minutes=1))
        assert second.failed == [] and tries == ["phase_processed", "phase_processed"]
        dispatch(store, T0 + timedelta(days=3, minutes=2))
        assert len(tries) == 2 and len(tally.received) == 1  # then once, like the rest
    finally:
        unregister("flaky")


def test_the_workers_tasks_tell_through_the_dispatcher_and_the_mail_task_only_sends(store: GameStore) -> None:
    _game(store)
    first_mark(store, "notify:started", T0)
    store_processing.process(store, "demo", now=T0 + timedelta(days=2, minutes=1))
    at = T0 + timedelta(days=2, minutes=2)
    tasks = default_tasks()
    assert [getattr(t, "__name__", "") for t in tasks] == ["notify_task", "mail_task", "ratings_task", "coach_task"]
    mail_task(store, at)  # the outbox alone: it queues nothing of its own
    assert _mail(store, "results") == []
    for task in tasks:
        task(store, at)
    assert sorted(_mail(store, "results")) == ["england@example.org", "france@example.org"]
    assert _notes(store, "phase_processed") == []  # the report is the phase's one mail
