"""Tournaments on the web: who may create one and change its games, each refusal (page and JSON), the games
that may not join, and a game made private after it joined; plus the ranking's order and ties.

Who may: create, the installation's coordinator or a person signed in; add a game, whoever runs the tournament
(the installation's coordinator or the person who created it), and only a game they coordinate; remove one,
whoever runs it.
"""

from __future__ import annotations

import html
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch.game import GameSettings
from dippouch.play.tournaments import Key, rank_players
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store.people.persons import create_person
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


class World:
    def __init__(self, site: Site) -> None:
        self.site = site
        store, now = site.web.store, site.clock()
        self.ann = create_person(store, "Ann", now=now)
        self.bob = create_person(store, "Bob", now=now)
        for game in ("g1", "g2", "g3"):
            site.new_game(game)
        site.new_game("w1", "w3k")
        store_games.create_game(store, "practice1", "standard", now=now, settings=GameSettings(practice="tag"))
        site.new_game("secret1")
        site.web.access.set_visibility("secret1", "private")
        # Ann coordinates g2 (a game coordinator's key in her session); Bob coordinates nothing.
        key_id, _ = site.web.access.create_key("coordinator", game="g2", now=now, label="Ann")
        self.ann_browser = self.person(self.ann, [key_id])
        self.bob_browser = self.person(self.bob)
        self.player = site.player("g1", "France", "Flo")  # a player's key: no person behind it

    def person(self, pid: int, keys: list[int] | None = None) -> TestClient:
        c = TestClient(self.site.app, raise_server_exceptions=False)
        c.event_hooks = {"request": [], "response": [check_api_answer]}
        c.cookies.set(
            "dp_session", self.site.web.access.start_session(keys or [], now=self.site.clock(), person_id=pid)
        )
        c.get("/")
        return c

    def create(self, c: TestClient, name: str, system: str = "sos", variant: str = "") -> Any:
        return self.site.post_form(c, "/tournaments", {"name": name, "system": system, "variant": variant})

    def add(self, c: TestClient, tournament: str, game: str, round_: str = "") -> Any:
        return self.site.post_form(c, f"/tournaments/{tournament}/games", {"game": game, "round": round_})


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(Site(f"sqlite:///{tmp_path / 'web.db'}", limits={}))


def _error(r: Any) -> str:
    """A refusal's words: the JSON's error, or the page's text unescaped."""
    if r.headers.get("content-type", "").startswith("application/json"):
        return str(r.json()["error"])
    return html.unescape(str(r.text))


def test_a_person_creates_and_runs_a_tournament_with_the_games_they_coordinate(world: World) -> None:
    r = world.create(world.ann_browser, "Ann Cup", variant="standard")
    assert r.status_code == 303 and r.headers["location"] == "/tournaments/Ann%20Cup", r.text
    page = world.ann_browser.get("/tournaments/Ann%20Cup")
    assert "Tournament Ann Cup created" in page.text and 'id="add-game"' in page.text
    assert world.add(world.ann_browser, "Ann%20Cup", "g2", "1").status_code == 303
    # Every one else reads it, without the forms.
    other = world.site.browser().get("/tournaments/Ann%20Cup")
    assert other.status_code == 200 and 'id="add-game"' not in other.text and 'href="/games/g2"' in other.text
    assert 'id="tournament-new"' not in world.site.browser().get("/tournaments").text
    assert 'id="tournament-new"' in world.bob_browser.get("/tournaments").text
    # The installation's coordinator runs every tournament; its key adds any game.
    assert world.add(world.site.coordinator, "Ann%20Cup", "g1").status_code == 303
    got = world.site.browser().get("/api/tournaments/Ann%20Cup").json()
    assert [(g["game"], g["round"]) for g in got["games"]] == [("g2", 1), ("g1", None)]
    # Ann takes out a game she did not add: she runs the tournament.
    r = world.site.post_form(world.ann_browser, "/tournaments/Ann%20Cup/games/remove", {"game": "g1"})
    assert r.status_code == 303
    assert [g["game"] for g in world.site.browser().get("/api/tournaments/Ann%20Cup").json()["games"]] == ["g2"]


