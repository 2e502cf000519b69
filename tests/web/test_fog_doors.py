"""A fog-of-war game (issue 58): no door of the web shows a unit outside the reader's sight while it runs, and
the whole game is shown once it has ended.

The routes are read off the app's own table (as the route fuzz reads them), so a page or JSON call of a game
added tomorrow is asked too: every GET route whose address names the game is asked at every real address
(each phase, each map view, the player's own power), by a visitor, who must see no unit at all, and by
France's player, who must see only what France's units and centres see (:mod:`dippouch.core.sight`). A unit
is looked for the ways the doors write one: the map's ``id="unit-..."``, the game file's and the API's
``A mos``, the pages' and reports' ``Army Moscow``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute

from dippouch.core.position import Unit
from dippouch.core.sight import sight
from dippouch.core.variant import Variant
from dippouch.game import position_from_data
from dippouch.web.http.security import SESSION_COOKIE
from dippouch.web.views.games import MAP_VIEWS, board_url, kind_name
from websupport import Site, json_routes, page_routes

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

GAME = "fg"
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
ME = "France"

SPRING = {
    "France": "A par - bur\nA mar - spa\nF bre - mao",
    "Russia": "A mos - ukr\nF sev - bla\nA war - gal\nF stp/sc - bot",
    "Germany": "A mun - ruh\nF kie - hol\nA ber - kie",
    "England": "F lon - nth\nF edi - nwg\nA lvp - yor",
}
FALL = {
    "France": "A bur - bel\nA spa - por\nF mao - bre",
    "Russia": "A ukr - rum\nF bla - ank",
    "England": "F nth - nwy",
}


def _process(site: Site, orders: dict[str, str]) -> None:
    store, now = site.web.store, site.clock()
    for power, text in orders.items():
        store.submit(GAME, power, text, now=now)
    store.process(GAME, now=now, force=True)
    site.web.touched(GAME)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    path: Path = tmp_path_factory.mktemp("fog") / "fog.db"
    s = Site(f"sqlite:///{path}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        s.web.store.assign(GAME, p, f"{p} Player", now=s.clock())
    _process(s, SPRING)
    _process(s, FALL)  # Winter 1901 Adjustments is open: three phases behind it
    return s


def _browser(site: Site, power: str | None) -> TestClient:
    if power is None:
        return site.browser()
    secret = site.web.access.create_key("player", game=GAME, power=power, now=site.clock())[1]
    return site.browser(secret)


def _units_everywhere(site: Site) -> tuple[Variant, list[tuple[Unit, bool]]]:
    """Every unit of every position of the game, each with whether France ever saw it (in any phase)."""
    v = site.web.variant_of(GAME)
    seen: set[Unit] = set()
    every: set[Unit] = set()
    for h in site.web.access.phases(GAME):
        for data in (h.position, h.next_position):
            if data is None:
                continue
            pos = position_from_data(v, data)
            every |= set(pos.units.values()) | {d.unit for d in pos.dislodged.values()}
            s = sight(v, pos, ME)
            seen |= set(s.units.values()) | {d.unit for d in s.dislodged.values()}
    return v, [(u, u in seen) for u in sorted(every, key=lambda u: (u.power, u.loc))]


def _finder(v: Variant, units: list[Unit]) -> re.Pattern[str]:
    """One pattern finding any of ``units`` the ways a door writes a unit (a page is read once, however many
    units are looked for): the map's ``id="unit-mos"``, the API's ``A mos``, the words' ``Army Moscow`` and the
    check's ``A Moscow``."""
    m = v.map

    def alt(words: set[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))

    abbrs = {m.provinces[m.province_of(u.loc)].abbr for u in units}
    by_kind: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    for u in units:
        by_kind.setdefault(u.kind, set()).update(
            (m.provinces[m.province_of(u.loc)].abbr, m.provinces[m.province_of(u.loc)].name)
        )
        named.setdefault(kind_name(u.kind), set()).add(m.locations[u.loc].name)
    short = "|".join(f"{k} (?:{alt(a)})" for k, a in by_kind.items())
    long = "|".join(f"{k} (?:{alt(n)})" for k, n in named.items())
    pattern = rf'id="(?:unit|dislodged)-(?:{alt(abbrs)})\b|(?<![\w-])(?:{short})(?![\w])|\b(?:{long})\b'
    return re.compile(pattern, re.I)


