"""The web app from a visitor's side: pages, the order form, the coordinator's desk, variants, moves, API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from dippouch.catalog import load_variant
from dippouch.game import check_orders
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from test_shelf_sample import heavy_variants
from websupport import Site

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("milan")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_a_game_from_creation_to_processing(db_url: str) -> None:
    """The whole cycle on SQLite and PostgreSQL: create, seat, submit (a typo flagged, then fixed), process."""
    site = Site(db_url)
    site.new_game("demo", movement="3d")
    france = site.player("demo", "France", "Bruno")
    germany = site.player("demo", "Germany", "Carla")

    r = site.post_form(
        france, "/games/demo/play/France/orders", {"orders": "A Paris - Burgandy\nF Brest - English Channel"}
    )
    assert r.status_code == 303
    page = france.get("/games/demo/play/France").text
    assert "no province &#39;Burgandy&#39;; did you mean Burgundy (bur)?" in page
    r = site.post_form(
        france, "/games/demo/play/France/orders", {"orders": "A Paris - Burgundy\nF Brest - English Channel"}
    )
    assert "Version 2 recorded" in r.cookies.get("dp_flash", "").replace("%20", " ")
    site.post_form(germany, "/games/demo/play/Germany/orders", {"orders": "A mun - ruh\nF kie - hol"})

    game = site.browser().get("/games/demo").text
    assert "submitted" in game and "par - bur" not in game and "mun - ruh" not in game

    r = site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303
    game = site.browser().get("/games/demo").text
    assert "Fall 1901 Movement" in game
    # The report, revealed (places by abbreviation or by full name).
    assert re.search(r"France:\s+A (par|Paris) - (bur|Burgundy)", game)
    assert re.search(r"Germany:\s+A (mun|Munich) - (ruh|Ruhr)", game)


def test_a_variant_option_chosen_on_the_desk_is_the_games(site: Site) -> None:
    """The new-game form's options change the game: Hundred Years' War with rule 6d starts England's fleet in
    the English Channel, and the Judge's calendar names the first phase Spring 1425; other variants' options
    in the same form are ignored."""
    site.new_game(
        "h6d",
        variant="hundred",
        option_hundred_english_channel="true",
        option_hundred_judge_calendar="true",
        option_1897_build_any_owned="true",
    )
    site.new_game("plain", variant="hundred")
    game = site.browser().get("/api/games/h6d").json()
    england = next(b for b in game["board"] if b["power"] == "England")
    assert "Fleet English Channel" in england["units"] and "Fleet Devon" not in england["units"], england
    assert game["phase"] == "Spring 1425 Movement", game["phase"]
    plain = site.browser().get("/api/games/plain").json()
    assert "Fleet Devon" in next(b for b in plain["board"] if b["power"] == "England")["units"]
    assert plain["phase"] != game["phase"]
    assert site.coordinator.get("/api/games/h6d/export").json()["game"]["options"] == {
        "english_channel": True,
        "judge_calendar": True,
    }


def test_line_check_is_the_arrival_check(site: Site) -> None:
    """The browser's live check answers exactly what a submission records, line for line."""
    site.new_game("g", variant="w3k")
    v = load_variant("w3k")
    power = v.power_names[0]
    client = site.player("g", power)
    texts = [
        "A Wiltshire convert\nA lon - dep\nF nowhere - x\nBuild F Caernarfonshire",
        "\n".join(f"{u.kind} {v.map.locations[u.loc].abbr} H" for u in v.start.units_of(power)),
        "Sorry, orders tomorrow!",
        "",
    ]
    for text in texts:
        answer = site.api(client, f"/api/games/g/powers/{power}/check", {"text": text}).json()["lines"]
        # The check adds each line's subject (what a pick replaces on the page) and its drawing on the map
        # (``draft``) to the arrival verdicts.
        # A refused line's message for programs (``code``, ``params``): the stored message's id and values.
        for ln in answer:
            if ln.get("error"):
                assert ln["code"] == ln["error_msg"]["id"] and ln["params"] == ln["error_msg"].get("args", {}), ln
        said = ("subject", "draft", "code", "params")
        checked = [{k: v for k, v in ln.items() if k not in said} for ln in answer]
        _, _, pos, _, _ = site.web.open_phase_position("g")
        assert checked == [ln.to_data() for ln in check_orders(v, pos, power, text)]
        submitted = site.api(client, f"/api/games/g/powers/{power}/orders", {"text": text}).json()["lines"]
        assert [{k: v for k, v in ln.items() if k not in said} for ln in submitted] == checked


