"""Starting, joining and leaving games (play/openings.py), through each door that has them: the web's forms
and the JSON API (no command-line door exists for sign-up). Issue 40: only a coordinator could start a game;
"game starting" reached only the last to join; counts mixed sign-ups with seats; nobody could resign and the
replaced player was told nothing.

Each use case goes through both doors with the same request and must leave the same state behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.store import openings as store_openings
from dippouch.store import status as store_status
from dippouch.store.models import EventRow
from dippouch.store.people.persons import create_person, seats_of
from dippouch.store.people.reliability import record_of
from dippouch.store.press.messages import press_rules
from dippouch.store.rows import game_row
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

DOORS = ("web", "api")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'g.db'}")


def person(site: Site, name: str) -> tuple[int, Any]:
    """A person and a browser signed in as them (what their mailed sign-in link leaves behind)."""
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")
    return pid, c


def new_game(site: Site, door: str, c: Any, **choices: Any) -> str:
    """Start a game from a template through ``door``; its name."""
    if door == "api":
        r = site.api(c, "/api/games/new", choices)
        assert r.status_code == 200, r.text
        return str(r.json()["game"])
    form = {k: ("yes" if v is True else "no" if v is False else str(v)) for k, v in choices.items()}
    r = site.post_form(c, "/new-game", form)
    assert r.status_code == 303, r.text
    return str(r.headers["location"].split("/")[2])


def sign_up(site: Site, door: str, c: Any, game: str, *, wait: bool = False) -> Any:
    if door == "api":
        return site.api(c, f"/api/games/{game}/signup", {"preferences": ["any"], "wait": wait})
    return site.post_form(c, f"/games/{game}/opening/signup", {"wish1": "any", **({"wait": "1"} if wait else {})})


def resign(site: Site, door: str, c: Any, game: str) -> Any:
    if door == "api":
        return site.api(c, f"/api/games/{game}/resign")
    return site.post_form(c, f"/games/{game}/opening/resign", {"confirm": "yes"})


def events(site: Site, game: str, kind: str) -> list[dict[str, Any]]:
    """The details of ``game``'s events of ``kind``, as the notification dispatcher will read them."""
    with site.web.store.session() as s:
        g = game_row(s, game)
        return [e.detail for e in s.query(EventRow).filter(EventRow.game_id == g.id, EventRow.kind == kind)]


@pytest.mark.parametrize("door", DOORS)
def test_any_signed_in_player_starts_a_game_from_a_template_and_coordinates_it(site: Site, door: str) -> None:
    ann, a = person(site, "Ann")
    # Before: the coordinator's form was the only way, refused to a player.
    r = site.post_form(a, "/coordinate/new", {"name": "x", "variant": "standard"})
    assert r.status_code == 403 and "from a template at /new-game" in r.text
    game = new_game(site, door, a, template="gunboat-2d", name="gb", min_reliability=0)
    assert game == "gb"
    o = store_openings.opening(site.web.store, game)
    assert o is not None and o.creator_id == ann and o.mode == "preferences"
    assert press_rules(site.web.store, game).kind == "none"  # the template's press rule, the one every door enforces
    assert o.deadlines["movement"] == "2d"
    # The creator holds the game's coordinator powers, in any browser they sign in on, and no other game's.
    assert a.get(f"/games/{game}/coordinate").status_code == 200
    assert site.post_form(a, "/coordinate/new", {"name": "y", "variant": "standard"}).status_code == 403
    assert [g["game"] for g in site.browser().get("/api/open").json()["games"]] == ["gb"]
    # Someone else cannot coordinate it.
    _, b = person(site, "Bo")
    assert b.get(f"/games/{game}/coordinate").status_code == 403


