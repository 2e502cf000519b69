"""A practice game against bots from the home page: one POST makes the game, seats the visitor among bots and
takes them to their player page; the refusals (bad variant or power, no CSRF token, over the caps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from dippouch.store.bots import bot_seats, open_practice_games
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
    rec = site.web.store.phase_record(game, phase, open_ok=True)
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
    settings = store.status(game, now=site.clock()).settings
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
    st = site.web.store.status(game, now=site.clock())
    assert st.phase == "Fall 1901 Movement"
    subs = _submissions(site, game, "Fall 1901 Movement")
    assert set(subs) == {"Austria", "England", "France", "Italy", "Russia", "Turkey"}
    assert all(v == [(1, "bot", True)] for v in subs.values())
    germany = site.web.store.phase_record(game, "Spring 1901 Movement")["submissions"]
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
