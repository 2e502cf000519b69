"""A submission reads a bounded number of rows however many versions its power has sent, and still picks the same standing version as the rule over every version does.

Counted, not timed: an ORM "load" event counts the submission rows built from the database, and a cursor
event counts the SQL statements, so the test fails if ``dippouch.store.submissions.submit`` goes back to loading every earlier
version (it did: a hot phase's hundreds of versions made each submission cost O(versions)).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from dbsupport import migrated_sqlite
from dippouch.game import GameError
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.models import SubmissionRow
from dippouch.store.standing import standing as _standing

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ORDERS = "A par - bur\nA mar - spa\nF bre - mao"


@contextmanager
def counting(store: GameStore) -> Iterator[dict[str, int]]:
    """Submission rows loaded and SQL statements run inside the block."""
    seen = {"rows": 0, "statements": 0}

    def loaded(target: object, context: object) -> None:
        seen["rows"] += 1

    def executed(*args: object) -> None:
        seen["statements"] += 1

    sa.event.listen(SubmissionRow, "load", loaded)
    sa.event.listen(store.engine, "before_cursor_execute", executed)
    try:
        yield seen
    finally:
        sa.event.remove(SubmissionRow, "load", loaded)
        sa.event.remove(store.engine, "before_cursor_execute", executed)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GameStore]:
    st = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(st, "g", "standard", now=T0)
    yield st
    st.close()


def _fill(store: GameStore, versions: int, start: int = 0) -> None:
    for i in range(start, start + versions):
        store_submissions.submit(store, "g", "France", ORDERS if i % 3 else "", now=T0 + timedelta(minutes=i))


def test_submit_reads_a_bounded_number_of_rows(store: GameStore) -> None:
    _fill(store, 3)
    with counting(store) as few:
        store_submissions.submit(store, "g", "France", ORDERS, now=T0 + timedelta(hours=1))
    _fill(store, 200, start=3)
    with counting(store) as many:
        res = store_submissions.submit(store, "g", "France", ORDERS, now=T0 + timedelta(hours=5))
    assert res.version == 205
    # The standing version (and, for "version N stands", the one it names): a row or two, not 205.
    assert many["rows"] <= 2, many
    assert many["statements"] == few["statements"], (few, many)


def test_version_instruction_reads_a_bounded_number_of_rows(store: GameStore) -> None:
    store_submissions.submit(store, "g", "France", "Version 7\n" + ORDERS, now=T0)
    _fill(store, 100, start=1)
    with counting(store) as seen:
        res = store_submissions.submit(store, "g", "France", "Version 7 stands", now=T0 + timedelta(hours=3))
    assert (res.reinstates, res.standing) == (1, 1)
    assert seen["rows"] <= 4, seen


def test_standing_version_matches_the_rule_over_every_version(store: GameStore) -> None:
    """Random versions of two powers: on time and late (received times out of order, as post typed in later is), with
    no accepted order (recorded, replacing nothing), labelled, and "version N stands" naming our number or
    the player's. After each, the store's answer is the rule applied to every row of the power."""
    deadline = store_status.status(store, "g", now=T0).deadline
    assert deadline is not None
    rng = random.Random(13)
    for i in range(80):
        received = deadline + timedelta(hours=rng.uniform(-72, 24))
        kind = rng.random()
        if kind < 0.2 and i:
            text = f"Version {rng.randint(1, i + 1)} stands"
        elif kind < 0.35:
            text = "A par - nowhere"  # no accepted order: recorded, but the earlier orders stand
        elif kind < 0.5:
            text = f"Version {rng.randint(1, 9)}\n{ORDERS}"
        else:
            text = ORDERS
        power = rng.choice(["France", "Germany"])
        try:
            res = store_submissions.submit(store, "g", power, text, now=received)
        except GameError:
            continue  # names no version, or one that is itself an instruction: refused, as before
        with store.session() as s:
            rows = list(s.scalars(sa.select(SubmissionRow)))
        expected = _standing(rows, deadline, on_time_only=True).get(power)
        assert res.standing == (expected.version if expected is not None else None), (i, text, received)
        # The game's status (pages, the CLI) asks the database for every power's standing version at once.
        latest = _standing(rows, deadline, on_time_only=False)
        shown = {p.power: p.version for p in store_status.status(store, "g", now=T0, drift=False).powers if p.version}
        assert shown == {p: r.version for p, r in latest.items()}, (i, text, received)


def test_status_reads_each_powers_standing_version_only(store: GameStore) -> None:
    """The game page's status after every submission: a row or two a power, not every version."""
    _fill(store, 150)
    store_submissions.submit(store, "g", "Germany", ORDERS.replace("par", "mun"), now=T0)
    store_submissions.submit(store, "g", "France", "Version 2 stands", now=T0 + timedelta(days=1))
    with counting(store) as seen:
        st = store_status.status(store, "g", now=T0, drift=False)
    assert {p.power: p.version for p in st.powers if p.version} == {"France": 2, "Germany": 1}
    assert seen["rows"] <= 4, seen
