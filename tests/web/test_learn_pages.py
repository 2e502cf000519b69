"""The guided first game's pages (``/learn``, ``/learn/{lesson}``): a lesson played through its form, its
result explained on the page, progress kept in a visitor's cookie and a signed-in person's store, a refused
line answered with the closest orders, the short game started with the gentlest bots, the offer on the home
page and /me, and the pages in German and French."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import pytest

from dippouch.bots import LEVELS
from dippouch.bots.seats import bot_seats
from dippouch.play import lessons as use
from dippouch.store.bots import open_practice_games
from dippouch.store.people.persons import create_person
from websupport import Site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    return Site(f"sqlite:///{tmp_path_factory.mktemp('learn') / 'g.db'}", limits={})


def _text(page: str, id_: str) -> str:
    m = re.search(rf'<ul id="{id_}"[^>]*>(.*?)</ul>', page, re.S)
    assert m, page[:2000]
    return html.unescape(re.sub(r"<[^>]+>", " ", m.group(1)))


def test_a_visitor_plays_a_lesson_and_is_told_why(site: Site) -> None:
    c = site.browser()
    home = c.get("/learn")
    assert home.status_code == 200 and 'href="/learn/moves"' in home.text
    page = c.get("/learn/support")
    assert page.status_code == 200 and "<svg" in page.text and 'id="orders-box"' in page.text
    r = site.post_form(c, "/learn/support", {"orders": "A pic - bel"})
    assert r.status_code == 303 and r.headers["location"].startswith("/learn/support?orders=")
    assert "dp_lessons" not in r.headers.get("set-cookie", "")  # not passed: nothing kept
    page = c.get(r.headers["location"]).text
    said = _text(page, "explanation")
    assert "A Picardy did not enter Belgium: it bounced off A Belgium" in said and "1 against 1" in said
    assert "Not yet" in page and "A Belgium of Germany stands in Belgium" in html.unescape(page)
    r = site.post_form(c, "/learn/support", {"orders": use.lesson("support").answer})
    assert "dp_lessons=support" in r.headers["set-cookie"]
    page = c.get(r.headers["location"]).text
    assert "Goal reached" in page and 'href="/learn/cut"' in page
    assert "strength 2 against 1" in _text(page, "explanation")
    assert "✓ passed" in c.get("/learn").text


def test_a_refused_line_gets_the_closest_orders_and_nothing_is_played(site: Site) -> None:
    c = site.browser()
    r = site.post_form(c, "/learn/moves", {"orders": "A pic - hol"})
    page = html.unescape(c.get(r.headers["location"]).text)
    assert "closest legal: A Picardy - Belgium" in page and 'id="explanation"' not in page
    assert ">A pic - hol</textarea>" in page  # what was typed stays
    assert c.get("/learn/nope").status_code == 404


def test_a_signed_in_person_s_progress_is_stored(site: Site) -> None:
    pid = create_person(site.web.store, "Lea", now=site.clock(), email="lea@example.org")
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    assert 'id="learn-link"' in c.get("/").text and 'href="/learn"' in c.get("/me").text
    for le in use.LESSONS:
        r = site.post_form(c, f"/learn/{le.slug}", {"orders": le.answer})
        assert r.status_code == 303
    assert use.passed(site.web.store, pid) == {le.slug for le in use.LESSONS}
    page = c.get("/learn").text
    assert 'id="learn-all-done"' in page
    assert f'name="level" value="{LEVELS[0]}"' in page
    before = set(open_practice_games(site.web.store))
    r = site.post_form(c, "/practice", {"variant": "standard", "power": "any", "level": LEVELS[0], "pace": "ready"})
    assert r.status_code == 303
    [game] = set(open_practice_games(site.web.store)) - before
    assert set(bot_seats(site.web.store, game).values()) == {LEVELS[0]}


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("de", ("Spielen lernen", "Ziel", "prallten")),
        ("fr", ("Apprendre à jouer", "Objectif", "rebondi")),
    ],
)
def test_the_lesson_pages_speak_german_and_french(site: Site, lang: str, words: tuple[str, ...]) -> None:
    c = site.browser()
    page = c.get(f"/learn/bounce?orders={quote('A par - bur')}", headers={"Accept-Language": lang}).text
    page = html.unescape(page)
    for w in words:
        assert w in page, w
    assert "bounced" not in page
