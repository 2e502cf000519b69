"""The sandbox on the web: started from a live game's phase (one the visitor may see) or a variant's opening,
a convoy and a retreat adjudicated with the real engine through the forms alone (no JavaScript), the game
never touched, the share link read-only, and every refusal said in words (a refused form comes back filled)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import pytest

from dippouch.store import transfer as store_transfer
from dippouch.store.people.persons import create_person
from websupport import Site

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _start(site: Site, c: TestClient, **form: str) -> str:
    r = site.post_form(c, "/sandbox", form)
    assert r.status_code == 303, r.text
    # The edit link (dp_...) for a maker not signed in, the share link for one signed in.
    assert re.fullmatch(r"/sandbox/[A-Za-z0-9_-]+", r.headers["location"])
    return str(r.headers["location"])


def _post(site: Site, c: TestClient, url: str, **form: str) -> Any:
    """A form posted from the sandbox's page, as a browser posts it (its Referer: the page)."""
    return site.post_form(c, url, form, headers={"Referer": "http://testserver" + url.rsplit("/", 1)[0]})


def _flash(r: Any) -> str:
    cookie = [v for v in r.headers.get_list("set-cookie") if v.startswith("dp_flash=")]
    return unquote(cookie[0].split(";")[0].removeprefix("dp_flash=")) if cookie else ""


def _units(c: TestClient, here: str) -> set[tuple[str, str]]:
    r = c.get("/api" + here)
    assert r.status_code == 200, r.text
    return {(u["power"], u["unit"]) for u in r.json()["units"]}


def _step(site: Site, c: TestClient, here: str, orders: str) -> None:
    r = _post(site, c, here + "/orders", orders=orders, do="adjudicate")
    assert r.status_code == 303 and r.headers["location"] == here, _flash(r)
    assert _flash(r).startswith("Adjudicated"), _flash(r)


def test_a_live_phase_s_sandbox_adjudicates_a_convoy_and_a_retreat_and_never_touches_the_game(site: Site) -> None:
    game = site.new_game("live")
    france = site.player(game, "France")
    sent = site.api(france, f"/api/games/{game}/powers/France/orders", {"text": "A par - bur"})
    assert sent.status_code == 200, sent.text
    phase = site.web.access.phases(game)[-1]
    before = store_transfer.export_game(site.web.store, game)
    c = site.browser()  # a visitor, not signed in: the game is public
    page = c.get(f"/games/{game}/phases/{phase.id}")
    assert page.status_code == 200 and "Open in a sandbox" in page.text
    here = _start(site, c, game=game, phase_id=str(phase.id))
    r = c.get(here)
    assert r.status_code == 200
    assert "Orders for Spring 1901 Movement" in r.text and "only way back to this sandbox" in r.text
    assert f'href="/games/{game}/phases/{phase.id}"' in r.text

    _step(site, c, here, "F lon - nth\nF edi - nwg")
    assert _post(site, c, here + "/units", power="England", kind="A", where="London").status_code == 303
    _step(site, c, here, "A lon - bel\nEngland: F nth C A lon - bel")
    view = c.get("/api" + here).json()
    assert ("England", "A bel") in _units(c, here) and view["phase"] == "Spring 1902 Movement"
    results = {r["order"]: r["result"] for r in view["step"]["results"]}
    assert results["A lon - bel"] == "succeeds" and results["F nth C A lon - bel"] == "available"
    page = c.get(here).text
    assert "Last step: Fall 1901 Movement" in page and "A lon - bel" in page
    assert page.count("<svg") >= 2  # the board, and the step with its orders drawn by the renderer

    assert _post(site, c, here + "/units", power="Germany", kind="A", where="bur").status_code == 303
    _step(site, c, here, "A par - bur\nA mar S A par - bur")
    assert c.get("/api" + here).json()["phase"] == "Spring 1902 Retreats"
    _step(site, c, here, "A bur - ruh")
    view = c.get("/api" + here).json()
    assert view["phase"] == "Fall 1902 Movement" and view["step"]["orders"] == {"Germany": ["A bur R ruh"]}
    assert ("Germany", "A ruh") in _units(c, here) and ("France", "A bur") in _units(c, here)

    # Back: the retreat phase again, its orders in the box.
    r = _post(site, c, here + "/back")
    assert r.status_code == 303
    view = c.get("/api" + here).json()
    assert view["phase"] == "Spring 1902 Retreats" and view["orders"] == "A bur - ruh"

    assert (
        store_transfer.export_game(site.web.store, game) == before
    )  # phases, submissions, votes, events: all as they were


