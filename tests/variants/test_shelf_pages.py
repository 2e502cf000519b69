"""The variants' pages offer the shelf with each variant's source and licence, in the reader's language."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dippouch.catalog import SHELF_VARIANTS, load_variant, shelf_names
from websupport import Site

SOURCES = json.loads((SHELF_VARIANTS / "sources.json").read_text(encoding="utf-8"))


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_the_list_offers_every_shelf_variant_with_its_source_and_licence(site: Site) -> None:
    page = site.browser().get("/variants")
    assert page.status_code == 200
    own, shelf = page.text.split('id="shelf"', 1)
    assert "/variants/standard" in own and "/variants/w3k" in own and "/variants/pure" not in own
    assert "One of dippouch&#39;s own variants, licence MIT" in own or "One of dippouch's own variants" in own
    for name in shelf_names():
        v = load_variant(name)
        assert f'href="/variants/{name}"' in shelf, name
        assert v.description.split(",")[0].replace("'", "&#39;") in shelf, name
        assert f"From DPjudge (DPjudge/maps/{name}.map), licence MIT" in shelf, name
    assert re.search(rf"{len(shelf_names())} variants imported from DPjudge", shelf)


def test_a_shelf_variants_page_shows_its_map_rules_source_licence_and_what_the_import_left_out(site: Site) -> None:
    page = site.browser().get("/variants/ambition")
    assert page.status_code == 200
    text = page.text
    assert "<svg" in text  # the opening map
    assert load_variant("ambition").description.split(";")[0] in text
    card = text.split('id="variant-origin"', 1)[1].split("</section>", 1)[0]
    commit = SOURCES["ambition"]["commit"]
    assert f'href="https://github.com/serrasqueiro/dpjudge/blob/{commit}/DPjudge/maps/ambition.map"' in card
    assert f'href="https://github.com/serrasqueiro/dpjudge/blob/{commit}/LICENSE"' in card
    assert "Licence: MIT. Copyright 2017 Manus Hand." in card
    assert "FLOW phase INCOME has no equivalent in dippouch" in card  # what the import could not carry over
    assert f"at commit {commit[:7]}" in card


def test_dippouchs_own_variant_says_so(site: Site) -> None:
    card = site.browser().get("/variants/standard").text.split('id="variant-origin"', 1)[1]
    assert "shipped with it under the MIT licence" in card.replace("&#39;", "'")
    assert "DPjudge" not in card.split("</section>", 1)[0]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("de", ["Das Regal: Varianten anderer Judges", "Von DPjudge (DPjudge/maps/pure.map), Lizenz MIT"]),
        ("fr", ["L’étagère : variantes d’autres juges", "De DPjudge (DPjudge/maps/pure.map), licence MIT"]),
    ],
)
def test_the_shelf_reads_in_german_and_french(site: Site, lang: str, words: list[str]) -> None:
    page = site.browser().get("/variants", headers={"Accept-Language": lang}).text
    for w in words:
        assert w in page, w
    detail = site.browser().get("/variants/pure", headers={"Accept-Language": lang}).text
    assert ("Quelle und Lizenz" if lang == "de" else "Source et licence") in detail
