"""A practice game against bots from the home page: one POST makes the game, seats the visitor among bots and
takes them to their player page; the refusals (bad variant or power, no CSRF token, over the caps)."""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from dippouch.bots.practice import practice_idle, stop_left_practice_games
from dippouch.bots.seats import bot_seats
from dippouch.game import GameSettings
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.bots import open_practice_games
from dippouch.web.views.practice import client_tag
from dippouch.worker.service import process_due
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _start(site: Site, **form: str) -> tuple[Any, str, str]:
    """A new visitor starts a practice game; (their browser, the game, their power)."""
    visitor = site.browser()
    r = site.post_form(visitor, "/practice", form)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert location.startswith("/games/practice-") and "/play/" in location
    game = location.split("/")[2]
    power = location.split("/")[4]
    return visitor, game, power


def _submissions(site: Site, game: str, phase: str) -> dict[str, list[tuple[int, str, bool]]]:
    rec = store_history.phase_record(site.web.store, game, phase, open_ok=True)
    out: dict[str, list[tuple[int, str, bool]]] = {}
    for sub in rec["submissions"]:
        out.setdefault(sub["power"], []).append((sub["version"], sub["source"], sub["ready"]))
    return out


def test_one_post_makes_a_game_of_bots_and_lands_the_visitor_on_their_player_page(db_url: str) -> None:
    site = Site(db_url)
    visitor, game, power = _start(site, variant="standard", power="France", level="heuristic", pace="10m")
    assert power == "France"
    page = visitor.get(f"/games/{game}/play/France")  # the session cookie the POST set signs this browser in
    assert page.status_code == 200
    flash = unquote(visitor.cookies.get("dp_flash", "") or "")
    assert "you play France" in page.text or "you play France" in flash
    store = site.web.store
    others = {"Austria", "England", "Germany", "Italy", "Russia", "Turkey"}
    assert bot_seats(store, game) == dict.fromkeys(others, "heuristic")
    subs = _submissions(site, game, "Spring 1901 Movement")
    assert set(subs) == others  # every bot has sent its orders, ready; the visitor has sent nothing yet
    assert all(versions == [(1, "bot", True)] for versions in subs.values())
    settings = store_status.status(store, game, now=site.clock()).settings
    assert settings.practice and settings.deadlines["movement"] == "10m" and settings.missed_limit == 0
    assert open_practice_games(store) == {game: settings.practice}
    # Listed apart: not in the public list, in the visitor's own practice list.
    assert game not in site.browser().get("/").text
    home = visitor.get("/").text
    assert "Your practice games" in home and game in home


def test_orders_marked_ready_when_ready_get_the_phase_processed_and_the_bots_play_the_next(db_url: str) -> None:
    site = Site(db_url)
    visitor, game, power = _start(site, variant="standard", power="Germany", pace="ready")
    assert power == "Germany"
    r = site.post_form(
        visitor,
        f"/games/{game}/play/Germany/orders",
        {"orders": "A Berlin - Kiel\nA Munich - Ruhr\nF Kiel - Denmark", "ready": "on"},
    )
    assert r.status_code == 303, r.text
    assert "Spring 1901 Movement has been processed" in unquote(r.cookies.get("dp_flash", ""))
    st = store_status.status(site.web.store, game, now=site.clock())
    assert st.phase == "Fall 1901 Movement"
    subs = _submissions(site, game, "Fall 1901 Movement")
    assert set(subs) == {"Austria", "England", "France", "Italy", "Russia", "Turkey"}
    assert all(v == [(1, "bot", True)] for v in subs.values())
    germany = store_history.phase_record(site.web.store, game, "Spring 1901 Movement")["submissions"]
    assert [(s["power"], s["source"], s["ready"]) for s in germany if s["power"] == "Germany"] == [
        ("Germany", "web", True)
    ]


def test_any_power_seats_the_visitor_on_one_of_the_variants_powers(site: Site) -> None:
    _, game, power = _start(site, variant="hundred3", power="any")
    assert power in {"England", "France", "Burgundy"}
    assert set(bot_seats(site.web.store, game)) == {"England", "France", "Burgundy"} - {power}


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ({"variant": "atlantis"}, "no usable variant &#39;atlantis&#39;; choose one of"),
        ({"variant": "standard", "power": "Atlantis"}, "standard has no power &#39;Atlantis&#39;; its powers are"),
        ({"variant": "standard", "level": "genius"}, "unknown bot level &#39;genius&#39;; the levels are"),
        ({"variant": "standard", "pace": "1s"}, "no pace &#39;1s&#39;; choose one of"),
    ],
)
def test_a_bad_choice_is_refused_and_nothing_is_created(site: Site, form: dict[str, str], expected: str) -> None:
    visitor = site.browser()
    r = site.post_form(visitor, "/practice", form)
    assert r.status_code == 400 and expected in r.text, r.text
    assert open_practice_games(site.web.store) == {}


def test_a_practice_post_without_the_csrf_token_is_refused(site: Site) -> None:
    visitor = site.browser()
    r = visitor.post("/practice", data={"variant": "standard"}, follow_redirects=False)
    assert r.status_code == 403, r.text
    assert open_practice_games(site.web.store) == {}


