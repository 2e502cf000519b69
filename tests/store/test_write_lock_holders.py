"""Who holds SQLite's one write lock, and for how short: the trace of write transactions (``DIPPOUCH_WRITE_TRACE``)
names a long writer, and a phase is adjudicated before its write transaction (from a snapshot) with the same
results as under the lock, adjudicated again under the lock when a submission arrived in between."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dbsupport import migrated_sqlite
from dippouch import settings
from dippouch.store import GameStore, processing
from dippouch.store import claims as store_claims
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import variant_copy as variant_copy
from dippouch.store.processing import Adjudicated
from workersupport import wait_until

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _paused_at(monkeypatch: pytest.MonkeyPatch, folder: Path, point: str, **more: str) -> None:
    """This process stops at ``point`` until ``<point>.go`` appears in ``folder`` (dippouch.store.faults), as the
    stores opened after this call read their settings."""
    monkeypatch.setenv("DIPPOUCH_PAUSE_AT", point)
    monkeypatch.setenv("DIPPOUCH_PAUSE_DIR", str(folder))
    for name, value in more.items():
        monkeypatch.setenv(name, value)
    settings.reread()


def _in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(work())
        except BaseException as e:  # the test's thread raises it
            out.append(e)

    t = threading.Thread(target=run)
    t.start()
    return t, out


def _result(t: threading.Thread, out: list[Any]) -> Any:
    t.join(60)
    assert not t.is_alive() and len(out) == 1
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


@pytest.fixture
def adjudications(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The phase ids adjudicated, once an adjudication (before the lock or under it)."""
    seen: list[int] = []
    real = processing._adjudicated

    def counted(*args: Any) -> Adjudicated:
        done = real(*args)
        seen.append(done.phase_id)
        return done

    monkeypatch.setattr(processing, "_adjudicated", counted)
    return seen


# --------------------------------------------------------------------------------------------------
# The trace


def test_the_trace_records_a_long_writer_and_the_code_that_began_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_sqlite(tmp_path / "games.db")  # before the trace: its first copy migrates a database
    trace = tmp_path / "writes.jsonl"
    _paused_at(monkeypatch, tmp_path, "process:locked", DIPPOUCH_WRITE_TRACE=str(trace))
    store = GameStore(url)
    try:
        store_games.create_game(store, "g", "standard", now=T0)
        store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
        t, out = _in_thread(lambda: processing.process(store, "g", now=T0, force=True))
        wait_until("the processing to hold the lock", (tmp_path / "process-locked.reached").exists)
        # The other writers of the process wait meanwhile: one that asks now waits for the processing's commit.
        w, written = _in_thread(lambda: store_submissions.submit(store, "g", "England", "F lon - nth", now=T0))
        wait_until("the waiting writer to be seen waiting", lambda: w.is_alive())
        held_for = 0.3  # how long the processing holds the lock: what the trace must report
        threading.Event().wait(held_for)
        (tmp_path / "process-locked.go").touch()
        assert _result(t, out) == ["Spring 1901 Movement"]
        _result(w, written)
    finally:
        store.close()
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert all(set(t) == {"waited", "held", "commit", "who", "pid"} for t in lines)
    # The processing's line is found by the code that began it, not by being the longest: on a loaded machine the
    # England submission's own transaction, made after the processing's commit, may hold the lock as long.
    began = [t for t in lines if t["who"] and t["who"][0].endswith(" process_phase")]
    assert len(began) == 1, [t["who"] for t in lines]
    processing_line = began[0]
    assert processing_line["who"][0].startswith("store/processing.py:")
    assert processing_line["held"] >= held_for
    assert any(frame.endswith(" process") for frame in processing_line["who"][1:])  # its callers say whose it was
    # The creation and first submission held it briefly; the England submission, refused at once (the phase
    # had moved on) or not, waited while the processing held it.
    assert sum(1 for t in lines if t["held"] < held_for) >= 2
    assert max(t["waited"] for t in lines if t is not processing_line) >= held_for / 2
    assert processing_line["commit"] > 0  # its commit's flush, timed after the lock was given back


def test_without_the_setting_nothing_is_traced(tmp_path: Path) -> None:
    store = GameStore(migrated_sqlite(tmp_path / "games.db"))
    try:
        store_games.create_game(store, "g", "standard", now=T0)
        assert settings.current().write_trace is None
        with store.engine.begin() as conn:
            assert not any(k.startswith("dippouch_traced") for k in conn.info)
    finally:
        store.close()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".jsonl"] == []


# --------------------------------------------------------------------------------------------------
# Adjudicated before the lock


