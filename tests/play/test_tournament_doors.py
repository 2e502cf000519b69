"""One use case, every door: a tournament's standings (:mod:`dippouch.play.tournaments`) are the same called
directly, answered by ``GET /api/tournaments/{name}``, shown on ``/tournaments/{name}`` and printed by
``dippouch tournament standings``; and they are the ones worked by hand under two systems.

Three games are played to their end for real, and a fourth is still in play:

- ``draw1``: the records doors' draw in Winter 1901. Ann France (6 centres), Bob Germany (5), Cy England (4),
  Austria (3) seated by the name "Zed" only; Italy 3, Russia 4, Turkey 3 held by nobody. The draw is shared by
  all seven survivors.
- ``solo1``: Bob wins with France; Di plays Russia (4 centres, scores 0); Italy is a bot.
- ``draw2``: the same draw again with Di France (6), Ann Germany (5), "Zed" England (4).
- ``open1``: Ann's game still in play: listed as in progress, never counted.

Sum of squares (100 × c² / Σc²; Σc² = 9 + 16 + 36 + 25 + 9 + 16 + 9 = 120 in both draws): France 30,
Germany 20.8333, England 13.3333, Austria 7.5; a solo 100, the rest 0.
Draw-size scoring: a draw of seven shares 100, 14.2857 each; a solo 100, the rest 0.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rated_games import play_solo
from rated_games import seat as _seat
from test_records_doors import FALL, SPRING
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.play.tournaments import add_game, new_tournament, standings
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from websupport import Site

DOORS = ("play", "api", "page", "cli")
SOS, DSS = "Club SoS", "Club DSS"
GAMES = ("draw1", "solo1", "draw2", "open1")

DRAW_SOS = {"France": 100 * 36 / 120, "Germany": 100 * 25 / 120, "England": 100 * 16 / 120, "Austria": 100 * 9 / 120}
SEVENTH = 100 / 7


def play_draw(store: GameStore, game: str, seats: dict[str, int | str], now: datetime) -> None:
    """``game`` played to a draw in Winter 1901 (France 6, Germany 5, England 4, Austria 3 ...): each seat by a
    person (an id) or by a name only (a string). The records doors' orders; France, Germany, England vote."""
    store_games.create_game(store, game, "standard", now=now)
    for power, who in seats.items():
        if isinstance(who, int):
            _seat(store, game, power, who, now)
        else:
            store_games.assign(store, game, power, who, now=now)
    for turn, orders in enumerate((SPRING, FALL), start=1):
        for power, text in orders.items():
            store_submissions.submit(store, game, power, text, now=now + timedelta(hours=turn))
        store_processing.process(store, game, now=now + timedelta(hours=turn, minutes=30), force=True)
    for power in ("France", "Germany", "England"):
        store_votes.vote(store, game, power, True, now=now + timedelta(hours=3))
    assert store_status.status(store, game, now=now + timedelta(hours=3)).state == "finished"


