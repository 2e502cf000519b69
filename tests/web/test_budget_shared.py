"""The work budget kept for every process (issue 52): two web processes on one database (``--workers 2``, or two
servers) each gave a person a whole share, since each kept the shares in its own memory. Now the shares are
kept in the database (dippouch.store.work_spent): what one process charged, another refuses; cheap charges are
written in batches, not one write a request. On SQLite and PostgreSQL.

Two processes are stood for by two stores on one database, each with its own engine and connections (and, for
the app's test, two whole applications), as two server processes would have."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dippouch.store import GameStore, work_spent
from dippouch.store.db import DatabaseBusy
from dippouch.store.people.persons import create_person
from dippouch.web.http.budget import REQUEST_COST, StoreLedger, WorkBudget
from dippouch.web.http.security import SESSION_COOKIE, TooMany
from websupport import Site


def _burn(seconds: float) -> Callable[[], float]:
    """Work that spends ``seconds`` of this thread's CPU time."""

    def work() -> float:
        started = time.thread_time()
        while time.thread_time() - started < seconds:
            pass
        return time.thread_time() - started

    return work


class Counted(StoreLedger):
    """The real ledger, its reads and writes counted."""

    def __init__(self, store: GameStore) -> None:
        super().__init__(store)
        self.reads_made = 0
        self.writes_made = 0

    def full_again(self, keys: Iterable[str]) -> dict[str, float]:
        self.reads_made += 1
        return super().full_again(keys)

    def advance(self, moves: Mapping[str, float], now: float) -> dict[str, float]:
        self.writes_made += 1
        return super().advance(moves, now)


@pytest.fixture
def two(db_url: str) -> Iterator[tuple[GameStore, GameStore]]:
    """Two stores on one database: two processes' engines."""
    first = GameStore(db_url)
    second = GameStore(db_url)
    yield first, second
    first.close()
    second.close()


def test_what_one_process_charged_the_other_refuses(two: tuple[GameStore, GameStore]) -> None:
    """Ann spends her share (0.1 s a minute) in the first process; the second refuses her, saying she has used
    it, while Bob still has his; once the minute has passed, the second lets her in again."""
    now = [1_000_000.0]
    a, b = (WorkBudget(0.1, 60.0, clock=lambda: now[0], ledger=StoreLedger(s)) for s in two)
    a.run("person 1", _burn(0.15), estimate=0.01)
    with pytest.raises(TooMany, match="you have used your share of the server's work"):
        b.run("person 1", lambda: "again")
    assert b.run("person 2", lambda: "Bob's") == "Bob's"
    now[0] += 90
    assert b.run("person 1", lambda: "later") == "later"


def test_a_reservation_is_seen_by_the_other_process_while_the_job_runs(two: tuple[GameStore, GameStore]) -> None:
    """A job estimated at 0.8 s of a 1 s share, still running in the first process: the second refuses another
    such job (it does not fit what is left), and after the job, which took far less, it takes one."""
    now = [1_000_000.0]
    a, b = (WorkBudget(1.0, 60.0, clock=lambda: now[0], ledger=StoreLedger(s)) for s in two)
    seen: list[str] = []

    def job() -> None:
        try:
            b.check("person 1", estimate=0.8)
            seen.append("let in")
        except TooMany as e:
            seen.append(str(e))

    a.run("person 1", job, estimate=0.8)
    assert len(seen) == 1 and "more than is left of your share" in seen[0], seen
    assert b.run("person 1", lambda: "fits now", estimate=0.8) == "fits now"


def test_cheap_charges_are_written_in_batches(two: tuple[GameStore, GameStore]) -> None:
    """A page charges 10 ms and writes nothing; the charge that brings the unsent total to the share's part
    kept unsent (5% of 10 s) asks to be sent, and one write sends them all; the other process then sees them."""
    now = [1_000_000.0]
    counted = Counted(two[0])
    a = WorkBudget(10.0, 60.0, clock=lambda: now[0], ledger=counted)
    b = WorkBudget(10.0, 60.0, clock=lambda: now[0], ledger=StoreLedger(two[1]))
    pages = round(a.asker_share.send_at / REQUEST_COST)
    assert pages == 50
    due = [a.charge_request("person 1") for _ in range(pages - 1)]
    assert not any(due) and counted.writes_made == 0 and counted.reads_made == 0
    assert b.left("person 1") == 10.0  # nothing sent yet: the other process has not heard of them
    assert a.charge_request("person 1")
    a.send()
    assert counted.writes_made == 1
    b.check("person 1")  # a decision reads the ledger
    assert b.left("person 1") == pytest.approx(10.0 - pages * REQUEST_COST)
    a.send()
    assert counted.writes_made == 1  # nothing left to send