def test_a_variant_s_opening_the_share_link_read_only_and_a_person_s_list(site: Site) -> None:
    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    ann = site.browser()
    ann.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    ann.get("/")
    assert "Try in a sandbox" in ann.get("/variants/standard").text
    here = _start(site, ann, variant="standard")
    view = ann.get("/api" + here).json()
    share = view["share"]
    assert view["editable"] and view["phase"] == "Spring 1901 Movement" and len(view["units"]) == 22
    # Signed in, she lands on the share link and edits there: the address in her bar, given to a friend, changes
    # nothing (the edit link in the bar did: the players' trial).
    assert here == share
    # Listed for her, by its share link, which she edits when signed in.
    assert [s["share"] for s in ann.get("/api/sandbox").json()["sandboxes"]] == [share]
    assert share in ann.get("/sandbox").text
    assert ann.get("/api" + share).json()["editable"] is True
    assert _post(site, ann, share + "/remove", where="A par").status_code == 303

    other = site.browser()
    page = other.get(share)
    assert page.status_code == 200 and "read-only" in page.text
    assert 'action="' + share + '/orders"' not in page.text and "Start my own sandbox" in page.text
    assert other.get("/api" + share).json()["editable"] is False
    r = _post(site, other, share + "/units", power="France", kind="A", where="par")
    assert r.status_code == 403 and "share link" in r.text
    r = site.api(other, "/api" + share + "/orders", {"orders": "A mar - bur", "adjudicate": True})
    assert r.status_code == 403
    assert other.get("/api/sandbox").json() == {"sandboxes": []}
    # Their own copy of the board: editable by them, and hers unchanged.
    mine = _start(site, other, copy=share.rsplit("/", 1)[1])
    assert other.get("/api" + mine).json()["share"] != mine  # not signed in: the edit link is the way back
    assert ("France", "A par") not in _units(other, mine)
    assert _post(site, other, mine + "/units", power="France", kind="A", where="par").status_code == 303
    assert ("France", "A par") not in _units(ann, here)

    assert other.get("/sandbox/dp_nothing").status_code == 404
    assert other.get("/api/sandbox/nothing").status_code == 404
    assert site.api(other, "/api/sandbox/nothing/back").status_code == 404


