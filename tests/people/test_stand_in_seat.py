"""A stand-in orders an absent player's seat, and holds nothing else of it: not the player's sealed orders (nor
what a receipt would tell of them), not the seat's letters from before, not its draw vote, not its pen. A
coordinator who names themselves stand-in gets nothing sealed that way. From the stand-in's side."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
from test_roster_web import _api, person_browser, seated_person

from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import sealing as store_sealing
from dippouch.store import transfer as store_transfer
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from websupport import Site

SEALED = "A par - bur"
"""Ann's orders, sealed until the deadline: Army Paris to Burgundy; Army Marseilles and Fleet Brest unordered."""
LETTER = "Meet me in Burgundy"
G = "/api/games/g"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _away_with_stand_in(site: Site, stand_in_email: str) -> Any:
    """Game g: Ann (France) sent sealed orders and a letter to England, named her holiday (2-3 Dec); the
    coordinator's policy names the stand-in; the clock is on 2 December. Ann's browser."""
    site.new_game("g", "standard", movement="2d")
    _, ann = seated_person(site, "g", "France", "Ann")
    en = site.player("g", "England", "Ed")
    assert _api(site, ann, "POST", f"{G}/powers/France/orders", {"text": SEALED}).status_code == 200
    r = _api(site, ann, "POST", f"{G}/powers/France/press", {"to": ["England"], "text": LETTER})
    assert r.status_code == 200, r.text
    assert site.api(en, f"{G}/powers/England/press", {"to": ["France"], "text": "Agreed"}).status_code == 200
    r = site.post_form(
        site.coordinator, "/games/g/roster/settings", {"absence_policy": "stand_in", "stand_in": stand_in_email}
    )
    assert r.status_code == 303, r.text
    assert site.post_form(ann, "/me/absences", {"from": "2026-12-02", "to": "2026-12-03"}).status_code == 303
    site.clock.advance(days=1)
    return ann


def _nothing_sealed(site: Site, c: Any) -> None:
    """What ``c`` reads of France's seat holds nothing of Ann's sealed orders (the seat's page, its API view)."""
    view = c.get(f"{G}/powers/France")
    assert view.status_code == 200, view.text
    data = view.json()
    assert data["versions"] == [] and data["latest_text"] == ""
    assert data["unordered"] == {"units": [], "notes": []}
    assert "bur" not in str(data["versions"]) and "Burgundy" not in str(data["unordered"])
    page = c.get("/games/g/play/France")
    assert page.status_code == 200 and "Your versions" not in page.text and "Your orders as they stand" not in page.text


def test_a_stand_in_orders_the_seat_but_reads_nothing_the_player_sealed(site: Site) -> None:
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    _away_with_stand_in(site, "bo@example.org")
    bo = person_browser(site, bo_id)
    _nothing_sealed(site, bo)
    # The live line check is the seat's too (the order page's), and only for the seat stood in for.
    r = _api(site, bo, "POST", f"{G}/powers/France/check", {"text": "A par - pic"})
    assert r.status_code == 200 and r.json()["lines"][0]["order"] and not r.json()["lines"][0]["error"], r.text
    assert _api(site, bo, "POST", f"{G}/powers/England/check", {"text": "F lon - nth"}).status_code == 403
    # The seat is theirs to order: a version, ready.
    r = _api(site, bo, "POST", f"{G}/powers/France/orders", {"text": "A par - pic\nA mar h\nF bre h", "ready": True})
    assert r.status_code == 200 and r.json()["version"] == 2 and r.json()["accepted"] == 3, r.text
    assert bo.get(f"{G}/powers/France").json()["ready"] is True
    # A version of theirs that does not replace Ann's says so, and nothing of what Ann's leaves unordered.
    r = _api(site, bo, "POST", f"{G}/powers/France/orders", {"text": "hello"})
    assert r.status_code == 200 and r.json()["stands"] is False
    assert r.json()["unordered"] == [] and r.json()["unordered_notes"] == []
    _nothing_sealed(site, bo)
    # The orders that stand when the phase is processed count: the stand-in's.
    store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    rec = store_history.phase_record(site.web.store, "g", phase_id=site.web.access.phases("g")[0].id)
    assert "A PAR - PIC" in str(rec["orders"]).upper() or "Picardy" in str(rec["orders"]), rec["orders"]


