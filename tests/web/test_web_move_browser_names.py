"""The move browser finds every name it shows: a coast as its lists write it ("Caernarfonshire (South Coast)"),
the rulebook's "The Plymouth Sea Area", any apostrophe."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from test_shelf_sample import heavy_variants
from websupport import Site

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("v8")


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _found(site: Site, variant: str, q: str) -> str | None:
    got = site.browser().get(f"/api/variants/{variant}/moves", params={"q": q}).json()
    return None if got["province"] is None else str(got["province"]["abbr"])


def test_every_coast_name_is_found(site: Site) -> None:
    """Each variant's coasts by the names the move lists show, and by their abbreviations."""
    missing = []
    for variant in VARIANTS:
        m = load_variant(variant).map
        for loc in m.locations:
            if loc.coast is None:
                continue
            want = m.provinces[loc.province].abbr
            for q in (loc.name, loc.abbr, loc.name.upper()):
                if _found(site, variant, q) != want:
                    missing.append((variant, q))
    assert missing == []


def test_every_name_a_w3k_move_list_shows_is_found(site: Site) -> None:
    """The names on the pages themselves: each destination listed from a few seas and coasts, searched for."""
    m = load_variant("w3k").map
    shown: dict[str, str] = {}
    for q in ("Cardigan Bay", "Irish Sea", "Lyme Bay", "Portland", "Caernarfonshire"):
        page = site.browser().get("/variants/w3k/moves", params={"q": q}).text
        for abbr, name in re.findall(r'<li data-dest="([^"]+)"><a [^>]*>([^<]+)</a>', page):
            shown[html.unescape(name)] = m.provinces[m.province_of(m.loc(abbr))].abbr
    assert "Caernarfonshire (South Coast)" in shown and "Devon (South Coast)" in shown
    assert [
        (name, _found(site, "w3k", name)) for name, want in shown.items() if _found(site, "w3k", name) != want
    ] == []


def test_search_lists_coasts_and_reads_names_as_orders_do(site: Site) -> None:
    found = site.browser().get("/api/variants/w3k/search", params={"q": "Caernarfonshire (South"}).json()
    assert found == [{"abbr": "cae/sc", "name": "Caernarfonshire (South Coast)"}]
    assert _found(site, "w3k", "The Plymouth Sea Area") == "ply"
    assert _found(site, "w3k", "the Gulf of Mayo") == "gom"
    assert _found(site, "w3k", "King\u2019s Lynn") == "kly"
    page = site.browser().get("/variants/w3k/moves", params={"q": "Caernarfonshire (South Coast)"}).text
    assert "Fleet in Caernarfonshire (South Coast)" in page and "No territory" not in page