def test_the_json_calls_create_add_and_remove(world: World) -> None:
    c = world.site.coordinator
    r = world.site.api(c, "/api/tournaments", {"name": "Api Cup", "system": "DSS"})
    assert r.status_code == 200, r.text
    assert r.json()["system"]["name"] == "dss" and r.json()["games"] == []
    r = world.site.api(c, "/api/tournaments/Api%20Cup/games", {"game": "g3", "round": 2})
    assert r.status_code == 200 and r.json()["games"][0]["round"] == 2, r.text
    r = c.delete("/api/tournaments/Api%20Cup/games/g3", headers={"X-CSRF-Token": world.site.csrf(c)})
    assert r.status_code == 200 and r.json()["games"] == [], r.text


def test_who_may_not_create(world: World) -> None:
    anonymous = world.site.browser()
    r = world.create(anonymous, "Nobody's")
    assert r.status_code == 401 and "sign in first" in r.text
    r = world.site.api(anonymous, "/api/tournaments", {"name": "Nobody's", "system": "sos"})
    assert r.status_code == 401
    # A player's key is a key of one game, not a person: refused.
    r = world.create(world.player, "Flo's")
    assert r.status_code == 403 and "a key of one game is not enough" in r.text
    r = world.site.api(world.player, "/api/tournaments", {"name": "Flo's", "system": "sos"})
    assert r.status_code == 403 and "a key of one game is not enough" in _error(r)
    # A browser signed in must send the page's token.
    r = world.ann_browser.post("/api/tournaments", json={"name": "No token", "system": "sos"})
    assert r.status_code == 403
    assert world.site.browser().get("/api/tournaments").json()["tournaments"] == []


def test_who_may_not_add_or_remove(world: World) -> None:
    assert world.create(world.ann_browser, "Ann Cup").status_code == 303
    # Bob runs no tournament of Ann's, and Ann coordinates no g1.
    r = world.add(world.bob_browser, "Ann%20Cup", "g2")
    assert r.status_code == 403 and "only the person who created tournament" in r.text
    r = world.add(world.ann_browser, "Ann%20Cup", "g1")
    assert r.status_code == 403 and "only games you coordinate" in r.text
    r = world.site.api(world.ann_browser, "/api/tournaments/Ann%20Cup/games", {"game": "g1"})
    assert r.status_code == 403
    r = world.add(world.site.browser(), "Ann%20Cup", "g2")
    assert r.status_code == 401
    r = world.add(world.player, "Ann%20Cup", "g1")
    assert r.status_code == 403
    assert world.add(world.ann_browser, "Ann%20Cup", "g2").status_code == 303
    r = world.site.post_form(world.bob_browser, "/tournaments/Ann%20Cup/games/remove", {"game": "g2"})
    assert r.status_code == 403
    r = world.bob_browser.delete(
        "/api/tournaments/Ann%20Cup/games/g2", headers={"X-CSRF-Token": world.site.csrf(world.bob_browser)}
    )
    assert r.status_code == 403
    assert [g["game"] for g in world.site.browser().get("/api/tournaments/Ann%20Cup").json()["games"]] == ["g2"]


@pytest.mark.parametrize(
    ("game", "round_", "status", "said"),
    [
        ("practice1", "", 400, "practice games never count"),
        ("secret1", "", 400, "is private"),
        ("w1", "", 400, "plays w3k; tournament 'Cup' is for standard games only"),
        ("nogame", "", 404, "no game 'nogame'"),
        ("g1", "0", 400, "a round is a whole number from 1 to 99"),
        ("g1", "first", 400, "a round is a whole number from 1 to 99"),
    ],
)
def test_games_that_may_not_join(world: World, game: str, round_: str, status: int, said: str) -> None:
    c = world.site.coordinator
    assert world.create(c, "Cup", variant="standard").status_code == 303
    r = world.add(c, "Cup", game, round_)
    assert r.status_code == status and said in _error(r), r.text
    body: dict[str, Any] = {"game": game}
    if round_:
        body["round"] = int(round_) if round_.isdigit() else round_
    r = world.site.api(c, "/api/tournaments/Cup/games", body)
    if round_ == "first":
        assert r.status_code == 422  # not a number: refused by the call's shape
    else:
        assert r.status_code == status and said in _error(r), r.text
    assert world.site.browser().get("/api/tournaments/Cup").json()["games"] == []


def test_a_private_game_is_not_found_by_whom_it_is_hidden_from(world: World) -> None:
    assert world.create(world.ann_browser, "Ann Cup").status_code == 303
    r = world.add(world.ann_browser, "Ann%20Cup", "secret1")
    assert r.status_code == 404 and "no game 'secret1' here" in _error(r)


