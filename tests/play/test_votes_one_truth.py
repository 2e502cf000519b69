"""Issue 56's loose ends in the play layer: one test of a game its players run (the clock's refusals and the
proposals' kinds ask the same one), proposals read without a write (an expired one shown lapsed by computation,
lapsed for good where work is done anyway: the due processing, a ballot, a proposal). On the real store (SQLite;
PostgreSQL where the suite has one)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dippouch.game import GameError
from dippouch.play import votes
from dippouch.play.fairness import player_run
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store import status as store_status
from dippouch.store.people.accounts import forget_person
from dippouch.store.people.persons import create_person, seat_person
from websupport import Site

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _site(db_url: str, rule: str = "unanimous") -> Site:
    site = Site(db_url, limits={})
    site.new_game("demo", vote_rule=rule)
    for power in POWERS:
        store_games.assign(site.web.store, "demo", power, f"{power} player", now=site.clock())
    return site


def _creator_plays(site: Site) -> int:
    store = site.web.store
    pid = create_person(store, "Creator", now=site.clock(), email="creator@example.org")
    store_openings.open_game(store, "demo", now=site.clock(), creator_id=pid)
    seat_person(store, "demo", "France", pid, now=site.clock())
    return pid


def test_a_creator_who_deleted_their_account_runs_the_game_for_nobody_at_any_door(db_url: str) -> None:
    """The clock's refusals and the proposals' kinds read one rule: once the creator's account is deleted (their
    seat kept under a name only) the game is no longer player-run for either (the store's own copy of the rule
    still let the table vote to process while the clock said a coordinator ran it)."""
    site = _site(db_url)
    store: GameStore = site.web.store
    pid = _creator_plays(site)
    assert player_run(store, "demo")
    votes.propose(store, "demo", "France", "process", now=site.clock())  # the table's kind while she plays
    forget_person(store, pid, now=site.clock())
    assert not player_run(store, "demo")
    with pytest.raises(GameError, match="only in a game its players run"):
        votes.propose(store, "demo", "England", "unseal", now=site.clock())
    assert not player_run(store, "no-such-game")


def test_viewing_an_expired_proposal_writes_nothing_and_the_workers_mark_it(db_url: str) -> None:
    """The player's page (and the API's view) shows a proposal past its phase's deadline as expired by reading
    alone: no statement that writes, no write lock (SQLite's BEGIN IMMEDIATE); the deadline workers' scan
    marks it expired in the record, and so does the next ballot."""
    import sqlalchemy as sa

    from dippouch.play.processing import process_due
    from dippouch.store.mail.games import events_since, game_id

    site = Site(db_url, limits={})
    site.new_game("demo")
    france = site.player("demo", "France", "Fay")
    store: GameStore = site.web.store
    for power in POWERS:
        if power != "France":
            store_games.assign(store, "demo", power, f"{power} player", now=site.clock())
    d = votes.propose(store, "demo", "France", "extend", hours=24, now=site.clock())
    deadline = store_status.status(store, "demo", now=site.clock()).deadline
    assert deadline is not None
    site.clock.advance(seconds=(deadline - site.clock()).total_seconds() + 60)
    seen: list[tuple[bool, str]] = []
    writer = site.web.store.engine

    def _seen(conn: sa.Connection, _cursor: object, statement: str, *_: object) -> None:
        seen.append((conn.engine is writer, " ".join(statement.split()).upper()))

    engines = {site.web.store.engine, site.web.read.engine}
    for engine in engines:
        sa.event.listen(engine, "before_cursor_execute", _seen)
    try:
        page = france.get("/games/demo/play/France")
        api = france.get("/api/games/demo/powers/France")
    finally:
        for engine in engines:
            sa.event.remove(engine, "before_cursor_execute", _seen)
    assert page.status_code == 200 and api.status_code == 200, (page.status_code, api.status_code)
    assert "expired" in page.text
    touched = [q for _, q in seen if "PROPOSALS" in q or "INTO EVENTS" in q]
    assert any(q.startswith("SELECT") for q in touched), seen  # the page did read them
    assert not [q for q in touched if not q.startswith("SELECT") or "FOR UPDATE" in q], touched
    if site.web.read.engine is not writer:
        # SQLite: the page reads them where pages read, not under the writer's BEGIN IMMEDIATE.
        assert not [q for on_writer, q in seen if on_writer and "FROM PROPOSALS" in q], seen
    shown = votes.proposals(store, "demo", now=site.clock())
    assert [p.status for p in shown if p.id == d.proposal.id] == ["expired"]
    with store.session() as s:
        from dippouch.store.models_votes import ProposalRow

        assert s.get(ProposalRow, d.proposal.id).status == "open"  # type: ignore[union-attr]
    # The workers' scan marks it (their scan runs before the phase's processing, as every few minutes).
    process_due(store, now=site.clock())
    with store.session() as s:
        assert s.get(ProposalRow, d.proposal.id).status == "expired"  # type: ignore[union-attr]
    logged = events_since(store, game_id(store, "demo"), site.clock() - timedelta(days=30), ["proposal_decided"])
    assert [detail.get("status") for _, _, detail in logged] == ["expired"]


def test_vote_draw_and_the_draw_proposal_are_one_tally_under_the_games_rule(db_url: str) -> None:
    """ "vote draw" (the page's button, the API, the command line, DAIDE's DRW: play.votes.vote over the store's
    vote) is a ballot on the draw proposal: a yes opens it, the others' ballots by number count in the same
    tally, the status shows it, and the game's rule (here a majority) decides it. They were two tallies: a vote
    row counted against every survivor's yes, and a proposal counted by the rule, which could disagree."""
    site = _site(db_url, "majority")
    store: GameStore = site.web.store
    votes.vote(store, "demo", "France", True, now=site.clock())
    [p] = votes.proposals(store, "demo", now=site.clock())
    assert (p.kind, p.status, p.ballots, p.needed) == ("draw", "open", {"France": True}, 4)
    votes.ballot(store, "demo", p.id, "England", True, now=site.clock())
    votes.vote(store, "demo", "Italy", False, now=site.clock())
    drawn = {s.power for s in store_status.status(store, "demo", now=site.clock()).powers if s.draw_vote}
    assert drawn == {"France", "England"}
    votes.vote(store, "demo", "Germany", True, now=site.clock())
    got = votes.vote(store, "demo", "Russia", True, now=site.clock())
    assert got.ending is not None and got.ending.kind == "draw"
    [p] = votes.proposals(store, "demo", now=site.clock())
    assert p.status == "passed" and sorted(p.ballots.values()) == [False, True, True, True, True]
