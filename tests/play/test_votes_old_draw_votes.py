"""Draw votes kept before a draw was a proposal (a row a vote, each power's latest standing from one phase to the
next) keep their meaning: the workers' scan, or the next draw vote at any door, reads them as the open draw
proposal of every survivor with those ballots, decided by the game's rule; a game that has had a draw proposal
reads its vote rows as the log alone. On the real store (SQLite; PostgreSQL where the suite has one)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameSettings
from dippouch.play import votes
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.models import VoteRow
from dippouch.store.rows import game_row
from dippouch.store.votes import lapse_stale

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def _game(store: GameStore, name: str, rule: str, old: dict[str, bool]) -> None:
    """A running game with draw votes stored the old way (rows only, no proposal), as an upgraded site has."""
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(vote_rule=rule))
    for power in POWERS:
        store_games.assign(store, name, power, f"{power} player", now=T0)
    with store.session() as s, s.begin():
        g = game_row(s, name)
        for i, (power, yes) in enumerate(old.items()):
            s.add(VoteRow(game_id=g.id, power=power, draw=yes, at=T0 - timedelta(days=3, minutes=-i)))


def _drawn(store: GameStore, name: str, at: datetime) -> set[str]:
    return {p.power for p in store_status.status(store, name, now=at).powers if p.draw_vote}


def test_the_workers_scan_reads_old_draw_votes_as_the_open_draw_proposal(store: GameStore) -> None:
    # England changed its mind: its latest vote (a no) is the one that stood.
    _game(store, "old", "majority", {"France": True, "England": True, "Italy": True, "Germany": False})
    with store.session() as s, s.begin():
        g = game_row(s, "old")
        s.add(VoteRow(game_id=g.id, power="England", draw=False, at=T0 - timedelta(days=1)))
    at = T0 + timedelta(minutes=1)
    assert lapse_stale(store, now=at) == []  # nothing lapsed; the old votes were read
    [p] = votes.proposals(store, "old", now=at)
    assert (p.kind, p.status, p.values) == ("draw", "open", {})
    assert p.ballots == {"France": True, "England": False, "Italy": True, "Germany": False}
    assert (p.yes, p.no, p.needed) == (2, 2, 4)
    assert _drawn(store, "old", at) == {"France", "Italy"}
    # The scan again makes nothing more: the game has its draw proposal.
    lapse_stale(store, now=at + timedelta(minutes=1))
    assert len(votes.proposals(store, "old", now=at)) == 1
    # Two more yes by the door's "vote draw" pass it under the majority rule.
    votes.vote(store, "old", "Russia", True, now=at + timedelta(minutes=2))
    got = votes.vote(store, "old", "Turkey", True, now=at + timedelta(minutes=3))
    assert got.ending is not None and got.ending.kind == "draw"


def test_the_next_vote_draw_reads_the_old_votes_before_any_scan(store: GameStore) -> None:
    _game(store, "next", "unanimous", {p: True for p in POWERS if p != "Turkey"})
    got = votes.vote(store, "next", "Turkey", True, now=T0 + timedelta(minutes=1))
    assert got.ending is not None and got.ending.kind == "draw"
    [p] = votes.proposals(store, "next", now=T0 + timedelta(minutes=2))
    assert p.status == "passed" and sorted(p.ballots) == sorted(POWERS) and p.proposer == "Austria"


def test_a_proposed_draw_takes_the_old_yes_votes_as_its_ballots(store: GameStore) -> None:
    _game(store, "form", "majority", {"Austria": True, "England": True})
    d = votes.propose(store, "form", "France", "draw", now=T0 + timedelta(minutes=1))
    assert d.proposal.status == "open" and d.proposal.ballots == {"Austria": True, "England": True, "France": True}
    assert len(votes.proposals(store, "form", now=T0 + timedelta(minutes=1))) == 1


def test_old_noes_alone_propose_nothing_and_a_game_with_a_draw_proposal_reads_its_rows_as_the_log(
    store: GameStore,
) -> None:
    _game(store, "noes", "unanimous", {"France": False, "Italy": False})
    at = T0 + timedelta(minutes=1)
    lapse_stale(store, now=at)
    assert votes.proposals(store, "noes", now=at) == []
    # A yes now proposes a draw of its own; the old noes were the log of votes that no longer stand.
    votes.vote(store, "noes", "England", True, now=at)
    [p] = votes.proposals(store, "noes", now=at)
    assert p.status == "open" and p.ballots == {"England": True}