def test_a_stand_in_neither_reads_nor_writes_the_seats_press(site: Site) -> None:
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    _away_with_stand_in(site, "bo@example.org")
    bo = person_browser(site, bo_id)
    refused = "France's press is its player's own: as their stand-in you order the seat while they are away"
    channel = 1
    for url in (
        f"{G}/powers/France/press",
        f"{G}/powers/France/press/since/0",
        f"{G}/powers/France/press/channels/{channel}",
        "/games/g/play/France/press-events",
        f"/games/g/play/France/press/{channel}",
    ):
        r = bo.get(url)
        assert r.status_code == 403 and refused in html.unescape(r.text), (url, r.status_code, r.text[:300])
        assert LETTER not in r.text and "Agreed" not in r.text
    page = bo.get("/games/g/play/France").text
    assert LETTER not in page and "Agreed" not in page and 'id="press-compose"' not in page
    # Nor does a letter go in the seat's name, by the API or the form.
    r = _api(site, bo, "POST", f"{G}/powers/France/press", {"to": ["England"], "text": "From France, truly"})
    assert r.status_code == 403 and refused in r.text
    r = site.post_form(bo, "/games/g/play/France/press", {"to": "England", "text": "From France, truly"})
    assert r.status_code == 403 and refused in html.unescape(r.text)
    assert "From France, truly" not in str(
        store_transfer.game_file(site.web.store, "g", view="coordinator", now=site.clock())
    )


def test_a_draw_vote_is_the_players_own_not_the_stand_ins(site: Site) -> None:
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    _away_with_stand_in(site, "bo@example.org")
    bo = person_browser(site, bo_id)
    refused = "a draw vote is France's player's own: as their stand-in you order the seat while they are away"
    r = _api(site, bo, "POST", f"{G}/powers/France/vote", {"draw": True})
    assert r.status_code == 403 and refused in r.json()["error"]
    r = site.post_form(bo, "/games/g/play/France/vote", {"draw": "yes"})
    assert r.status_code == 403 and refused in html.unescape(r.text)
    assert [p for p, yes, _ in store_votes.vote_history(site.web.store, "g") if yes] == []


def test_a_coordinator_who_names_themselves_stand_in_gets_nothing_sealed(site: Site) -> None:
    cora = create_person(site.web.store, "Cora", now=site.clock(), email="cora@example.org")
    _away_with_stand_in(site, "cora@example.org")
    (key,) = [k for k in site.web.access.keys(None) if k.role == "coordinator"]
    c = person_browser(site, cora)
    c.cookies.set("dp_session", site.web.access.start_session([key.id], now=site.clock(), person_id=cora))
    assert c.get("/coordinate").status_code == 200  # the installation's coordinator, signed in as a person
    _nothing_sealed(site, c)
    # Nor the letters: the game does not let its coordinator read private press, and the seat does not either.
    assert c.get(f"{G}/powers/France/press").status_code == 403
    assert LETTER not in c.get(f"{G}/press").text
    # The coordinator's own view of the open phase stays sealed, and no unsealing was needed or recorded.
    phase_id = site.web.access.phases("g")[-1].id
    ph = c.get(f"/api/games/g/phases/{phase_id}")
    assert ph.status_code == 200 and ph.json()["submissions"]["sealed"] is True and "bur" not in ph.text
    assert store_sealing.unsealings(site.web.store, "g") == []


def test_a_private_games_stand_in_opens_the_seat_and_the_game(site: Site) -> None:
    bo_id = create_person(site.web.store, "Bo", now=site.clock(), email="bo@example.org")
    _away_with_stand_in(site, "bo@example.org")
    site.web.access.set_visibility("g", "private")
    site.web.touched("g")
    bo = person_browser(site, bo_id)
    assert site.browser().get("/games/g").status_code == 404
    assert bo.get("/games/g").status_code == 200
    _nothing_sealed(site, bo)
    r = _api(site, bo, "POST", f"{G}/powers/France/orders", {"text": "A par - pic"})
    assert r.status_code == 200, r.text
    assert bo.get("/games/g/play/Italy").status_code == 403  # only the absent player's seat
