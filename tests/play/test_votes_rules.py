"""The table's proposals (play/votes.py): the game's vote rule in its three forms, a proposal lapsing at its
phase's deadline, a concession and a cancellation ending the game with the right result, draws of some powers as
the scoring system allows, what passing a pause or an extension does to the clock, and the player-run game's own
kinds refused in a game a coordinator runs. On the real store (SQLite; PostgreSQL where the suite has one)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dippouch.game import GameError, GameSettings
from dippouch.play import votes
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store import sealing as store_sealing
from dippouch.store import status as store_status
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.rows import game_row
from websupport import Site

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _site(db_url: str, rule: str = "unanimous", **form: str) -> Site:
    site = Site(db_url, limits={})
    site.new_game("demo", vote_rule=rule, **form)
    for power in POWERS:
        store_games.assign(site.web.store, "demo", power, f"{power} player", now=site.clock())
    return site


def _all_but(site: Site, proposal: int, voters: tuple[str, ...], yes: bool = True) -> votes.Decided:
    got = None
    for p in voters:
        got = votes.ballot(site.web.store, "demo", proposal, p, yes, now=site.clock())
    assert got is not None
    return got


def test_a_unanimous_rule_passes_on_the_last_yes_and_is_refused_by_one_no(db_url: str) -> None:
    site = _site(db_url)
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "extend", hours=24, now=site.clock())
    assert d.proposal.status == "open" and d.proposal.yes == 1 and d.proposal.needed == 7
    before = store_status.status(store, "demo", now=site.clock()).deadline
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia"))
    assert d.proposal.status == "open", d.said
    d = votes.ballot(store, "demo", d.proposal.id, "Turkey", True, now=site.clock())
    assert d.proposal.status == "passed", d.said
    after = store_status.status(store, "demo", now=site.clock()).deadline
    assert before is not None and after == before + timedelta(hours=24)
    # A second proposal refused by one no: nothing done.
    d = votes.propose(store, "demo", "France", "extend", hours=5, now=site.clock())
    d = votes.ballot(store, "demo", d.proposal.id, "England", False, now=site.clock())
    assert d.proposal.status == "refused"
    assert store_status.status(store, "demo", now=site.clock()).deadline == after
    assert "was refused" in d.said


def test_a_majority_passes_with_four_of_seven(db_url: str) -> None:
    site = _site(db_url, "majority")
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "pause", hours=48, now=site.clock())
    assert d.proposal.needed == 4
    d = votes.ballot(store, "demo", d.proposal.id, "England", False, now=site.clock())
    d = _all_but(site, d.proposal.id, ("Italy", "Russia"))
    assert d.proposal.status == "open"
    d = votes.ballot(store, "demo", d.proposal.id, "Germany", True, now=site.clock())
    assert d.proposal.status == "passed", d.said
    assert store_status.status(store, "demo", now=site.clock()).state == "paused"
    # The pause's time up: the deadline workers' scan starts the game again (reading it changes nothing).
    from dippouch.play.processing import process_due

    site.clock.advance(hours=49)
    votes.proposals(store, "demo", now=site.clock())
    assert store_status.status(store, "demo", now=site.clock()).state == "paused"
    process_due(store, now=site.clock())
    assert store_status.status(store, "demo", now=site.clock()).state != "paused"


def test_a_voted_pause_ends_by_itself_when_nobody_reads_the_game(db_url: str) -> None:
    """The deadline workers end a voted pause once its time is up (it ended only when someone next read the
    game's proposals)."""
    from dippouch.play.processing import process_due

    site = _site(db_url, "majority")
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "pause", hours=2, now=site.clock())
    d = _all_but(site, d.proposal.id, ("Italy", "Russia", "Turkey"))
    assert d.proposal.status == "passed", d.said
    assert store_status.status(store, "demo", now=site.clock()).state == "paused"
    process_due(store, now=site.clock() + timedelta(hours=1))
    assert store_status.status(store, "demo", now=site.clock()).state == "paused"  # not yet
    process_due(store, now=site.clock() + timedelta(hours=2, minutes=1))
    assert store_status.status(store, "demo", now=site.clock()).state != "paused"
    (p,) = [p for p in votes.proposals(store, "demo", now=site.clock()) if p.id == d.proposal.id]
    assert p.outcome is not None and p.outcome.get("resumed")


def test_a_majority_is_refused_once_it_cannot_be_reached(db_url: str) -> None:
    site = _site(db_url, "majority")
    d = votes.propose(site.web.store, "demo", "France", "cancel", now=site.clock())
    d = _all_but(site, d.proposal.id, ("England", "Italy", "Russia"), yes=False)
    assert d.proposal.status == "open"  # 1 yes, 3 no, 3 to vote: 4 still possible
    d = votes.ballot(site.web.store, "demo", d.proposal.id, "Turkey", False, now=site.clock())
    assert d.proposal.status == "refused"