def _shown(text: str, finder: re.Pattern[str]) -> str | None:
    hit = finder.search(text)
    return None if hit is None else text[max(0, hit.start() - 80) : hit.end() + 80]


def _addresses(site: Site, power: str) -> Iterator[str]:
    """Every GET address of the game's routes at its real values (a value the site has none of: 1)."""
    phases = [h.id for h in site.web.access.phases(GAME)]
    board = board_url(site.web, GAME)
    digest = board.rsplit("board-", 1)[1].removesuffix(".svg") if board else "x"
    values: dict[str, list[str]] = {
        "name": [GAME],
        "phase_id": [str(p) for p in phases],
        "view": list(MAP_VIEWS),
        "power": [power],
        "digest": [digest],
        "fmt": ["gif"],
    }
    routes: list[APIRoute] = [*json_routes(), *page_routes()]
    for r in routes:
        if (
            "GET" not in (r.methods or set())
            or "{name}" not in r.path
            or not r.path.startswith(("/games/", "/api/games/"))
        ):
            continue
        addresses = [r.path]
        for param in re.findall(r"{(\w+)}", r.path):
            choices = values.get(param, ["1"])
            addresses = [a.replace("{" + param + "}", c, 1) for a in addresses for c in choices]
        yield from (a for a in addresses if not a.endswith(SKIPPED))
        if r.path == "/games/{name}/map.svg":
            yield from (f"/games/{GAME}/map.svg?phase={p}" for p in phases)


TEXT = ("text/", "application/json", "image/svg+xml")

SKIPPED = (".png", ".pdf", "/press-events")
"""Addresses not read: the pictures and PDFs made of the SVG maps read here (the same drawing, rasterised), and
the press's event stream (it stays open, and carries letters, never the board)."""


def _read(c: TestClient, address: str) -> str | None:
    r = c.get(address)
    assert r.status_code < 500, (address, r.status_code, r.text[:300])
    kind = r.headers.get("content-type", "")
    if r.status_code >= 300 or not kind.startswith(TEXT):
        return None
    return str(r.text)


def test_no_door_shows_a_visitor_any_unit_while_the_game_runs(site: Site) -> None:
    v, units = _units_everywhere(site)
    c = _browser(site, None)
    every = _finder(v, [u for u, _ in units])
    read = 0
    for address in _addresses(site, ME):
        text = _read(c, address)
        if text is None:
            continue
        read += 1
        leak = _shown(text, every)
        assert leak is None, f"{address} shows a unit to a visitor: ...{leak}..."
    assert read >= 8  # the game page, its JSON, its phases and their maps answered
    assert 'id="fog"' in c.get(f"/games/{GAME}").text  # the page says why the board is empty


def test_no_door_shows_a_player_a_unit_outside_their_sight(site: Site) -> None:
    v, units = _units_everywhere(site)
    hidden = [u for u, saw in units if not saw]
    mine = [u for u, _ in units if u.power == ME]
    assert len(hidden) >= 10 and mine
    # Russia's player reads every door first: what is kept for one reader (pages, maps, reports, turns) must never
    # be handed to another, who sees otherwise.
    russia = _browser(site, "Russia")
    for address in _addresses(site, "Russia"):
        _read(russia, address)
    c = _browser(site, ME)
    unseen, own = _finder(v, hidden), _finder(v, mine)
    own_shown = 0
    for address in _addresses(site, ME):
        text = _read(c, address)
        if text is None:
            continue
        leak = _shown(text, unseen)
        assert leak is None, f"{address} shows {ME} a unit out of its sight: ...{leak}..."
        own_shown += _shown(text, own) is not None
    # The fog hides what it must, not everything: France's own units are on its pages, maps and reports.
    assert own_shown >= 5


