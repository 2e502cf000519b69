"""The creator who plays (issue 56): in a game whose creator holds a seat, the actions that could favour one
player are the table's to vote, at every door that offers them (the desk's forms and the JSON API; the command
line is the installation's, which is never refused): pause beyond the one grace, extend, process before the
deadline, roll back, replace a player, unseal the open phase's orders. The refusal says to propose it; a passed
vote acts through the same use case (``by_vote=True``), and the installation's coordinator acts alone.
"""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dippouch.game import GameError
from dippouch.play import clock, games, seats
from dippouch.play.fairness import (
    GRACE,
    INSTALLATION,
    Actor,
    TableMustVote,
    end_lapsed_graces,
    player_run,
    refuse_seat_for_coordinator,
)
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.store.openings import open_game
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site

DOORS = ("desk", "api")
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
VOTE = "needs the table's vote: propose it on your page"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    """Game ``demo``, started by Ann, who plays France in it; every other power seated."""
    s = Site(f"sqlite:///{tmp_path / 'g.db'}", limits={})
    s.new_game("demo")
    store: GameStore = s.web.store
    ann = create_person(store, "Ann", now=s.clock(), email="ann@example.org")
    open_game(store, "demo", now=s.clock(), creator_id=ann)
    for power in POWERS:
        email = "ann@example.org" if power == "France" else None
        seats.seat(store, "demo", power, f"{power} player", now=s.clock(), email=email)
    assert player_run(store, "demo")
    return s


def ann(site: Site) -> Any:
    """Ann's browser: signed in as herself, she coordinates the game (her creator's grant) and plays France."""
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=1))
    c.get("/")
    return c


def act(site: Site, door: str, who: Any, action: str, **form: str) -> tuple[int, str]:
    """``who`` asks ``action`` through ``door``: (0 when done, else the status; what the door said)."""
    if door == "api":
        if action in ("assign", "replace"):
            body: dict[str, Any] = {"power": form["power"], "player": form["player"], "replace": action == "replace"}
            r = site.api(who, "/api/games/demo/players", body)
        elif action == "link":
            r = site.api(who, "/api/games/demo/keys", {"role": "player", "power": form["power"], "reason": "x"})
        elif action == "free":
            r = site.api(who, "/api/games/demo/opening/free", {"power": form["power"]})
        elif action == "export":
            r = site.api(who, "/api/games/demo/export", {"reason": "moving"})
        else:
            r = site.api(who, "/api/games/demo/actions", {"action": action, "arg": next(iter(form.values()), "")})
        return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)
    url = {"export": "/games/demo/export.json", "free": "/games/demo/opening/free"}.get(
        action, f"/games/demo/coordinate/{action}"
    )
    r = site.post_form(who, url, {**form, "confirm": "yes", "reason": "moving"}, headers={"Accept": "text/html"})
    if r.status_code == 303:
        page = who.get(r.headers["location"]).text
        return (403 if VOTE in html.unescape(page) else 0), html.unescape(page)
    return (0 if r.status_code == 200 else r.status_code), html.unescape(r.text)


REFUSED = [
    ("extend", {"by": "1d"}),
    ("process", {}),
    ("rollback", {"phase": "Spring 1901 Movement"}),
    ("replace", {"power": "Germany", "player": "Bo"}),
    ("link", {"power": "Germany"}),
    ("free", {"power": "Germany"}),
    ("export", {}),
]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize(("action", "form"), REFUSED, ids=[a for a, _ in REFUSED])
def test_the_creator_who_plays_cannot_change_the_game_alone(
    site: Site, door: str, action: str, form: dict[str, str]
) -> None:
    store: GameStore = site.web.store
    before = store_status.status(store, "demo", now=site.clock())
    players = store_games.players(store, "demo")
    keys = len(site.web.access.keys("demo"))
    a = ann(site)
    code, said = act(site, door, a, action, **form)
    assert code == 403 and VOTE in said, (door, action, code, said[-800:])
    after = store_status.status(store, "demo", now=site.clock())
    assert (after.phase, after.deadline, after.state) == (before.phase, before.deadline, before.state), action
    assert store_games.players(store, "demo") == players and len(site.web.access.keys("demo")) == keys, action
    if door == "desk" and action in ("process", "rollback"):  # the confirmation page says so before
        r = site.post_form(ann(site), f"/games/demo/coordinate/{action}", form, headers={"Accept": "text/html"})
        page = html.unescape(a.get(r.headers["location"]).text if r.status_code == 303 else r.text)
        assert VOTE in page, page[-800:]
    # The installation's coordinator is never refused.
    code, said = act(site, door, site.coordinator, action, **form)
    assert code == 0, (door, action, said[-800:])