def test_pick_lists_submit_without_javascript(site: Site) -> None:
    site.new_game()
    france = site.player("demo", "France")
    page = france.get("/games/demo/play/France").text
    assert 'name="pick:par"' in page and '<option value="A par - bur" data-subject="par">' in page
    r = site.post_form(
        france, "/games/demo/play/France/orders", {"orders": "", "pick:par": "A par - bur", "pick:bre": "F bre - mao"}
    )
    assert r.status_code == 303
    pv = france.get("/api/games/demo/powers/France").json()
    assert [ln["order"] for ln in pv["versions"][0]["lines"]] == ["A par - bur", "F bre - mao"]


def test_ready_everyone_processes_at_once(site: Site) -> None:
    site.new_game("r", variant="hundred3")
    v = load_variant("hundred3")
    clients = {p: site.player("r", p) for p in v.power_names}
    for p, c in clients.items():
        holds = "\n".join(f"{u.kind} {v.map.locations[u.loc].abbr} H" for u in v.start.units_of(p))
        r = site.api(c, f"/api/games/r/powers/{p}/orders", {"text": holds, "ready": True})
        assert r.status_code == 200, r.text
        assert r.json()["ready"], r.json()
    assert r.json()["processed"], r.json()
    assert site.browser().get("/api/games/r").json()["phase"] != v.calendar.name(v.start.phase)


def test_draw_vote_and_history_pages(site: Site) -> None:
    site.new_game("d", variant="hundred3")
    v = load_variant("hundred3")
    clients = {p: site.player("d", p) for p in v.power_names}
    site.post_form(site.coordinator, "/games/d/coordinate/process", {"confirm": "yes"})
    for p, c in clients.items():
        assert site.post_form(c, f"/games/d/play/{p}/vote", {"draw": "yes"}).status_code == 303
    info = site.browser().get("/api/games/d").json()
    assert info["state"] == "finished" and "Draw agreed" in info["ending"]
    first = info["history"][0]["id"]
    page = site.browser().get(f"/games/d/phases/{first}")
    assert page.status_code == 200 and "Next" in page.text and "results" in page.text


def test_coordinator_desk(site: Site) -> None:
    site.new_game("c", movement="2d")
    site.seat("c", "England", "Ann")
    c = site.coordinator
    for action, data, expect in [
        ("extend", {"by": "1d"}, "extended"),
        ("pause", {}, "Paused"),
        ("resume", {}, "Resumed"),
        ("deadlines", {"movement": "5d", "retreats": "1d", "adjustments": "1d"}, "Deadlines"),
        ("visibility", {"visibility": "unlisted"}, "unlisted"),
        ("process", {"confirm": "yes"}, "Processed"),
        ("rollback", {"phase": "Spring 1901", "confirm": "yes"}, "Rolled back"),
    ]:
        r = site.post_form(c, f"/games/c/coordinate/{action}", data)
        assert r.status_code == 303, (action, r.text)
        assert expect in r.cookies.get("dp_flash", "").replace("%20", " "), action
    page = c.get("/games/c/coordinate").text
    assert "Ann" in page and "Revoke" in page
    assert "c" not in [g["name"] for g in site.browser().get("/api/games").json()]  # unlisted