class World:
    def __init__(self, site: Site, people: dict[str, int]) -> None:
        self.site, self.people = site, people


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    site = Site(f"sqlite:///{tmp_path_factory.mktemp('tournaments') / 't.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    ids = {n: create_person(store, n, now=now) for n in ("Ann", "Bob", "Cy", "Di")}
    play_draw(
        store, "draw1", {"France": ids["Ann"], "Germany": ids["Bob"], "England": ids["Cy"], "Austria": "Zed"}, now
    )
    play_solo(store, "solo1", {"France": ids["Bob"], "Russia": ids["Di"]}, now + timedelta(days=1), bot="Italy")
    play_draw(store, "draw2", {"France": ids["Di"], "Germany": ids["Ann"], "England": "Zed"}, now + timedelta(days=2))
    store_games.create_game(store, "open1", "standard", now=now + timedelta(days=3))
    _seat(store, "open1", "France", ids["Ann"], now + timedelta(days=3))
    for name, system in ((SOS, "sos"), (DSS, "dss")):
        new_tournament(store, name, system, variant="standard", now=now)
        for i, game in enumerate(GAMES):
            add_game(store, name, game, in_round=str(i // 2 + 1), now=now)
    return World(site, ids)


def _expected(world: World, tournament: str) -> list[tuple[int, str, float, int]]:
    """(rank, name, total to two decimals, games), worked by hand from the module's note."""
    if tournament == SOS:
        lines = [
            ("Bob", DRAW_SOS["Germany"] + 100, 2),
            ("Ann", DRAW_SOS["France"] + DRAW_SOS["Germany"], 2),
            ("Di", 0 + DRAW_SOS["France"], 2),
            ("Zed", DRAW_SOS["Austria"] + DRAW_SOS["England"], 2),
            ("Cy", DRAW_SOS["England"], 1),
        ]
        return [(i + 1, n, round(t, 2), g) for i, (n, t, g) in enumerate(lines)]
    # Draw-size: Ann and Zed tie (two sevenths each, best game a seventh), and so do Cy and Di (one seventh):
    # they share the rank, listed by name.
    return [
        (1, "Bob", round(SEVENTH + 100, 2), 2),
        (2, "Ann", round(2 * SEVENTH, 2), 2),
        (2, "Zed", round(2 * SEVENTH, 2), 2),
        (4, "Cy", round(SEVENTH, 2), 1),
        (4, "Di", round(SEVENTH, 2), 2),
    ]


def _cli(world: World, *args: str) -> tuple[int, str]:
    register_commands()
    db = str(world.site.web.store.engine.url)
    result = CliRunner().invoke(app, ["tournament", *args, "--db", db], env={"COLUMNS": "200"})
    return result.exit_code, str(result.output)


def _standings(world: World, door: str, name: str) -> list[tuple[int, str, float, int]]:
    store = world.site.web.store
    path = "/tournaments/" + name.replace(" ", "%20")
    if door == "play":
        return [(s.rank, s.name or "", round(s.total, 2), s.games) for s in standings(store, name).lines]
    if door == "api":
        r = world.site.browser().get("/api" + path)
        assert r.status_code == 200, r.text
        return [(s["rank"], s["name"], round(s["total"], 2), s["games"]) for s in r.json()["standings"]]
    if door == "page":
        r = world.site.browser().get(path)
        assert r.status_code == 200, r.text
        table = r.text.split('id="standings"', 1)[1].split("</table>", 1)[0]
        rows = re.findall(
            r"<tr><td>(\d+)</td><td>(?:<a[^>]*>)?([^<]+)(?:</a>)?</td><td>([\d.]+)</td><td>(\d+)</td>", table
        )
        return [(int(k), n, float(t), int(g)) for k, n, t, g in rows]
    code, said = _cli(world, "standings", name)
    assert code == 0, said
    rows = re.findall(r"│\s*(\d+)\s*│\s*(\w+)\s*│\s*[\d-]+\s*│\s*([\d.]+)\s*│\s*(\d+)\s*│", said)
    return [(int(k), n, float(t), int(g)) for k, n, t, g in rows]


@pytest.mark.parametrize("tournament", [SOS, DSS])
@pytest.mark.parametrize("door", DOORS)
def test_the_standings_are_the_hand_worked_ones_at_every_door(world: World, door: str, tournament: str) -> None:
    assert _standings(world, door, tournament) == _expected(world, tournament), (door, tournament)


def test_the_games_are_listed_by_round_with_their_status(world: World) -> None:
    r = world.site.browser().get("/api/tournaments/Club%20SoS").json()
    assert [(g["game"], g["round"], g["status"]) for g in r["games"]] == [
        ("draw1", 1, "counted"),
        ("solo1", 1, "counted"),
        ("draw2", 2, "counted"),
        ("open1", 2, "in progress"),
    ]
    assert r["counted"] == 3 and r["hidden"] == 0
    assert r["system"]["name"] == "sos" and r["system"]["source"].startswith("https://")
    # People are linked by id; a seat given by name only has none; a bot never appears.
    ids = {s["name"]: s["person_id"] for s in r["standings"]}
    assert ids["Zed"] is None and ids["Ann"] == world.people["Ann"]
    assert "bot" not in str(r["standings"])
    best = {s["name"]: s["best"] for s in r["standings"]}
    assert best["Bob"] == 100.0 and best["Ann"] == round(DRAW_SOS["France"], 4)


def test_the_page_names_the_system_with_a_link_to_its_definition_and_links_the_games(world: World) -> None:
    page = world.site.browser().get("/tournaments/Club%20SoS").text
    source = world.site.browser().get("/api/tournaments/Club%20SoS").json()["system"]["source"]
    head = page.split('id="tournament-system"', 1)[1].split("</p>", 1)[0]
    assert "Sum of squares" in head and f'href="{source}"' in head
    assert 'href="/games/open1"' in page and "in progress" in page
    assert 'href="/games/draw1/records?system=sos"' in page
    listing = world.site.browser().get("/tournaments").text
    assert 'href="/tournaments/Club%20SoS"' in listing and 'href="/tournaments/Club%20DSS"' in listing


def test_the_standings_follow_the_games_never_stored_scores(world: World) -> None:
    """A tournament made after the games are played has the same standings: nothing is kept but the games."""
    store = world.site.web.store
    new_tournament(store, "Late SoS", "sos", now=world.site.clock())
    for game in GAMES:
        add_game(store, "Late SoS", game, now=world.site.clock())
    got = [(s.rank, s.name, round(s.total, 2), s.games) for s in standings(store, "Late SoS").lines]
    assert got == _expected(world, SOS)


def test_the_cli_lists_creates_adds_and_removes(world: World) -> None:
    code, said = _cli(world, "new", "Cli Cup", "--system", "carnage")
    assert code == 0 and "Carnage" in said, said
    code, said = _cli(world, "add", "Cli Cup", "draw1", "solo1", "--round", "1")
    assert code == 0 and "(2 games)" in said, said
    code, said = _cli(world, "standings", "Cli Cup")
    # Carnage: the draw ranks France 7000 + 6, Germany 6000 + 5 ...; Bob wins the solo: 28,000 + 34.
    assert code == 0 and "34,039.00" in said and "7,006.00" in said, said  # Bob 6005 + 28034; Ann 7006
    code, said = _cli(world, "remove", "Cli Cup", "solo1")
    assert code == 0 and "(1 game)" in said, said
    code, said = _cli(world, "list")
    assert code == 0 and "Cli Cup" in said and "Club SoS" in said, said


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("new", "Bad", "--system", "sose"), "did you mean 'sos'"),
        (("new", "Club SoS", "--system", "sos"), "already exists"),
        (("new", "a/b", "--system", "sos"), "cannot contain '/'"),
        (("new", "Odd", "--system", "sos", "--variant", "nosuchvariant"), "variant"),
        (("add", "Club SoZ", "draw1"), "did you mean 'Club SoS'"),
        (("add", "Club SoS", "draw1"), "already in tournament"),
        (("add", "Club SoS", "nogame"), "no game 'nogame'"),
        (("add", "Club DSS", "draw1", "--round", "0"), "a round is a whole number from 1 to 99"),
        (("remove", "Club SoS", "nogame"), "is not in tournament"),
        (("standings", "Nope"), "no tournament 'Nope'"),
    ],
)
def test_the_cli_refuses_in_one_line(world: World, args: tuple[str, ...], said: str) -> None:
    code, out = _cli(world, *args)
    assert code == 2 and said in out and "Traceback" not in out, out


