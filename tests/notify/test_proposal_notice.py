"""A proposal made in a game is told, through the one dispatcher, to the seated players who vote on it (not to
its proposer): what is proposed, by which power as the game's anonymity allows, until when, with a link to the
reader's own page; each person's choices hold (a new event on the notifications page), and it is told once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from dippouch.game import GameSettings
from dippouch.notify.dispatch import dispatch
from dippouch.notify.events import save_preferences
from dippouch.play import votes
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store.notify.stored import deliveries
from dippouch.store.people.persons import create_person, seat_person

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
POWERS = ("France", "England", "Germany")


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    yield s
    s.close()


def _game(store: GameStore, name: str, **settings: object) -> dict[str, int]:
    store_games.create_game(store, name, "standard", now=T0, settings=GameSettings(vote_rule="majority", **settings))  # type: ignore[arg-type]
    people = {}
    for power in POWERS:
        pid = create_person(store, f"{power} {name}", now=T0, email=f"{power.lower()}.{name}@example.org")
        store_games.assign(store, name, power, f"{power} player", now=T0)
        seat_person(store, name, power, pid, now=T0)
        people[power] = pid
    dispatch(store, T0)  # notifications start here (what came before is not news)
    return people


def test_the_voters_are_told_what_is_proposed_by_whom_until_when_once(store: GameStore) -> None:
    people = _game(store, "demo")
    # Germany chose no proposal notices by e-mail: the settings page's new row holds.
    save_preferences(store, people["Germany"], {("proposal", "email"): False}, None)
    at = T0 + timedelta(minutes=5)
    votes.propose(store, "demo", "France", "extend", hours=24, now=at)
    dispatch(store, at + timedelta(minutes=1))
    told = [d for d in deliveries(store) if d.event == "proposal"]
    assert [(d.person_id, d.channel) for d in told] == [(people["England"], "email")]
    [d] = told
    assert d.title == "demo: a proposal to vote on"
    assert d.body.startswith("France proposes an extension of 24 hours in demo. Vote yes or no on your page before ")
    assert "2026" in d.body.split("before ", 1)[1]  # the proposal's end (the phase's deadline), said in full
    assert d.url.endswith("/games/demo/play/England#proposals")
    dispatch(store, at + timedelta(minutes=2))
    assert len([d for d in deliveries(store) if d.event == "proposal"]) == 1


def test_an_anonymous_game_does_not_name_the_proposer_and_a_german_reader_reads_german(store: GameStore) -> None:
    people = _game(store, "anon", anonymous=True, language="de")
    at = T0 + timedelta(minutes=5)
    votes.propose(store, "anon", "England", "pause", hours=48, now=at)
    dispatch(store, at + timedelta(minutes=1))
    told = {d.person_id: d for d in deliveries(store) if d.event == "proposal"}
    assert set(told) == {people["France"], people["Germany"]}
    body = told[people["France"]].body
    assert body.startswith("Ein Spieler schlägt in anon ") and "Pause" in body and "England" not in body, body


def test_who_voted_before_the_notice_is_sent_is_not_told_and_a_withdrawn_proposal_is_told_to_nobody(
    store: GameStore,
) -> None:
    people = _game(store, "quick")
    at = T0 + timedelta(minutes=5)
    made = votes.propose(store, "quick", "France", "extend", hours=24, now=at)
    proposal = votes.proposals(store, "quick", now=at)[0].id
    votes.ballot(store, "quick", proposal, "England", False, now=at + timedelta(seconds=10))
    dispatch(store, at + timedelta(minutes=1))
    told = [d.person_id for d in deliveries(store) if d.event == "proposal"]
    assert told == [people["Germany"]], made
    # A proposal withdrawn before the dispatcher looks leaves nobody anything to vote on: nobody is told.
    votes.propose(store, "quick", "Germany", "pause", hours=24, now=at + timedelta(minutes=2))
    pause = max(p.id for p in votes.proposals(store, "quick", now=at + timedelta(minutes=2)))
    votes.withdraw(store, "quick", pause, "Germany", now=at + timedelta(minutes=2, seconds=5))
    dispatch(store, at + timedelta(minutes=3))
    assert [d.person_id for d in deliveries(store) if d.event == "proposal"] == [people["Germany"]]


def test_old_draw_votes_read_as_the_draw_proposal_are_told_once_to_the_voters_who_had_not_voted(
    store: GameStore,
) -> None:
    """Draw votes stored before a draw was a proposal become the open draw proposal at the workers' scan
    (:func:`dippouch.store.votes.adopt_old_votes`): the powers whose old yes is its first ballot are not told,
    the others are, once, with the link to their page."""
    from dippouch.store.models import VoteRow
    from dippouch.store.rows import game_row
    from dippouch.store.votes import lapse_stale

    people = _game(store, "old")
    with store.session() as s, s.begin():
        s.add(VoteRow(game_id=game_row(s, "old").id, power="France", draw=True, at=T0 - timedelta(days=2)))
    at = T0 + timedelta(minutes=5)
    lapse_stale(store, now=at)
    dispatch(store, at + timedelta(minutes=1))
    told = sorted((d.person_id, d.url.rsplit("/", 1)[-1]) for d in deliveries(store) if d.event == "proposal")
    assert told == sorted([(people["England"], "England#draw"), (people["Germany"], "Germany#draw")])
    dispatch(store, at + timedelta(minutes=2))
    assert len([d for d in deliveries(store) if d.event == "proposal"]) == 2
