"""The last turn on a player's own page: once a phase is processed, the seat's page (and its API view) shows
that phase's orders and results, its map with the orders drawn, the units dislodged and the retreats the seat
now owes, with a link to the phase's full report; before any phase is processed, nothing of the kind. It
shows exactly what the phase's public page shows, so an anonymous game names nobody and a stand-in reads it
too. In a real browser at desktop and phone sizes: the map drawn, the page no wider than a phone's screen.
Screenshots go to test-artifacts/web/last-turn-*.png."""

from __future__ import annotations

import html
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.names import order_text
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.people.persons import create_person, seat_person
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

GAME = "/games/demo"
API = "/api/games/demo"
BOUNCE = {"France": "A par - bur\nA mar - spa", "Germany": "A mun - bur"}
"""Spring 1901: Paris and Munich bounce in Burgundy; Marseilles takes Spain."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _process(site: Site) -> None:
    r = site.post_form(site.coordinator, f"{GAME}/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303, r.text


def _orders(site: Site, players: dict[str, TestClient], orders: dict[str, str]) -> None:
    for power, text in orders.items():
        r = site.api(players[power], f"{API}/powers/{power}/orders", {"text": text})
        assert r.status_code == 200 and r.json()["rejected"] == 0, r.text


def _game(site: Site, **form: str) -> dict[str, TestClient]:
    site.new_game("demo", movement="3d", **form)
    return {"France": site.player("demo", "France", "Bruno"), "Germany": site.player("demo", "Germany", "Carla")}


def _section(page: str) -> str:
    """The last turn's section of a player's page (empty when it has none)."""
    m = re.search(r'<section class="card last-turn" id="last-turn".*?</section>', page, re.S)
    return m.group(0) if m else ""


def _rows(section: str) -> list[tuple[str, str, str]]:
    """(power, order, result) of each row of the section's results table, as its words read."""
    body = re.search(
        r'<table class="list small results last-turn-table" id="last-turn-results">.*?</table>', section, re.S
    )
    assert body, section
    rows = []
    for tr in re.findall(r"<tr class=[^>]*>(.*?)</tr>", body.group(0), re.S):
        cells = [
            " ".join(html.unescape(re.sub(r"<[^>]+>", " ", td)).split())
            for td in re.findall(r"<td>(.*?)</td>", tr, re.S)
        ]
        rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_before_any_phase_is_processed_the_page_has_no_last_turn(site: Site) -> None:
    players = _game(site)
    _orders(site, players, BOUNCE)
    page = players["France"].get(f"{GAME}/play/France").text
    assert 'id="last-turn"' not in page and "Last turn" not in page
    assert players["France"].get(f"{API}/powers/France").json()["last_turn"] is None


def test_after_processing_the_page_shows_the_phase_its_orders_results_map_and_report(site: Site) -> None:
    players = _game(site)
    _orders(site, players, BOUNCE)
    _process(site)
    pid = site.browser().get(API).json()["last_processed_id"]
    for power in ("France", "Germany"):
        page = players[power].get(f"{GAME}/play/{power}").text
        section = _section(page)
        assert "Last turn: Spring 1901 Movement" in section, page
        # Before the new phase's form, and after it the form is still the Fall's.
        assert page.index('id="last-turn"') < page.index('id="orders-form"')
        assert "Orders for Fall 1901 Movement" in page
        assert 'datetime="2026-12-01T09:00:00+00:00"' in section  # when it was processed
        assert f'href="/games/demo/phases/{pid}" id="last-turn-report"' in section
        rows = _rows(section)
        assert ("France", "A Paris - Burgundy", "fails — bounced with A Munich (1 vs 1)") in rows, rows
        assert ("France", "A Marseilles - Spain", "succeeds") in rows, rows
        assert ("Germany", "A Munich - Burgundy", "fails — bounced with A Paris (1 vs 1)") in rows, rows
        assert ("Italy", "A Venice H (no order)", "stands") in rows, rows
        assert len(rows) == 22  # every unit on the board had an order or was held
        assert {r[0] for r in rows[:3]} == {power}  # the seat's own orders first
        # The map of that phase with every power's orders drawn as its public page draws them.
        m = re.search(r'<img src="(/games/demo/phases/\d+/map-orders\.svg)"', section)
        assert m, section
        svg = players[power].get(m.group(1))
        assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
        for order in ("A par - bur", "A mar - spa", "A mun - bur"):
            assert re.search(
                rf'<g id="order-\d+-\d+" data-power="\w+" class="order [^"]*" data-order="{order}"', svg.text
            )
        assert svg.text in site.browser().get(f"/games/demo/phases/{pid}").text


