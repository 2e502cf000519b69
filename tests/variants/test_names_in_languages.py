"""A variant file may name its powers and provinces in other languages: shown to a reader of that language
(the game page's board in words), the names as written everywhere else (orders, the JSON API, stored games)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import load_variant, variant_from_data
from dippouch.core.errors import VariantError
from dippouch.core.variant import play_hash
from dippouch.names import board_unit, place_in
from dippouch.store import games as store_games
from websupport import ACCEPT, Site

NAMED = """\
[variant]
name = "named"
title = "Named"
extends = "standard"

[powers.France]
names = { de = "Frankreich", fr = "France" }

[provinces.par]
names = { de = "Parigi" }

[provinces.stp]
names = { de = "Sankt Petersburg" }
"""


def _named_data() -> dict[str, Any]:
    data = copy.deepcopy(dict(load_variant("standard").data))
    data["powers"]["France"]["names"] = {"de": "Frankreich"}
    data["provinces"]["par"]["names"] = {"de": "Parigi"}
    data["provinces"]["stp"]["names"] = {"de": "Sankt Petersburg"}
    return data


def test_a_name_is_the_files_translation_or_the_name_as_written() -> None:
    v = variant_from_data(_named_data(), source="named")
    assert v.name_in("France", "de") == "Frankreich"
    assert v.name_in("France", "fr") == "France"  # no French name given: as written
    assert v.name_in("France", None) == "France"
    assert v.name_in("Paris", "de") == "Parigi"  # a province by its full name
    assert v.name_in("Germany", "de") == "Germany"
    stp_sc = v.map.loc("stp/sc")
    assert place_in(v, stp_sc, "de") == "Sankt Petersburg (Südküste)"  # its coast in the reader's words too
    assert place_in(v, stp_sc, "fr") == "St Petersburg (côte sud)"  # no French name: the province as written
    assert board_unit(v, "A", v.map.loc("par"), "de") == "Armee Parigi"
    # Orders are read by the names as written: a translation is not an order's word.
    assert v.power("France").name == "France"


def test_names_in_other_languages_change_no_rule() -> None:
    """A game's variant copy is compared by its rules: a file that gains translations asks no game to upgrade."""
    plain = dict(load_variant("standard").data)
    assert play_hash(_named_data()) == play_hash(plain)


def test_a_misshapen_names_table_is_refused_naming_its_key() -> None:
    data = _named_data()
    data["powers"]["France"]["names"] = "Frankreich"
    with pytest.raises(VariantError, match=r"powers\.France\.names: must be a table"):
        variant_from_data(data, source="misshapen")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    folder = tmp_path / "variants"
    folder.mkdir()
    (folder / "named.toml").write_text(NAMED, encoding="utf-8")
    monkeypatch.setenv("DIPPOUCH_VARIANT_PATH", str(folder))
    monkeypatch.setenv("DIPPOUCH_SETTINGS", str(tmp_path / "settings.toml"))
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    store_games.create_game(s.web.store, "g", "named", now=s.clock())
    return s


def test_the_game_page_shows_the_files_names_in_the_readers_language(site: Site) -> None:
    de = site.browser().get("/games/g", headers={"Accept-Language": ACCEPT["de"]})
    assert de.status_code == 200, de.text[:300]
    assert "Frankreich" in de.text and "Armee Parigi" in de.text
    en = site.browser().get("/games/g", headers={"Accept-Language": ACCEPT["en"]})
    assert "Frankreich" not in en.text and "Army Paris" in en.text
    api = site.browser().get("/api/games/g").json()
    board = {row["power"]: row for row in api["board"]}
    assert "France" in board and "Army Paris" in board["France"]["units"]
