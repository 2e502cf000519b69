"""Press through the web: the JSON API and the forms, from the players' side and an attacker's (another pair's
channel, posting as another power, script in a message, flooding), each refusal naming its rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.routing import APIRoute

import dippouch.store.press.messages as store_press
from dippouch.store import processing as store_processing
from dippouch.store import votes as store_votes
from dippouch.web.routes import press as web_press
from websupport import Site, json_routes

_DE = {"Accept-Language": "de"}
OTHERS = ["Austria", "France", "Germany", "Italy", "Russia", "Turkey"]


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


def _p(power: str) -> str:
    return f"/api/games/demo/powers/{power}/press"


def test_every_press_call_is_part_of_the_api_and_declares_its_answer() -> None:
    paths = {r.path for r in json_routes()}
    mine = [r for r in web_press.router.routes if isinstance(r, APIRoute) and r.path.startswith("/api/")]
    assert len(mine) >= 10
    for r in mine:
        assert r.path in paths
        assert r.response_model is not None, r.path


def test_private_group_public_and_unread_counts_through_the_api(site: Site) -> None:
    en, fr, de = site.player("demo", "England"), site.player("demo", "France"), site.player("demo", "Germany")
    r = site.api(en, _p("England"), {"to": ["France"], "text": "Channel is yours?"})
    assert r.status_code == 200, r.text
    private = r.json()["channel"]
    assert r.json()["kind"] == "private"
    r = site.api(en, _p("England"), {"to": ["France", "Germany"], "text": "Triple"})
    assert r.json()["kind"] == "group"
    r = site.api(fr, _p("France"), {"to": ["all"], "text": "Hello all"})
    assert r.json()["kind"] == "public"
    view = en.get(_p("England")).json()
    unread = {t["id"]: t["unread"] for t in view["threads"]}
    assert unread[private] == 0 and unread[r.json()["channel"]] == 1
    fview = fr.get(_p("France")).json()
    assert {t["id"]: t["unread"] for t in fview["threads"]}[private] == 1
    page = fr.get(_p("France") + f"/channels/{private}").json()
    assert [m["text"] for m in page["messages"]] == ["Channel is yours?"]
    r = site.api(fr, _p("France") + f"/channels/{private}/read", {})
    assert r.status_code == 200
    assert {t["id"]: t["unread"] for t in fr.get(_p("France")).json()["threads"]}[private] == 0
    # Germany sees the group but not the pair's channel.
    assert private not in {t["id"] for t in de.get(_p("Germany")).json()["threads"]}


def test_reading_another_pairs_channel_is_refused_like_a_missing_one(site: Site) -> None:
    en, de = site.player("demo", "England"), site.player("demo", "Germany")
    private = site.api(en, _p("England"), {"to": ["France"], "text": "secret plan"}).json()["channel"]
    r = de.get(_p("Germany") + f"/channels/{private}")
    assert r.status_code == 404 and "secret" not in r.text
    missing = de.get(_p("Germany") + "/channels/999")
    assert missing.status_code == 404
    assert r.json()["error"].replace(str(private), "N") == missing.json()["error"].replace("999", "N")
    # Nor through another power's address, the live stream or polling.
    assert de.get(_p("England") + f"/channels/{private}").status_code == 403
    assert de.get(_p("England") + "/since/0").status_code == 403
    assert de.get("/games/demo/play/England/press-events").status_code == 403
    assert "secret" not in de.get(_p("Germany") + "/since/0").text
    # A visitor sees nothing; the coordinator does not read private press unless the game says so.
    assert site.browser().get(_p("England")).status_code == 403
    desk = site.coordinator.get("/api/games/demo/press").json()
    assert private not in {t["id"] for t in desk["threads"]}


def test_posting_as_another_power_is_refused_and_nothing_is_stored(site: Site) -> None:
    en = site.player("demo", "England")
    fr = site.player("demo", "France")
    r = site.api(en, _p("France"), {"to": ["Germany"], "text": "France betrays you"})
    assert r.status_code == 403
    r = site.api(en, "/api/games/demo/press/announce", {"text": "I am the coordinator"})
    assert r.status_code == 403
    # A reply into a channel the power is not in.
    ch = site.api(fr, _p("France"), {"to": ["Germany"], "text": "hi"}).json()["channel"]
    r = site.api(en, _p("England") + f"/channels/{ch}", {"text": "me too"})
    assert r.status_code == 400 and "no channel" in r.json()["error"]
    # Without the page's CSRF token a cookie cannot send.
    r = en.post(_p("England"), json={"to": ["France"], "text": "x"})
    assert r.status_code == 403
    assert site.coordinator.get("/api/games/demo/press").json()["threads"][0]["kind"] == "announcement"
    assert en.get(_p("England") + "/since/0").json()["messages"] == []


def test_script_in_a_message_is_shown_as_text(site: Site) -> None:
    en, fr = site.player("demo", "England"), site.player("demo", "France")
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    ch = site.api(en, _p("England"), {"to": ["France"], "text": evil}).json()["channel"]
    page = fr.get(f"/games/demo/play/France/press/{ch}")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page.text
    assert fr.get(_p("France") + f"/channels/{ch}").json()["messages"][0]["text"] == evil


def test_flooding_is_refused_by_the_rate_rule(site: Site) -> None:
    en = site.player("demo", "England")
    codes = [site.api(en, _p("England"), {"to": ["France"], "text": f"m{i}"}).status_code for i in range(12)]
    assert codes[:10] == [200] * 10
    assert codes[10:] == [400, 400]
    r = site.api(en, _p("England"), {"to": ["France"], "text": "more"})
    assert "(rate)" in r.json()["error"] and "10 a minute" in r.json()["error"]
    site.clock.advance(seconds=61)
    assert site.api(en, _p("England"), {"to": ["France"], "text": "later"}).status_code == 200


def test_too_long_a_message_is_refused_with_the_bound(site: Site) -> None:
    en = site.player("demo", "England")
    r = site.api(en, _p("England"), {"to": ["France"], "text": "x" * 5001})
    assert r.status_code == 400 and "(length)" in r.json()["error"] and "at most 5000" in r.json()["error"]


def test_the_coordinator_declares_rules_and_a_refusal_names_the_rule(site: Site) -> None:
    en = site.player("demo", "England")
    r = site.api(site.coordinator, "/api/games/demo/press/rules", {"rules": {"kind": "public"}})
    assert r.status_code == 200 and "Public press only: every message goes to all powers." in r.json()["rules_text"]
    r = site.api(en, _p("England"), {"to": ["France"], "text": "psst"})
    assert r.status_code == 400 and r.json()["error"].startswith("not sent (public press only)")
    r = site.api(site.coordinator, "/api/games/demo/press/rules", {"rules": {"kind": "gray"}})
    assert r.status_code == 400 and "did you mean 'grey'" in r.json()["error"]
    r = site.api(site.coordinator, "/api/games/demo/press/announce", {"text": "Deadline moved"})
    assert r.status_code == 200 and r.json()["kind"] == "announcement"
    msgs = en.get(_p("England") + "/since/0").json()["messages"]
    assert [(m["sender"], m["text"]) for m in msgs] == [("Coordinator", "Deadline moved")]


def test_the_player_page_has_the_press_panel_and_the_form_sends(site: Site) -> None:
    en = site.player("demo", "England")
    page = en.get("/games/demo/play/England")
    assert 'id="press"' in page.text and "The coordinator does not read private or group press." in page.text
    r = site.post_form(en, "/games/demo/play/England/press", {"to": "France", "text": "By form"})
    # Back to the player's page, the thread the message went into open there (inline, beside the board).
    assert r.status_code == 303 and r.headers["location"].startswith("/games/demo/play/England?thread=")
    shown = en.get(r.headers["location"]).text
    assert "By form" in shown and 'id="flash">Sent.<' in shown
    # What the sender is told is said in their language (it was English prose on a German page).
    r = site.post_form(en, "/games/demo/play/England/press", {"to": "France", "text": "Auf Deutsch"}, headers=_DE)
    assert 'id="flash">Gesendet.<' in en.get(r.headers["location"], headers=_DE).text
    # A refusal: the page again (400), the refusal beside the box and the words still in it.
    r = site.post_form(en, "/games/demo/play/England/press", {"text": "to nobody"})
    assert r.status_code == 400
    assert "choose at least one other power" in r.text and ">to nobody</textarea>" in r.text


def test_mute_block_and_report(site: Site) -> None:
    en, fr = site.player("demo", "England"), site.player("demo", "France")
    r = site.api(fr, _p("France") + "/blocks", {"power": "England", "choice": "block"})
    assert r.json()["blocks"] == {"England": "block"}
    r = site.api(en, _p("England"), {"to": ["France"], "text": "let me in"})
    assert r.status_code == 400 and "(blocked)" in r.json()["error"]
    site.api(fr, _p("France") + "/blocks", {"power": "England", "choice": "none"})
    mid = site.api(en, _p("England"), {"to": ["France"], "text": "rude"}).json()["id"]
    r = site.api(fr, _p("France") + f"/messages/{mid}/report", {"reason": "abuse"})
    assert r.status_code == 200
    de = site.player("demo", "Germany")
    assert site.api(de, _p("Germany") + f"/messages/{mid}/report", {"reason": "x"}).status_code == 400
    reports = site.coordinator.get("/api/games/demo/press").json()["reports"]
    assert [(x["by"], x["message"]["text"]) for x in reports] == [("France", "rude")]


def test_the_coordinators_press_page_announces_and_declares_rules(site: Site) -> None:
    en = site.player("demo", "England")
    page = site.coordinator.get("/games/demo/coordinate/press")
    assert page.status_code == 200 and "Press rules" in page.text
    assert 'href="/games/demo/coordinate/press"' in site.coordinator.get("/games/demo/coordinate").text
    r = site.post_form(site.coordinator, "/games/demo/coordinate/press", {"text": "Welcome, all"})
    assert r.status_code == 303
    assert [m["text"] for m in en.get(_p("England") + "/since/0").json()["messages"]] == ["Welcome, all"]
    r = site.post_form(
        site.coordinator,
        "/games/demo/coordinate/press",
        {"kind": "white", "channels": ["group", "public"], "coordinator_reads_private": "on"},
    )
    assert r.status_code == 303
    view = en.get(_p("England")).json()
    assert view["rules"]["channels"] == ["group", "public"] and view["rules"]["coordinator_reads_private"] is True
    assert "The coordinator may read private and group press." in en.get("/games/demo/play/England").text
    # A player cannot use the coordinator's page.
    assert site.post_form(en, "/games/demo/coordinate/press", {"text": "I rule"}).status_code == 403


def test_a_w3k_game_has_its_press_by_post_by_its_variant_file(site: Site) -> None:
    site.new_game("kingdoms", variant="w3k")
    crown = site.player("kingdoms", "Crown")
    r = site.api(crown, "/api/games/kingdoms/powers/Crown/press", {"to": ["all"], "text": "God save the King"})
    assert r.status_code == 400 and r.json()["error"].startswith("not sent (press by post)")
    page = crown.get("/games/kingdoms/play/Crown").text
    assert "Press is by post" in page and "gunboat" not in page and 'id="press-compose"' not in page
    assert 'href="/games/kingdoms/roster"' in page


def test_a_visitor_reads_the_press_page_only_once_the_game_is_over_and_its_press_open(site: Site) -> None:
    en = site.player("demo", "England", "Ann")
    assert site.api(en, _p("England"), {"to": ["France"], "text": "Between us"}).status_code == 200
    assert site.api(en, _p("England"), {"to": ["all"], "text": "To the world"}).status_code == 200
    visitor = site.browser()
    closed = visitor.get("/games/demo/press")
    assert closed.status_code == 200 and "not open to readers" in closed.text and "Between us" not in closed.text
    assert visitor.get("/games/nosuch/press").status_code == 404
    store = site.web.store
    for p in ["England", *OTHERS]:
        store_votes.vote(store, "demo", p, True, now=site.clock())
    site.web.touched("demo")
    page = visitor.get("/games/demo/press")
    assert "To the world" in page.text and "Between us" not in page.text  # a letter stays a letter
    assert 'href="/games/demo/press"' in visitor.get("/games/demo").text
    store_press.set_press_rules(store, "demo", {"open_private_after_end": True}, now=site.clock())
    page = visitor.get("/games/demo/press")
    assert "England, France (private)" in page.text and "Between us" in page.text
    store_press.set_press_rules(
        store, "demo", {"open_after_end": False, "open_private_after_end": False}, now=site.clock()
    )
    assert "Between us" not in visitor.get("/games/demo/press").text


def test_a_channel_marks_where_each_phases_talk_begins(site: Site) -> None:
    """Talk read months later needs its context: the channel page and the API say the phase each message was
    written in, and the page draws a mark where a new phase's talk begins."""
    en, fr = site.player("demo", "England"), site.player("demo", "France")
    r = site.api(en, _p("England"), {"to": ["France"], "text": "Spring words"})
    channel = r.json()["channel"]
    site.api(fr, _p("France") + f"/channels/{channel}", {"text": "Spring answer"})
    store_processing.process(site.web.store, "demo", now=site.web.now(), force=True)
    site.api(en, _p("England"), {"to": ["France"], "text": "Autumn words"})
    page = fr.get(_p("France") + f"/channels/{channel}").json()
    assert [(m["text"], m["phase"]) for m in page["messages"]] == [
        ("Spring words", "Spring 1901 Movement"),
        ("Spring answer", "Spring 1901 Movement"),
        ("Autumn words", "Fall 1901 Movement"),
    ]
    html = fr.get(f"/games/demo/play/France/press/{channel}").text
    marks = [ln for ln in html.splitlines() if 'class="press-phase"' in ln]
    assert len(marks) == 2 and "Spring 1901 Movement" in marks[0] and "Fall 1901 Movement" in marks[1]
    assert html.index("Spring answer") < html.index("Fall 1901 Movement") < html.index("Autumn words")