def test_the_seat_api_gives_the_last_turn_as_typed_fields(site: Site) -> None:
    """Every answer the test client reads is checked against the route's declared model (websupport)."""
    players = _game(site)
    _orders(site, players, BOUNCE)
    _process(site)
    answer = players["Germany"].get(f"{API}/powers/Germany")
    assert answer.status_code == 200
    check_api_answer(answer)
    turn = answer.json()["last_turn"]
    assert turn["phase"] == "Spring 1901 Movement" and turn["kind"] == "movement"
    assert turn["report_url"] == f"/games/demo/phases/{turn['phase_id']}"
    assert turn["map_url"] == f"/games/demo/phases/{turn['phase_id']}/map-orders.svg"
    assert turn["processed_at"] == "2026-12-01T09:00:00+00:00"
    assert turn["results"][0] == {
        "power": "Germany",
        "order": "A Munich - Burgundy",
        "result": "fails",
        "dislodged": False,
        "destroyed": False,
        "automatic": False,
        "reason": "bounced with A Paris (1 vs 1)",
        # the reason for programs: its message's id and values
        "code": "bounced with %(unit)s (%(attack)d vs %(defence)d)",
        "params": {"attack": 1, "defence": 1, "unit": "A Paris"},
    }
    spain = next(r for r in turn["results"] if r["order"] == "A Marseilles - Spain")
    assert spain["power"] == "France" and spain["result"] == "succeeds"
    assert turn["dislodged"] == [] and turn["must_retreat"] == []


def test_a_retreat_needed_is_named_with_where_the_unit_may_go(site: Site) -> None:
    players = _game(site)
    _orders(site, players, {"France": "A par - bur\nA mar - spa", "Germany": "A mun - ruh\nA ber - mun"})
    _process(site)
    _orders(site, players, {"France": "A bur H", "Germany": "A ruh - bur\nA mun S A ruh - bur"})
    _process(site)
    page = players["France"].get(f"{GAME}/play/France").text
    section = _section(page)
    assert "Last turn: Fall 1901 Movement" in section
    assert "must retreat or disband in Fall 1901 Retreats" in section, section
    assert "Army Burgundy: may retreat to Belgium, Gascony, Marseilles, Paris, Picardy, or disband." in section
    assert ("France", "A Burgundy H", "dislodged — dislodged by A Ruhr") in _rows(section), _rows(section)
    turn = players["France"].get(f"{API}/powers/France").json()["last_turn"]
    dislodged = [
        {
            "power": "France",
            "unit": "Army Burgundy",
            "loc": "bur",
            "retreats": ["Belgium", "Gascony", "Marseilles", "Paris", "Picardy"],
        }
    ]
    assert turn["must_retreat"] == dislodged and turn["dislodged"] == dislodged
    # The other power reads what was dislodged, and owes no retreat.
    other = _section(players["Germany"].get(f"{GAME}/play/Germany").text)
    assert 'id="must-retreat"' not in other
    assert "France's Army Burgundy: may retreat to Belgium, Gascony, Marseilles, Paris, Picardy" in other


def test_an_anonymous_game_shows_what_the_public_phase_page_shows_and_names_nobody(site: Site) -> None:
    players = _game(site, anonymous="on")
    _orders(site, players, BOUNCE)
    _process(site)
    pid = site.browser().get(API).json()["last_processed_id"]
    public = site.browser().get(f"{API}/phases/{pid}").json()["results"]
    variant = site.web.variant_of("demo")
    shown = {(r["power"], order_text(variant, r["order"], "movement"), r["result"]) for r in public}
    turn = players["France"].get(f"{API}/powers/France").json()["last_turn"]
    assert {(r["power"], r["order"], r["result"]) for r in turn["results"]} == shown
    section = _section(players["France"].get(f"{GAME}/play/France").text)
    assert section and "Carla" not in section and "Bruno" not in section