def test_the_json_lists_every_tournament(world: World) -> None:
    r = world.site.browser().get("/api/tournaments").json()
    line = next(t for t in r["tournaments"] if t["name"] == SOS)
    assert line == {
        "name": SOS,
        "system": "sos",
        "system_title": "Sum of squares",
        "variant": "standard",
        "games": 4,
        "finished": 3,
        "created_at": line["created_at"],
    }
    assert {s["name"] for s in r["systems"]} >= {"sos", "dss", "carnage", "tribute", "opentribute", "centres"}


def test_a_bot_that_shares_a_draw_scores_for_nobody(store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Italy, a bot, shares a draw of seven (a seventh of 100 under draw-size scoring, like everyone): the
    standings hold the people and the names, never the bot, and their scores are the game's own."""
    from dippouch.bots.seats import seat_bot

    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    ann = create_person(store, "Ann", now=now)
    created = store_games.create_game

    def with_a_bot(db: Any, game: str, variant: str, *, now: datetime, **kw: Any) -> Any:
        made = created(db, game, variant, now=now, **kw)
        seat_bot(store, game, "Italy", "hold", now=now)
        return made

    monkeypatch.setattr(store_games, "create_game", with_a_bot)
    play_draw(store, "bot1", {"France": ann, "Germany": "Gus", "England": "Eve"}, now)
    new_tournament(store, "Bots", "dss", now=now)
    add_game(store, "Bots", "bot1", now=now)
    got = [(s.rank, s.name, round(s.total, 2), s.person_id) for s in standings(store, "Bots").lines]
    assert got == [(1, "Ann", 14.29, ann), (1, "Eve", 14.29, None), (1, "Gus", 14.29, None)]


def test_a_practice_game_or_a_missing_one_found_in_a_tournament_counts_for_nobody(store: GameStore) -> None:
    """The use case refuses them; one put in by other means (the store's own call) is listed, not counted."""
    from dippouch.game import GameSettings
    from dippouch.store.tournaments.stored import add_game as store_add_game

    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    play_solo(store, "p1", {"France": create_person(store, "Ann", now=now)}, now, settings=GameSettings(practice="tag"))
    new_tournament(store, "Odd", "dss", now=now)
    for game in ("p1", "gone"):
        store_add_game(store, "Odd", game, round_number=None, now=now)
    s = standings(store, "Odd")
    assert s.lines == () and s.counted == 0
    assert [(g.game, g.status) for g in s.games] == [("p1", "practice"), ("gone", "missing")]


def test_the_scores_kept_with_the_web_app_follow_the_game(store: GameStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a :class:`ScoresCache` a finished game is read and scored once; a rollback reopens it, and the
    standings drop it at once (its status is read at each request), then score it again when it ends anew."""
    import dippouch.play.tournaments as use

    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    ann = create_person(store, "Ann", now=now)
    play_draw(store, "r1", {"France": ann, "Germany": "Gus", "England": "Eve"}, now)
    new_tournament(store, "Kept", "sos", now=now)
    add_game(store, "Kept", "r1", now=now)
    reads: list[str] = []
    from dippouch.store.finished import game_record as read

    def counted(db: Any, game: str) -> Any:
        reads.append(game)
        return read(db, game)

    monkeypatch.setattr(use, "game_record", counted)
    cache = use.ScoresCache()
    first = standings(store, "Kept", cache)
    assert standings(store, "Kept", cache) == first and reads == ["r1"]
    assert [(s.name, round(s.total, 2)) for s in first.lines][:1] == [("Ann", 30.0)]
    store_history.rollback(store, "r1", "Fall 1901 Movement", now=now + timedelta(hours=4))
    again = standings(store, "Kept", cache)
    assert again.lines == () and [g.status for g in again.games] == ["in progress"]
