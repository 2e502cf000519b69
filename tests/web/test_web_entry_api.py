"""What the order page's script is given by the server, so that one truth decides what a pick replaces: the
line check names each line's subject (the province of the unit or site it orders) and the units left
without an order; each pick option carries its subject; a move onto a coast carries the coast's name (the
map asks which coast); the check's notes are on the page after sending, without the script."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dippouch.store import games as store_games
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_the_line_check_names_each_lines_subject_and_the_units_left_without_an_order(site: Site) -> None:
    site.new_game("g")
    fr = site.player("g", "France")
    text = "Army Paris moves to Burgundy\nA par H\nBurgandy\nF Brest - English Channel"
    answer = site.api(fr, "/api/games/g/powers/France/check", {"text": text}).json()
    assert [ln["subject"] for ln in answer["lines"]] == ["par", "par", None, "bre"]
    assert answer["lines"][1]["error"]  # the second order for Paris: refused, but still about Paris
    assert answer["unordered"] == ["Army Marseilles"]
    assert answer["unordered_notes"] == ["Army Marseilles: no order, it holds"]
    everything = site.api(fr, "/api/games/g/powers/France/check", {"text": "A par H\nA mar H\nF bre H"}).json()
    assert everything["unordered"] == []


def test_builds_are_about_their_site_and_transfers_about_no_unit(site: Site) -> None:
    """Each build is about its own site (so several builds each keep a line); a W3K supply transfer and a
    waive are about no unit or site (each stands alone)."""
    store_games.create_game(
        site.web.store,
        "w",
        "w3k",
        now=datetime.now(UTC),
        position={
            "phase": "Winter 1642 Adjustments",
            "units": [{"power": "Protectorate", "unit": "F enn"}, {"power": "Protectorate", "unit": "A dep"}],
            "supply_centers": {"Protectorate": ["ayl", "brs", "cty", "dep", "enn", "sut"]},
        },
    )
    pl = site.player("w", "Protectorate")
    text = "Build A ayl\nBuild an Army at Canterbury\nSend 1 supply to Crown\nWaive"
    lines = site.api(pl, "/api/games/w/powers/Protectorate/check", {"text": text}).json()["lines"]
    assert [ln["subject"] for ln in lines] == ["ayl", "cty", None, None]
    page = pl.get("/games/w/play/Protectorate").text
    assert '<option value="Build A ayl" data-subject="ayl">' in page
    assert '<option value="Send 1 supply to Crown">' in page  # no subject: never replaces another line


def test_a_fleet_move_onto_a_coast_names_the_coast_for_the_map(site: Site) -> None:
    store_games.create_game(
        site.web.store,
        "s",
        "standard",
        now=datetime.now(UTC),
        position={
            "phase": "Spring 1901 Movement",
            "units": [{"power": "France", "unit": "F mao"}, {"power": "France", "unit": "A gas"}],
            "supply_centers": {"France": ["par", "bre", "mar"]},
        },
    )
    legal = site.player("s", "France").get("/api/games/s/powers/France").json()["legal"]
    orders = {o["text"]: o for u in legal for o in u["orders"]}
    assert orders["F mao - spa/nc"]["coast"] == "Spain (north coast)"
    assert orders["F mao - spa/sc"]["coast"] == "Spain (south coast)"
    assert orders["F mao - spa/sc"]["dest"] == "spa" and orders["F mao - spa/sc"]["subject"] == "mao"
    # An army never names a coast, and a province with one coast needs no choice.
    assert "coast" not in orders["A gas - spa"] and "coast" not in orders["F mao - por"]


def test_the_checks_notes_are_on_the_page_after_sending(site: Site) -> None:
    """Argyll orders the Protectorate's army: accepted with the note that it counts only if the unit is
    handed over; the page after sending (no script involved) shows the note and the units left unordered."""
    site.new_game("w", variant="w3k")
    argyll = site.player("w", "Argyll")
    r = site.post_form(argyll, "/games/w/play/Argyll/orders", {"orders": "A dep - lon\nA arg H"})
    assert r.status_code == 303
    page = argyll.get("/games/w/play/Argyll").text
    note = re.search(r'<span class="note">(.*?)</span>', page, re.S)
    assert note and "counts only if Protectorate hands the unit over to Argyll" in html.unescape(note.group(1))
    unordered = re.search(r'<div class="unordered" id="unordered"[^>]*>(.*?)</div>', page, re.S)
    assert unordered and "Army Gylen Castle" in unordered.group(1) and "hold" in unordered.group(1)