def test_a_stand_in_reads_the_last_turn_of_the_seat_they_order(site: Site) -> None:
    site.new_game("demo", "standard", movement="2d")
    site.seat("demo", "France", "Ann")
    store = site.web.store
    ann_id = create_person(store, "Ann", now=site.clock())
    seat_person(store, "demo", "France", ann_id, now=site.clock())
    ann, germany = _person(site, ann_id), site.player("demo", "Germany", "Carla")
    _orders(site, {"France": ann, "Germany": germany}, BOUNCE)
    _process(site)
    bo = _person(site, create_person(store, "Bo", now=site.clock(), email="bo@example.org"))
    r = site.post_form(
        site.coordinator, "/games/demo/roster/settings", {"absence_policy": "stand_in", "stand_in": "bo@example.org"}
    )
    assert r.status_code == 303, r.text
    assert site.post_form(ann, "/me/absences", {"from": "2026-12-02", "to": "2026-12-03"}).status_code == 303
    site.clock.advance(days=1)
    page = bo.get(f"{GAME}/play/France")
    assert page.status_code == 200, page.text
    assert _rows(_section(page.text)) == _rows(_section(ann.get(f"{GAME}/play/France").text))
    assert ("France", "A Paris - Burgundy", "fails — bounced with A Munich (1 vs 1)") in _rows(_section(page.text))
    assert bo.get(f"{API}/powers/France").json()["last_turn"]["phase"] == "Spring 1901 Movement"


def _person(site: Site, pid: int) -> TestClient:
    c = TestClient(site.app, raise_server_exceptions=False)
    c.event_hooks = {"request": [], "response": [check_api_answer]}
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


# --------------------------------------------------------------------------------------------------
# In a browser


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_last_turn_in_a_browser(live_site: LiveSite, size: dict[str, int]) -> None:
    """The map drawn in the viewer with the orders on it, the results table (on a phone inside the last turn's
    fold, which its summary line opens), and the page no wider than the screen."""
    store, now = live_site.store, datetime.now(UTC)
    store_games.create_game(store, "bt", "standard", now=now)
    for power in ("France", "Germany"):
        store_games.assign(store, "bt", power, f"{power} Player", now=now)
    for power, text in BOUNCE.items():
        store_submissions.submit(store, "bt", power, text, now=now)
    store_processing.process(store, "bt", now=now, force=True)
    page = live_site.player("bt", "France", size)
    errors = watch_errors(page)
    if size is PHONE:  # folded to a line there (tests/web/test_phone_map_last_turn_browser.py)
        page.locator("#last-turn-fold > summary").click()
    page.locator("#last-turn [data-map].viewer svg").wait_for()
    drawn = page.locator("#last-turn svg g.order").evaluate_all("gs => gs.map(g => g.getAttribute('data-order'))")
    assert {"A par - bur", "A mar - spa", "A mun - bur"} <= set(drawn), drawn
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], f"the page is {width} pixels wide on a {size['width']}-pixel screen"
    map_box = page.locator("#last-turn [data-map]").bounding_box()
    assert map_box["x"] >= 0 and map_box["x"] + map_box["width"] <= size["width"], map_box
    fold = page.locator("#last-turn details.results-fold")
    tag = "phone" if size is PHONE else "desktop"
    assert fold.evaluate("d => d.open") is True
    if size is PHONE:
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        fold.locator("summary").scroll_into_view_if_needed()
        shoot(page, "web", f"last-turn-{tag}-results", full_page=False)
    assert page.locator("#last-turn-results").inner_text().count("bounced with") == 2
    shoot(page, "web", f"last-turn-{tag}", full_page=False)
    shoot(page, "web", f"last-turn-{tag}-page")
    assert errors == [], errors
