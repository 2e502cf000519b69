"""Two things the players' walk read on the game and desk pages: a bot seated from the desk was announced by the
program's name for it ("bot:heuristic now plays Austria.") where the tables say "a bot: standard"; and a finished
game's page kept the red "Orders for France" button and said "Game over" twice ("Game over / Game over: Draw
agreed ...")."""

from __future__ import annotations

import html
from pathlib import Path

from dippouch.catalog import load_variant
from dippouch.store import processing as store_processing
from dippouch.store import votes as store_votes
from websupport import Site, page_text


def _flash(site: Site, response_page: str) -> str:
    return " ".join(html.unescape(page_text(response_page)).split())


def test_a_bot_seated_from_the_desk_is_named_as_people_read_it(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    r = site.post_form(site.coordinator, "/games/g/coordinate/seat-bot", {"power": "Austria", "level": "hold"})
    assert r.status_code == 303, r.text
    said = _flash(site, site.coordinator.get(r.headers["location"]).text)
    assert "Bot (passive) now plays Austria" in said and "bot:hold" not in said, said
    site.coordinator.cookies.set("dp_lang", "de")
    r = site.post_form(
        site.coordinator,
        "/games/g/coordinate/seat-bot",
        {"power": "England", "level": "hold"},
        headers={"Accept-Language": "de"},
    )
    said = _flash(site, site.coordinator.get(r.headers["location"], headers={"Accept-Language": "de"}).text)
    assert "Bot (passiv)" in said and "bot:hold" not in said, said


def test_a_finished_game_asks_for_no_orders_and_says_its_end_once(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    c = site.player("g", "France")
    store = site.web.store
    assert "Orders for France" in c.get("/games/g").text
    store_processing.process(store, "g", now=site.clock(), force=True)
    for power in load_variant("standard").power_names:
        store_votes.vote(store, "g", power, True, now=site.clock())
    page = c.get("/games/g").text
    words = " ".join(html.unescape(page_text(page)).split())
    assert "Orders for France" not in words and "Your page as France" in words
    assert 'href="/games/g/play/France"' in page
    assert words.count("Draw agreed and shared by") == 1 and "Game over: Draw" not in words, words


def test_a_seat_with_nothing_to_order_is_not_told_to_click(tmp_path: Path) -> None:
    """A power with nothing to order (here, every power of a finished game) read "Click a unit, then where it goes"
    under a board that took no clicks (a Russia with no build read "click a build site")."""
    site = Site(f"sqlite:///{tmp_path / 'g.db'}")
    site.new_game("g")
    c = site.player("g", "France")
    assert "Click a unit, then where it goes" in c.get("/games/g/play/France").text
    for power in load_variant("standard").power_names:
        store_votes.vote(site.web.store, "g", power, True, now=site.clock())
    page = c.get("/games/g/play/France").text
    caption = page.split("<figcaption><span>", 1)[1].split("</span>", 1)[0]
    assert caption == "The board", caption