def test_a_small_job_reads_the_ledger_and_writes_only_past_the_threshold(
    two: tuple[GameStore, GameStore],
) -> None:
    """A line check of a few milliseconds costs one read of the ledger and no write; a job whose reservation is
    worth writing is written before it runs and settled after."""
    now = [1_000_000.0]
    counted = Counted(two[0])
    a = WorkBudget(10.0, 60.0, clock=lambda: now[0], ledger=counted)
    a.run("person 1", lambda: None)
    assert counted.reads_made == 1 and counted.writes_made == 0
    a.run("person 1", lambda: None, estimate=0.5)  # reserved (written), given back after (written)
    assert counted.writes_made == 2
    a.run("person 1", _burn(0.05), estimate=0.5)
    got = work_spent.full_again(two[1], ["asker person 1"])
    assert got["asker person 1"] > now[0]  # what it took stays charged


def test_shares_full_again_leave_no_row(two: tuple[GameStore, GameStore]) -> None:
    """Rows live only while a share is being refilled: a give-back that fills it deletes its row, and the sweep
    deletes those whose time has passed."""
    store = two[0]
    assert work_spent.advance_spent(store, {"asker a": 5.0, "asker b": 30.0}, 100.0) == {
        "asker a": 105.0,
        "asker b": 130.0,
    }
    assert work_spent.advance_spent(store, {"asker a": -10.0}, 101.0) == {"asker a": 95.0}
    assert work_spent.full_again(store, ["asker a", "asker b"]) == {"asker b": 130.0}
    assert work_spent.forget_full_shares(store, 131.0) == 1
    assert work_spent.full_again(store, ["asker b"]) == {}


def test_a_ledger_that_fails_leaves_the_process_on_its_own_figures(two: tuple[GameStore, GameStore]) -> None:
    """The database away: the budget goes on with what it knows (an asker is not refused for the database's
    fault), and sends what it kept once the database answers again."""
    now = [1_000_000.0]
    store = two[0]
    budget = WorkBudget(0.2, 60.0, clock=lambda: now[0], ledger=StoreLedger(store))
    real = store.session

    def broken() -> None:
        raise DatabaseBusy("SELECT", {}, Exception("the database is away"))

    store.session = broken  # type: ignore[assignment]
    try:
        budget.run("person 1", _burn(0.3))
    finally:
        store.session = real
    assert budget.left("person 1") < -0.09  # in debt, by its own figures
    budget.send()
    assert work_spent.full_again(two[1], ["asker person 1"])["asker person 1"] > now[0] + 60


# --------------------------------------------------------------------------------------------------
# Two applications on one database


def _signed_in(site: Site, pid: int, session: str, address: str) -> TestClient:
    c = TestClient(site.app, raise_server_exceptions=False, client=(address, 4000))
    c.cookies.set(SESSION_COOKIE, session)
    return c


HEAVY = {"variant": "w3k", "orders": {"Crown": [f"A Parisxq{i} - Burgandyz{i}" for i in range(60)]}}
"""An adjudication of 60 misspelt W3K orders: each a search for the closest names, 0.2 s of CPU or so."""


def test_a_second_server_refuses_a_person_who_spent_their_share_on_the_first(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two whole applications on one database, as two server processes: Ann spends her share (0.1 s a minute)
    on the first; the second answers her 429 in German when asked in German, and serves Bob."""
    monkeypatch.setenv("DIPPOUCH_WORK_SECONDS", "0.1")
    first = Site(db_url)
    second = Site(db_url)
    store = first.web.store
    ann = create_person(store, "Ann", now=first.clock(), email="ann@example.org")
    bob = create_person(store, "Bob", now=first.clock(), email="bob@example.org")
    ann_session = first.web.access.start_session([], now=first.clock(), person_id=ann)
    bob_session = first.web.access.start_session([], now=first.clock(), person_id=bob)
    small = {"variant": "standard", "orders": {}}
    assert _signed_in(second, ann, ann_session, "203.0.113.5").post("/api/adjudicate", json=small).is_success
    assert _signed_in(first, ann, ann_session, "203.0.113.5").post("/api/adjudicate", json=HEAVY).is_success
    r = _signed_in(second, ann, ann_session, "198.51.100.7").post("/api/adjudicate?lang=de", json=small)
    assert r.status_code == 429, r.text
    assert r.json()["error"].startswith("Sie haben Ihren Anteil an der Arbeit des Servers verbraucht"), r.text
    assert int(r.headers["Retry-After"]) >= 1
    assert _signed_in(second, bob, bob_session, "203.0.113.5").post("/api/adjudicate", json=small).is_success
