"""A seat changes hands in one place (play/seats.py over store.games.change_seat), whatever the door: the desk's
page, the JSON API, ``dippouch players replace``, a claim from the replacement pool, and a DAIDE client taking a
seat. Issue 52, from the security review's finding 3: the command line's replace left the replaced player's key
working (France's orders taken with 200 afterwards), and ``daide serve`` replaced a person seated after it started.

At every door the seat's old key is refused afterwards, a browser signed in with it loses the seat, and the
person replaced is told (a ``seat_replaced`` event the notification channels hand to them as ``seat_lost``); a
DAIDE client takes only a seat that is empty or a bot's, so a person seated after the server started keeps it.
Each runs on SQLite and PostgreSQL, through the real web app, the real command and a real DAIDE socket."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from daidesupport import Raw
from dippouch.game import GameError
from dippouch.notify.dispatch import dispatch
from dippouch.play.daide import daide_server
from dippouch.play.seats import seat_program
from dippouch.store import games as store_games
from dippouch.store import openings as store_openings
from dippouch.store.models import EventRow
from dippouch.store.people.persons import create_person, seats_of
from dippouch.store.rows import game_row
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

DOORS = ("desk", "api", "cli", "claim", "daide")
ORDERS = "/api/games/g/powers/France/orders"


@pytest.fixture
def site(db_url: str) -> Site:
    return Site(db_url)


class _Told:
    """A notification channel as the dispatcher takes one: it keeps the ``seat_lost`` events it is handed."""

    name = "seats-told"
    kinds = frozenset({"seat_lost"})

    def __init__(self) -> None:
        self.got: list[Any] = []

    def handle(self, event: Any, look: Any) -> int:
        self.got.append(event)
        return 1


def _person(site: Site, name: str) -> tuple[int, Any]:
    """A person and a browser signed in as them."""
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return pid, c


def _link(answer: str) -> str:
    m = re.search(r"/k/(dp_[\w-]+)", answer)
    assert m, answer
    return m.group(1)


def _submit(site: Site, key: str) -> int:
    """France's orders sent with ``key`` as a bearer key, as a program would: the answer's status."""
    r = site.browser().post(ORDERS, json={"text": "A Paris - Burgundy"}, headers={"Authorization": f"Bearer {key}"})
    return int(r.status_code)


def _replaced(site: Site) -> list[dict[str, Any]]:
    with site.web.store.session() as s:
        g = game_row(s, "g")
        rows = s.query(EventRow).filter(EventRow.game_id == g.id, EventRow.kind == "seat_replaced")
        return [dict(e.detail) for e in rows]


def _daide_takes_france(site: Site) -> str:
    """A DAIDE server for ``g`` offering France alone; one client says NME. What the server answered it."""

    async def run() -> str:
        server = daide_server(site.web.store, "g", seats=["France"], poll=0.1, clock=site.clock)
        port = await server.start("127.0.0.1", 0)
        try:
            c = await Raw.open(port)
            c.send("NME ('grabber') ('1')")
            return await c.text()
        finally:
            await server.close()

    return asyncio.run(run())


@pytest.mark.parametrize("door", DOORS)
def test_a_seat_handed_over_at_any_door_revokes_the_old_key_and_tells_the_old_player(site: Site, door: str) -> None:
    site.new_game("g")
    hugo, _ = _person(site, "Hugo")
    if door == "daide":
        # DAIDE takes only a program's seat: France is a bot's, whose link the coordinator handed out to watch it.
        r = site.post_form(site.coordinator, "/games/g/coordinate/seat-bot", {"power": "France", "level": "hold"})
        assert r.status_code == 303, r.text
        _, old_key = site.web.access.create_key("player", game="g", power="France", label="watch", now=site.clock())
    else:
        # Hugo is seated by the desk with his address: the seat is his (his page, his notifications), with a link.
        r = site.post_form(
            site.coordinator,
            "/games/g/coordinate/assign",
            {"power": "France", "player": "Hugo", "email": "hugo@example.org"},
        )
        assert r.status_code == 200, r.text
        old_key = _link(r.text)
        assert [s.power for s in seats_of(site.web.store, hugo)] == ["France"]
    browser = site.browser(old_key)
    assert browser.get("/games/g/play/France").status_code == 200
    assert _submit(site, old_key) == 200

    if door == "desk":
        r = site.post_form(site.coordinator, "/games/g/coordinate/replace", {"power": "France", "player": "Ida"})
        assert r.status_code == 200, r.text
    elif door == "api":
        r = site.api(site.coordinator, "/api/games/g/players", {"power": "France", "player": "Ida", "replace": True})
        assert r.status_code == 200, r.text
    elif door == "cli":
        from dippouch.cli import app, register_commands

        register_commands(["players"])
        url = site.web.store.engine.url.render_as_string(hide_password=False)
        now = site.clock().isoformat()
        done = CliRunner().invoke(app, ["players", "replace", "g", "France", "Ida", "--db", url, "--now", now])
        assert done.exit_code == 0, done.output
        assert "Ida takes over France in g from Hugo. 1 link of France's player revoked. Hugo is told." in done.output
    elif door == "claim":
        store_openings.open_game(site.web.store, "g", now=site.clock(), mode="coordinator")
        store_openings.free_seat(site.web.store, "g", "France", now=site.clock())
        _, ida = _person(site, "Ida")
        r = site.api(ida, "/api/games/g/claim", {"power": "France"})
        assert r.status_code == 200, r.text
    else:
        answer = _daide_takes_france(site)
        assert answer == "YES ( NME ( 'grabber' ) ( '1' ) )"
        assert {p: cur for p, cur, _ in store_games.players(site.web.store, "g")}["France"] == "daide:grabber"

    # The old key orders nothing, and the browser signed in with it has lost the seat.
    assert _submit(site, old_key) == 403
    assert browser.get("/games/g/play/France").status_code == 403
    # The old player is told: an event in the game's log, handed to their channels.
    (replaced,) = _replaced(site)
    told = _Told()
    dispatch(site.web.store, site.clock(), slow=False, only=[told])
    lost = [e for e in told.got if e.detail["how"] == "seat_replaced"]
    assert len(lost) == 1 and lost[0].detail["power"] == "France"
    if door == "daide":
        assert replaced["person"] is None and replaced["reason"] == "program"
        assert lost[0].readers == ()  # a bot's seat: nobody to tell
    else:
        assert replaced["person"] == hugo
        assert [r.person_id for r in lost[0].readers] == [hugo]
        assert seats_of(site.web.store, hugo) == []


def test_a_person_seated_after_daide_serve_started_keeps_the_seat_when_clients_say_nme(site: Site) -> None:
    """Finding 3's reproduction: a server on a game whose seats are empty, then the coordinator seats Hugo on
    France through the web, then seven clients say NME. Six get a seat; none gets France, Hugo's key still orders."""
    site.new_game("g")

    async def run() -> tuple[list[str], dict[str, str | None]]:
        server = daide_server(site.web.store, "g", poll=0.1, clock=site.clock)
        port = await server.start("127.0.0.1", 0)
        try:
            key = await asyncio.to_thread(site.seat, "g", "France", "Hugo")
            answers = []
            for i in range(7):
                c = await Raw.open(port)
                c.send(f"NME ('grabber{i}') ('1')")
                answers.append(await c.text())
            held = {p: cur for p, cur, _ in await asyncio.to_thread(store_games.players, site.web.store, "g")}
            assert await asyncio.to_thread(_submit, site, key) == 200
            return answers, held
        finally:
            await server.close()

    answers, held = asyncio.run(run())
    assert [a.split(" ")[0] for a in answers] == ["YES"] * 6 + ["REJ"]
    assert held["France"] == "Hugo"
    assert sorted(p for p, cur in held.items() if cur and cur.startswith("daide:")) == [
        "Austria",
        "England",
        "Germany",
        "Italy",
        "Russia",
        "Turkey",
    ]
    assert _replaced(site) == []