def test_a_player_sees_what_their_units_see_on_their_page(site: Site) -> None:
    """France's page draws France's units and the units next to them, but no unit far away."""
    c = _browser(site, ME)
    page = c.get(f"/games/{GAME}/play/{ME}").text
    assert 'id="unit-bel"' in page and 'id="unit-por"' in page  # its own armies, after the Fall
    assert 'id="unit-ank"' not in page and 'id="unit-rum"' not in page  # Russia's, far in the east
    # What France does not see is greyed, what it sees is not: an empty grey province may hold anything.
    assert re.search(r'id="r-mos"[^>]*class="region [a-z]+ fogged"', page)
    assert re.search(r'id="r-bel"[^>]*class="region [a-z]+"', page)
    board = c.get(f"/api/games/{GAME}").json()["board"]
    shown = {b["power"]: b["units"] for b in board}
    assert "Army Belgium" in shown[ME] and not shown["Russia"] and not shown["Turkey"]


def test_the_doors_that_show_the_whole_game_are_shut_until_the_end(site: Site) -> None:
    for power in (None, ME):
        c = _browser(site, power)
        for address in (
            f"/games/{GAME}/replay",
            f"/api/games/{GAME}/replay",
            f"/games/{GAME}/export.json",
            f"/api/games/{GAME}/export",
            f"/api/games/{GAME}/records",
        ):
            r = c.get(address)
            assert r.status_code == 403 and "fog of war" in r.text, (address, r.status_code)