def test_the_coordinator_sees_every_submission_after_the_deadline(site: Site) -> None:
    """Once a phase's deadline has passed (or it is processed), its page shows the coordinator every version
    each power sent, when and how, with its line verdicts; before that, and to anyone else, none of it."""
    site.new_game("v", movement="2d")
    de = site.player("v", "Germany", "Carla")
    site.post_form(de, "/games/v/play/Germany/orders", {"orders": "A mun - tyr\nF kie - den"})
    site.post_form(de, "/games/v/play/Germany/orders", {"orders": "A mun - bur\nF kie - hol\nA ber - xyz"})
    pid = site.browser().get("/api/games/v").json()["phase_id"]
    before = site.coordinator.get(f"/games/v/phases/{pid}").text
    assert "mun - tyr" not in before and "mun - bur" not in before
    assert "Germany" in before and "sealed until the deadline" in before.lower()
    site.clock.advance(days=3)  # past the deadline: the scheduler (or the coordinator) processes it
    site.post_form(site.coordinator, "/games/v/coordinate/process", {"confirm": "yes"})
    page = site.coordinator.get(f"/games/v/phases/{pid}").text
    assert "A mun - tyr" in page and "A mun - bur" in page  # both versions, the first one too
    assert "no province &#39;xyz&#39;" in page or "xyz" in page
    assert page.count('<span class="tag">web</span>') == 2  # where each version came from
    for other in (de, site.browser()):
        text = other.get(f"/games/v/phases/{pid}").text
        assert "A mun - tyr" not in text  # the superseded version is the coordinator's to see only
        assert "submissions" not in other.get(f"/api/games/v/phases/{pid}").json()
    api = site.coordinator.get(f"/api/games/v/phases/{pid}").json()["submissions"]
    assert [s["text"] for s in api["submissions"]] == [
        "A mun - tyr\nF kie - den",
        "A mun - bur\nF kie - hol\nA ber - xyz",
    ]


def test_the_desk_seats_players_with_their_address_for_mail(site: Site) -> None:
    """Orders by mail are taken only from a player's registered address: the desk (and the API) can record
    it when seating a player, and change it later; a bad address is refused with the reason."""
    site.new_game("m")
    c = site.coordinator
    r = site.post_form(
        c, "/games/m/coordinate/assign", {"power": "France", "player": "Ann", "email": "Ann <ann@Example.ORG>"}
    )
    assert r.status_code == 200
    assert store_games.emails(site.web.store, "m")["France"] == ("Ann", "ann@example.org")
    assert "ann@example.org" in c.get("/games/m/coordinate").text
    r = site.post_form(c, "/games/m/coordinate/email", {"power": "France", "email": "ann@new.example"})
    assert r.status_code == 303
    assert store_games.emails(site.web.store, "m")["France"] == ("Ann", "ann@new.example")
    r = site.post_form(c, "/games/m/coordinate/assign", {"power": "Italy", "player": "Ines", "email": "not an address"})
    assert r.status_code == 400 and "is not an e-mail address" in r.text
    assert "Italy" not in store_games.emails(site.web.store, "m")  # nothing half-done
    auth = {"Authorization": f"Bearer {site.coordinator_key}"}
    r = site.browser().post(
        "/api/games/m/players", json={"power": "Italy", "player": "Ines", "email": "ines@example.org"}, headers=auth
    )
    assert r.status_code == 200 and store_games.emails(site.web.store, "m")["Italy"] == ("Ines", "ines@example.org")
    r = site.browser().post("/api/games/m/players/Italy/email", json={"email": "ines@new.example"}, headers=auth)
    assert r.status_code == 200 and store_games.emails(site.web.store, "m")["Italy"] == ("Ines", "ines@new.example")
    # A player cannot change addresses (the address decides whose mail counts as that power's orders).
    fr = site.player("m", "Germany", "Gus")
    assert (
        site.post_form(fr, "/games/m/coordinate/email", {"power": "France", "email": "evil@example.org"}).status_code
        == 403
    )
    assert store_games.emails(site.web.store, "m")["France"] == ("Ann", "ann@new.example")


