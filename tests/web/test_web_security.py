"""The web app from an attacker's side: every refusal is a test that expects it."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.web.views.desk import new_coordinator_key
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


@pytest.fixture
def game(site: Site) -> Site:
    site.new_game("g", movement="2d")
    site.france = site.player("g", "France", "Bruno")  # type: ignore[attr-defined]
    site.germany = site.player("g", "Germany", "Carla")  # type: ignore[attr-defined]
    r = site.post_form(site.germany, "/games/g/play/Germany/orders", {"orders": "A mun - tyr\nF kie - den"})  # type: ignore[attr-defined]
    assert r.status_code == 303
    return site


SECRET_ORDERS = ("mun - tyr", "kie - den", "tyr", "den")


# --------------------------------------------------------------------------------------------------
# Another power's orders, another power's form


def test_a_power_cannot_open_or_use_another_powers_form(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    assert f.get("/games/g/play/Germany").status_code == 403
    assert f.get("/api/games/g/powers/Germany").status_code == 403
    assert game.post_form(f, "/games/g/play/Germany/orders", {"orders": "A mun H"}).status_code == 403
    assert game.api(f, "/api/games/g/powers/Germany/orders", {"text": "A mun H"}).status_code == 403
    assert game.api(f, "/api/games/g/powers/Germany/check", {"text": "A mun H"}).status_code == 403
    assert game.post_form(f, "/games/g/play/Germany/vote", {"draw": "yes"}).status_code == 403
    assert game.api(f, "/api/games/g/powers/Germany/vote", {"draw": True}).status_code == 403
    # Nothing was recorded for Germany by France.
    versions = game.germany.get("/api/games/g/powers/Germany").json()["versions"]  # type: ignore[attr-defined]
    assert [v["text"] for v in versions] == ["A mun - tyr\nF kie - den"]


def test_anonymous_visitors_cannot_act(game: Site) -> None:
    anon = game.browser()
    assert anon.get("/games/g/play/France").status_code == 403
    assert game.post_form(anon, "/games/g/play/France/orders", {"orders": "A par H"}).status_code == 403
    assert anon.get("/games/g/coordinate").status_code == 403
    assert anon.get("/coordinate").status_code == 403


def test_unrevealed_orders_stay_hidden(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    views = [
        f.get("/games/g").text,
        f.get("/api/games/g").text,
        f.get("/games/g/play/France").text,
        f.get("/api/games/g/powers/France").text,
        f.get("/games/g/export.json").text,
        f.get("/api/games/g/export").text,
        game.browser().get("/games/g").text,
    ]
    pid = f.get("/api/games/g").json()["phase_id"]
    views.append(f.get(f"/api/games/g/phases/{pid}").text)
    views.append(f.get(f"/games/g/phases/{pid}").text)
    for text in views:
        for secret in ("mun - tyr", "kie - den"):
            assert secret not in text
    # The coordinator sees that Germany sent orders, and when, but not what, until the deadline.
    before = game.coordinator.get("/api/games/g/coordinate").json()
    assert before["sealed"] and [s["power"] for s in before["submissions"]] == ["Germany"]
    assert "text" not in before["submissions"][0]
    assert "mun - tyr" not in game.coordinator.get("/games/g/coordinate").text
    game.clock.advance(days=3)
    after = game.coordinator.get("/api/games/g/coordinate").json()
    assert not after["sealed"] and after["submissions"][0]["text"] == "A mun - tyr\nF kie - den"
    # After processing everyone sees the orders in the results.
    game.post_form(game.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    assert re.search(r"A (mun|Munich) - (tyr|Tyrolia)", game.browser().get("/games/g").text)


def test_players_cannot_use_coordinator_actions(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    for action in (
        "process",
        "pause",
        "resume",
        "extend",
        "rollback",
        "assign",
        "replace",
        "link",
        "revoke",
        "deadlines",
        "visibility",
        "coordinator-key",
    ):
        r = game.post_form(
            f,
            f"/games/g/coordinate/{action}",
            {
                "power": "Germany",
                "player": "Mallory",
                "by": "9d",
                "key": "1",
                "phase": "Spring 1901",
                "visibility": "private",
            },
        )
        assert r.status_code == 403, action
    assert f.get("/games/g/coordinate").status_code == 403
    assert f.get("/api/games/g/coordinate").status_code == 403
    assert game.api(f, "/api/games/g/actions", {"action": "process"}).status_code == 403
    assert game.api(f, "/api/games/g/players", {"power": "Germany", "player": "Mallory"}).status_code == 403
    assert game.api(f, "/api/games", {"name": "mine", "variant": "standard"}).status_code == 403
    assert game.post_form(f, "/coordinate/new", {"name": "mine"}).status_code == 403
    assert f.get("/api/games/g").json()["phase"] == "Spring 1901 Movement"  # nothing happened


def test_a_game_coordinator_cannot_touch_another_game(site: Site) -> None:
    site.new_game("a")
    site.new_game("b")
    key = new_coordinator_key(site.web, "a", _coordinator(site), "co")
    co = site.browser(key)
    assert co.get("/games/a/coordinate").status_code == 200
    assert co.get("/games/b/coordinate").status_code == 403
    assert site.post_form(co, "/games/b/coordinate/process").status_code == 403
    assert site.post_form(co, "/coordinate/new", {"name": "c"}).status_code == 403
    # Nor revoke another game's keys by number.
    site.seat("b", "France", "X")
    bkeys = site.web.access.keys("b")
    assert site.post_form(co, "/games/a/coordinate/revoke", {"key": str(bkeys[0].id)}).status_code == 400
    assert not site.web.access.keys("b")[0].revoked_at


def _coordinator(site: Site):  # type: ignore[no-untyped-def]
    from dippouch.web.http.security import Viewer

    return Viewer(site.web.access.session_grants(site.coordinator.cookies.get("dp_session"), now=site.clock()) or [])


def test_w3k_proxy_orders_follow_the_rulebook(site: Site) -> None:
    """A W3K power may order another's unit (it counts if handed over); it still cannot submit *as* that power."""
    site.new_game("w", variant="w3k")
    v = load_variant("w3k")
    a, b = v.power_names[0], v.power_names[1]
    unit = v.start.units_of(b)[0]
    line = f"{unit.kind} {v.map.locations[unit.loc].abbr} H"
    client = site.player("w", a)
    got = site.api(client, f"/api/games/w/powers/{a}/orders", {"text": line}).json()
    assert got["power"] == a and got["lines"][0]["error"] is None  # the game layer's rule: accepted for a
    assert site.api(client, f"/api/games/w/powers/{b}/orders", {"text": line}).status_code == 403
    # Standard has no proxies: the same kind of line is refused, with the reason.
    site.new_game("s")
    fr = site.player("s", "France")
    got = site.api(fr, "/api/games/s/powers/France/orders", {"text": "A mun H"}).json()
    error = got["lines"][0]["error"]
    assert error and "Germany" in error and "France" in error, error