def test_over_the_cap_per_client_then_overall_is_refused_saying_which_and_the_limit(site: Site) -> None:
    site.app.state.practice_caps = (2, 3)
    _start(site)
    _start(site)
    r = site.post_form(site.browser(), "/practice", {})
    assert r.status_code == 429
    assert "you already have 2 practice games going (at most 2 at once)" in r.text
    # Under a larger allowance per address, the site's cap (counting everyone's games) still refuses.
    site.app.state.practice_caps = (5, 2)
    r = site.post_form(site.browser(), "/practice", {})
    assert r.status_code == 429 and "the site has 2 practice games going, its limit (2)" in r.text
    assert len(open_practice_games(site.web.store)) == 2


def test_starting_practice_games_too_fast_is_refused_by_the_rate_limit(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}", limits={"practice": (1, 600.0)})
    _start(site)
    r = site.post_form(site.browser(), "/practice", {})
    assert r.status_code == 429 and "too many practice games started from you: at most 1 in 600 seconds" in r.text


def _fire(sites: list[Site], per_site: int, caps: tuple[int, int]) -> list[int]:
    """``per_site`` visitors on each server (each a Site: its own app, store and connection pool, as separate
    processes have) post at the same moment; the status codes, in any order."""
    visitors = []
    for site in sites:
        site.app.state.practice_caps = caps
        visitors += [(site, site.browser()) for _ in range(per_site)]
    barrier = threading.Barrier(len(visitors))

    def go(pair: tuple[Site, Any]) -> int:
        site, visitor = pair
        barrier.wait()
        r = site.post_form(visitor, "/practice", {"variant": "hundred3", "level": "hold"})
        return int(r.status_code)

    with ThreadPoolExecutor(len(visitors)) as pool:
        return list(pool.map(go, visitors))


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_concurrent_starts_on_several_servers_keep_the_caps_on_postgresql(db_url: str) -> None:
    unlimited = {"practice": (100, 600.0)}  # the rate limit is not what this test is about
    sites = [Site(db_url, limits=unlimited) for _ in range(3)]
    # Every request comes from one address: two may start a game, however many arrive at once.
    codes = _fire(sites, 3, caps=(2, 100))
    assert sorted(codes) == [303] * 2 + [429] * 7, codes
    assert len(open_practice_games(sites[0].web.store)) == 2
    # The site's cap holds the same way.
    codes = _fire(sites, 3, caps=(100, 5))
    assert sorted(codes) == [303] * 3 + [429] * 6, codes
    assert len(open_practice_games(sites[0].web.store)) == 5


def test_concurrent_starts_on_one_server_keep_the_cap(db_url: str) -> None:
    site = Site(db_url, limits={"practice": (100, 600.0)})
    codes = _fire([site], 6, caps=(2, 100))
    assert sorted(codes) == [303] * 2 + [429] * 4, codes


def test_the_client_tag_is_keyed_by_a_secret_of_the_installation(tmp_path: Path) -> None:
    address = "203.0.113.9"
    one = Site(f"sqlite:///{tmp_path / 'one.db'}")
    tag = client_tag(one.web, address)
    assert tag not in hashlib.sha256(f"dippouch practice|{address}".encode()).hexdigest()
    assert tag not in hashlib.sha256(address.encode()).hexdigest()
    # The same installation (another process, a restart) tags the address the same way; another does not.
    assert client_tag(Site(f"sqlite:///{tmp_path / 'one.db'}").web, address) == tag
    assert client_tag(Site(f"sqlite:///{tmp_path / 'two.db'}").web, address) != tag
    assert client_tag(one.web, "203.0.113.10") != tag


def test_how_long_a_left_practice_game_runs_on_follows_its_pace() -> None:
    def idle(deadline: str) -> timedelta:
        return practice_idle(
            GameSettings(deadlines={"movement": deadline, "retreats": deadline, "adjustments": deadline})
        )

    assert idle("2m") == timedelta(hours=1)
    assert idle("10m") == timedelta(minutes=100)
    assert idle("1d") == timedelta(days=7)
    assert idle("7d") == timedelta(days=7)


def test_a_practice_game_its_person_left_is_stopped_and_leaves_the_caps(db_url: str) -> None:
    site = Site(db_url)
    site.app.state.practice_caps = (1, 100)
    store = site.web.store
    visitor, game, power = _start(site, variant="standard", power="France", pace="1d", level="hold")
    assert site.post_form(site.browser(), "/practice", {}).status_code == 429  # one at a time for this address
    site.clock.advance(days=6)
    assert stop_left_practice_games(store, now=site.clock()) == []
    assert visitor.get(f"/games/{game}/play/{power}").status_code == 200  # the person comes back on day 6
    site.clock.advance(days=6)
    assert stop_left_practice_games(store, now=site.clock()) == []  # 12 days old, seen 6 days ago
    site.clock.advance(days=1, minutes=1)
    # The worker's pass (the deadline scheduler's too) stops it before it would process its due phase.
    assert [p.game for p in process_due(store, now=site.clock())] == []
    st = store_status.status(store, game, now=site.clock())
    assert st.state == "paused" and st.phase == "Spring 1901 Movement"
    assert open_practice_games(store) == {}
    # The address may start another now.
    _start(site, variant="hundred3", level="hold")