def test_after_the_end_everyone_sees_the_whole_game(tmp_path: Path) -> None:
    s = Site(f"sqlite:///{tmp_path / 'ended.db'}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        s.web.store.assign(GAME, p, f"{p} Player", now=s.clock())
    _process(s, SPRING)
    visitor = _browser(s, None)
    assert "Army Ukraine" not in visitor.get(f"/api/games/{GAME}").text
    for p in POWERS:
        s.web.store.vote(GAME, p, True, now=s.clock())
    s.web.touched(GAME)
    game = visitor.get(f"/api/games/{GAME}").json()
    assert game["state"] == "finished" and not game.get("fog")
    assert any("Army Ukraine" in b["units"] for b in game["board"])
    replay = visitor.get(f"/api/games/{GAME}/replay")
    assert replay.status_code == 200
    pictures = [f["picture"] for f in replay.json()["frames"] if f.get("picture")]
    assert pictures and any('id="unit-ukr"' in visitor.get(u).text for u in pictures)
    assert visitor.get(f"/api/games/{GAME}/export").status_code == 200


def _verdicts(answer: dict[str, Any]) -> list[Any]:
    """What the check says of each line, without the line as the player typed it (which names what they wrote)."""
    return [[ln.get(k) for k in ("error", "note", "code", "params")] for ln in answer["lines"]]


def test_the_line_check_and_the_receipt_tell_of_no_unit_out_of_sight(tmp_path: Path) -> None:
    """Checking or sending a support of a unit France cannot see answers as for an empty province: neither the
    verdict nor its suggestions tell that Munich holds an army (the arrival check reads France's sight; on the
    whole board, a support of London's fleet into Picardy is refused naming it)."""
    s = Site(f"sqlite:///{tmp_path / 'check.db'}", limits={})
    s.new_game(GAME, fog="on")
    for p in POWERS:
        s.web.store.assign(GAME, p, f"{p} Player", now=s.clock())
    fr = _browser(s, ME)
    v = s.web.variant_of(GAME)
    unseen = _finder(v, [u for u in v.start.units.values() if u not in set(sight(v, v.start, ME).units.values())])
    base = f"/api/games/{GAME}/powers/{ME}"
    for hidden_unit, empty in (
        ("A mun - bur", "A pic - bur"),
        ("F lon - pic", "F pic - bur"),
        ("A ber - bur", "A gas - bur"),
    ):
        told = _verdicts(s.api(fr, f"{base}/check", {"text": f"A par S {hidden_unit}"}).json())
        alike = _verdicts(s.api(fr, f"{base}/check", {"text": f"A par S {empty}"}).json())
        assert _shown(str(told), unseen) is None, told
        assert [t[0] is None for t in told] == [a[0] is None for a in alike], (told, alike)
    sent = s.api(fr, f"{base}/orders", {"text": "A par S A ber - bur\nA mar S F lon - pic"}).json()
    assert _shown(str(_verdicts(sent)), unseen) is None, sent


def test_a_sandbox_opened_from_a_fog_game_holds_only_what_its_opener_sees(site: Site) -> None:
    """The one door that copies a board by POST: a sandbox started from a phase of the game."""
    v, units = _units_everywhere(site)
    hidden = _finder(v, [u for u, saw in units if not saw])
    every = _finder(v, [u for u, _ in units])
    phase = site.web.access.phases(GAME)[0].id
    for power, finder in ((None, every), (ME, hidden)):
        c = _browser(site, power)
        r = site.api(c, "/api/sandbox", {"game": GAME, "phase_id": phase})
        assert r.status_code == 200, r.text
        told = str(r.json()["sandbox"])
        assert _shown(told, finder) is None, (power, _shown(told, finder))
        # Its page: the map's units (its help text names example orders, such as A lon - bel).
        drawn = re.findall(r'id="unit-([a-z]+)', c.get(r.json()["edit"]).text)
        assert not [a for a in drawn if _shown(f'id="unit-{a}"', finder)], (power, drawn)
    mine = _browser(site, ME)
    started = site.api(mine, "/api/sandbox", {"game": GAME, "phase_id": phase}).json()
    assert 'id="unit-par"' in mine.get(started["edit"]).text  # France's own army, where it stood


def test_a_coordinator_sees_the_whole_board_unless_they_play(site: Site) -> None:
    """The coordinator of a fog game referees it and sees everything; one who also plays (the creator of a
    player-run game) sees as the player they are, and may not open the game file unsealed to see more."""
    whole = site.coordinator.get(f"/api/games/{GAME}").json()
    assert {b["power"]: b["units"] for b in whole["board"]}["Russia"] and not whole.get("fog")
    now = site.clock()
    coordinates = site.web.access.create_key("coordinator", game=GAME, label="creator", now=now)[0]
    plays = site.web.access.create_key("player", game=GAME, power=ME, now=now)[0]
    both = site.browser()
    both.cookies.set(SESSION_COOKIE, site.web.access.start_session([coordinates, plays], now=now))
    both.get("/")
    seen = both.get(f"/api/games/{GAME}").json()
    assert seen["fog"] is True and not {b["power"]: b["units"] for b in seen["board"]}["Russia"]
    r = site.api(both, f"/api/games/{GAME}/export", {"reason": "to see the board"})
    assert r.status_code == 403 and "fog of war" in r.text
    # After the deadline a coordinator reads the orders sent: one who plays, only their own power's.
    site.web.store.submit(GAME, "Russia", "Build A mos", now=site.clock())
    site.web.store.submit(GAME, ME, "Waive", now=site.clock())
    site.clock.advance(days=3)
    site.web.touched(GAME)
    desk = both.get(f"/api/games/{GAME}/coordinate").json()
    assert "submissions" in desk, desk
    texts = {s["power"]: s.get("text") for s in desk["submissions"]}
    assert texts["Russia"] is None and texts[ME]
    whole_desk = site.coordinator.get(f"/api/games/{GAME}/coordinate").json()["submissions"]
    assert {s["power"]: s.get("text") for s in whole_desk}["Russia"] == "Build A mos"
