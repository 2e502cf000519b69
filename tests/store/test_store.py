"""Storage of games on SQLite and PostgreSQL: versions, deadlines, one-transaction processing, crashes.

PostgreSQL runs when ``DIPPOUCH_TEST_POSTGRES_URL`` names a server (scripts/test starts one). Without it
these tests fail in CI (``CI=true``) and are skipped only on a developer's machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.core.position import Position
from dippouch.core.variant import Variant
from dippouch.game import GameError, GameSettings
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import transfer as store_transfer
from dippouch.store import votes as store_votes

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _new(store: GameStore, name: str = "g", movement: str = "12d", **settings: Any) -> None:
    deadlines = {"movement": movement, "retreats": "2d", "adjustments": "2d"}
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(deadlines=deadlines, **settings))


def test_schema_matches_models_after_migrations(db_url: str, store: GameStore) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from dippouch.store.tables import load_all

    with store.engine.connect() as conn:
        ctx = MigrationContext.configure(conn)
        assert ctx.get_current_revision() == _head()
        diffs = [d for d in compare_metadata(ctx, load_all()) if not _harmless(d)]
    assert diffs == []
    GameStore(db_url).close()  # opening again is a no-op upgrade

    # The migration runs backwards and forwards again cleanly.
    from alembic import command

    from dippouch.store.db import alembic_config, upgrade

    cfg = alembic_config()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert "games" not in sa.inspect(store.engine).get_table_names()
    upgrade(store.engine)
    assert {"games", "phases", "submissions", "players", "votes", "events"} <= set(
        sa.inspect(store.engine).get_table_names()
    )


def _harmless(diff: object) -> bool:
    # SQLite reports no server-side type details for our UTC wrapper; nothing else may differ.
    return isinstance(diff, list) and all(d[0] == "modify_type" for d in diff)


def test_submissions_are_versioned_and_the_latest_on_time_counts(store: GameStore) -> None:
    _new(store, movement="2d")
    deadline = T0 + timedelta(days=2)
    r1 = store_submissions.submit(store, "g", "france", "A par - bur\nF bre - mao", now=T0 + timedelta(hours=1))
    r2 = store_submissions.submit(
        store, "g", "France", "A par - pic\nA mar - spa\nA xyz H", now=T0 + timedelta(hours=2)
    )
    late = store_submissions.submit(store, "g", "F", "A par - gas", now=deadline + timedelta(minutes=1))
    assert (r1.version, r2.version, late.version) == (1, 2, 3)
    assert [ln.accepted for ln in r2.lines] == [True, True, False]
    assert not r2.late and late.late
    assert store_processing.process(store, "g", now=deadline - timedelta(seconds=1)) == []  # not due yet
    assert store_processing.process(store, "g", now=deadline + timedelta(minutes=5)) == ["Spring 1901 Movement"]
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement")
    assert rec["orders"]["France"] == ["A par - pic", "A mar - spa"]
    assert [s["version"] for s in rec["submissions"]] == [1, 2, 3]
    assert [s["late"] for s in rec["submissions"]] == [False, False, True]
    assert rec["submissions"][0]["submitted_at"].startswith("2026-01-05T13:00")
    units = {u["unit"] for u in rec["next_position"]["units"] if u["power"] == "France"}
    assert units == {"A pic", "A spa", "F bre"}
    assert "France" not in rec["missed"] and "England" in rec["missed"]


def test_submit_errors(store: GameStore) -> None:
    _new(store, "demo")
    with pytest.raises(GameError, match="no game 'deme'; did you mean 'demo'"):
        store_submissions.submit(store, "deme", "France", "A par H", now=T0)
    _new(store)
    with pytest.raises(GameError, match="no power 'Frnace'"):
        store_submissions.submit(store, "g", "Frnace", "A par H", now=T0)
    with pytest.raises(GameError, match="already exists"):
        _new(store)


def test_everyone_ready_processes_early_and_processing_twice_is_harmless(store: GameStore, db_url: str) -> None:
    _new(store)
    for p in ("Austria", "England", "France", "Germany", "Italy", "Russia"):
        store_submissions.submit(store, "g", p, "no orders", now=T0, ready=True)
    assert not store_status.status(store, "g", now=T0).due
    store_submissions.submit(store, "g", "Turkey", "A con - bul", now=T0, ready=True)
    assert store_status.status(store, "g", now=T0).due
    phase_id = store_history.history(store, "g")[0].id
    other = GameStore(db_url)
    assert store_processing.process_phase(other, phase_id, now=T0) is True
    assert store_processing.process_phase(store, phase_id, now=T0) is False  # already processed: nothing happens
    assert store_processing.process(store, "g", now=T0) == []
    other.close()
    hist = store_history.history(store, "g")
    assert [(h.name, h.status) for h in hist] == [("Spring 1901 Movement", "processed"), ("Fall 1901 Movement", "open")]


def test_pause_extend_resume(store: GameStore) -> None:
    _new(store, movement="3d", timezone="Europe/London", time_of_day="07:00")
    st = store_status.status(store, "g", now=T0)
    assert st.deadline == datetime(2026, 1, 9, 7, 0, tzinfo=UTC)
    assert store_deadlines.extend(store, "g", timedelta(days=1), now=T0) == datetime(2026, 1, 10, 7, 0, tzinfo=UTC)
    left = store_deadlines.pause(store, "g", now=datetime(2026, 1, 8, 7, 0, tzinfo=UTC))
    assert left == timedelta(days=2)
    assert (
        store_processing.process(store, "g", now=datetime(2026, 2, 1, tzinfo=UTC)) == []
    )  # nothing happens while paused
    with pytest.raises(GameError, match="already paused"):
        store_deadlines.pause(store, "g", now=T0)
    assert store_deadlines.extend(store, "g", timedelta(hours=12), now=T0) == timedelta(days=2, hours=12)
    resumed = store_deadlines.resume(store, "g", now=datetime(2026, 2, 1, 12, 0, tzinfo=UTC))
    assert resumed == datetime(2026, 2, 4, 7, 0, tzinfo=UTC)  # 2d12h later is 2026-02-04 00:00, rounded to 07:00
    with pytest.raises(GameError, match="not paused"):
        store_deadlines.resume(store, "g", now=T0)


def test_missed_phases_lead_to_civil_disorder_until_replaced(store: GameStore) -> None:
    _new(store, missed_limit=2)
    store_games.assign(store, "g", "England", "Ann", now=T0)
    others = ("Austria", "France", "Germany", "Italy", "Russia", "Turkey")
    t = T0
    for _ in range(2):
        for p in others:
            store_submissions.submit(store, "g", p, "no orders", now=t, ready=True)
        assert not store_status.status(store, "g", now=t).due  # England has not sent orders yet
        t += timedelta(days=13)
        assert store_processing.process(store, "g", now=t)
    st = {p.power: p for p in store_status.status(store, "g", now=t).powers}
    assert st["England"].civil_disorder and st["England"].missed_in_a_row == 2
    assert not any(p.civil_disorder for p in st.values() if p.power != "England")
    # A power in civil disorder does not hold up early processing.
    for p in others:
        store_submissions.submit(store, "g", p, "no orders", now=t, ready=True)
    assert store_status.status(store, "g", now=t).due
    store_games.assign(store, "g", "England", "Bea", now=t, replace=True)
    st = {p.power: p for p in store_status.status(store, "g", now=t).powers}
    assert not st["England"].civil_disorder and st["England"].player == "Bea"
    players = dict((p, cur) for p, cur, _ in store_games.players(store, "g"))
    assert players["England"] == "Bea"
    with pytest.raises(GameError, match="already played by Bea"):
        store_games.assign(store, "g", "England", "Cid", now=t)


def test_draw_by_unanimous_vote(store: GameStore) -> None:
    _new(store)
    for p in ("Austria", "England", "France", "Germany", "Italy", "Russia"):
        assert store_votes.vote(store, "g", p, True, now=T0) is None
    # A no refuses the draw proposed (the game's rule is unanimous); asked again, every yes ends the game.
    store_votes.vote(store, "g", "Turkey", False, now=T0)
    assert store_status.status(store, "g", now=T0).ending is None
    for p in ("Austria", "England", "France", "Germany", "Italy", "Russia"):
        assert store_votes.vote(store, "g", p, True, now=T0) is None
    ending = store_votes.vote(store, "g", "Turkey", True, now=T0)
    assert ending is not None and ending.kind == "draw"
    assert store_status.status(store, "g", now=T0).ending == ending
    with pytest.raises(GameError, match="ended before these orders arrived: Draw agreed"):
        store_submissions.submit(store, "g", "France", "A par H", now=T0)
    # Rolling back reopens the game; the votes lapse, so one more vote does not end it again.
    store_history.rollback(store, "g", "Spring 1901 Movement", now=T0)
    assert store_votes.vote(store, "g", "Turkey", True, now=T0) is None
    assert store_status.status(store, "g", now=T0).ending is None


def test_rollback_keeps_abandoned_phases_and_export_import_round_trips(store: GameStore) -> None:
    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    store_submissions.submit(store, "g", "France", "A bur - mun", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    name, carried = store_history.rollback(store, "g", "fall 1901", now=T0 + timedelta(hours=1))
    assert name == "Fall 1901 Movement" and [(c.power, c.version, c.orders) for c in carried] == [("France", 1, 1)]
    hist = store_history.history(store, "g")
    assert [(h.name, h.status) for h in hist][:2] == [
        ("Spring 1901 Movement", "processed"),
        ("Fall 1901 Movement", "abandoned"),
    ]
    assert [h.status for h in hist[2:]] == ["abandoned", "open"]
    assert store_status.status(store, "g", now=T0).phase == "Fall 1901 Movement"
    # The abandoned phase can still be shown by id.
    assert store_history.phase_record(store, "g", phase_id=hist[1].id)["orders"]["France"] == ["A bur - mun"]
    ok, diffs = store_history.replay(store, "g", "Spring 1901 Movement")
    assert ok, diffs

    data = store_transfer.export_game(store, "g")
    json.dumps(data)  # plain JSON
    assert store_transfer.import_game(store, data, name="copy") == "copy"
    again = store_transfer.export_game(store, "copy")
    strip = _without_ids
    assert strip(again) == strip({**data, "game": {**data["game"], "name": "copy"}})
    with pytest.raises(GameError, match="already exists"):
        store_transfer.import_game(store, data)
    with pytest.raises(GameError, match="not a dippouch game file"):
        store_transfer.import_game(store, {"phases": []})
    with pytest.raises(GameError, match=r"game\.variant: missing"):
        store_transfer.import_game(store, {"format": "dippouch-game", "game": {"name": "x"}}, name="x")


def test_a_replay_counts_what_happened_not_how_a_reason_was_worded(store: GameStore) -> None:
    """A phase stored before a reason was worded anew (an equal head-to-head "lost", now "bounced") replays as
    agreeing; an outcome changed is still a difference."""
    from dippouch.store.models import PhaseRow

    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    store_submissions.submit(store, "g", "Germany", "A mun - bur", now=T0)
    store_processing.process(store, "g", now=T0, force=True)
    with store.session() as s, s.begin():
        first = s.scalars(sa.select(PhaseRow).where(PhaseRow.seq == 0)).one()
        results = [dict(r) for r in first.results or []]
        worded = [r for r in results if r.get("reason")]
        assert worded, results
        worded[0]["reason"] = {"id": "an older wording of %(unit)s", "args": {"unit": "A bur"}}
        first.results = results
    assert store_history.replay(store, "g", "Spring 1901 Movement") == (True, [])
    with store.session() as s, s.begin():
        first = s.scalars(sa.select(PhaseRow).where(PhaseRow.seq == 0)).one()
        results = [dict(r) for r in first.results or []]
        results[0]["result"] = "succeeds" if results[0]["result"] != "succeeds" else "fails"
        first.results = results
    ok, diffs = store_history.replay(store, "g", "Spring 1901 Movement")
    assert not ok and [str(d) for d in diffs] == ["results differ"]


def _without_ids(data: dict[str, Any]) -> dict[str, Any]:
    from helpers import comparable_game_file

    return comparable_game_file(data)


CRASH_SCRIPT = """
import sys
from datetime import datetime, UTC
from dippouch.store import GameStore, processing
s = GameStore(sys.argv[1])
processing.process(s, "g", now=datetime(2026, 1, 5, 12, 0, tzinfo=UTC), force=True)
print("not reached")
"""


@pytest.mark.parametrize("point", ["process:after-results", "process:before-commit"])
def test_a_crash_mid_processing_leaves_the_game_before_the_phase(store: GameStore, db_url: str, point: str) -> None:
    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    before = store_transfer.export_game(store, "g")
    env = {**os.environ, "DIPPOUCH_CRASH_AT": point}
    proc = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, db_url], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 70, proc.stderr
    assert "not reached" not in proc.stdout
    assert store_transfer.export_game(store, "g") == before  # nothing of the half-done processing is visible
    assert store_processing.process(store, "g", now=T0, force=True) == ["Spring 1901 Movement"]
    rec = store_history.phase_record(store, "g", "Spring 1901 Movement")
    assert rec["orders"]["France"] == ["A par - bur"]
    assert store_status.status(store, "g", now=T0).phase == "Fall 1901 Movement"


SUBMIT_SCRIPT = """
import os, sys
from datetime import datetime, UTC
from dippouch.store import GameStore, submissions
r = submissions.submit(GameStore(sys.argv[1]), "g", "France", "A par - bur", now=datetime(2026, 1, 5, 13, 0, tzinfo=UTC))
print("acknowledged", r.version, flush=True)
os._exit(0)  # die at once after the acknowledgement: no clean shutdown
"""


def test_an_acknowledged_submission_is_durable(store: GameStore, db_url: str) -> None:
    _new(store)
    proc = subprocess.run([sys.executable, "-c", SUBMIT_SCRIPT, db_url], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "acknowledged 1", proc.stderr
    fresh = GameStore(db_url)
    rec = store_history.phase_record(fresh, "g", "Spring 1901 Movement")
    fresh.close()
    assert [(s["power"], s["version"], s["text"]) for s in rec["submissions"]] == [("France", 1, "A par - bur")]


def _data(v: Variant, pos: Position) -> dict[str, Any]:
    from dippouch.game import position_to_data

    return position_to_data(v, pos)


def test_missed_orders_units_hold_retreats_disband_removals_by_civil_disorder_builds_waived(store: GameStore) -> None:
    from dippouch.catalog import load_variant
    from dippouch.core.calendar import Phase
    from dippouch.core.position import Dislodged, Unit

    v = load_variant("standard")
    m = v.map
    loc = m.loc
    # Fall 1901 Retreats: a German army dislodged from Burgundy, with somewhere to go, but no orders arrive.
    units = dict(v.start.units)
    units[m.province_of(loc("bur"))] = Unit("France", "A", loc("bur"))
    del units[m.province_of(loc("mar"))]
    dislodged = {
        m.province_of(loc("bur")): Dislodged(Unit("Germany", "A", loc("bur")), frozenset({loc("ruh"), loc("pic")}))
    }
    del units[m.province_of(loc("mun"))]
    pos = v.start.with_(phase=Phase(1901, 3), units=units, dislodged=dislodged)
    store_games.create_game(store, "r", "standard", now=T0, position=_data(v, pos))
    assert store_processing.process(store, "r", now=T0 + timedelta(days=3)) == ["Fall 1901 Retreats"]
    rec = store_history.phase_record(store, "r", "Fall 1901 Retreats")
    assert [r["automatic"] for r in rec["results"] if r["power"] == "Germany"] == [True]
    assert not [
        u for u in rec["next_position"]["units"] if u["unit"] in ("A ruh", "A pic", "A bur") and u["power"] == "Germany"
    ]

    # Winter: France has a unit too many and Germany may build, but neither sends orders.
    centres = dict(v.start.centres)
    centres[m.province_of(loc("par"))] = "Germany"
    winter = v.start.with_(phase=Phase(1901, 4), centres=centres)
    winter = winter.with_(units={p: u for p, u in winter.units.items() if m.provinces[p].abbr != "mun"})
    store_games.create_game(store, "w", "standard", now=T0, position=_data(v, winter))
    assert store_processing.process(store, "w", now=T0 + timedelta(days=3)) == ["Winter 1901 Adjustments"]
    rec = store_history.phase_record(store, "w", "Winter 1901 Adjustments")
    nxt = rec["next_position"]["units"]
    assert sum(1 for u in nxt if u["power"] == "France") == 2  # removed by the civil-disorder rule
    assert sum(1 for u in nxt if u["power"] == "Germany") == 2  # the build was waived
    assert any(r["automatic"] and r["power"] == "France" for r in rec["results"])
    assert sorted(rec["missed"]) == ["France", "Germany"]


def test_two_processors_at_once_process_a_phase_once(store: GameStore, db_url: str) -> None:
    import threading

    _new(store)
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0)
    phase_id = store_history.history(store, "g")[0].id
    stores = [GameStore(db_url) for _ in range(4)]
    results: list[bool] = []
    barrier = threading.Barrier(len(stores))

    def work(s: GameStore) -> None:
        barrier.wait()
        results.append(store_processing.process_phase(s, phase_id, now=T0))

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert sorted(results) == [False, False, False, True]
    assert [(h.name, h.status) for h in store_history.history(store, "g")] == [
        ("Spring 1901 Movement", "processed"),
        ("Fall 1901 Movement", "open"),
    ]


def _head() -> str:
    """The newest migration shipped (the schema every database is brought to)."""
    from alembic.script import ScriptDirectory

    from dippouch.store.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head