def test_of_the_players_not_concerned_the_power_conceded_to_has_no_vote(db_url: str) -> None:
    site = _site(db_url, "unconcerned")
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "concede", to="turkey", now=site.clock())
    assert d.proposal.values["power"] == "Turkey" and "Turkey" not in d.proposal.voters
    with pytest.raises(GameError, match="Turkey has no vote on proposal"):
        votes.ballot(store, "demo", d.proposal.id, "Turkey", False, now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia"))
    assert d.proposal.status == "passed" and d.ending is not None
    st = store_status.status(store, "demo", now=site.clock())
    assert st.state == "finished" and st.ending is not None
    assert st.ending.kind == "victory" and st.ending.powers == ("Turkey",)
    assert "THE GAME IS OVER" in d.text
    # The ending is a message value: English as before, German where a German reader reads it.
    assert st.ending.text == "Turkey wins: the other powers conceded the game by vote."
    assert (
        say(st.ending.message, "de") == "Turkey gewinnt: die anderen Mächte haben die Partie per Abstimmung aufgegeben."
    )


def test_unanimous_counts_the_power_conceded_to(db_url: str) -> None:
    site = _site(db_url)
    d = votes.propose(site.web.store, "demo", "France", "concede", to="Turkey", now=site.clock())
    assert "Turkey" in d.proposal.voters
    d = votes.ballot(site.web.store, "demo", d.proposal.id, "Turkey", False, now=site.clock())
    assert d.proposal.status == "refused"


def test_a_cancellation_ends_the_game_without_a_result(db_url: str) -> None:
    site = _site(db_url)
    d = votes.propose(site.web.store, "demo", "France", "cancel", now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    st = store_status.status(site.web.store, "demo", now=site.clock())
    assert st.state == "finished" and st.ending is not None and st.ending.kind == "cancelled", d.said
    assert (
        say(st.ending.message, "fr") == "La partie a été annulée par le vote de ses joueurs : elle n'a pas de résultat."
    )


def test_a_proposal_lapses_at_its_phase_deadline(db_url: str) -> None:
    site = _site(db_url)
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "extend", hours=2, now=site.clock())
    deadline = store_status.status(store, "demo", now=site.clock()).deadline
    assert deadline is not None and d.proposal.expires_at == deadline
    site.clock.advance(seconds=(deadline - site.clock()).total_seconds() + 1)
    with pytest.raises(GameError, match="decided already \\(expired\\)"):
        votes.ballot(store, "demo", d.proposal.id, "England", True, now=site.clock())
    assert [p.status for p in votes.proposals(store, "demo", now=site.clock())] == ["expired"]


def _scored(db_url: str, system: str | None) -> Site:
    return _site(db_url, **({"scoring": system} if system else {}))


@pytest.mark.parametrize("system", ["carnage", "sos", "centres", "opentribute"])
def test_a_draw_of_some_is_refused_where_the_scoring_system_scores_a_draw_whoever_it_names(
    db_url: str, system: str
) -> None:
    site = _scored(db_url, system)
    with pytest.raises(GameError, match="scores a draw the same whoever it names"):
        votes.propose(site.web.store, "demo", "France", "draw", powers=["France", "Italy"], now=site.clock())
    # A draw of every survivor is the draw every system scores.
    d = votes.propose(site.web.store, "demo", "France", "draw", now=site.clock())
    assert d.proposal.status == "open" and "powers" not in d.proposal.values


@pytest.mark.parametrize("system", [None, "dss", "tribute"])
def test_a_draw_of_some_passes_where_the_system_scores_who_it_names(db_url: str, system: str | None) -> None:
    site = _scored(db_url, system)
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "draw", powers=["italy", "France"], now=site.clock())
    assert d.proposal.values["powers"] == ["France", "Italy"]
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    st = store_status.status(store, "demo", now=site.clock())
    assert st.ending is not None and st.ending.kind == "draw" and st.ending.powers == ("France", "Italy")


def test_a_draw_of_one_or_of_an_unknown_power_is_refused_with_its_reason(db_url: str) -> None:
    site = _site(db_url)
    with pytest.raises(GameError, match="two powers or more"):
        votes.propose(site.web.store, "demo", "France", "draw", powers=["France", "france"], now=site.clock())
    with pytest.raises(GameError, match="no power"):
        votes.propose(site.web.store, "demo", "France", "draw", powers=["France", "Narnia"], now=site.clock())
    with pytest.raises(GameError, match="from 1 to 336 hours"):
        votes.propose(site.web.store, "demo", "France", "pause", hours=1000, now=site.clock())