def test_export_and_import(site: Site) -> None:
    site.new_game("e")
    france = site.player("e", "France")
    site.post_form(france, "/games/e/play/France/orders", {"orders": "A par - bur"})
    # Before the deadline the coordinator's file seals the open phase (who and when, not what); a file that
    # would move the running game asks for it unsealed on purpose, as `dippouch export --unsealed` does.
    sealed = site.coordinator.get("/games/e/export.json").json()
    assert sealed["phases"][0]["submissions"][0]["text"] is None and "sealed" in sealed
    r = site.post_form(
        site.coordinator, "/coordinate/import", {"name": "e3"}, files={"file": ("e.json", json.dumps(sealed))}
    )
    assert r.status_code == 400 and "orders unsealed" in r.text and "--unsealed" not in r.text
    r = site.post_form(site.coordinator, "/games/e/export.json", {"reason": ""})
    assert r.status_code == 400 and "give the reason" in r.text  # opening the seal is never silent
    full = site.post_form(site.coordinator, "/games/e/export.json", {"reason": "moving the game"}).json()
    assert full["phases"][0]["submissions"][0]["text"] == "A par - bur"
    public = site.post_form(site.browser(), "/games/e/export.json", {"reason": "x"}).json()
    assert all(not ph["submissions"] for ph in public["phases"])
    r = site.post_form(
        site.coordinator,
        "/coordinate/import",
        {"name": "e2"},
        files={"file": ("e.json", json.dumps(full), "application/json")},
    )
    assert r.status_code == 303, r.text
    assert site.browser().get("/api/games/e2").json()["phase"] == "Spring 1901 Movement"


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_pages_and_move_browser(site: Site, variant: str) -> None:
    v = load_variant(variant)
    page = site.browser().get(f"/variants/{variant}")
    assert page.status_code == 200
    for p in v.powers:
        assert p.name in page.text
    coast = next((p for p in v.map.provinces if p.coasts), None)
    land = next(p for p in v.map.provinces if p.kind.value == "coast" and not p.coasts)
    for prov in [land, coast]:
        if prov is None:
            continue
        for q in (prov.abbr, prov.name, prov.name.upper()):
            got = site.browser().get(f"/api/variants/{variant}/moves", params={"q": q}).json()
            assert got["province"]["abbr"] == prov.abbr, q
            kinds = [u["unit"] for u in got["units"]]
            assert kinds.count("A") == 1
            assert kinds.count("F") == max(1, len(prov.coasts))
            assert all(u["moves"] for u in got["units"])
    html = site.browser().get(f"/variants/{variant}/moves", params={"q": land.name}).text
    assert land.name in html and "Army in" in html


def test_variant_pages_say_where_each_power_builds(site: Site) -> None:
    """A power with no fixed home centres (W3K, Hundred Years' War: builds in any owned centre) is not said to
    choose them in play; each power's opening strength is shown."""
    w3k = site.browser().get("/variants/w3k").text
    assert "chosen in play" not in w3k and "any centre it owns" in w3k
    assert "6 centres, 6 units" in w3k  # Crown at the start
    std = site.browser().get("/variants/standard").text
    assert "Brest, Marseilles, Paris" in std and "4 centres, 4 units" in std  # Russia


def test_move_browser_matches_and_suggestions(site: Site) -> None:
    got = site.browser().get("/api/variants/standard/moves", params={"q": "Burgandy"}).json()
    assert got["province"] is None and "Burgundy" in got["suggestions"]
    got = site.browser().get("/api/variants/standard/moves", params={"q": "sea"}).json()
    assert {"Black Sea", "North Sea"} <= {m["name"] for m in got["matches"]}
    stp = site.browser().get("/api/variants/standard/moves", params={"q": "St Petersburg"}).json()
    fleets = {u["location"]: {m["abbr"] for m in u["moves"]} for u in stp["units"] if u["unit"] == "F"}
    assert fleets == {"stp/nc": {"bar", "nwy"}, "stp/sc": {"bot", "fin", "lvn"}}


def test_calendar_feed_and_api_docs(site: Site) -> None:
    site.new_game("cal")
    r = site.browser().get("/games/cal/calendar.ics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/calendar")
    assert "UID:cal-" in r.text
    assert 'href="/games/cal/calendar.ics"' in site.browser().get("/games/cal").text
    spec = site.browser().get("/api/openapi.json").json()
    assert "/api/adjudicate" in spec["paths"] and "/api/games/{name}/powers/{power}/check" in spec["paths"]
    # The API's documentation page is ours, drawn from the same description: nothing loaded from a CDN
    # (FastAPI's Swagger page fetches its script from one, and the CSP would block it anyway).
    docs = site.browser().get("/api/docs")
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    for path in spec["paths"]:
        assert path in docs.text, path
    assert "OrdersIn" in docs.text and "max 20000" in docs.text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", docs.text), "the page loads something from elsewhere"


