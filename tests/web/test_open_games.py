"""Finding, starting and leaving games on the web, as issue 40's trial met them: /open had no filters; the seat
counter read "1/7 taken" after one sign-up and "3/3 taken" with two powers empty after a bot was seated (the
draw waited for "Draw now"); /me told a lobby player to "open the link a coordinator sent you"; only a
coordinator could start a game. Each test below fails on the code before these changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dippouch.store import openings as store_openings
from dippouch.store.models import EventRow
from dippouch.store.people.persons import create_person, seats_of
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def person(site: Site, name: str) -> tuple[int, Any]:
    pid = create_person(site.web.store, name, now=site.clock())
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")
    return pid, c


def opened(site: Site, name: str, variant: str, *, mode: str = "preferences", **form: str) -> str:
    site.new_game(name, variant, **form)
    r = site.api(site.coordinator, f"/api/games/{name}/opening", {"mode": mode})
    assert r.status_code == 200, r.text
    return name


def listed(c: Any, query: str = "") -> list[str]:
    return [g["game"] for g in c.get(f"/api/open{query}").json()["games"]]


def test_the_counts_say_seats_filled_sign_ups_and_empty_powers_apart(site: Site) -> None:
    opened(site, "league7", "standard")
    _, a = person(site, "Alice")
    site.api(a, "/api/games/league7/signup", {"preferences": ["France"]})
    (g,) = site.browser().get("/api/open").json()["games"]
    assert (g["seats_taken"], g["signups"], g["seats_empty"], g["needed"]) == (0, 1, 7, 6)
    page = site.browser().get("/games/league7/opening").text
    assert "0 of 7 played · 1 signed up · 7 empty" in page and "1/7 taken" not in page


def test_a_bot_taking_the_power_sign_ups_were_short_of_starts_the_game_without_a_button(site: Site) -> None:
    opened(site, "anon3", "hundred3")
    people = [person(site, n) for n in ("Ann", "Bo")]
    for _, c in people:
        site.api(c, "/api/games/anon3/signup", {"preferences": ["any"]})
    r = site.api(site.coordinator, "/api/games/anon3/bots", {"power": "Burgundy", "level": "hold"})
    assert r.status_code == 200, r.text
    # The two waiting were drawn into England and France at once: nobody pressed "Draw now".
    assert {s.power for pid, _ in people for s in seats_of(site.web.store, pid)} == {"England", "France"}
    o = store_openings.opening(site.web.store, "anon3")
    assert o is not None and o.empty == [] and o.closed_at is not None and o.taken == 3


def test_filters_narrow_the_list_and_keep_the_chosen_values_in_the_form(site: Site) -> None:
    opened(site, "slow", "standard", movement="3d")
    opened(site, "quick", "standard", movement="1h")
    opened(site, "tiny", "hundred3", movement="1d")
    r = site.api(site.coordinator, "/api/games/quick/press/rules", {"rules": {"kind": "none"}})
    assert r.status_code == 200, r.text
    _, p = person(site, "P")
    site.api(p, "/api/games/tiny/signup", {"preferences": ["any"]})
    v = site.browser()
    assert set(listed(v)) == {"slow", "quick", "tiny"}
    assert listed(v, "?variant=hundred3") == ["tiny"]
    assert set(listed(v, "?length=1d")) == {"quick", "tiny"}
    assert listed(v, "?press=none") == ["quick"]
    assert listed(v, "?soon=1") == ["tiny"]  # two more sign-ups fill it
    assert set(listed(v, "?seats=4")) == {"slow", "quick"}
    page = v.get("/open?variant=hundred3&length=1d&soon=1&seats=1").text
    assert '<option value="hundred3" selected>Hundred3</option>' in page and "<option selected>1d</option>" in page
    assert 'name="soon" value="1" checked' in page and 'name="seats" value="1"' in page
    assert 'data-game="tiny"' in page and 'data-game="slow"' not in page


def test_a_filter_with_no_such_choice_is_refused_on_the_list_with_what_was_typed(site: Site) -> None:
    opened(site, "slow", "standard")
    r = site.browser().get("/open?length=5y&variant=standard")
    assert r.status_code == 400
    assert "phase length '5y': choose one of 1h, 1d, 2d, 7d" in r.text.replace("&#39;", "'")
    assert (
        '<option value="standard" selected>Standard Diplomacy</option>' in r.text and 'id="filters-refused"' in r.text
    )
    api = site.browser().get("/api/open?press=loud")
    assert api.status_code == 400 and "no press kind 'loud'" in api.json()["error"]


def test_me_lists_sign_ups_and_no_longer_sends_lobby_players_to_a_coordinators_link(site: Site) -> None:
    opened(site, "lobby", "standard")
    _, h = person(site, "Henry")
    before = h.get("/me").text
    assert "Open the link a coordinator sent you" not in before and 'href="/open"' in before
    site.api(h, "/api/games/lobby/signup", {"preferences": ["any"]})
    me = h.get("/api/me").json()
    assert [(x["game"], x["waiting_list"]) for x in me["signups"]] == [("lobby", False)]
    assert 'id="my-signups"' in h.get("/me").text


def test_a_new_game_from_a_template_refuses_what_it_cannot_make_saying_what_to_change(site: Site) -> None:
    visitor = site.browser()
    assert visitor.get("/new-game").status_code == 401
    assert site.api(visitor, "/api/games/new", {"template": "gunboat-2d"}).status_code == 401
    _, a = person(site, "Ann")
    assert 'value="gunboat-2d"' in a.get("/new-game").text
    r = site.api(a, "/api/games/new", {"template": "gunbot"})
    assert (
        r.status_code == 400 and "no template 'gunbot'; choose one of standard-1d-full, gunboat-2d" in r.json()["error"]
    )
    r = site.api(a, "/api/games/new", {"template": "gunboat-2d", "movement": "0m"})
    assert r.status_code == 400 and "movement" in r.json()["error"]
    r = site.api(a, "/api/games/new", {"template": "gunboat-2d", "press": "loud"})
    assert r.status_code == 400 and "no press kind 'loud'" in r.json()["error"]
    for i in range(store_openings.MAX_CREATED):
        assert site.api(a, "/api/games/new", {"template": "gunboat-2d", "name": f"g{i}"}).status_code == 200
    r = site.api(a, "/api/games/new", {"template": "gunboat-2d", "name": "one-more"})
    assert r.status_code == 400 and "not finished (at most 3)" in r.json()["error"]
    assert site.browser().get("/games/one-more").status_code == 404  # refused before anything was made


def test_a_private_game_is_found_by_its_invitation_link_only(site: Site) -> None:
    _, a = person(site, "Ann")
    r = site.api(a, "/api/games/new", {"template": "variant-hundred3", "name": "friends", "private": True})
    assert r.status_code == 200, r.text
    link = r.json()["invitation"]
    assert link.startswith("/games/friends/opening?invite=dp_")
    assert listed(site.browser()) == []
    bo, b = person(site, "Bo")
    assert b.get("/games/friends/opening").status_code == 404
    page = b.get(link)
    assert page.status_code == 200 and "Sign up" in page.text
    secret = link.split("invite=")[1]
    r = site.api(b, "/api/games/friends/signup", {"preferences": ["any"], "invite": secret})
    assert r.status_code == 200, r.text
    assert b.get("/games/friends/opening").status_code == 200  # signed up: they see it without the link
    # A new link (the creator's) and the old one stops working.
    r = site.post_form(a, "/games/friends/opening/invite")
    assert r.status_code == 303 and "invite=dp_" in r.headers["location"]
    _, c = person(site, "Cy")
    assert c.get(link).status_code == 404
    assert c.get(r.headers["location"]).status_code == 200
    assert bo in [s.person_id for s in store_openings.opening(site.web.store, "friends").waiting]  # type: ignore[union-attr]


def test_resigning_on_the_page_asks_to_be_sure(site: Site) -> None:
    opened(site, "g", "hundred3")
    _, a = person(site, "Ann")
    site.api(a, "/api/games/g/signup", {"preferences": ["any"]})
    assert "Leave this game" in a.get("/games/g/opening").text
    r = site.post_form(a, "/games/g/opening/resign", {}, headers={"referer": "http://testserver/games/g/opening"})
    assert r.status_code == 303 and r.headers["location"] == "/games/g/opening"
    assert "I want to leave this game" in a.get(r.headers["location"]).text
    o = store_openings.opening(site.web.store, "g")
    assert o is not None and len(o.waiting) == 1  # nothing was withdrawn


def test_every_seated_person_sees_the_start_on_the_opening_not_only_the_last_to_join(site: Site) -> None:
    opened(site, "h", "hundred3")
    people = [person(site, n) for n in ("Ann", "Bo", "Cy")]
    for _, c in people:
        site.api(c, "/api/games/h/signup", {"preferences": ["any"]})
    for _, c in people:
        page = c.get("/games/h/opening").text
        assert 'id="started"' in page and "the game is under way and you play" in page


def test_a_player_whose_seat_the_coordinator_freed_is_told_and_their_page_says_so_not_civil_disorder(
    site: Site,
) -> None:
    opened(site, "league7", "hundred3")
    people = [person(site, n) for n in ("Ann", "Bo", "Frank")]
    for _, c in people:
        site.api(c, "/api/games/league7/signup", {"preferences": ["any"]})
    frank, f = people[2]
    (power,) = [s.power for s in seats_of(site.web.store, frank)]
    assert site.api(site.coordinator, "/api/games/league7/opening/free", {"power": power}).status_code == 200
    _, h = person(site, "Henry")
    assert site.api(h, "/api/games/league7/claim", {"power": power}).status_code == 200
    with site.web.store.session() as s:
        kinds = {e.kind: e.detail for e in s.query(EventRow).filter(EventRow.kind.in_(("freed", "seat_replaced")))}
    assert kinds["freed"]["person"] == frank and kinds["seat_replaced"]["person"] == frank
    page = f.get("/me").text
    assert "its coordinator freed your seat" in page and "you were replaced" in page
    assert "civil disorder" not in page
    assert f.get("/api/me").json()["left"][0]["why"] == "freed"


def test_an_old_link_to_a_seat_one_left_shows_ones_games_and_anyone_else_is_still_refused(site: Site) -> None:
    """A mail from before one was replaced links one's old player page: it leads to /me with why, not to a
    refusal; a person who never held the seat is refused as before."""
    opened(site, "league8", "hundred3")
    people = [person(site, n) for n in ("Ann", "Bo", "Frank")]
    for _, c in people:
        site.api(c, "/api/games/league8/signup", {"preferences": ["any"]})
    frank, f = people[2]
    (power,) = [s.power for s in seats_of(site.web.store, frank)]
    assert site.api(site.coordinator, "/api/games/league8/opening/free", {"power": power}).status_code == 200
    _, h = person(site, "Henry")
    assert site.api(h, "/api/games/league8/claim", {"power": power}).status_code == 200
    r = f.get(f"/games/league8/play/{power}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/me"
    assert f"You do not play {power} in league8 now" in f.get("/me").text
    _, stranger = person(site, "Stranger")
    assert stranger.get(f"/games/league8/play/{power}", follow_redirects=False).status_code == 403
    assert h.get(f"/games/league8/play/{power}").status_code == 200


def test_a_seat_to_claim_now_is_offered_without_the_waiting_list_beside_it(site: Site) -> None:
    """The walk's phone shot: "Join the waiting list" beside "Claim England" after a resignation confused which
    to press; while a seat can be claimed at once, only the claim is offered."""
    opened(site, "league9", "hundred3")
    people = [person(site, n) for n in ("Ann", "Bo", "Frank")]
    for _, c in people:
        site.api(c, "/api/games/league9/signup", {"preferences": ["any"]})
    _, h = person(site, "Henry")
    assert "Join the waiting list" in h.get("/games/league9/opening").text  # full, nothing to claim
    frank = people[2][0]
    (power,) = [s.power for s in seats_of(site.web.store, frank)]
    assert site.api(site.coordinator, "/api/games/league9/opening/free", {"power": power}).status_code == 200
    page = h.get("/games/league9/opening").text
    assert f"Claim {power}" in page and "Join the waiting list" not in page


def test_the_new_game_templates_name_each_variant_by_its_title(site: Site) -> None:
    _, a = person(site, "ann")
    page = a.get("/new-game").text
    assert "Wars of the Three Kingdoms, 2 days, the variant&#39;s press" in page
    assert "w3k, 2 days" not in page and '<small class="muted">w3k;' not in page
    # The gunboat preset stands under Standard Diplomacy's heading (tests/web/test_front_door.py).
    standard = page.split('id="variant-standard"')[1].split("</fieldset>")[0]
    assert "<legend>Standard Diplomacy</legend>" in standard and 'value="gunboat-2d"' in standard, standard


def test_a_sign_up_has_one_withdraw_button_not_two(site: Site) -> None:
    """The players' walk found two "Withdraw" buttons for one sign-up (one asked to be sure, one did not)."""
    opened(site, "w", "hundred3")
    _, a = person(site, "Ann")
    site.api(a, "/api/games/w/signup", {"preferences": ["any"]})
    page = a.get("/games/w/opening").text
    assert page.count(">Withdraw</button>") == 1 and 'action="/games/w/opening/resign"' in page