@pytest.mark.parametrize("door", DOORS)
def test_a_template_game_starts_by_itself_when_full_and_tells_every_seated_person(site: Site, door: str) -> None:
    _, a = person(site, "Ann")
    game = new_game(site, door, a, template="variant-hundred3", name="h3")
    people = [person(site, n) for n in ("Bo", "Cy", "Di")]
    for _, c in people[:2]:
        r = sign_up(site, door, c, game)
        assert r.status_code in (200, 303), r.text
    o = store_openings.opening(site.web.store, game)
    assert o is not None and (o.taken, len(o.waiting), len(o.empty)) == (0, 2, 3)
    r = sign_up(site, door, people[2][1], game)  # the last sign-up draws the powers: no button pressed
    assert r.status_code in (200, 303), r.text
    assert {s.power for pid, _ in people for s in seats_of(site.web.store, pid)} == {"Burgundy", "England", "France"}
    assert store_status.status(site.web.store, game, now=site.clock()).deadline is not None  # the clock runs
    (started,) = events(site, game, "started")
    assert started["powers"] == ["Burgundy", "England", "France"]
    # Each of the three, not only the last to join, is told on their own page and in the API.
    for _, c in people:
        me = c.get("/api/me").json()
        assert [x["game"] for x in me["starting"]] == [game], me
        page = c.get("/me").text
        assert f'game-starting" role="status" data-game="{game}"' in page and "is starting:</strong>" in page


@pytest.mark.parametrize("door", DOORS)
def test_quick_play_joins_the_game_that_starts_soonest_with_these_settings(site: Site, door: str) -> None:
    _, a = person(site, "Ann")
    far = new_game(site, "api", a, template="variant-standard", name="far")
    near = new_game(site, "api", a, template="variant-standard", name="near")
    other = new_game(site, "api", a, template="variant-hundred3", name="other")
    for n in ("P1", "P2", "P3"):
        sign_up(site, "api", person(site, n)[1], near)
    sign_up(site, "api", person(site, "P4")[1], other)
    del far
    zed, z = person(site, "Zed")
    if door == "api":
        r = site.api(z, "/api/open/quick", {"variant": "standard"})
        assert r.status_code == 200 and r.json()["game"] == near, r.text
    else:
        r = site.post_form(z, "/open/quick", {"variant": "standard", "length": "", "press": "", "seats": ""})
        assert r.status_code == 303 and r.headers["location"] == f"/games/{near}/opening", r.text
    o = store_openings.opening(site.web.store, near)
    assert o is not None and zed in [s.person_id for s in o.waiting]
    # Nothing with these settings: a refusal that says what to do.
    if door == "api":
        r = site.api(z, "/api/open/quick", {"variant": "w3k"})
        assert r.status_code == 400 and "start one from a template" in r.json()["error"]


@pytest.mark.parametrize("door", DOORS)
def test_a_full_game_has_a_waiting_list_and_a_seat_resigned_after_the_start_goes_to_the_pool(
    site: Site, door: str
) -> None:
    _, a = person(site, "Ann")
    game = new_game(site, "api", a, template="variant-hundred3", name="wl")
    seated = [person(site, n) for n in ("Bo", "Cy", "Di")]
    for _, c in seated:
        sign_up(site, "api", c, game)
    eve, e = person(site, "Eve")
    refused = site.api(e, f"/api/games/{game}/signup", {"preferences": ["any"]})
    assert refused.status_code == 400 and "waiting list" in refused.json()["error"]
    r = sign_up(site, door, e, game, wait=True)
    assert r.status_code in (200, 303), r.text
    assert [x.game for x in store_openings.signups_of(site.web.store, eve) if x.on_waiting_list] == [game]
    assert e.get("/api/me").json()["signups"][0]["waiting_list"] is True
    # The game has started (sign-up ended when full): Bo's resignation goes to the pool...
    _, b = seated[0]
    r = resign(site, door, b, game)
    assert r.status_code in (200, 303), r.text
    (offer,) = store_openings.offered_seats(site.web.store, game)
    assert offer.reason == "resigned"


