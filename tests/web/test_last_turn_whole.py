"""The last turn is the whole turn (the players' trial: a year ended on "Last turn: Winter 1908 Adjustments"
without the Fall's moves): after a Winter, the player's page shows the Fall's moves too, folded, each with its
results and report; after a movement phase, that phase alone."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from websupport import Site


def _play(site: Site, orders: dict[str, str]) -> None:
    """The open phase's orders for the powers named, then the phase processed."""
    store = site.web.store
    now = site.clock()
    for power, text in orders.items():
        store_submissions.submit(store, "g", power, text, now=now)
    site.clock.advance(hours=1)
    store_processing.process(store, "g", now=site.clock() + timedelta(seconds=1), force=True)
    site.web.touched("g")  # as the doors that process tell the pages


def test_after_a_winter_the_fall_is_shown_too(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g")
    france = site.player("g", "France")
    _play(site, {"France": "A par - bur\nA mar - spa\nF bre - mao"})
    page = france.get("/games/g/play/France").text
    assert "Spring 1901 Movement" in page and 'id="earlier-turns"' not in page  # a movement phase alone
    _play(site, {"France": "A spa H\nF mao - por\nA bur - bel"})
    view = france.get("/api/games/g/powers/France").json()
    assert view["last_turn"]["phase"] == "Fall 1901 Movement"
    _play(site, {"France": "Build A par\nBuild F bre"})  # the Winter
    view = france.get("/api/games/g/powers/France").json()
    assert view["last_turn"]["phase"] == "Winter 1901 Adjustments", view["last_turn"]["phase"]
    earlier = [t["phase"] for t in view["earlier_turns"]]
    assert earlier and earlier[-1] == "Fall 1901 Movement", earlier
    fall = view["earlier_turns"][-1]
    assert fall["results"][0]["power"] == "France"  # the seat's own orders first
    page = france.get("/games/g/play/France").text
    assert 'id="earlier-turns"' in page and "Before it: Fall 1901 Movement" in page
    assert f'href="{fall["report_url"]}"' in page
