"""Notices by mail: a power in civil disorder, a pause, a resumption, an extension and a rollback
each go once to every player with an address and every observer, as plain text that says what happened and
when orders are now due; reminders and results follow the game's own settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dbsupport import migrated_sqlite
from dippouch.game import GameSettings
from dippouch.mail.notices import queue_notices, queue_reminders, setup
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.models import OutboxRow

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ADDR = {"France": "fr@example.org", "Germany": "de@example.org"}
OBSERVER = "archive@example.org"


@dataclass
class Sent:
    kind: str
    to_addr: str
    subject: str
    body: str
    files: int


def _outbox(store: GameStore) -> list[Sent]:
    with store.session() as s:
        return [
            Sent(r.kind, r.to_addr, r.subject, r.body, len(r.files)) for r in s.query(OutboxRow).order_by(OutboxRow.id)
        ]


def _game(tmp_path: Path) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / "n.db"))
    settings = GameSettings(deadlines={"movement": "2d", "retreats": "1d", "adjustments": "1d"}, missed_limit=1)
    store_games.create_game(store, "demo", "standard", now=T0, settings=settings)
    for power, addr in ADDR.items():
        store_games.assign(store, "demo", power, f"{power} player", now=T0, email=addr)
    setup(store, "demo", now=T0, changes={"observers": [OBSERVER], "reminders": ["12h"]})
    return store


def test_each_notice_once_to_every_player_and_observer(tmp_path: Path) -> None:
    store = _game(tmp_path)
    everyone = {*ADDR.values(), OBSERVER}
    t = T0 + timedelta(hours=1)
    store_deadlines.pause(store, "demo", now=t)
    store_deadlines.resume(store, "demo", now=t + timedelta(hours=1))
    store_deadlines.extend(store, "demo", timedelta(days=1), now=t + timedelta(hours=2))
    queue_notices(store, t + timedelta(hours=3))
    queue_notices(store, t + timedelta(hours=4))  # nothing twice
    notices = [r for r in _outbox(store) if r.kind == "notice"]
    by_subject: dict[str, set[str]] = {}
    for r in notices:
        by_subject.setdefault(r.subject, set()).add(r.to_addr)
    assert len(notices) == 3 * len(everyone)
    assert set(by_subject) == {
        "demo: pause (Spring 1901 Movement)",
        "demo: resume (Spring 1901 Movement)",
        "demo: extend (Spring 1901 Movement)",
    }
    assert all(addrs == everyone for addrs in by_subject.values())
    pause = next(r.body for r in notices if "pause" in r.subject)
    assert "The game is paused" in pause
    extend = next(r.body for r in notices if "extend" in r.subject)
    assert "extended" in extend and "orders are due by" in extend
    assert not any(r.files for r in notices)  # plain text only

    # France sends nothing and is reminded 12 hours before the deadline; Germany has orders and is not.
    store_submissions.submit(store, "demo", "Germany", "A mun H", now=t + timedelta(hours=5))
    deadline = store_status.status(store, "demo", now=t + timedelta(hours=5)).deadline
    assert deadline is not None
    queue_reminders(store, deadline - timedelta(hours=11))
    queue_reminders(store, deadline - timedelta(hours=10))
    reminders = [r for r in _outbox(store) if r.kind == "reminder"]
    assert [r.to_addr for r in reminders] == [ADDR["France"]]
    assert "France" in reminders[0].body and "demo - France - Spring 1901 Movement" in reminders[0].body

    # The deadline passes with France silent: missed_limit 1 puts France in civil disorder; results go out.
    store_processing.process(store, "demo", now=deadline + timedelta(minutes=1))
    queue_notices(store, deadline + timedelta(minutes=2))
    queue_notices(store, deadline + timedelta(minutes=3))
    rows = _outbox(store)
    cd = [r for r in rows if r.subject == "demo: France in civil disorder"]
    assert {r.to_addr for r in cd} == everyone and len(cd) == len(everyone)
    assert "civil disorder" in cd[0].body
    results = [r for r in rows if r.kind == "results"]
    assert {r.to_addr for r in results} == everyone and len(results) == len(everyone)
    assert "Spring 1901 Movement results" in results[0].body and "A Munich H" in results[0].body

    # A rollback is told too, naming the phase the game went back to.
    store_history.rollback(store, "demo", "Spring 1901 Movement", now=deadline + timedelta(hours=1))
    queue_notices(store, deadline + timedelta(hours=2))
    back = [r for r in _outbox(store) if r.subject.startswith("demo: rollback")]
    assert {r.to_addr for r in back} == everyone
    assert "rolled the game back to Spring 1901 Movement" in back[0].body


def _to_winter(store: GameStore) -> list[str]:
    """Play demo to the end of Winter 1901 (France takes Belgium, so there is an adjustment phase)."""
    t = T0
    done: list[str] = []
    for orders in ("A par - bur", "A bur - bel", "Build A par"):
        store_submissions.submit(store, "demo", "France", orders, now=t)
        t += timedelta(hours=1)
        done += store_processing.process(store, "demo", now=t, force=True)
    return done


def test_maps_go_with_winter_results_or_every_phase_as_the_game_says(tmp_path: Path) -> None:
    """Our side of the map seam: which results carry the map (Winter by default, every phase, or none) and
    that the text goes first, complete without it. The renderer's own files are tested with the renderer."""
    from dippouch.mail.outbox import OutFile, build_message

    calls: list[int] = []

    def fake_map(store: GameStore, game: str, phase_id: int, fmt: str) -> list[OutFile]:
        calls.append(phase_id)
        return [OutFile(f"{game}-{phase_id}.{fmt}", "application/pdf", b"%PDF-1.4 map")]

    for mode, expect in (("winter", ["Winter 1901 Adjustments"]), ("every", None), ("none", [])):
        (tmp_path / mode).mkdir()
        store = _game(tmp_path / mode)
        setup(store, "demo", now=T0, changes={"maps": mode})
        phases = _to_winter(store)
        assert phases[-1] == "Winter 1901 Adjustments", phases
        queue_notices(store, T0 + timedelta(days=1), maps=fake_map)
        with store.session() as s:
            rows = [r for r in s.query(OutboxRow).order_by(OutboxRow.id) if r.kind == "results"]
            with_map = sorted({r.subject.split(": ", 1)[1].removesuffix(" results") for r in rows if r.files})
            assert len(rows) == len(phases) * 3  # two players and the observer, every phase
            if rows and any(r.files for r in rows):
                msg = build_message(next(r for r in rows if r.files), "orders@example.org", T0)
                parts = [p.get_content_type() for p in msg.walk() if not p.is_multipart()]
                assert parts == ["text/plain", "application/pdf"]
                assert "The map is attached" in msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert with_map == (sorted(phases) if expect is None else expect), mode


def test_a_reminder_says_one_hour_and_one_minute_in_the_singular(tmp_path: Path) -> None:
    """Lead times of an hour and of seconds (a test game's, or a reminder sent late by a worker that was down):
    "due in 1 hour", "due in 1 minute", never "1 hours" or "1 minutes" (seen walking a season with a worker)."""
    store = _game(tmp_path)
    setup(store, "demo", now=T0, changes={"reminders": ["90m", "30s"]})
    deadline = store_status.status(store, "demo", now=T0).deadline
    assert deadline is not None
    queue_reminders(store, deadline - timedelta(minutes=61))
    queue_reminders(store, deadline - timedelta(seconds=20))
    subjects = [r.subject for r in _outbox(store) if r.kind == "reminder" and r.to_addr == ADDR["France"]]
    assert subjects == [
        "demo: reminder, France orders for Spring 1901 Movement due in 1 hour",
        "demo: reminder, France orders for Spring 1901 Movement due in 1 minute",
    ]
    bodies = [r.body for r in _outbox(store) if r.kind == "reminder"]
    assert all("1 hours" not in b and "1 minutes" not in b for b in bodies)
    assert ", 1 minute from now." in bodies[-1]
