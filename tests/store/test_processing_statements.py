"""What a deadline worker sends the database for each phase it processes, counted (issue 57: at a thousand games the
workers' phases are made of round trips, each a wait on a busy machine): the database's clock read once a phase
(not once for the claim, once for the absence policy, once for the processing and once for the lateness), a phase
without mail asked about its mail in one query (not the three of the review's check), and the looks for pauses that
end by themselves reading the paused games alone (not every game's row and open phase), and the looks for bots and
practice games reading back the games that have them alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.game import GameSettings
from dippouch.play import fairness
from dippouch.store import GameStore
from dippouch.store import bots as store_bots
from dippouch.store import claims as store_claims
from dippouch.store import games as store_games
from dippouch.store.models import GameRow, PhaseRow

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Sent:
    """The statements the store's engine sends, by their first words."""

    def __init__(self, store: GameStore) -> None:
        # The engine of the reads that take no lock too (a SQLite file's own: GameStore.read_session).
        self.engines = {id(e): e for e in (store.engine, store.read_engine)}.values()
        self.statements: list[str] = []
        self.rows: int | None = None
        """Rows of games' settings the database sent back (None: the driver does not count them: sqlite3)."""

    def _add(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.statements.append(" ".join(statement.split()))

    def _read(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if " games.settings" in statement and cursor.rowcount >= 0:  # the driver counts a SELECT's rows
            self.rows = (self.rows or 0) + cursor.rowcount

    def __enter__(self) -> Sent:
        for engine in self.engines:
            sa.event.listen(engine, "before_cursor_execute", self._add)
            sa.event.listen(engine, "after_cursor_execute", self._read)
        return self

    def __exit__(self, *exc: object) -> None:
        for engine in self.engines:
            sa.event.remove(engine, "before_cursor_execute", self._add)
            sa.event.remove(engine, "after_cursor_execute", self._read)

    def of(self, *words: str) -> int:
        return sum(1 for s in self.statements if any(w in s for w in words))


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    for i in range(3):
        store_games.create_game(s, f"g{i}", "standard", now=START)
    with s.engine.begin() as conn:  # every phase past its deadline by the database's clock
        conn.execute(sa.update(PhaseRow).values(deadline=datetime.now(UTC) - timedelta(minutes=1)))
    yield s
    s.close()


def test_a_phase_is_claimed_and_processed_with_one_reading_of_the_clock_and_one_question_about_its_mail(
    store: GameStore,
) -> None:
    postgres = store.engine.dialect.name == "postgresql"
    for _ in range(3):
        with Sent(store) as sent:
            due = store_claims.process_next_due(store)
        assert due is not None and due.processed_at is not None
        assert due.deadline is not None and due.processed_at > due.deadline  # how late: no second reading
        # PostgreSQL's clock read by the claim itself, as its statement starts (the phase's moment), and once for
        # the phases held, which a claim without its caller's reading asks first; SQLite's is the process's.
        assert sent.of("clock_timestamp()") == (1 if postgres else 0), sent.statements
        assert sent.of("statement_timestamp()") == (1 if postgres else 0), sent.statements
        # The claim reads the game's row it locks: not read again (SQLite's look from a snapshot reads it).
        assert sent.of("FROM games WHERE games.id =") == (0 if postgres else 1), sent.statements
        # Beside the question of the phases held (messages and photographs of open phases), the phase's own (none
        # taken in): never the release, the photographs and the held messages apart, nor (none taken in) the
        # powers that sent photographs.
        claims = sent.of("FROM phases JOIN mail_messages")
        assert claims == 1, sent.statements
        assert sent.of("FROM mail_reviews") == 0, sent.statements
        assert sent.of("mail_messages") - claims == 1, sent.statements  # the domains' question
        # The claim locks and reads the phase's row with its game's: the processing reads it in no statement of its
        # own (SQLite's look from a snapshot reads it first, the claim again under the write lock).
        assert sent.of("FOR UPDATE OF games, phases SKIP LOCKED") == (1 if postgres else 0), sent.statements
        assert sent.of("FROM phases WHERE phases.id =") == (0 if postgres else 1), sent.statements
        # The domains (an absence policy, the phase's mail, its postal press) asked in one statement, none again.
        assert sent.of("FROM game_roster") == 1 and sent.of("FROM press_messages") == 1, sent.statements
        # All told (8 on PostgreSQL; SQLite's look from a snapshot first adds its own reads, 11), where a phase
        # took 20 on PostgreSQL before, then 12, then 11.
        asked = [s for s in sent.statements if not s.startswith("BEGIN")]
        assert len(asked) <= (8 if postgres else 11), asked
    assert store_claims.process_next_due(store) is None


def test_the_claims_of_one_call_ask_which_phases_are_held_once_and_count_what_is_left_in_one_statement(
    store: GameStore,
) -> None:
    """A worker's call of several claims reads the phases held for the coordinator once (each claim asked, with a
    reading of the clock of its own), and on PostgreSQL counts the phases left due in one statement, its clock
    read in it (it was three: the clock, the phases held, the count)."""
    postgres = store.engine.dialect.name == "postgresql"
    held = store_claims.Held()
    with Sent(store) as sent:
        for _ in range(3):
            assert store_claims.process_next_due(store, held=held) is not None
        assert store_claims.process_next_due(store, held=held) is None
        assert store_claims.due_count(store, held=held) == 0
    assert sent.of("FROM phases JOIN mail_messages") == 1, sent.statements
    assert sent.of("clock_timestamp()") == (1 if postgres else 0), sent.statements
    counts = [s for s in sent.statements if s.startswith("SELECT count(*)")]
    assert len(counts) == 1 and ("statement_timestamp()" in counts[0]) == postgres, counts


def test_a_phase_found_held_under_the_lock_is_left_and_the_held_phases_read_again(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The phases held as a call read them may be out of date: a phase held since (mail taken in meanwhile) is
    found so under the lock, where it is decided, and left; the claim reads the held phases again and takes the
    next, rather than claiming the same phase again and again."""
    with store.session() as s:
        ids = sorted(s.scalars(sa.select(PhaseRow.id).where(PhaseRow.status == "open")))
    first = ids[0]
    asked: list[int] = []

    def held_ids(s: Any, now: datetime) -> list[int]:
        asked.append(1)
        return [first] if len(asked) > 1 else []  # held since the call read them

    monkeypatch.setattr(store_claims, "held_phase_ids", held_ids)
    monkeypatch.setattr("dippouch.store.readiness.holds", lambda s, ph, now: ph.id == first)
    held = store_claims.Held()
    due = store_claims.process_next_due(store, held=held)
    assert due is not None and due.phase_id != first
    assert held.ids == [first] and len(asked) == 2
    with store.session() as s:
        phase = s.get(PhaseRow, first)
        assert phase is not None and phase.status == "open"


def test_the_looks_for_pauses_that_end_by_themselves_read_the_paused_games_alone(store: GameStore) -> None:
    now = store.clock()
    with Sent(store) as sent:
        assert fairness.end_lapsed_graces(store, now=now) == []
        assert fairness.end_voted_pauses(store, now=now) == []
    asked = [s for s in sent.statements if s != "BEGIN"]
    assert len(asked) == 2, asked  # one each, however many games there are
    assert Counter(s.split(" FROM ")[1].split()[0] for s in asked) == {"games": 2}


def test_the_looks_for_bots_and_practice_games_read_back_the_games_that_have_them_alone(store: GameStore) -> None:
    """Each look of each worker asks which games have bots and which are practice games: the database tries the
    games' settings (a worker read every active game's settings back and tried them itself, a thousand JSON
    documents a look), and a value it takes for set but Python does not (false) is still left out."""
    practice = GameSettings(practice="web")
    store_games.create_game(store, "practice", "standard", now=START, settings=practice)
    store_bots.save_disorder_bot(store, "g1", "heuristic", now=START)
    with store.engine.begin() as conn:  # set, to the database's eye, and not to Python's
        conn.execute(sa.update(GameRow).where(GameRow.name == "g2").values(settings={"practice": False}))
    with Sent(store) as sent:
        assert store_bots.games_with_bots(store) == ["g1"]
        assert [p.name for p in store_bots.practice_games(store)] == ["practice"]
        assert store_bots.open_practice_games(store) == {"practice": "web"}
    if store.engine.dialect.name == "postgresql":
        assert sent.rows is not None and sent.rows <= 5, sent.statements  # g1's, then practice's and g2's twice
