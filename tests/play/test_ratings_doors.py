"""One use case, every door: the stored ratings (:mod:`dippouch.play.ratings`) are the same read directly, answered
by ``GET /api/ratings``, shown on ``/ratings`` and printed by ``dippouch ratings``.

Games are played to their end for real (tests/play/rated_games.py): a draw voted in Winter 1901 after a support
and a stab (the records doors' game, scored under sum of squares), and solos from a board where France holds 18
centres in Fall 1901. Bots, a practice game and a private game are played beside them and never count. The
ratings are taken in by the worker's task, as a running installation's are.
"""

from __future__ import annotations

import html
import math
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rated_games import play_draw, play_solo
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.game import GameSettings
from dippouch.play.ratings import RatingsTask, board
from dippouch.play.ratings_check import check_ratings
from dippouch.play.records import choose_scoring
from dippouch.ranking.ratings import DIVISOR, START
from dippouch.store import GameStore
from dippouch.store.people.persons import create_person
from websupport import Site

DOORS = ("play", "api", "page", "cli")


class World:
    def __init__(self, site: Site, people: dict[str, int], start: datetime) -> None:
        self.site, self.people, self.start = site, people, start


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    site = Site(f"sqlite:///{tmp_path_factory.mktemp('ratings') / 'r.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    ids = {n: create_person(store, n, now=now) for n in ("Ann", "Bob", "Cy", "Di", "Eve")}
    play_draw(store, "draw1", {"France": ids["Ann"], "Germany": ids["Bob"], "England": ids["Cy"]}, now)
    play_solo(store, "solo1", {"France": ids["Bob"], "Russia": ids["Di"]}, now + timedelta(days=1), bot="Italy")
    # Never counted: Eve plays only a practice game and a private one (and wins both).
    play_solo(
        store,
        "practice1",
        {"France": ids["Eve"], "Russia": ids["Ann"]},
        now + timedelta(days=2),
        bot="Italy",
        settings=GameSettings(practice="tag"),
    )
    play_solo(store, "secret1", {"France": ids["Eve"], "Russia": ids["Cy"]}, now + timedelta(days=3))
    site.web.access.set_visibility("secret1", "private")
    RatingsTask()(store, now)
    return World(site, ids, now)


def _expected(people: dict[str, int]) -> dict[int, float]:
    """The ratings worked by hand: the draw first (all at 100: SoS shares 36/77, 25/77, 16/77), then Bob's solo
    over Di (Bob brings his rating from the draw, Di 100)."""
    ann, bob, cy, di = (people[n] for n in ("Ann", "Bob", "Cy", "Di"))
    shares = {ann: 36 / 77, bob: 25 / 77, cy: 16 / 77}
    r = {p: START + 300 / DIVISOR * (s - 1 / 3) for p, s in shares.items()}
    total = r[bob] + START
    r[bob], r[di] = r[bob] + total / DIVISOR * (1 - r[bob] / total), START + total / DIVISOR * (0 - START / total)
    assert math.isclose(sum(r.values()), 4 * START)
    return r


def _cli(world: World, *args: str) -> tuple[int, str]:
    register_commands()
    db = str(world.site.web.store.engine.url)
    result = CliRunner().invoke(app, ["ratings", *args, "--db", db], env={"COLUMNS": "200"})
    return result.exit_code, str(result.output)


def _ratings(world: World, door: str, variant: str | None = None) -> dict[int, tuple[float, int]]:
    """Person id -> (rating to two decimals, rated games) on the overall leaderboard (or ``variant``'s)."""
    store = world.site.web.store
    if door == "play":
        places = board(store, variant).places
        return {p.person_id: (round(p.rating, 2), p.games) for p in places}
    query = f"?variant={variant}" if variant else ""
    if door == "api":
        r = world.site.browser().get(f"/api/ratings{query}")
        assert r.status_code == 200, r.text
        shown = r.json()["by_variant"][0] if variant else r.json()["overall"]
        return {line["person_id"]: (line["rating"], line["games"]) for line in shown["lines"]}
    if door == "page":
        r = world.site.browser().get(f"/ratings{query}")
        assert r.status_code == 200, r.text
        section = r.text.split(f'id="board-{variant or "overall"}"', 1)[1].split("</section>", 1)[0]
        rows = re.findall(r'href="/people/(\d+)">[^<]*</a></td><td>([\d.]+)</td><td>(\d+)</td>', section)
        return {int(p): (float(x), int(n)) for p, x, n in rows}
    code, said = _cli(world, *(["--variant", variant] if variant else []))
    assert code == 0, said
    block = said.split("Hall of fame")[0]
    if variant is None:
        block = block.split("Variant ")[0]
    rows = re.findall(r"│\s*\d+\s*│\s*\w+\s*│\s*(\d+)\s*│\s*([\d.]+)\s*│\s*(\d+)\s*│", block)
    return {int(p): (float(x), int(n)) for p, x, n in rows}


@pytest.mark.parametrize("variant", [None, "standard"])
@pytest.mark.parametrize("door", DOORS)
def test_the_ratings_are_the_same_at_every_door(world: World, door: str, variant: str | None) -> None:
    expected = {p: (round(r, 2), 2 if p == world.people["Bob"] else 1) for p, r in _expected(world.people).items()}
    assert _ratings(world, door, variant) == expected, (door, variant)


@pytest.mark.parametrize("door", DOORS)
def test_bots_practice_and_private_games_never_count(world: World, door: str) -> None:
    got = _ratings(world, door)
    assert world.people["Eve"] not in got  # in no rated game: absent
    # Ann and Cy each played one counted game (the practice and the private one left out).
    assert got[world.people["Ann"]][1] == 1 and got[world.people["Cy"]][1] == 1


def test_the_json_carries_ranks_reliability_and_no_bot(world: World) -> None:
    r = world.site.browser().get("/api/ratings").json()
    lines = r["overall"]["lines"]
    assert [line["rank"] for line in lines] == [1, 2, 3, 4]
    assert [line["name"] for line in lines] == ["Bob", "Ann", "Cy", "Di"]
    # The rating's reliability beside it, stored with it: the share of their rated games finished without civil
    # disorder (nobody left one so). Not their public record (their page's), read from every phase they played.
    assert all(line["finished"] == 100.0 for line in lines) and all("reliability" not in line for line in lines)
    assert r["variants"] == ["standard"] and r["overall"]["games"] == 2 and r["overall"]["people"] == 4
    text = str(r)
    assert "bot:" not in text and "practice1" not in text and "secret1" not in text


def test_the_hall_of_fame_links_the_solo_and_the_best_result(world: World) -> None:
    r = world.site.browser().get("/api/ratings").json()
    assert [(s["game"], s["name"], s["power"], s["share"]) for s in r["solos"]] == [("solo1", "Bob", "France", 100.0)]
    best = r["best"][0]
    assert (best["game"], best["name"], best["power"], best["system"]) == ("draw1", "Ann", "France", "sos")
    assert best["score"] == pytest.approx(30.0) and best["share"] == pytest.approx(round(3600 / 77, 1))
    page = world.site.browser().get("/ratings").text
    fame = page.split('id="hall-of-fame"', 1)[1].split("</section>", 1)[0]
    assert 'href="/games/solo1/records">solo1</a>' in fame and 'href="/games/draw1/records">draw1</a>' in fame
    assert f'href="/people/{world.people["Bob"]}">Bob</a>' in fame
    assert "practice1" not in page and "secret1" not in page


@pytest.mark.parametrize("door", ("api", "page", "cli"))
def test_an_unknown_variant_is_refused_naming_those_rated(world: World, door: str) -> None:
    if door == "cli":
        code, said = _cli(world, "--variant", "nowhere")
        assert code == 2, said
    else:
        r = world.site.browser().get(f"/{'api/' if door == 'api' else ''}ratings?variant=nowhere")
        assert r.status_code == 400, r.text
        said = html.unescape(r.text)
    said = " ".join(said.split())
    assert "no rated games of variant 'nowhere'" in said and "standard" in said, said


def test_a_bad_top_is_refused_with_a_message(world: World) -> None:
    r = world.site.browser().get("/api/ratings?top=0")
    assert r.status_code in (400, 422) and "top" in r.text
    lines = world.site.browser().get("/api/ratings?top=1").json()["overall"]["lines"]
    assert [line["name"] for line in lines] == ["Bob"]


def _figures(answer: dict[str, Any]) -> list[tuple[int, float, int]]:
    return [(line["person_id"], line["rating"], line["games"]) for line in answer["overall"]["lines"]]


def test_the_doors_read_what_is_stored_until_the_worker_takes_new_games_in(tmp_path: Path) -> None:
    """A page reads the stored ratings and computes nothing: a game that just finished shows once the worker's
    task has taken it in, and then the figures equal a recomputation from scratch."""
    site = Site(f"sqlite:///{tmp_path / 'c.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    ids = [create_person(store, n, now=now) for n in ("Ann", "Bob", "Cy")]
    task = RatingsTask()
    play_draw(store, "d1", {"France": ids[0], "Germany": ids[1], "England": ids[2]}, now)
    assert site.browser().get("/api/ratings").json()["overall"]["lines"] == []  # not taken in yet
    task(store, now)
    before = site.browser().get("/api/ratings").json()
    assert [line["person_id"] for line in before["overall"]["lines"]] == ids
    play_solo(store, "s1", {"France": ids[2], "Russia": ids[0]}, now + timedelta(days=1), bot="Italy")
    play_solo(
        store,
        "s2",
        {"France": ids[1], "Russia": ids[2]},
        now + timedelta(days=2),
        settings=GameSettings(anonymous=True),  # its players are revealed at its end: it counts
    )
    # Only the reliability beside each rating moves (it is read at each request, from the games now).
    assert _figures(site.browser().get("/api/ratings").json()) == _figures(before)
    task(store, now)
    after = site.browser().get("/api/ratings").json()
    assert {line["person_id"]: line["games"] for line in after["overall"]["lines"]} == {ids[0]: 2, ids[1]: 2, ids[2]: 3}
    assert check_ratings(store).equal
    # A finished game's new scoring system rescores it.
    choose_scoring(store, "d1", "dss", now=now + timedelta(days=3))
    task(store, now)
    assert check_ratings(store).equal and _figures(site.browser().get("/api/ratings").json()) != _figures(after)
    # An unlisted game still rates its players, but the hall of fame does not list it (its address is its secret).
    assert {h["game"] for h in site.browser().get("/api/ratings").json()["solos"]} == {"s1", "s2"}
    site.web.access.set_visibility("s1", "unlisted")
    task(store, now)
    assert check_ratings(store).equal
    assert {h["game"] for h in site.browser().get("/api/ratings").json()["solos"]} == {"s2"}
    page = site.browser().get("/ratings").text
    # Neither in the page's words nor in any of its addresses; a nonce or token in an attribute may hold "s1" by
    # chance (a random one did), which says nothing of the game.
    words = re.sub(r"<[^>]*>", " ", page)
    addresses = re.findall(r'(?:href|src|action)="([^"]*)"', page)
    assert not re.search(r"\bs1\b", words) and not [a for a in addresses if re.search(r"\bs1\b", a)], page


def test_a_leaderboard_is_read_a_page_at_a_time(world: World) -> None:
    api = world.site.browser().get("/api/ratings?top=2&page=2").json()
    assert api["page"] == 2 and api["by_variant"] == []  # past the first page, the overall board alone
    assert api["overall"]["pages"] == 2 and [line["rank"] for line in api["overall"]["lines"]] == [3, 4]
    assert [line["name"] for line in api["overall"]["lines"]] == ["Cy", "Di"]
    one = world.site.browser().get("/api/ratings?variant=standard&top=3&page=2").json()["by_variant"][0]
    assert [line["name"] for line in one["lines"]] == ["Di"] and one["page"] == 2
    page = world.site.browser().get("/ratings?top=2").text
    assert 'href="/ratings?top=2&amp;page=2" rel="next"' in page and "Page 1 of 2" in page
    code, said = _cli(world, "--top", "2", "--page", "2")
    assert code == 0 and re.search(r"│\s*3\s*│\s*Cy\s*│", said), said
    r = world.site.browser().get("/api/ratings?page=0")
    assert r.status_code in (400, 422) and "page" in r.text
