"""Orders in Hundred and Hundred3 read every name the rulebooks use, old Judge names included."""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.notation import OrderParseError, format_order, parse_order


@pytest.mark.parametrize("name", ["hundred", "hundred3"])
@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # "You'll be able to tell an early Hundred player if he suggests A Aqu-Cat instead of A Guy-Ara."
        ("A Aqu-Cat", "A guy - ara"),
        ("A Guy-Ara", "A guy - ara"),
        ("A Aquitaine - Catalonia", "A guy - ara"),
        ("A ams-ant", "A hol - fla"),
        ("A Amsterdam - Antwerp", "A hol - fla"),
        ("F Ply - eng", "F dev - ech"),
        ("F Plymouth - English Channel", "F dev - ech"),
        ("A Swa - ibe", "A lor - cas"),
        ("A Swabia - Iberia", "A lor - cas"),
        ("A art - par", "A cal - par"),
        ("A Artois - Paris", "A cal - par"),
        ("A Orleans S A Paris - Artois", "A orl S A par - cal"),
        ("F cat/nc - bob", "F ara/nc - bis"),
        ("F Catalonia/sc - Mediterranean", "F ara/sc - med"),
        ("F Northumberland/wc - irs", "F num/wc - iri"),
        ("F num/ec - North Sea", "F num/ec - nth"),
        ("F Strait of Dover S A lon - cal", "F dov S A lon - cal"),
        ("F The Wash - Friesland", "F was - fri"),
        ("F The Pale - Atlantic", "F pal - atl"),
        ("A London - Calais", "A lon - cal"),
        ("F lon - cal", "F lon - cal"),
    ],
)
def test_rulebook_names_in_orders(name: str, text: str, canonical: str) -> None:
    v = load_variant(name)
    assert format_order(v, parse_order(v, text)) == canonical


def test_builds_name_the_old_coasts() -> None:
    v = load_variant("hundred")
    assert format_order(v, parse_order(v, "Build F cat/sc")) == "Build F ara/sc"
    assert format_order(v, parse_order(v, "build fleet Northumbria/ec")) == "Build F num/ec"


def test_unknown_name_suggests_the_right_one() -> None:
    v = load_variant("hundred")
    with pytest.raises(OrderParseError) as e:
        parse_order(v, "A Guyene - Poitou")
    assert "guy" in " ".join(e.value.suggestions).lower() or "guyenne" in str(e.value).lower()
