"""Blocks and reports through every door (issue 56): the page, the JSON API and the command line drive the same
use cases (:mod:`dippouch.play.blocks`, :mod:`dippouch.play.moderation`), so what one door does the others read
back; a refusal is the same words at each; the queue is the installation's moderators' alone (404 for a player
on the API as on the page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dippouch.cli import app, register_commands
from dippouch.store.moderation import stored as store_moderation
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from websupport import Site, page_text

register_commands()


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'g.db'}"


@pytest.fixture
def site(db: str) -> Site:
    return Site(db, limits={})


def _person(site: Site, name: str) -> tuple[int, Any]:
    """A person and a browser signed in as them (the session a mailed link leaves behind)."""
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, token)
    c.get("/")
    return pid, c


def _cli(db: str, *args: str, code: int = 0) -> str:
    """A command as the installation's moderators type it, on the site's database."""
    r = CliRunner().invoke(app, [*args, "--db", db])
    assert r.exit_code == code, r.output
    return r.output


def _blocked(c: Any) -> list[str]:
    r = c.get("/api/me/blocks")
    assert r.status_code == 200, r.text
    return [b["name"] for b in r.json()["blocked"]]


def test_a_block_is_one_use_case_through_the_page_the_api_and_the_command_line(site: Site, db: str) -> None:
    ann, a = _person(site, "Ann")
    bob, b = _person(site, "Bob")
    cy, _c = _person(site, "Cy")
    # The page blocks Bob, the API Cy: the API and the command line read both back.
    assert site.post_form(a, f"/people/{bob}/block", {}).status_code == 303
    r = site.api(a, f"/api/people/{cy}/block")
    assert r.status_code == 200 and sorted(x["name"] for x in r.json()["blocked"]) == ["Bob", "Cy"]
    listed = _cli(db, "people", "blocks", "ann@example.org")
    assert f"{bob}  Bob  since" in listed and f"{cy}  Cy  since" in listed
    # The command line lifts Bob's; the API and the account page no longer show it.
    assert "Bob" not in _cli(db, "people", "unblock", str(ann), "bob@example.org")
    assert _blocked(a) == ["Cy"]
    assert store_moderation.blocks_person(site.web.store, ann, cy)
    assert not store_moderation.blocks_person(site.web.store, ann, bob)
    # The command line blocks for Bob; the blocked person never sees it, at any door.
    _cli(db, "people", "block", "bob@example.org", str(ann), "--now", site.clock().isoformat())
    assert _blocked(b) == ["Ann"] and _blocked(a) == ["Cy"]
    assert "Bob" not in page_text(a.get("/me").text.split('id="blocks"')[-1])
    # The API's DELETE lifts it; a second lift changes nothing.
    r = b.delete(f"/api/people/{ann}/block", headers={"X-CSRF-Token": site.csrf(b)})
    assert r.status_code == 200 and r.json()["blocked"] == []
    assert "There was no such block." in _cli(db, "people", "unblock", str(bob), str(ann))
    # Refusals, the same words at each door: oneself; nobody; no sign-in; a state change without the page's token.
    r = site.api(a, f"/api/people/{ann}/block")
    assert r.status_code == 400 and "yourself" in r.json()["error"], r.text
    assert "yourself" in _cli(db, "people", "block", str(ann), str(ann), code=2)
    assert "no person 'nobody@example.org'" in _cli(db, "people", "blocks", "nobody@example.org", code=2)
    assert site.browser().get("/api/me/blocks").status_code == 401
    assert a.post(f"/api/people/{bob}/block").status_code == 403
    assert _blocked(a) == ["Cy"]


def test_reports_are_made_by_page_and_api_and_worked_through_by_page_api_and_command_line(site: Site, db: str) -> None:
    ann, a = _person(site, "Ann")
    bob, b = _person(site, "Bob")
    site.new_game("demo")
    # A report by the page (a person) and one by the API (a game); the API's refusals are the page's.
    r = site.post_form(a, "/report", {"kind": "person", "person": str(bob), "reason": "rude everywhere"})
    assert r.status_code == 303
    r = site.api(a, "/api/reports", {"kind": "game", "game": "demo", "reason": "never processed"})
    assert r.status_code == 200, r.text
    game_report = r.json()["id"]
    r = site.api(a, "/api/reports", {"kind": "person", "person": bob, "reason": "  "})
    assert r.status_code == 400 and "say in a few words what is wrong" in r.json()["error"]
    r = site.api(a, "/api/reports", {"kind": "person", "person": ann, "reason": "me"})
    assert r.status_code == 400 and "cannot report yourself" in r.json()["error"]
    assert site.api(a, "/api/reports", {"kind": "weather", "reason": "x"}).status_code == 400
    # The queue: the installation's coordinator's on every door, 404 for a player.
    assert a.get("/api/reports").status_code == 404 and b.get("/api/reports").status_code == 404
    assert site.api(a, f"/api/reports/{game_report}", {"action": "dismiss"}).status_code == 404
    queue = site.coordinator.get("/api/reports").json()["reports"]
    assert [(q["kind"], q["reason"], q["reporter"]) for q in queue] == [
        ("person", "rude everywhere", "Ann"),
        ("game", "never processed", "Ann"),
    ]
    person_report = queue[0]["id"]
    listed = _cli(db, "reports", "list")
    assert f"#{person_report}" in listed and f"person {bob} (Bob)" in listed and "why: rude everywhere" in listed
    assert f"#{game_report}" in listed and "game demo" in listed
    # The command line warns Bob; he reads it on his account page; the API no longer lists it.
    said = _cli(db, "reports", "resolve", str(person_report), "warn", "--note", "Keep it civil.", "--by", "Mo")
    assert f"Report #{person_report}: warn; logged." in said
    assert "Keep it civil." in b.get("/me").text
    assert [q["id"] for q in site.coordinator.get("/api/reports").json()["reports"]] == [game_report]
    # A game names nobody to ban, said by the API as by the command line; the API dismisses it.
    r = site.api(site.coordinator, f"/api/reports/{game_report}", {"action": "ban"})
    assert r.status_code == 400 and "names nobody to act on" in r.json()["error"]
    assert "names nobody to act on" in _cli(db, "reports", "resolve", str(game_report), "ban", code=2)
    r = site.api(site.coordinator, f"/api/reports/{game_report}", {"action": "dismiss"})
    assert r.status_code == 200 and r.json()["status"] == "dismiss"
    # Closed for every door: the page, the command line and the API read an empty queue and refuse a second close.
    assert "No open reports." in site.coordinator.get("/desk/review/reports").text
    assert "No open reports." in _cli(db, "reports")
    assert "no open report" in _cli(db, "reports", "resolve", str(game_report), "dismiss", code=2)
    assert site.api(site.coordinator, f"/api/reports/{game_report}", {"action": "warn"}).status_code == 400
    log = [(e.action, e.by) for e in store_moderation.moderation_log(site.web.store)]
    assert ("warn", "Mo") in log and any(a == "dismiss" and by.startswith("installation key ") for a, by in log)
