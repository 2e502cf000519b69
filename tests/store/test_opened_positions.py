"""A phase's starting position kept by the process that opened it, once its transaction commits (issue 57: the
worker that processed a phase made its page next and parsed the position it had just parsed to open the phase, a
tenth of the page's making); a phase rolled back leaves nothing kept (on SQLite its id goes to the next phase)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.store import GameStore
from dippouch.store import claims as store_claims
from dippouch.store import db as store_db
from dippouch.store import games as store_games
from dippouch.store.models import PhaseRow
from dippouch.store.rows import current_phase, game_row, game_settings, game_variant, open_next_phase, phase_position

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    store_games.create_game(s, "g", "standard", now=START)
    with s.engine.begin() as conn:  # past its deadline by the database's clock
        conn.execute(sa.update(PhaseRow).values(deadline=datetime.now(UTC) - timedelta(minutes=1)))
    yield s
    s.close()


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    parsed: list[Any] = []
    real = store_db.position_from_data  # type: ignore[attr-defined]

    def counted(*a: Any) -> Any:
        parsed.append(a)
        return real(*a)

    monkeypatch.setattr(store_db, "position_from_data", counted)
    return parsed


def test_the_phase_a_worker_opens_is_read_without_parsing_its_position(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    due = store_claims.process_next_due(store)
    assert due is not None
    parsed = _parses(monkeypatch)
    with store.read_session() as s:
        g = game_row(s, "g")
        ph = current_phase(s, g)
        assert ph is not None and ph.id != due.phase_id and ph.id in store.positions
        v = game_variant(g)
        pos = phase_position(store, v, ph)
        name = ph.name
    assert parsed == []
    assert v.calendar.name(pos.phase) == name and len(pos.units) == 22  # the opened phase's own, not the one before


def _start(s: Any, g: Any) -> dict[str, Any]:
    ph = current_phase(s, g)
    assert ph is not None
    return dict(ph.position)


def test_a_phase_opened_and_rolled_back_is_not_kept(store: GameStore) -> None:
    with store.session() as s:
        g = game_row(s, "g")
        v = game_variant(g)
        opened = open_next_phase(s, g, v, game_settings(g), start_data=_start(s, g), seq=9, now=START)
        phase_id = opened.id
        s.rollback()
    assert phase_id not in store.positions
    with store.session() as s:  # nor one of a session closed without a commit
        g = game_row(s, "g")
        opened = open_next_phase(s, g, v, game_settings(g), start_data=_start(s, g), seq=9, now=START)
        phase_id = opened.id
    assert phase_id not in store.positions
    with store.session() as s:
        assert s.get(PhaseRow, phase_id) is None
