"""One use case, every door: a draw vote cast on the player's page, through the JSON API or with ``dippouch
vote`` is the same vote (:func:`dippouch.play.votes.vote`): the same row stored, the same ending when it is the
last yes, and the same refusal, word for word, when the game allows no draw."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.play.votes import Voted
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store import votes as store_votes
from websupport import Site

DOORS = ("web", "api", "cli")
OTHERS = ("Austria", "England", "Germany", "Italy", "Russia", "Turkey")


def _site(tmp_path: Path, **form: str) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo", **form)
    for power in ("France", *OTHERS):
        store_games.assign(s.web.store, "demo", power, f"{power} player", now=s.clock())
    return s


def _vote(site: Site, door: str, tmp_path: Path) -> str:
    """France votes yes through ``door``; the text the door answered (a refusal's included)."""
    if door == "cli":
        register_commands()
        args = ["vote", "demo", "france", "--draw", "--db", f"sqlite:///{tmp_path / 'g.db'}"]
        result = CliRunner().invoke(app, [*args, "--now", site.clock().isoformat()])
        return str(result.output)
    _, key = site.web.access.create_key("player", game="demo", power="France", label="F", now=site.clock())
    france = site.browser(key)
    if door == "api":
        return str(site.api(france, "/api/games/demo/powers/France/vote", {"draw": True}).text)
    r = site.post_form(france, "/games/demo/play/France/vote", {"draw": "1"})
    if r.status_code == 303:
        return str(france.get(r.headers["location"]).text)
    return html.unescape(str(r.text))


@pytest.mark.parametrize("door", DOORS)
def test_the_last_yes_ends_the_game_in_a_draw_whichever_door_it_comes_through(door: str, tmp_path: Path) -> None:
    site = _site(tmp_path)
    store: GameStore = site.web.store
    for power in OTHERS:
        store_votes.vote(store, "demo", power, True, now=site.clock())
    said = _vote(site, door, tmp_path)
    st = store_status.status(store, "demo", now=site.clock())
    assert st.state == "finished" and st.ending is not None, (door, said)
    assert st.ending.kind == "draw" and sorted(st.ending.powers) == sorted(("France", *OTHERS)), door
    # The vote is stored under the power's own name, whatever the door was given ("france" on the command line).
    assert [(p, yes) for p, yes, _ in store_votes.vote_history(store, "demo")][-1] == ("France", True), door
    assert st.ending.text.split(":")[0] in html.unescape(said), (door, said)


@pytest.mark.parametrize("door", DOORS)
def test_a_vote_in_a_game_without_draws_is_refused_in_the_same_words_at_every_door(door: str, tmp_path: Path) -> None:
    site = _site(tmp_path, draws="off")
    said = html.unescape(_vote(site, door, tmp_path))
    assert "draws are not allowed in game 'demo'" in said, (door, said)
    assert store_votes.vote_history(site.web.store, "demo") == [], door


def test_the_result_says_what_every_door_tells_the_voter(tmp_path: Path) -> None:
    from dippouch.play.votes import vote

    site = _site(tmp_path)
    got = vote(site.web.store, "demo", "FRANCE", True, now=site.clock())
    assert got == Voted("France", True, None)
    assert got.text == "France votes for a draw."
