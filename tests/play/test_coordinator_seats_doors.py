"""Seats, every door (issue 54): assigning a power, replacing its player and seating a bot go through
:mod:`dippouch.play.seats` from the desk's forms, the JSON API and the command line (``dippouch players
assign/replace``, ``dippouch seat-bot``), run in process: the same seat taken, the replaced player's key refused
afterwards at each (the command line's replace once left it working), and the same refusal in the same words.
(A claim from the pool and a DAIDE client's seat are in tests/play/test_seats_doors.py.)
"""

from __future__ import annotations

import html
import re

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store import GameStore
from dippouch.store import games as store_games
from websupport import Site

DOORS = ("desk", "api", "cli")
ORDERS = "/api/games/demo/powers/France/orders"


@pytest.fixture
def site(tmp_path: object) -> Site:
    s = Site(f"sqlite:///{tmp_path}/g.db", limits={})
    s.new_game("demo")
    return s


def seat(site: Site, door: str, action: str, power: str, player: str) -> tuple[int, str]:
    """``action`` (assign, replace or bot: ``player`` is then the bot's level) through ``door``."""
    if door == "cli":
        register_commands()
        args = ["seat-bot", "demo", power, player] if action == "bot" else ["players", action, "demo", power, player]
        if action != "bot":
            args.append("--link")
        got = CliRunner().invoke(
            app, [*args, "--db", str(site.web.store.engine.url), "--now", site.clock().isoformat()]
        )
        return (0 if got.exit_code == 0 else got.exit_code), str(got.output)
    if door == "api":
        if action == "bot":
            r = site.api(site.coordinator, "/api/games/demo/bots", {"power": power, "level": player})
        else:
            body = {"power": power, "player": player, "replace": action == "replace"}
            r = site.api(site.coordinator, "/api/games/demo/players", body)
        return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)
    url = "/games/demo/coordinate/" + ("seat-bot" if action == "bot" else action)
    form = {"power": power, "level": player} if action == "bot" else {"power": power, "player": player}
    r = site.post_form(site.coordinator, url, form, headers={"Accept": "text/html"})
    if r.status_code == 303:
        return 0, html.unescape(site.coordinator.get(r.headers["location"]).text)
    return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)


def key_of(said: str) -> str:
    m = re.search(r"/k/(dp_[\w-]+)", said)
    assert m, said
    return m.group(1)


def submit(site: Site, key: str) -> int:
    r = site.browser().post(ORDERS, json={"text": "A Paris - Burgundy"}, headers={"Authorization": f"Bearer {key}"})
    return int(r.status_code)


def current(store: GameStore) -> dict[str, str | None]:
    return {p: cur for p, cur, _ in store_games.players(store, "demo")}


@pytest.mark.parametrize("door", DOORS)
def test_assign_then_replace_hands_the_seat_over_and_the_old_key_stops_at_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    code, said = seat(site, door, "assign", "France", "Ann")
    assert code == 0, said
    old = key_of(said)
    assert current(store)["France"] == "Ann" and submit(site, old) == 200, door
    # The same refusal at each door: the seat is taken, and assigning does not hand it over.
    code, said = seat(site, door, "assign", "France", "Bo")
    assert code != 0 and "France" in said and "already" in said, (door, said[-600:])
    assert current(store)["France"] == "Ann", door
    code, said = seat(site, door, "replace", "France", "Bo")
    assert code == 0, said
    assert current(store)["France"] == "Bo", door
    # Ann's link no longer gives the seat: on the old command line it still submitted France's orders.
    assert submit(site, old) in (401, 403), door
    assert submit(site, key_of(said)) == 200, door


@pytest.mark.parametrize("door", DOORS)
def test_a_bot_takes_the_seat_and_the_players_key_stops_at_every_door(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    old = site.seat("demo", "France", "Ann")
    code, said = seat(site, door, "bot", "France", "hold")
    assert code == 0, said
    assert current(store)["France"] == "bot:hold", door
    assert submit(site, old) in (401, 403), door
    code, said = seat(site, door, "bot", "France", "genius")
    assert code != 0 and "genius" in said, (door, said[-600:])
