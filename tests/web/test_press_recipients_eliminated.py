"""An eliminated power (no unit, no centre) is offered as no press recipient (the players' trial: eliminated
powers stayed in the compose form's list); the API's view marks it."""

from __future__ import annotations

from pathlib import Path

from dippouch.catalog import load_variant
from dippouch.game import position_to_data
from dippouch.store import games as store_games
from websupport import Site


def test_an_eliminated_power_is_no_recipient(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    v = load_variant("standard")
    start = position_to_data(v, v.start)
    start["units"] = [u for u in start["units"] if u["power"] != "Austria"]
    start["supply_centers"] = {p: c for p, c in start["supply_centers"].items() if p != "Austria"}
    store_games.create_game(site.web.store, "late", "standard", now=site.clock(), position=start)
    france = site.player("late", "France")
    page = france.get("/games/late/play/France").text
    compose = page.split('id="press"', 1)[1]
    assert 'value="England"' in compose or ">England<" in compose
    assert "Austria" not in compose.split("</form>", 1)[0], "an eliminated power offered as a recipient"
    view = france.get("/api/games/late/powers/France/press").json()
    marked = {p["power"]: p.get("eliminated", False) for p in view["powers"]}
    assert marked["Austria"] is True and marked["England"] is False
