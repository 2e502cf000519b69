"""What walking a W3K season in the browser turned up, each pinned by a fast test: the notes a player reads
about builds left unordered count supply sent away, and the click-entry bar offers only what the phase
allows."""

from __future__ import annotations

from typing import Any

from dippouch.catalog import load_variant
from dippouch.game import check_orders, position_from_data, unordered
from dippouch.store import games as store_games

WINTER = {
    "phase": "Winter 1642 Adjustments",
    "units": [{"power": "Protectorate", "unit": "F enn"}, {"power": "Protectorate", "unit": "A dep"}],
    "supply_centers": {"Protectorate": ["ayl", "brs", "cty", "dep", "enn", "sut"]},
}


def _left(text: str, data: dict[str, Any] = WINTER) -> list[tuple[list[str], str]]:
    v = load_variant("w3k")
    pos = position_from_data(v, data)
    lines = check_orders(v, pos, "Protectorate", text)
    assert all(ln.accepted for ln in lines), [(ln.text, ln.error) for ln in lines]
    return [(units, str(what)) for units, what in unordered(v, pos, "Protectorate", lines)]


def test_supply_sent_away_counts_against_the_builds_left_unordered() -> None:
    """Four builds to the good: two sent to allies and two built use them all; nothing is 'waived'."""
    assert _left("Send 1 supply to Crown\nSend 1 supply to Argyll\nBuild A ayl\nBuild F brs") == []
    assert _left("Send 2 supply to Crown\nBuild A ayl") == [([], "1 build not ordered: waived")]
    assert _left("Send 1 supply to Crown") == [([], "3 builds not ordered: waived")]


def _winter_page(tmp_path: Any, data: dict[str, Any]) -> str:
    from datetime import UTC, datetime

    from websupport import Site

    site = Site(f"sqlite:///{tmp_path / 'walk.db'}")
    store_games.create_game(site.web.store, "winter", "w3k", now=datetime.now(UTC), position=data)
    _, key = site.web.access.create_key("player", game="winter", power="Protectorate", now=datetime.now(UTC))
    r = site.browser(key).get("/games/winter/play/Protectorate")
    assert r.status_code == 200, r.text
    return str(r.text)


def test_a_winter_page_says_how_many_builds_and_offers_no_support_or_convoy_clicks(tmp_path: Any) -> None:
    """In an adjustment phase the page says what the power has to do (it cannot be read off the map), and
    the click bar does not offer Support and Convoy, nor speak of moving units."""
    page = _winter_page(tmp_path, WINTER)
    assert "You may build 4 units" in page
    assert 'value="support"' not in page and 'value="convoy"' not in page
    assert "Click a unit, then where it goes" not in page and "Click a build site" in page
    (tmp_path / "owes").mkdir()
    owes = {**WINTER, "supply_centers": {"Protectorate": ["enn"]}}
    assert "You must remove 1 unit" in _winter_page(tmp_path / "owes", owes)


def test_the_pick_list_of_a_build_counts_build_sites_not_units(tmp_path: Any) -> None:
    one_site = {
        **WINTER,
        "units": [{"power": "Protectorate", "unit": u} for u in ("F brs", "A cty", "A dep", "F enn", "A sut")],
    }
    page = _winter_page(tmp_path, one_site)
    assert "Pick from the legal orders (1 build site)" in page and "(1 unit)" not in page
    (tmp_path / "four").mkdir()
    assert "Pick from the legal orders (4 build sites)" in _winter_page(tmp_path / "four", WINTER)