@pytest.mark.parametrize("door", DOORS)
def test_the_creator_has_one_short_pause_and_the_table_votes_any_other(site: Site, door: str) -> None:
    store: GameStore = site.web.store
    a = ann(site)
    code, said = act(site, door, a, "pause")
    assert code == 0 and store_status.status(store, "demo", now=site.clock()).state == "paused", said[-800:]
    code, said = act(site, door, a, "resume")  # her own grace: hers to end
    assert code == 0 and store_status.status(store, "demo", now=site.clock()).state == "active", said[-800:]
    code, said = act(site, door, a, "pause")
    assert code == 403 and VOTE in said, said[-800:]
    assert store_status.status(store, "demo", now=site.clock()).state == "active"
    # A pause the table voted for is the table's to end as well.
    clock.pause(store, "demo", by=Actor("the table"), now=site.clock(), by_vote=True)
    code, said = act(site, door, a, "resume")
    assert code == 403 and VOTE in said, said[-800:]


def test_the_grace_pause_ends_by_itself_after_a_day(site: Site) -> None:
    store: GameStore = site.web.store
    by = Actor("Ann", person_id=1)
    got = clock.pause(store, "demo", by=by, now=site.clock())
    assert got.grace
    assert end_lapsed_graces(store, now=site.clock() + GRACE - timedelta(minutes=1)) == []
    assert end_lapsed_graces(store, now=site.clock() + GRACE) == ["demo"]
    assert store_status.status(store, "demo", now=site.clock() + GRACE).state == "active"


def test_the_deadline_workers_end_a_lapsed_grace(site: Site) -> None:
    from dippouch.play.processing import process_due

    store: GameStore = site.web.store
    clock.pause(store, "demo", by=Actor("Ann", person_id=1), now=site.clock())
    process_due(store, now=site.clock() + GRACE - timedelta(minutes=1))
    assert store_status.status(store, "demo", now=site.clock()).state == "paused"
    process_due(store, now=site.clock() + GRACE)
    assert store_status.status(store, "demo", now=site.clock()).state == "active"


def test_a_passed_vote_acts_through_the_same_use_cases(site: Site) -> None:
    store: GameStore = site.web.store
    by = Actor("Ann", person_id=1)
    with pytest.raises(TableMustVote):
        clock.extend(store, "demo", timedelta(days=1), by=by, now=site.clock())
    before = store_status.status(store, "demo", now=site.clock()).deadline
    assert before is not None
    got = clock.extend(store, "demo", timedelta(days=1), by=by, now=site.clock(), by_vote=True)
    assert got.deadline == before + timedelta(days=1)
    clock.process(store, "demo", by=by, now=site.clock(), by_vote=True)
    assert store_status.status(store, "demo", now=site.clock()).phase == "Fall 1901 Movement"
    clock.rollback(store, "demo", "Spring 1901 Movement", by=by, now=site.clock(), by_vote=True)
    seats.seat(store, "demo", "Germany", "Bo", now=site.clock(), replace=True, by=by, by_vote=True)
    assert dict((p, cur) for p, cur, _ in store_games.players(store, "demo"))["Germany"] == "Bo"
    assert games.export_file(store, "demo", by=by, now=site.clock(), unsealed=True, reason="x", by_vote=True)
    # What changes nobody's chances stays hers: the visibility, the deadlines of phases to come.
    games.set_visibility(store, "demo", "unlisted")


def test_a_game_without_a_creator_who_plays_is_coordinated_as_before(site: Site) -> None:
    store: GameStore = site.web.store
    seats.seat(store, "demo", "France", "Cy", now=site.clock(), replace=True, by=INSTALLATION)
    assert not player_run(store, "demo")
    got = clock.extend(store, "demo", timedelta(hours=1), by=Actor("Ann", person_id=1), now=site.clock())
    assert got.deadline is not None


def test_a_coordinated_games_coordinator_may_not_take_a_seat(site: Site) -> None:
    store: GameStore = site.web.store
    bo = create_person(store, "Bo", now=site.clock(), email="bo@example.org")
    with pytest.raises(GameError, match="you coordinate demo, so you may not play in it"):
        refuse_seat_for_coordinator(store, "demo", bo, coordinator=True)
    refuse_seat_for_coordinator(store, "demo", 1, coordinator=True)  # the creator: the game is player-run instead
    refuse_seat_for_coordinator(store, "demo", bo, coordinator=False)


def test_the_desk_and_the_api_tell_the_creator_who_plays_what_the_table_decides(site: Site) -> None:
    a = ann(site)
    assert 'id="table-decides"' in a.get("/games/demo/coordinate").text
    assert a.get("/api/games/demo/coordinate").json()["table_decides"] is True
    assert 'id="table-decides"' not in site.coordinator.get("/games/demo/coordinate").text
    assert site.coordinator.get("/api/games/demo/coordinate").json()["table_decides"] is False
    de = a.get("/games/demo/coordinate", headers={"Accept-Language": "de"}).text
    assert "brauchen die Abstimmung der Runde" in html.unescape(de)


@pytest.mark.parametrize("door", DOORS)
def test_the_creator_may_offer_their_own_seat_to_the_pool(site: Site, door: str) -> None:
    code, said = act(site, door, ann(site), "free", power="France")
    assert code == 0, said[-800:]