def test_refusals_are_said_and_a_refused_form_comes_back_filled(site: Site) -> None:
    c = site.browser()
    here = _start(site, c, variant="standard")
    for form, words in [
        ({"power": "England", "kind": "A", "where": "lon"}, "already stands in London"),
        ({"power": "England", "kind": "F", "where": "mun"}, "already stands"),
        ({"power": "England", "kind": "F", "where": "ruh"}, "inland"),
        ({"power": "England", "kind": "A", "where": "Londn"}, "did you mean London"),
    ]:
        r = _post(site, c, here + "/units", **form)
        assert r.status_code == 303 and r.headers["location"] == here, r.text
        assert words in _flash(r), _flash(r)
    c.cookies.set("dp_typed", r.cookies.get("dp_typed") or "")
    page = c.get(here).text
    assert 'value="Londn"' in page  # the refused form filled in again, without JavaScript

    r = _post(site, c, here + "/orders", orders="F lon - nth\nA lon - xyz\nbanana", do="adjudicate")
    assert r.status_code == 303 and "line 2" in _flash(r)
    assert c.get("/api" + here).json()["phase"] == "Spring 1901 Movement"  # nothing adjudicated
    r = _post(site, c, here + "/orders", orders="F lon - nth\nA lon - xyz\nbanana", do="check")
    assert r.status_code == 303
    lines = c.get("/api" + here).json()["lines"]
    assert [bool(ln["error"]) for ln in lines] == [False, True, True]
    assert "xyz" in lines[1]["error"]
    page = c.get(here).text
    assert "✗" in page and "A lon - xyz" in page

    r = site.api(c, "/api" + here + "/units", {"power": "Atlantis", "kind": "A", "where": "bel"})
    assert r.status_code == 400 and "no power" in r.json()["error"]
    r = site.api(c, "/api" + here + "/centres", {"where": "bur", "owner": "France"})
    assert r.status_code == 400 and "not a supply centre" in r.json()["error"]
    r = site.api(c, "/api" + here + "/back")
    assert r.status_code == 400 and "nothing to go back to" in r.json()["error"]
    r = site.post_form(c, "/sandbox", {})
    assert r.status_code == 400 and "say where the sandbox starts" in r.text


def test_a_private_game_s_phase_is_no_sandbox_for_who_may_not_see_it(site: Site) -> None:
    game = site.new_game("hidden", visibility="private")
    phase = site.web.access.phases(game)[-1]
    r = site.post_form(site.browser(), "/sandbox", {"game": game, "phase_id": str(phase.id)})
    assert r.status_code == 404
    r = site.post_form(site.coordinator, "/sandbox", {"game": game, "phase_id": "999999"})
    assert r.status_code == 404 and "no phase" in r.text


def test_starts_and_steps_are_counted_against_the_address(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'limited.db'}", limits={"adjudicate": (2, 60.0), "check": (1, 60.0)})
    c = site.browser()
    here = _start(site, c, variant="standard")
    _step(site, c, here, "F lon - nth")
    r = _post(site, c, here + "/orders", orders="F nth - bel", do="adjudicate")
    assert r.status_code == 429 and "too many" in r.text
    assert site.post_form(c, "/sandbox", {"variant": "standard"}).status_code == 429
    assert _post(site, c, here + "/remove", where="par").status_code == 303
    assert _post(site, c, here + "/remove", where="mar").status_code == 429


def test_a_german_reader_sees_the_line_refusals_in_german_and_the_api_in_english_with_code_and_params(
    site: Site,
) -> None:
    c = site.browser()
    c.cookies.set("lang", "de")
    here = _start(site, c, variant="standard")
    orders = "A par - burgndy\nF nth - lon\nA mun H"
    r = _post(site, c, here + "/orders", orders=orders, do="check")
    assert r.status_code == 303
    page = c.get(here).text
    assert "keine Provinz &#39;burgndy&#39;; meinten Sie Burgundy (bur)" in page, page
    assert "wessen Befehl ist das? Dort steht keine Einheit: nennen Sie die Macht" in page
    assert "did you mean" not in page and "whose order is this" not in page

    r = _post(site, c, here + "/orders", orders=orders, do="adjudicate")
    assert r.status_code == 303
    assert "Zeile 1 (A par - burgndy): keine Provinz 'burgndy'" in _flash(r), _flash(r)
    assert "berichtigen oder löschen Sie sie" in _flash(r), _flash(r)

    lines = c.get("/api" + here).json()["lines"]  # the JSON API: English, and the message's id and values
    assert lines[0]["error"].startswith("no province 'burgndy'; did you mean Burgundy (bur)")
    assert lines[0]["code"] == "%(reason)s; did you mean %(options)s?"
    assert lines[0]["params"]["reason"] == {"msg": {"id": "no province %(token)s", "args": {"token": "'burgndy'"}}}
    assert lines[1]["code"] == "whose order is this? no unit stands there: name the power (England: ...)"
    assert lines[2]["error"] is None and lines[2]["code"] is None and lines[2]["params"] is None
