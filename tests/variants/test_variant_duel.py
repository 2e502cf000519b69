"""The one-on-one variant (duel.toml): France against Austria as vDiplomacy plays it, and the other pairings.

The facts checked are those the variant file's notes state from the sources: only two powers, each with its
standard units and home centres, every other centre neutral and empty, 18 centres to win, no end year.
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.errors import VariantError
from dippouch.game import check_victory, game_end

PAIRINGS = {"fva": ("Austria", "France"), "gvi": ("Germany", "Italy"), "evt": ("England", "Turkey")}


def abbrs(v, ids) -> set[str]:  # type: ignore[no-untyped-def]
    return {v.map.provinces[p].abbr for p in ids}


def test_france_against_austria_is_the_default_with_the_standard_start_and_neutral_empty_centres() -> None:
    v = load_variant("duel")
    standard = load_variant("standard")
    assert v.power_names == ("Austria", "France")
    pos = v.start
    units = {(u.power, u.kind, v.map.provinces[loc].abbr) for loc, u in pos.units.items()}
    assert units == {
        ("France", "F", "bre"),
        ("France", "A", "par"),
        ("France", "A", "mar"),
        ("Austria", "F", "tri"),
        ("Austria", "A", "vie"),
        ("Austria", "A", "bud"),
    }
    assert abbrs(v, pos.centres_of("France")) == {"bre", "par", "mar"}
    assert abbrs(v, pos.centres_of("Austria")) == {"bud", "tri", "vie"}
    # The same 34 centres as the standard map; the 28 not French or Austrian start unowned.
    centres = {p for p, prov in enumerate(v.map.provinces) if prov.supply_centre}
    assert len(centres) == 34
    assert len(centres - set(pos.centres)) == 28
    assert [p.abbr for p in v.map.provinces] == [p.abbr for p in standard.map.provinces]
    assert v.victory["centres"] == 18
    assert v.calendar.last_year is None


@pytest.mark.parametrize("pairing", sorted(PAIRINGS))
def test_each_pairing_plays_its_two_powers_only(pairing: str) -> None:
    v = load_variant("duel", {"pairing": pairing})
    assert v.power_names == PAIRINGS[pairing]
    assert {u.power for u in v.start.units.values()} == set(PAIRINGS[pairing])
    assert set(v.start.centres.values()) == set(PAIRINGS[pairing])


def test_an_unknown_pairing_is_refused_naming_the_ones_there_are() -> None:
    with pytest.raises(VariantError) as e:
        load_variant("duel", {"pairing": "fvr"})
    assert "fva, gvi, evt" in str(e.value)


def test_eighteen_centres_win_and_seventeen_do_not() -> None:
    v = load_variant("duel")
    pos = v.start
    neutral = sorted(p for p, prov in enumerate(v.map.provinces) if prov.supply_centre and p not in pos.centres)
    centres = dict(pos.centres)
    for p in neutral[:14]:
        centres[p] = "France"
    seventeen = pos.with_(centres=centres)
    assert len(seventeen.centres_of("France")) == 17
    assert check_victory(v, seventeen) is None
    assert game_end(v, seventeen) is None  # no end year: a game at 17 goes on
    centres[neutral[14]] = "France"
    eighteen = pos.with_(centres=centres)
    assert check_victory(v, eighteen) == "France"
    ending = game_end(v, eighteen)
    assert ending is not None and ending.kind == "victory" and ending.powers == ("France",)


def test_leaving_out_a_power_the_variant_does_not_have_is_still_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # ``NAME = false`` leaves out an inherited power; anything else than false under [powers] is still a table.
    f = tmp_path / "lone.toml"
    f.write_text('[variant]\nname = "lone"\nextends = "standard"\n[powers]\nEngland = "no"\n', encoding="utf-8")
    with pytest.raises(VariantError) as e:
        load_variant(str(f))
    assert "powers.England" in str(e.value) and "must be a table" in str(e.value)
