"""Issue 56's loose ends in the play layer: one test of a game its players run (the clock's refusals and the
proposals' kinds ask the same one), proposals read without a write (an expired one shown lapsed by computation,
lapsed for good where work is done anyway: the due processing, a ballot, a proposal). On the real store (SQLite;
PostgreSQL where the suite has one)."""

from __future__ import annotations

import pytest

from dippouch.game import GameError
from dippouch.play import votes
from dippouch.play.fairness import player_run
from dippouch.store import GameStore
from dippouch.store import openings as store_openings
from dippouch.store.accounts import forget_person
from dippouch.store.people import create_person, seat_person
from websupport import Site

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _site(db_url: str, rule: str = "unanimous") -> Site:
    site = Site(db_url, limits={})
    site.new_game("demo", vote_rule=rule)
    for power in POWERS:
        site.web.store.assign("demo", power, f"{power} player", now=site.clock())
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
