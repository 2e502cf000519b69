"""The game store is the open database and forwards nothing: what is done with it is a function of one of the
store's modules, called with the store first (one name for each), and the helpers that read a game's rows inside a
caller's session are the rows' modules' own functions, called there.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import dippouch.store.db
from dbsupport import migrated_sqlite
from dippouch.game import GameSettings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import readiness as store_readiness
from dippouch.store import rows as store_rows
from dippouch.store import standing as store_standing
from dippouch.store import submissions as store_submissions

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    s = GameStore(migrated_sqlite(tmp_path / "games.db"))
    yield s
    s.close()


def test_the_store_forwards_nothing() -> None:
    """A forwarding attribute (``submit = submissions.submit``) gave a function two names, one a caller could not
    find by its module: the store has none, only what the open database (:class:`~dippouch.store.db.Database`)
    has."""
    own = {name for name in vars(GameStore) if not name.startswith("__")}
    assert own == set()
    assert not hasattr(GameStore, "submit") and not hasattr(GameStore, "create_game")
    assert store_submissions.submit.__module__ == "dippouch.store.submissions" and inspect.getdoc(
        store_submissions.submit
    )


def test_the_database_part_is_the_open_database() -> None:
    assert issubclass(GameStore, dippouch.store.db.Database)
    for name in ("clock", "reader", "close", "ping"):
        assert name not in vars(GameStore) and hasattr(GameStore, name)


def test_no_private_name_is_left_for_callers() -> None:
    """Every caller outside the store uses the public names; the private aliases they once needed are gone."""
    assert [name for name in vars(GameStore) if name.startswith("_") and not name.startswith("__")] == []


def test_the_row_helpers_answer_inside_the_callers_session_and_are_no_methods(store: GameStore) -> None:
    store_games.create_game(store, "g", "standard", now=T0, settings=GameSettings(missed_limit=1))
    store_submissions.submit(store, "g", "France", "A par - bur", now=T0, ready=True)
    with store.session() as s:
        g = store_rows.game_row(s, "g")
        v = store_rows.game_variant(g)
        ph = store_rows.current_phase(s, g)
        assert ph is not None and ph.name == "Spring 1901 Movement"
        parsed = store_rows.phase_position(store, v, ph)
        assert store_rows.phase_position(store, v, ph) is parsed  # parsed once per phase
        assert [sub.power for sub in store_standing.standing_versions(ph, on_time_only=True).values()] == ["France"]
        assert store_readiness.powers_in_civil_disorder(s, g, v) == set()
    store_processing.process(store, "g", now=T0, force=True)
    with store.session() as s:
        g = store_rows.game_row(s, "g")
        # Everyone but France missed the first movement phase; a limit of one puts them in civil disorder.
        assert "France" not in store_readiness.powers_in_civil_disorder(s, g, store_rows.game_variant(g))
        assert "England" in store_readiness.powers_in_civil_disorder(s, g, store_rows.game_variant(g))
    # A method that only forwards to a room's function is no method: callers call the function.
    gone = {"game_row", "game_variant", "current_phase", "phase_position", "powers_in_civil_disorder"}
    gone |= {"standing_versions", "is_due", "due_phases", "process_next_due", "process_phase", "replay"}
    gone |= {"variant_drift", "upgrade_variant", "record_unsealing", "vote_history", "set_deadlines"}
    assert gone & set(vars(GameStore)) == set()


def test_ping_answers_on_a_dippouch_database_and_fails_without_its_schema(store: GameStore, tmp_path: Path) -> None:
    store.ping()
    broken = GameStore(migrated_sqlite(tmp_path / "other.db"))
    with broken.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE alembic_version")
    with pytest.raises(dippouch.store.db.DatabaseError):
        broken.ping()
    broken.close()