# --------------------------------------------------------------------------------------------------
# Secrets


def test_revoked_links_stop_working_at_once(game: Site) -> None:
    keys = {k.power: k for k in game.web.access.keys("g") if k.role == "player"}
    r = game.post_form(
        game.coordinator, "/games/g/coordinate/revoke", {"key": str(keys["France"].id), "confirm": "yes"}
    )
    assert r.status_code == 303
    f = game.france  # type: ignore[attr-defined]
    assert f.get("/games/g/play/France").status_code == 403  # the signed-in browser lost access
    assert game.post_form(f, "/games/g/play/France/orders", {"orders": "A par H"}).status_code == 403


def test_replacing_a_player_revokes_the_old_link(game: Site) -> None:
    new_key = re.search(
        r"/k/(dp_[\w-]+)",
        game.post_form(game.coordinator, "/games/g/coordinate/replace", {"power": "France", "player": "Dan"}).text,
    )
    assert new_key
    assert game.france.get("/games/g/play/France").status_code == 403  # type: ignore[attr-defined]
    assert game.browser(new_key.group(1)).get("/games/g/play/France").status_code == 200


def test_unknown_or_mangled_keys_are_refused(site: Site) -> None:
    c = site.browser()
    for bad in ("dp_" + "A" * 43, "nope", "dp_", site.coordinator_key[:-1], site.coordinator_key + "x", "x" * 500):
        assert c.get(f"/k/{bad}", follow_redirects=False).status_code == 404
    assert c.get("/api/games", headers={"Authorization": "Bearer dp_wrong"}).status_code == 403
    forged = site.browser()
    forged.cookies.set("dp_session", "dp_forged")
    assert forged.get("/coordinate").status_code == 403


