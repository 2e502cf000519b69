"""``dippouch adjudicate`` for 1897: the opening winter, and home centres redefined in Winter 1899, over JSON."""

from __future__ import annotations

from helpers import adjudicate_one as one
from helpers import results_by_input as by_input


def test_opening_winter_over_json() -> None:
    got = one(
        {
            "variant": "1897",
            "orders": {"England": ["Build F Lon"], "Russia": ["Build A StP", "Build A Mos"], "Germany": ["Waive"]},
        }
    )
    results = by_input(got)
    assert results["Build F Lon"]["result"] == "succeeds"
    assert results["Build A StP"]["result"] == "illegal"
    assert results["Build A Mos"]["result"] == "succeeds"
    nxt = got["next"]
    assert nxt["phase"] == "Spring 1898 Movement"
    assert nxt["supply_centers"] == {"England": ["lon"], "Russia": ["mos"]}
    assert nxt["home_centers"]["Russia"] == ["mos", "sev", "stp", "war"]


def test_homes_redefined_over_json() -> None:
    got = one(
        {
            "variant": "1897",
            "phase": "Fall 1899 Movement",
            "units": [{"power": "England", "unit": "F nth"}, {"power": "England", "unit": "A edi"}],
            "supply_centers": {"England": ["lon", "lvp"], "Germany": ["mun"]},
            "orders": {"England": ["F Nth - Nwy", "A Edi H"]},
        }
    )
    nxt = got["next"]
    assert nxt["phase"] == "Winter 1899 Adjustments"
    assert nxt["home_centers"]["England"] == ["edi", "lon", "lvp", "nwy"]
    assert nxt["home_centers"]["Germany"] == ["mun"]
    assert nxt["home_centers"]["Austria"] == []
    built = one({**nxt, "orders": {"England": ["Build A Lvp", "Build F Lon"]}})
    assert {r["result"] for r in built["results"] if r["input"]} == {"succeeds"}
    assert built["next"]["phase"] == "Spring 1900 Movement"


def test_build_any_owned_option_over_json() -> None:
    request = {
        "variant": "1897",
        "phase": "Winter 1898 Adjustments",
        "units": [],
        "supply_centers": {"England": ["lon", "nwy"]},
        "orders": {"England": ["Build F Nwy"]},
    }
    assert by_input(one(request))["Build F Nwy"]["result"] == "illegal"
    got = one({**request, "options": {"build_any_owned": True}})
    assert by_input(got)["Build F Nwy"]["result"] == "succeeds"