def test_a_proposal_open_already_is_not_opened_twice_and_only_its_proposer_withdraws_it(db_url: str) -> None:
    site = _site(db_url)
    store: GameStore = site.web.store
    d = votes.propose(store, "demo", "France", "cancel", now=site.clock())
    with pytest.raises(GameError, match="is open already"):
        votes.propose(store, "demo", "England", "cancel", now=site.clock())
    with pytest.raises(GameError, match="only France, who proposed it"):
        votes.withdraw(store, "demo", d.proposal.id, "England", now=site.clock())
    assert votes.withdraw(store, "demo", d.proposal.id, "France", now=site.clock()).proposal.status == "withdrawn"


@pytest.mark.parametrize("kind", ["process", "rollback", "replace", "unseal"])
def test_a_player_run_games_kinds_are_refused_where_a_coordinator_runs_the_game(db_url: str, kind: str) -> None:
    site = _site(db_url)
    with pytest.raises(GameError, match="only in a game its players run"):
        votes.propose(
            site.web.store, "demo", "France", kind, to="England", player="Newcomer", phase="x", now=site.clock()
        )


def player_run(site: Site) -> int:
    """Make the game one its players run: its creator (a person) plays France. Returns the person."""
    store = site.web.store
    pid = create_person(store, "Creator", now=site.clock(), email="creator@example.org")
    store_openings.open_game(store, "demo", now=site.clock(), creator_id=pid)
    seat_person(store, "demo", "France", pid, now=site.clock())
    return pid


def test_in_a_player_run_game_the_table_processes_now_and_replaces_a_player(db_url: str) -> None:
    site = _site(db_url)
    store: GameStore = site.web.store
    player_run(site)
    d = votes.propose(store, "demo", "France", "replace", to="England", player="Newcomer", now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    assert d.proposal.status == "passed", d.said
    assert {p: now for p, now, _ in store_games.players(store, "demo")}["England"] == "Newcomer"
    phase = store_status.status(store, "demo", now=site.clock()).phase
    d = votes.propose(store, "demo", "France", "process", now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    assert d.proposal.status == "passed", d.said
    assert store_status.status(store, "demo", now=site.clock()).phase != phase
    d = votes.propose(store, "demo", "France", "unseal", now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    assert d.proposal.status == "passed", d.said
    assert [u for u in store_sealing.unsealings(store, "demo") if "vote" in str(u)], store_sealing.unsealings(
        store, "demo"
    )
    d = votes.propose(store, "demo", "France", "rollback", phase="Spring 1901 Movement", now=site.clock())
    d = _all_but(site, d.proposal.id, ("Austria", "England", "Germany", "Italy", "Russia", "Turkey"))
    assert d.proposal.status == "passed", d.said
    assert store_status.status(store, "demo", now=site.clock()).phase == phase


def test_the_vote_rule_is_a_setting_kept_with_the_game(db_url: str) -> None:
    site = _site(db_url, "majority")
    with site.web.store.session() as s:
        assert GameSettings.from_data(game_row(s, "demo").settings).vote_rule == "majority"
    with pytest.raises(GameError, match="no such vote rule"):
        GameSettings(vote_rule="dictator")


def test_the_draw_box_and_the_game_page_count_a_majoritys_yes_votes(db_url: str) -> None:
    site = Site(db_url, limits={})
    site.new_game("demo", vote_rule="majority")
    france = site.player("demo", "France", "Fay")
    for power in POWERS:
        if power != "France":
            store_games.assign(site.web.store, "demo", power, f"{power} player", now=site.clock())
    votes.vote(site.web.store, "demo", "France", True, now=site.clock())
    votes.vote(site.web.store, "demo", "England", True, now=site.clock())
    # Two yes of seven: two more pass it (four of seven), not the five who have not said yes.
    page = france.get("/games/demo/play/France").text
    assert "A draw needs a yes from more than half of the surviving powers not in civil disorder (7)." in page
    assert "2 more yes votes needed." in page
    game = site.browser().get("/games/demo").text
    assert "Draw proposed: 2 more yes votes needed (more than half of the voting powers decide)." in game
    de = france.get("/games/demo/play/France", headers={"Accept-Language": "de"}).text
    assert "mehr als der Hälfte der überlebenden Mächte" in de and "Noch 2 Ja-Stimmen nötig." in de


def test_why_no_draw_is_possible_is_said_in_the_readers_language(db_url: str) -> None:
    site = Site(db_url, limits={})
    store_games.create_game(site.web.store, "nodraw", "standard", now=site.clock(), settings=GameSettings(draws=False))
    france = site.player("nodraw", "France", "Fay")
    page = france.get("/games/nodraw/play/France").text
    assert "No draw is possible now: this game does not allow draws" in page
    de = france.get("/games/nodraw/play/France", headers={"Accept-Language": "de"}).text
    assert "diese Partie erlaubt kein Remis" in de
    assert site.browser().get("/api/games/nodraw").json()["draw"]["why_not"] == "this game does not allow draws"
