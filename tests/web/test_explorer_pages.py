"""The opening explorer's pages and JSON (``/explorer``, ``/explorer/{variant}/{power}``, ``/api/explorer...``):
the same figures as :func:`dippouch.play.explorer.explore`, a step down by a branch's own link, German words on a
German request, and an unknown power refused naming the closest."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from urllib.parse import quote

import pytest

from dippouch.play.explorer import explore
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from websupport import Site

OPENING = {"France": "A Par-Bur\nA Mar S A Par-Bur\nF Bre-Mao", "Germany": "A Mun S A Par-Bur\nF Kie-Hol\nA Ber-Kie"}
FALL = {"France": "A Bur-Bel\nA Mar-Spa\nF Mao-Por", "Germany": "A Mun-Bur\nA Kie-Den\nF Hol H"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A site with one public finished standard game (drawn in Winter 1901) and one private one."""
    site = Site(f"sqlite:///{tmp_path_factory.mktemp('explorer') / 'g.db'}", limits={})
    store: GameStore = site.web.store
    now = site.clock()
    for name, orders in (("open", OPENING), ("hidden", {"France": "A Par-Gas\nA Mar H\nF Bre H"})):
        store_games.create_game(store, name, "standard", now=now)
        for power in ("France", "Germany"):
            store_games.assign(store, name, power, f"{name} {power}", now=now)
        for turn, given in enumerate((orders, FALL if name == "open" else {}), start=1):
            for power, text in given.items():
                store_submissions.submit(store, name, power, text, now=now + timedelta(hours=turn))
            store_processing.process(store, name, now=now + timedelta(hours=turn, minutes=30), force=True)
        for power in ("France", "Germany"):
            if store_status.status(store, name, now=now + timedelta(hours=4)).state != "finished":
                store_votes.vote(store, name, power, True, now=now + timedelta(hours=4))
    site.web.access.set_visibility("hidden", "private")
    return site


def test_the_json_answer_is_the_explorers_figures(site: Site) -> None:
    c = site.browser()
    r = c.get("/api/explorer/standard/France")
    assert r.status_code == 200, r.text
    data = r.json()
    node = explore(site.web.store, "standard", "France")
    assert data["total"] == 1 and data["figures"]["games"] == node.figures.games == 1
    [branch] = data["branches"]
    assert branch["orders"] == ["A mar S A par - bur", "A par - bur", "F bre - mao"]
    assert branch["share"] == 100.0
    outcomes = {o["outcome"]: o["games"] for o in branch["figures"]["outcomes"]}
    assert outcomes == {"wins": 0, "draws": 1, "survivals": 0, "eliminations": 0}
    assert branch["figures"]["centres"][0] == {"year": 1901, "mean": 6.0, "games": 1}
    down = c.get(f"/api/explorer/standard/France?path={quote(branch['path'])}").json()
    assert [s["orders"] for s in down["steps"]] == [branch["orders"]]
    assert down["branches"][0]["orders"] == ["A bur - bel", "A mar - spa", "F mao - por"]
    assert "gas" not in r.text  # the private game's opening is nobody's to see
    index = c.get("/api/explorer").json()
    assert {v["name"]: v["games"] for v in index["variants"]}["standard"] == 1


def test_the_pages_step_down_by_their_own_links(site: Site) -> None:
    c = site.browser()
    home = c.get("/explorer")
    assert home.status_code == 200 and 'href="/explorer/standard/France"' in home.text
    page = c.get("/explorer/standard/France")
    assert page.status_code == 200
    assert "<caption>France's next orders, the most played first</caption>" in page.text
    link = re.search(r'<th scope="row"><a href="([^"]+)">Spring 1901 Movement: A mar S A par - bur', page.text)
    assert link, page.text
    down = c.get(html.unescape(link.group(1)))
    assert down.status_code == 200 and "Fall 1901 Movement: A bur - bel; A mar - spa; F mao - por" in down.text


def test_german_words_on_a_german_request(site: Site) -> None:
    c = site.browser()
    page = c.get("/explorer/standard/France", headers={"Accept-Language": "de"})
    assert page.status_code == 200
    assert "Eröffnungen: France in Standard Diplomacy" in page.text
    assert "Was darauf folgte" in page.text and "Frühjahr 1901 Bewegung: A mar S A par - bur" in page.text
    assert "Zentren Ende 1901" in page.text and "Remis" in page.text
    refused = c.get("/explorer/standard/Frnace", headers={"Accept-Language": "de"})
    assert refused.status_code == 404 and "meinten Sie &#39;France&#39;?" in refused.text


def test_an_unknown_variant_or_power_is_refused_naming_the_closest(site: Site) -> None:
    c = site.browser()
    r = c.get("/api/explorer/standart/France")
    assert r.status_code == 404 and "did you mean 'standard'?" in r.json()["error"]
    r = c.get("/api/explorer/standard/Frnace")
    assert r.status_code == 404 and "did you mean 'France'?" in r.json()["error"]
    assert c.get("/api/explorer/standard/France?path=nonsense").status_code == 400