def test_bad_creations_are_refused_in_words(world: World) -> None:
    c = world.site.coordinator
    assert world.create(c, "Cup").status_code == 303
    for fields, said in (
        ({"name": "Cup"}, "already exists"),
        ({"name": "Other", "system": "sose"}, "did you mean 'sos'"),
        ({"name": "Other", "system": ""}, "needs a scoring system"),
        ({"name": "a/b"}, "cannot contain '/'"),
        ({"name": "Other", "variant": "nosuch"}, "variant"),
    ):
        r = world.create(c, **fields)
        assert r.status_code == 400 and said in _error(r), (fields, r.text)
    r = world.site.api(c, "/api/tournaments", {"name": "Other", "system": "sose"})
    assert r.status_code == 400 and "did you mean 'sos'" in _error(r)


def test_an_unknown_tournament_is_not_found(world: World) -> None:
    assert world.site.browser().get("/tournaments/Nope").status_code == 404
    r = world.site.browser().get("/api/tournaments/Nope")
    assert r.status_code == 404 and "no tournament 'Nope'" in _error(r)
    assert world.add(world.site.coordinator, "Nope", "g1").status_code == 404


def test_a_game_made_private_after_it_joined_is_left_out_unnamed(world: World) -> None:
    c = world.site.coordinator
    assert world.create(c, "Cup").status_code == 303
    for game in ("g1", "g3"):
        assert world.add(c, "Cup", game).status_code == 303
    world.site.web.access.set_visibility("g3", "private")
    got = world.site.browser().get("/api/tournaments/Cup").json()
    assert [g["game"] for g in got["games"]] == ["g1"] and got["hidden"] == 1
    page = world.site.browser().get("/tournaments/Cup").text
    assert "/games/g3" not in page and ">g3<" not in page and "1 private game is left out." in page


def test_the_ranking_breaks_ties_by_the_best_game_then_shares_the_rank() -> None:
    scores: dict[Key, list[float]] = {
        ("person", 1): [10.0, 10.0],
        ("person", 2): [15.0, 5.0],  # the same total, a better best game: ahead
        ("name", "Zed"): [20.0],
        ("name", "Al"): [1 / 3, 1 / 3, 1 / 3 + 19],  # 20 in sums that differ in their last bits: still a tie
        ("person", 3): [19.0 + 1 / 3, 1 / 3, 1 / 3],
    }
    names: dict[Key, str | None] = {
        ("person", 1): "Bea",
        ("person", 2): "Cy",
        ("name", "Zed"): "Zed",
        ("name", "Al"): "Al",
        ("person", 3): None,
    }
    got = [(s.rank, s.name, s.games) for s in rank_players(scores, names)]
    # Zed's best game (20) beats Al's and the former player's (19.33); those two share the rank, the one
    # without a name listed first.
    assert got == [(1, "Zed", 1), (2, None, 3), (2, "Al", 3), (4, "Cy", 2), (5, "Bea", 2)]


def test_why_a_game_is_not_counted_is_said_in_the_page_s_language(tmp_path: Path) -> None:
    """A finished game no system can score (1897 with nobody left) is listed unscored with why, and a game that
    no longer exists says so: in German on a German page (both were English), in English to the JSON API."""
    from dippouch.store.tournaments.stored import add_game, create_tournament

    site = Site(f"sqlite:///{tmp_path / 't.db'}", limits={})
    store, now = site.web.store, site.clock()
    store_games.create_game(store, "empty", "1897", now=now)
    store_processing.process(store, "empty", now=now, force=True)
    create_tournament(store, "Cup", system="dss", variant=None, creator_id=None, now=now)
    add_game(store, "Cup", "empty", round_number=None, now=now)
    games = sa.table("tournaments", sa.column("name", sa.String()), sa.column("games", sa.JSON()))
    with store.engine.begin() as conn:
        listed = conn.execute(sa.select(games.c.games).where(games.c.name == "Cup")).scalar_one()
        rows = json.loads(listed) if isinstance(listed, str) else listed
        conn.execute(games.update().where(games.c.name == "Cup").values(games=[*rows, {"game": "gone"}]))
    notes = {g["game"]: g["note"] for g in site.browser().get("/api/tournaments/Cup").json()["games"]}
    assert notes == {
        "empty": "game 'empty' cannot be scored under dss: nobody survived to share the game",
        "gone": "the game no longer exists",
    }
    page = html.unescape(site.browser().get("/tournaments/Cup", headers={"Accept-Language": "de"}).text)
    assert "niemand hat überlebt, um die Partie zu teilen" in page and "die Partie gibt es nicht mehr" in page, page
    assert "nobody survived" not in page and "no longer exists" not in page