def test_a_program_is_refused_a_persons_seat_in_the_transaction_that_would_seat_it(site: Site) -> None:
    """The use case DAIDE calls decides under the game's lock: a person's seat is refused with what holds it."""
    site.new_game("g")
    site.seat("g", "France", "Hugo")
    with pytest.raises(GameError, match="France is played by Hugo now; a program takes only an empty seat or a bot's"):
        seat_program(site.web.store, "g", "France", "daide:x", now=site.clock())
    site.post_form(site.coordinator, "/games/g/coordinate/seat-bot", {"power": "Italy", "level": "hold"})
    assert seat_program(site.web.store, "g", "Italy", "daide:x", now=site.clock()).change.previous == "bot:hold"
    assert seat_program(site.web.store, "g", "Austria", "daide:y", now=site.clock()).change.previous is None


def test_a_seat_freed_by_resigning_before_the_start_takes_its_link_with_it(site: Site) -> None:
    """A resignation before the game started empties the seat, and in the same transaction its links stop."""
    site.new_game("g")
    store_openings.open_game(site.web.store, "g", now=site.clock(), mode="coordinator")
    bo, b = _person(site, "Bo")
    assert site.api(b, "/api/games/g/signup", {"preferences": ["France"]}).status_code == 200
    store_openings.assign_signup(site.web.store, "g", bo, "France", now=site.clock())
    _, key = site.web.access.create_key("player", game="g", power="France", label="Bo", now=site.clock())
    assert _submit(site, key) == 200
    r = site.api(b, "/api/games/g/resign")
    assert r.status_code == 200 and r.json()["how"] == "freed", r.text
    assert _submit(site, key) == 403
    assert {p: cur for p, cur, _ in store_games.players(site.web.store, "g")}["France"] is None