def _play(store: GameStore, name: str, years: int, seed: int) -> int:
    """A standard game begun at T0 played ``years`` game years with random legal orders (``seed``; a power in ten
    misses a phase), each phase processed as a coordinator's "process now" does; the phases processed."""
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order
    from dippouch.game import position_from_data, powers_to_act

    store_games.create_game(store, name, "standard", now=T0)
    v = variant_copy.variant_of(store, name)
    rng = random.Random(seed)
    now, processed = T0, 0
    while True:
        open_ = next(h for h in store_history.history(store, name) if h.status == "open")
        pos = position_from_data(v, open_.position)
        if pos.phase.year >= v.start.phase.year + years:
            return processed
        kind = v.calendar.kind(pos.phase)
        now += timedelta(hours=1)
        for power in powers_to_act(v, pos):
            legal = legal_orders(v, pos, power)
            places = sorted(legal)
            if kind == PhaseKind.ADJUSTMENTS:
                need = abs(len(pos.centres_of(power)) - len(pos.units_of(power)))
                rng.shuffle(places)
                places = places[:need]
            text = "\n".join(format_order(v, rng.choice(legal[p]), phase_kind=kind) for p in places if legal[p])
            if rng.random() >= 0.1:
                store_submissions.submit(store, name, power, text or "no orders", now=now)
        now += timedelta(hours=1)
        processed += len(processing.process(store, name, now=now, force=True, limit=1))


def _records(store: GameStore, name: str) -> list[tuple[Any, ...]]:
    out = []
    for h in store_history.history(store, name):
        r = store_history.phase_record(store, name, h.name, open_ok=True, submissions=False)
        out.append((r["name"], r["kind"], r["orders"], r["results"], r["missed"], r["next_position"]))
    return out


def test_adjudicated_before_the_lock_writes_what_adjudicating_under_it_writes(
    store: GameStore, monkeypatch: pytest.MonkeyPatch, adjudications: list[int]
) -> None:
    """One game played four game years (builds, missed phases) as the store processes it (on SQLite
    adjudicated ahead of the lock), the same game again adjudicated under the lock only: their records match,
    and each phase was adjudicated once."""
    processed = _play(store, "ahead", years=4, seed=52)
    assert len(adjudications) == len(set(adjudications)) == processed  # never adjudicated twice
    monkeypatch.setattr(processing, "adjudicate_ahead", lambda db, phase_id: None)
    assert _play(store, "inside", years=4, seed=52) == processed
    ahead, inside = _records(store, "ahead"), _records(store, "inside")
    assert processed >= 10 and ahead == inside
    assert any(r[4] for r in ahead) and {"movement", "adjustments"} <= {r[1] for r in ahead}  # and missed phases


@pytest.mark.parametrize("by", ["process now", "deadline"])
def test_a_submission_landing_between_the_adjudication_and_the_write_is_adjudicated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, adjudications: list[int], by: str
) -> None:
    """SQLite: France's orders change while the phase's adjudication (made from a snapshot, without the lock) waits
    for the lock; the transaction sees another submission standing, adjudicates again, and writes the new orders.
    (PostgreSQL adjudicates under the game's lock only: nothing can land in between.)"""
    url = migrated_sqlite(tmp_path / "games.db")
    _paused_at(monkeypatch, tmp_path, "process:adjudicated")
    store = GameStore(url)
    try:
        store_games.create_game(store, "g", "standard", now=T0)
        store_submissions.submit(store, "g", "France", "A par - pic", now=T0 + timedelta(minutes=1))
        deadline = store_status.status(store, "g", now=T0).deadline
        assert deadline is not None
        after = deadline + timedelta(minutes=1)
        if by == "process now":
            t, out = _in_thread(lambda: processing.process(store, "g", now=T0 + timedelta(minutes=5), force=True))
        else:
            t, out = _in_thread(lambda: store_claims.process_next_due(store, now=after))
        wait_until("the phase to be adjudicated from its snapshot", (tmp_path / "process-adjudicated.reached").exists)
        store_submissions.submit(store, "g", "France", "A par - bur", now=T0 + timedelta(minutes=2))
        (tmp_path / "process-adjudicated.go").touch()
        assert _result(t, out)
        rec = store_history.phase_record(store, "g", "Spring 1901 Movement", submissions=False)
    finally:
        store.close()
    assert rec["orders"]["France"] == ["A par - bur"]
    assert any(r.get("order") == "A par - bur" for r in rec["results"])
    first = rec["id"]
    assert adjudications == [first, first]  # before the lock on the first orders, again under it


def test_reads_and_refusals_at_the_cap_take_no_write_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the trace found holding the lock beside a hostile person, traced again: a person at their cap of games
    refused from a snapshot, and a game page's reads of its absences, take no write transaction on SQLite."""
    from dippouch.play.openings import TemplateChoices, create_from_template
    from dippouch.store.openings import MAX_CREATED
    from dippouch.store.people import absences
    from dippouch.store.people.persons import create_person

    url = migrated_sqlite(tmp_path / "games.db")
    trace = tmp_path / "writes.jsonl"
    monkeypatch.setenv("DIPPOUCH_WRITE_TRACE", str(trace))
    settings.reread()
    store = GameStore(url)
    try:
        ann = create_person(store, "Ann", now=T0)
        for i in range(MAX_CREATED):
            create_from_template(store, ann, TemplateChoices("variant-hundred3", name=f"g{i}"), now=T0)
        trace.write_bytes(b"")
        with pytest.raises(Exception, match="not finished"):
            create_from_template(store, ann, TemplateChoices("variant-hundred3", name="one-more"), now=T0)
        absences.absence_policy(store, "g0")
        absences.game_absences(store, "g0", T0.date())
        absences.absence_uses(store, "g0")
    finally:
        store.close()
    holders = [t["who"] for t in map(json.loads, trace.read_text().splitlines())]
    assert not [w for w in holders if any("openings.py" in f or "absences.py" in f for f in w)], holders
