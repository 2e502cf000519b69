"""One use case, every door: the ratings from the finished games (:mod:`dippouch.play.ratings`) are the same
called directly, answered by ``GET /api/ratings``, shown on ``/ratings`` and printed by ``dippouch ratings``.

Games are played to their end for real: a draw voted in Winter 1901 after a support and a stab (the records
doors' game, scored under sum of squares), and solos from a board where France holds 18 centres in Fall 1901.
Bots, a practice game and a private game are played beside them and never count.
"""

from __future__ import annotations

import html
import math
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from test_records_doors import FALL, SPRING
from typer.testing import CliRunner

from dippouch.bots.seats import seat_bot
from dippouch.cli import app, register_commands
from dippouch.game import Settings
from dippouch.play.ratings import RatingsCache, compute_standings, leaderboard
from dippouch.play.records import choose_scoring
from dippouch.ranking.ratings import DIVISOR, START
from dippouch.store import GameStore
from dippouch.store.people import create_person, seat_person
from dippouch.store.reliability import reliabilities
from websupport import Site

DOORS = ("play", "api", "page", "cli")


def _seat(store: GameStore, game: str, power: str, person: int, now: datetime) -> None:
    store.assign(game, power, f"{game} {power}", now=now)
    seat_person(store, game, power, person, now=now)


def play_draw(store: GameStore, game: str, people: dict[str, int], now: datetime) -> None:
    """``game`` (standard) played to a draw in Winter 1901 by ``people`` (France, Germany, England), under SoS:
    France 6 centres, Germany 5, England 4."""
    store.create_game(game, "standard", now=now)
    for power, person in people.items():
        _seat(store, game, power, person, now)
    for turn, orders in enumerate((SPRING, FALL), start=1):
        for power, text in orders.items():
            store.submit(game, power, text, now=now + timedelta(hours=turn))
        store.process(game, now=now + timedelta(hours=turn, minutes=30), force=True)
    for power in people:
        store.vote(game, power, True, now=now + timedelta(hours=3))
    assert store.status(game, now=now + timedelta(hours=3)).state == "finished"
    choose_scoring(store, game, "sos", now=now + timedelta(hours=3))


def _solo_board() -> dict[str, Any]:
    """Fall 1901, France holding 18 centres (England's and Germany's, whose units are gone, and neutrals)."""
    from dippouch.catalog import load_variant
    from dippouch.game import position_to_data

    v = load_variant("standard")
    data = position_to_data(v, v.start)
    taken = {"lon", "lvp", "edi", "ber", "kie", "mun", "spa", "por", "bel", "hol", "den", "nwy", "swe", "tun", "gre"}
    centres: dict[str, list[str]] = {"France": sorted(taken)}
    for power, provs in data["supply_centers"].items():
        centres.setdefault(power, []).extend(p for p in provs if p not in taken)
    centres = {p: c for p, c in centres.items() if c}
    units = [u for u in data["units"] if u["power"] not in ("England", "Germany")]
    return {**data, "phase": "Fall 1901 Movement", "supply_centers": centres, "units": units}


def play_solo(
    store: GameStore,
    game: str,
    people: dict[str, int],
    now: datetime,
    *,
    bot: str | None = None,
    settings: Settings | None = None,
) -> None:
    """``game`` won by France in Fall 1901; ``people`` hold their powers, ``bot`` is a bot's seat."""
    store.create_game(game, "standard", now=now, position=_solo_board(), settings=settings)
    for power, person in people.items():
        _seat(store, game, power, person, now)
    if bot is not None:
        seat_bot(store, game, bot, "hold", now=now)
    store.process(game, now=now + timedelta(minutes=30), force=True)
    assert store.status(game, now=now + timedelta(hours=1)).state == "finished"


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
        settings=Settings(practice="tag"),
    )
    play_solo(store, "secret1", {"France": ids["Eve"], "Russia": ids["Cy"]}, now + timedelta(days=3))
    site.web.access.set_visibility("secret1", "private")
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
        places = leaderboard(store, compute_standings(store), variant)
        return {p.person_id: (round(p.rating, 2), p.games) for p in places}
    query = f"?variant={variant}" if variant else ""
    if door == "api":
        r = world.site.browser().get(f"/api/ratings{query}")
        assert r.status_code == 200, r.text
        board = r.json()["by_variant"][0] if variant else r.json()["overall"]
        return {line["person_id"]: (line["rating"], line["games"]) for line in board["lines"]}
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
    # Reliability as each person's page shows it (the games they play now included), read at each request;
    # beside it the share of their rated games finished without civil disorder.
    public = reliabilities(world.site.web.store, [line["person_id"] for line in lines])
    assert {line["person_id"]: line["reliability"] for line in lines} == public
    assert public[world.people["Ann"]] == 100 and public[world.people["Di"]] == 0  # Di sent nothing in solo1
    assert all(line["finished"] == 100.0 for line in lines)
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


def test_the_cached_figures_equal_a_recomputation_after_more_games_finish(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'c.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    ids = [create_person(store, n, now=now) for n in ("Ann", "Bob", "Cy")]
    cache = RatingsCache()
    assert not cache.get(store).ratings.overall  # no finished game: nobody rated
    play_draw(store, "d1", {"France": ids[0], "Germany": ids[1], "England": ids[2]}, now)
    first = cache.get(store)
    assert cache.get(store) is first  # nothing finished since: the same figures, not recomputed
    before = site.browser().get("/api/ratings").json()
    play_solo(store, "s1", {"France": ids[2], "Russia": ids[0]}, now + timedelta(days=1), bot="Italy")
    play_solo(
        store,
        "s2",
        {"France": ids[1], "Russia": ids[2]},
        now + timedelta(days=2),
        settings=Settings(anonymous=True),  # its players are revealed at its end: it counts
    )
    again = cache.get(store)
    fresh = compute_standings(store)
    assert again is not first and again.ratings == fresh.ratings
    assert {p: r.games for p, r in fresh.ratings.overall.items()} == {str(ids[0]): 2, str(ids[1]): 2, str(ids[2]): 3}
    after = site.browser().get("/api/ratings").json()  # the app's own cache moved on too
    assert after != before
    assert {line["person_id"]: line["rating"] for line in after["overall"]["lines"]} == {
        int(p): round(r.rating, 2) for p, r in fresh.ratings.overall.items()
    }
    # A finished game's new scoring system rescores it: the marker holds each game's system.
    choose_scoring(store, "d1", "dss", now=now + timedelta(days=3))
    assert cache.get(store).ratings == compute_standings(store).ratings != fresh.ratings
    # An unlisted game still rates its players, but the hall of fame does not list it (its address is its secret).
    assert {h.game for h in cache.get(store).solos()} == {"s1", "s2"}
    site.web.access.set_visibility("s1", "unlisted")
    unlisted = cache.get(store)
    assert unlisted.ratings == compute_standings(store).ratings
    assert {h.game for h in unlisted.solos()} == {"s2"}
    assert "s1" not in site.browser().get("/ratings").text