def test_adjudicate_over_http_is_the_contract(site: Site) -> None:
    from dippouch.contract import handle_line

    req = {
        "variant": "standard",
        "orders": {"France": ["A par - bur", "A mar S A par - bur"], "Germany": ["A mun - bur"]},
    }
    r = site.browser().post("/api/adjudicate", json=req)
    assert r.status_code == 200
    assert r.json() == handle_line(json.dumps(req))
    bad = site.browser().post("/api/adjudicate", content=b'{"variant": "nosuch"}')
    assert bad.status_code == 400 and "error" in bad.json()


def test_scheduler_processes_due_phases(site: Site) -> None:
    from dippouch.web.http.scheduler import DeadlineScheduler

    site.new_game("s", movement="1h")
    sched = DeadlineScheduler(site.web)
    assert sched.tick() == []
    site.clock.advance(hours=2)
    assert sched.tick() == ["s: Spring 1901 Movement"]
    assert sched.tick() == []


def test_secrets_are_stored_hashed(site: Site) -> None:
    site.new_game("h")
    key = site.seat("h", "France", "Bruno")
    assert len(key) >= 40
    assert key != site.seat("h", "Germany", "Carla")
    with site.web.store.engine.connect() as conn:
        dump = []
        for table in ("access_keys", "web_sessions"):
            dump += [str(row) for row in conn.execute(sa.text(f"SELECT * FROM {table}"))]
    assert dump and not any(key in row or site.coordinator_key in row for row in dump)


def test_api_for_the_coordinator(site: Site) -> None:
    """Everything the desk does, by a script with the coordinator's bearer key."""
    import httpx  # noqa: F401  (the TestClient is httpx's)

    bot = site.browser()
    auth = {"Authorization": f"Bearer {site.coordinator_key}"}
    assert bot.post("/api/games", json={"name": "api", "variant": "1000ad", "movement": "1d"}, headers=auth).json() == {
        "name": "api"
    }
    seat = bot.post("/api/games/api/players", json={"power": "Vikings", "player": "Vera"}, headers=auth).json()
    assert seat["key"].startswith("dp_") and seat["link"].endswith(seat["key"])
    again = bot.post(
        "/api/games/api/keys", json={"role": "player", "power": "Vikings", "reason": "lost her link"}, headers=auth
    ).json()
    assert again["key"] != seat["key"]
    co = bot.post("/api/games/api/keys", json={"role": "coordinator", "label": "Co"}, headers=auth).json()
    assert bot.get("/api/games/api/coordinate", headers={"Authorization": f"Bearer {co['key']}"}).status_code == 200
    r = bot.post("/api/games/api/deadlines", json={"movement": "3d"}, headers=auth)
    assert r.status_code == 200 and "movement 3d" in r.json()["message"]
    r = bot.post("/api/games/api/actions", json={"action": "extend", "arg": "2h"}, headers=auth)
    assert r.status_code == 200 and "extended" in r.json()["message"]
    keys = bot.get("/api/games/api/coordinate", headers=auth).json()["keys"]
    r = bot.post(f"/api/games/api/keys/{keys[0]['id']}/revoke", headers=auth)
    assert r.status_code == 200
    assert (
        bot.get("/api/games/api/powers/Vikings", headers={"Authorization": f"Bearer {seat['key']}"}).status_code == 403
    )


def test_calendar_feed_dates_a_phase_processed_early_by_its_processing(site: Site) -> None:
    """The web feed says what the CLI's does: a phase processed before its deadline ended when it was processed."""
    site.new_game("early")
    site.clock.advance(days=1)
    store_processing.process(site.web.store, "early", now=site.clock(), force=True)
    text = site.browser().get("/games/early/calendar.ics").text
    spring = next(e for e in text.split("BEGIN:VEVENT")[1:] if "Spring 1901" in e)
    assert f"DTSTART:{site.clock():%Y%m%dT%H%M%SZ}" in spring, spring