def test_private_games_are_invisible(site: Site) -> None:
    site.new_game("p", visibility="private")
    anon = site.browser()
    for url in ("/games/p", "/api/games/p", "/games/p/calendar.ics", "/games/p/export.json", "/games/p/play/France"):
        assert anon.get(url).status_code == 404, url
    assert "p" not in [g["name"] for g in anon.get("/api/games").json()]
    assert site.player("p", "France").get("/games/p").status_code == 200


def test_sign_out_ends_the_session(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    token = f.cookies.get("dp_session")
    assert game.post_form(f, "/signout").status_code == 303
    replay = game.browser()
    replay.cookies.set("dp_session", token)
    assert replay.get("/games/g/play/France").status_code == 403


# --------------------------------------------------------------------------------------------------
# CSRF, rate limits, headers


def test_forms_need_the_csrf_token(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    url = "/games/g/play/France/orders"
    assert f.post(url, data={"orders": "A par H"}, follow_redirects=False).status_code == 403
    assert f.post(url, data={"orders": "A par H", "csrf": "x" * 43}, follow_redirects=False).status_code == 403
    ok = {"orders": "A par H", "csrf": game.csrf(f)}
    assert f.post(url, data=ok, headers={"Origin": "https://evil.example"}, follow_redirects=False).status_code == 403
    assert f.post(url, data=ok, headers={"Origin": "null"}, follow_redirects=False).status_code == 403
    assert f.post(url, data=ok, headers={"Origin": "http://testserver"}, follow_redirects=False).status_code == 303
    # Script calls with the session cookie need the token in a header; bearer-key calls do not.
    api = "/api/games/g/powers/France/orders"
    assert f.post(api, json={"text": "A par H"}).status_code == 403
    assert f.post(api, json={"text": "A par H"}, headers={"X-CSRF-Token": "wrong"}).status_code == 403
    key = game.seat("g", "Italy", "Ines")
    bare = game.browser()
    assert (
        bare.post(
            "/api/games/g/powers/Italy/orders", json={"text": "A rom H"}, headers={"Authorization": f"Bearer {key}"}
        ).status_code
        == 200
    )
    # Every page's forms carry the token.
    for page in ("/games/g/play/France", "/"):
        html = f.get(page).text
        assert html.count('name="csrf"') >= html.count('<form method="post"')


def test_failed_sign_ins_are_limited_without_locking_out_a_right_key(tmp_path: Path) -> None:
    """Guessing is refused after the limit, but a player behind the same address as the guesser (a school,
    an office, a mobile network) still signs in with their right key, by link, form or bearer key."""
    site = Site(f"sqlite:///{tmp_path / 'w.db'}", limits={"signin": (5, 60.0)})
    c = site.browser()
    for _ in range(6):  # signing in with a good key is not limited
        assert site.browser(site.coordinator_key).get("/coordinate").status_code == 200
    codes = [site.post_form(c, "/signin", {"key": f"dp_guess{i:040d}"}).status_code for i in range(7)]
    assert codes == [404] * 5 + [429] * 2
    assert "too many failed sign-ins" in site.post_form(c, "/signin", {"key": "x"}).text
    assert c.get(f"/k/dp_guess{0:040d}", follow_redirects=False).status_code == 429  # guessing by link too
    # The right key from the same address: accepted by link, by the sign-in form and as a bearer key.
    r = c.get(f"/k/{site.coordinator_key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.status_code == 303
    other = site.browser()
    assert site.post_form(other, "/signin", {"key": site.coordinator_key}).status_code == 303
    assert other.get("/coordinate").status_code == 200
    bearer = {"Authorization": f"Bearer {site.coordinator_key}"}
    assert site.browser().get("/api/games", headers=bearer).status_code == 200
    # ...and the guessing goes on being refused.
    assert site.post_form(c, "/signin", {"key": f"dp_guess{99:040d}"}).status_code == 429


def test_guessing_keys_through_the_api_is_rate_limited_too(tmp_path: Path) -> None:
    """A bearer key is a sign-in as much as a link is: wrong ones count against the same limit."""
    site = Site(f"sqlite:///{tmp_path / 'w.db'}", limits={"signin": (5, 60.0)})
    c = site.browser()
    codes = [c.get("/api/games", headers={"Authorization": f"Bearer dp_guess{i:040d}"}).status_code for i in range(7)]
    assert codes == [403] * 5 + [429] * 2
    r = c.get("/api/games", headers={"Authorization": "Bearer dp_guess"})
    assert r.status_code == 429 and "Retry-After" in r.headers
    assert c.get("/api/games", headers={"Authorization": f"Bearer {site.coordinator_key}"}).status_code == 200
    assert site.browser().get("/api/games").status_code == 200  # anonymous reading is not a sign-in


# --------------------------------------------------------------------------------------------------
# Sessions: fixation, login CSRF, tokens bound to the session, __Host- cookies


def test_signing_in_issues_a_new_session_so_a_planted_one_gains_nothing(game: Site) -> None:
    """Session fixation: an attacker plants their own live session in the victim's browser; the victim
    opens their link; the attacker's session must not gain the victim's power."""
    attacker_key = game.seat("g", "Italy", "Mallory")
    attacker = game.browser(attacker_key)
    planted = attacker.cookies.get("dp_session")
    assert planted
    victim_key = game.seat("g", "England", "Edith")  # the coordinator seats (and mails) a new link
    victim = game.browser()
    victim.cookies.set("dp_session", planted, domain="testserver.local")
    r = victim.get(f"/k/{victim_key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.status_code == 303
    issued = re.search(r"dp_session=([\w-]+)", r.headers["set-cookie"])
    assert issued and issued.group(1) != planted  # a new session secret at sign-in
    assert victim.get("/games/g/play/England").status_code == 200
    assert attacker.get("/games/g/play/England").status_code == 403  # the planted session gained nothing
    grants = game.web.access.session_grants(planted, now=game.clock()) or []
    assert "England" not in [g.power for g in grants]
    # A browser that already held a key keeps it under its new session (a coordinator who also plays).
    assert victim.get("/games/g/play/Italy").status_code == 200


def test_a_link_opened_from_another_site_asks_before_signing_in(game: Site) -> None:
    """Login CSRF: a page elsewhere must not sign a browser in by making it GET a link. Opened from a mail
    program (Sec-Fetch-Site: none) the link signs in at once; from another site, or from a browser that
    does not say, it shows a "Sign in as ..." button that posts with the CSRF token."""
    key = game.seat("g", "Austria", "Anna")
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {}):
        b = game.browser()
        r = b.get(f"/k/{key}", headers=headers, follow_redirects=False)
        assert r.status_code == 200, headers
        assert "dp_session" not in r.headers.get("set-cookie", "")
        assert "Sign in as Austria in g" in r.text and 'action="/signin"' in r.text
        assert b.get("/games/g/play/Austria").status_code == 403  # not signed in by the GET
        token = re.search(r'name="csrf" value="([^"]+)"', r.text)
        assert token
        # A forged post from the other site is refused; the button on our page signs in.
        forged = b.post(
            "/signin", data={"key": key, "csrf": token.group(1)}, headers={"Origin": "https://evil.example"}
        )
        assert forged.status_code == 403
        assert b.post("/signin", data={"key": key, "csrf": "x" * 43}, follow_redirects=False).status_code == 403
        ok = b.post("/signin", data={"key": key, "csrf": token.group(1)}, follow_redirects=False)
        assert ok.status_code == 303 and b.get("/games/g/play/Austria").status_code == 200
    assert game.browser().get("/k/dp_nope", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 404


def test_the_csrf_token_is_bound_to_the_session(game: Site) -> None:
    """A token from another browser (or planted in this one's CSRF cookie with a matching form field) does
    not fit this browser's session; every page carries the token freshly masked (BREACH)."""
    f = game.france  # type: ignore[attr-defined]
    mallory = game.player("g", "Italy", "Mallory")
    theirs = game.csrf(mallory)
    url = "/games/g/play/France/orders"
    f.cookies.set("dp_csrf", theirs)  # planted (a cookie set from a neighbouring host, or over plain http)
    r = f.post(url, data={"orders": "A par H", "csrf": theirs}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    anon = game.browser()
    r = f.post(url, data={"orders": "A par H", "csrf": game.csrf(anon)}, follow_redirects=False)
    assert r.status_code == 403
    # The page's own tokens work, and differ on each page (masked), and the token changes at sign-in.
    page1, page2 = f.get("/games/g/play/France").text, f.get("/games/g/play/France").text
    t1 = re.search(r'name="csrf" value="([^"]+)"', page1)
    t2 = re.search(r'name="csrf" value="([^"]+)"', page2)
    assert t1 and t2 and t1.group(1) != t2.group(1)
    for t in (t1.group(1), t2.group(1)):
        assert f.post(url, data={"orders": "A par H", "csrf": t}, follow_redirects=False).status_code == 303
    before = game.csrf(anon)
    anon.get(f"/k/{game.seat('g', 'Russia', 'Rurik')}", headers={"Sec-Fetch-Site": "none"})
    anon.get("/")
    assert game.csrf(anon) != before


def test_cookies_over_https_carry_the_host_prefix(game: Site) -> None:
    """Over https the session and CSRF cookies are __Host- cookies (Secure, Path=/, no Domain), and a plain
    dp_session planted beside them is not read; plain http on localhost keeps working (every other test)."""
    from fastapi.testclient import TestClient

    key = game.seat("g", "Turkey", "Tariq")
    c = TestClient(game.app, base_url="https://testserver", raise_server_exceptions=False)
    r = c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.status_code == 303
    cookie = next(v for k, v in r.headers.multi_items() if k == "set-cookie" and "dp_session" in v)
    assert cookie.startswith("__Host-dp_session=")
    assert "Secure" in cookie and "Path=/" in cookie and "domain" not in cookie.lower()
    csrf = next(v for k, v in r.headers.multi_items() if k == "set-cookie" and "dp_csrf" in v)
    assert csrf.startswith("__Host-dp_csrf=") and "Secure" in csrf and "Path=/" in csrf
    page = c.get("/games/g/play/Turkey")
    assert page.status_code == 200
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token
    r = c.post(
        "/games/g/play/Turkey/orders", data={"orders": "A con H", "csrf": token.group(1)}, follow_redirects=False
    )
    assert r.status_code == 303
    # The one-time message is a __Host- cookie too, read once and cleared under that name ...
    flash = next(v for k, v in r.headers.multi_items() if k == "set-cookie" and "dp_flash" in v)
    assert flash.startswith("__Host-dp_flash=") and "Secure" in flash and "Path=/" in flash, flash
    shown = c.get(r.headers["location"])
    assert "Version 1 recorded" in shown.text
    cleared = next(v for k, v in shown.headers.multi_items() if k == "set-cookie" and "dp_flash" in v)
    assert cleared.startswith("__Host-dp_flash=") and "Max-Age=0" in cleared
    # ... and a plain dp_flash tossed in by another host of the domain puts no words on the page.
    planted = TestClient(game.app, base_url="https://testserver", raise_server_exceptions=False)
    planted.cookies.set("__Host-dp_session", str(c.cookies.get("__Host-dp_session")))
    planted.cookies.set("dp_flash", "Your%20account%20is%20suspended")
    assert "suspended" not in planted.get("/games/g/play/Turkey").text
    # A session cookie without the prefix (which a subdomain or a plain-http page could plant) is ignored.
    tossed = TestClient(game.app, base_url="https://testserver", raise_server_exceptions=False)
    tossed.cookies.set("dp_session", str(c.cookies.get("__Host-dp_session")))
    assert tossed.get("/games/g/play/Turkey").status_code == 403


def test_submissions_are_rate_limited(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'w.db'}", limits={"submit": (3, 60.0)})
    site.new_game("g")
    f = site.player("g", "France")
    codes = [site.api(f, "/api/games/g/powers/France/orders", {"text": "A par H"}).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    r = site.api(f, "/api/games/g/powers/France/orders", {"text": "A par H"})
    assert "Retry-After" in r.headers and "too many submissions" in r.json()["error"]


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and "src" not in a and a.get("type") != "application/json":
            self.problems.append("inline <script>")
        for k, v in attrs:
            if k.startswith("on"):
                self.problems.append(f"inline handler {k} on <{tag}>")
            if k in ("href", "src", "action") and (v or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"javascript: URL in {k}")
            if k == "style":
                self.problems.append(f"inline style on <{tag}>")


def test_security_headers_and_no_inline_script(game: Site) -> None:
    f = game.france  # type: ignore[attr-defined]
    pages = [
        "/",
        "/games/g",
        "/games/g/play/France",
        "/variants",
        "/variants/standard",
        "/variants/standard/moves?q=par",
        "/signin",
        "/nope",
        "/api/docs",
    ]
    for url in pages:
        r = f.get(url)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"  # "no-referrer" makes browsers send Origin: null
        parser = _Scripts()
        parser.feed(r.text)
        assert parser.problems == [], (url, parser.problems)
    for url in ("/games/g/coordinate", "/coordinate"):
        parser = _Scripts()
        parser.feed(game.coordinator.get(url).text)
        assert parser.problems == [], url


def test_session_cookies_are_httponly(site: Site) -> None:
    r = site.browser().get(f"/k/{site.coordinator_key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    cookie = r.headers["set-cookie"]
    assert "dp_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie


def test_maps_show_a_power_only_its_own_orders(game: Site) -> None:
    """The player's map draws its own standing orders; nobody's map draws another power's before processing."""
    from dippouch.catalog import load_variant
    from dippouch.web.views.maps import map_available

    assert map_available(load_variant("standard")), "the standard variant's geometry is shipped: a map is drawn"
    f = game.france  # type: ignore[attr-defined]
    game.post_form(f, "/games/g/play/France/orders", {"orders": "A par - bur"})
    mine = f.get("/games/g/play/France").text
    assert re.search(r'id="order-\d+" data-power="France"', mine)
    for text in (mine, f.get("/games/g").text, game.browser().get("/games/g").text, f.get("/games/g/map.svg").text):
        assert not re.search(r'id="order-\d+" data-power="Germany"', text)


def test_the_coordinators_export_is_sealed_until_the_deadline(game: Site) -> None:
    """The W3K rule holds for the game file too: before the deadline the coordinator's export says who sent
    a version and when, never what (as `dippouch export` does); after it, everything."""
    co = game.coordinator
    for url in ("/games/g/export.json", "/api/games/g/export"):
        text = co.get(url).text
        for secret in SECRET_ORDERS[:2]:
            assert secret not in text, url
        data = co.get(url).json()
        (open_phase,) = [ph for ph in data["phases"] if ph["status"] == "open"]
        (sub,) = open_phase["submissions"]
        assert sub["power"] == "Germany" and sub["sealed"] and sub["text"] is None and sub["submitted_at"]
    # A player cannot unseal anything by asking.
    f = game.france  # type: ignore[attr-defined]
    assert "mun - tyr" not in f.get("/api/games/g/export?unsealed=1").text
    assert "mun - tyr" not in game.api(f, "/api/games/g/export", {"reason": "please"}).text
    game.clock.advance(days=3)
    data = co.get("/api/games/g/export").json()
    (open_phase,) = [ph for ph in data["phases"] if ph["status"] == "open"]
    assert open_phase["submissions"][0]["text"] == "A mun - tyr\nF kie - den"


def test_rolling_the_open_phase_back_onto_itself_unseals_nothing(game: Site) -> None:
    """A rollback of the open phase to itself sets it aside unprocessed (its orders carried into the new
    one): its page, its API answer and the game file must keep those orders sealed as long as the open
    phase is, or a coordinator could read orders before the deadline by rolling back."""
    co = game.coordinator
    r = game.post_form(co, "/games/g/coordinate/rollback", {"phase": "Spring 1901 Movement", "confirm": "yes"})
    assert r.status_code == 303
    hist = co.get("/api/games/g").json()["history"]
    set_aside = next(h["id"] for h in hist if h["status"] == "abandoned")
    views = [
        co.get(f"/games/g/phases/{set_aside}").text,
        co.get(f"/api/games/g/phases/{set_aside}").text,
        co.get("/games/g/export.json").text,
        co.get("/api/games/g/export").text,
        co.get("/games/g/coordinate").text,
    ]
    for text in views:
        for secret in SECRET_ORDERS[:2]:
            assert secret not in text
    game.clock.advance(days=5)  # every deadline passed: the coordinator may read it all
    assert "A mun - tyr" in co.get(f"/games/g/phases/{set_aside}").text