@pytest.mark.parametrize("door", DOORS)
def test_resigning_before_the_start_withdraws_a_sign_up_or_frees_the_power_without_counting_against_anyone(
    site: Site, door: str
) -> None:
    _, a = person(site, "Ann")
    game = new_game(site, "api", a, template="variant-hundred3", name="pre")
    bo, b = person(site, "Bo")
    _, c = person(site, "Cy")
    sign_up(site, "api", b, game)
    r = resign(site, door, b, game)  # a sign-up not seated: withdrawn
    assert r.status_code in (200, 303), r.text
    o = store_openings.opening(site.web.store, game)
    assert o is not None and o.waiting == []
    assert events(site, game, "resigned") == []  # nothing was seated, nothing to tell
    # Seated early (the creator drew for the two waiting), then resigned before the game started.
    sign_up(site, "api", b, game)
    sign_up(site, "api", c, game)
    assert site.api(a, f"/api/games/{game}/opening/draw").status_code == 200
    (power,) = [x.power for x in seats_of(site.web.store, bo)]
    r = resign(site, door, b, game)
    assert r.status_code in (200, 303), r.text
    assert seats_of(site.web.store, bo) == []
    o = store_openings.opening(site.web.store, game)
    assert o is not None and power in o.empty and o.closed_at is None
    (resigned,) = events(site, game, "resigned")
    assert resigned["started"] is False and resigned["person"] == bo
    assert record_of(site.web.store, bo).abandoned == 0


@pytest.mark.parametrize("door", DOORS)
def test_resigning_during_a_game_offers_the_seat_counts_as_abandoned_and_the_replaced_player_is_told(
    site: Site, door: str
) -> None:
    _, a = person(site, "Ann")
    game = new_game(site, "api", a, template="variant-hundred3", name="mid")
    seated = [person(site, n) for n in ("Bo", "Cy", "Di")]
    for _, c in seated:
        sign_up(site, "api", c, game)
    bo, b = seated[0]
    (power,) = [s.power for s in seats_of(site.web.store, bo)]
    r = resign(site, door, b, game)
    assert r.status_code in (200, 303), r.text
    (resigned,) = events(site, game, "resigned")
    assert resigned["person"] == bo and resigned["power"] == power and resigned["started"] is True
    assert record_of(site.web.store, bo).abandoned == 1
    me = b.get("/api/me").json()
    assert [x["leaving"] for x in me["seats"]] == [True]
    # Another person takes the seat from the pool: Bo is replaced and told (an event for his channels, his page).
    hal, h = person(site, "Hal")
    if door == "api":
        assert site.api(h, f"/api/games/{game}/claim", {"power": power}).status_code == 200
    else:
        assert site.post_form(h, f"/games/{game}/opening/claim", {"power": power}).status_code == 303
    (replaced,) = events(site, game, "seat_replaced")
    assert replaced["person"] == bo and replaced["power"] == power and replaced["reason"] == "resigned"
    assert [s.power for s in seats_of(site.web.store, hal)] == [power]
    page = b.get("/me").text
    assert f"{power} in" in page and "you resigned" in page and "you were replaced" in page
    assert "civil disorder" not in page


class _Tally:
    """A notification channel as the dispatcher takes one: it keeps what it is handed."""

    name = "openings-tally"
    kinds = frozenset({"game_starting"})

    def __init__(self) -> None:
        self.got: list[Any] = []

    def handle(self, event: Any, look: Any) -> int:
        self.got.append(event)
        return 1


def test_the_start_reaches_the_notification_channels_for_every_seated_person(site: Site) -> None:
    from dippouch.notify.dispatch import dispatch

    _, a = person(site, "Ann")
    game = new_game(site, "api", a, template="variant-hundred3", name="told")
    people = [person(site, n) for n in ("Bo", "Cy", "Di")]
    for _, c in people:
        sign_up(site, "api", c, game)
    tally = _Tally()
    dispatch(site.web.store, site.clock(), slow=False, only=[tally])
    (ev,) = tally.got
    assert ev.game == game and ev.detail["phase"]
    assert sorted(r.person_id for r in ev.readers) == sorted(pid for pid, _ in people)
