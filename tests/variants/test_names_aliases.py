"""Names players use are understood, and no name means two places.

Every W3K and 1000 AD region was reviewed for the short and historic names players write (county
abbreviations, county towns, older spellings); they are aliases in the variant files. The parser folds
case, accents, apostrophes (typographic ones too) and the dashes inside names, so a name must not collide
with another place's name, abbreviation or alias after that folding either.
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant, variant_names
from dippouch.core.notation import _key, _tokenize, format_order, parse_order


def _keys(text: str) -> set[tuple[str, ...]]:
    key = _key(_tokenize(text))
    return {key, tuple(w for w in key if w != "-")}


@pytest.mark.parametrize("name", variant_names())
def test_no_name_means_two_places(name: str) -> None:
    v = load_variant(name)
    m = v.map
    seen: dict[tuple[str, ...], tuple[int, str]] = {}
    clashes = []
    spellings = [(text, lid) for text, lid in m.names.items()] + [(loc.name, loc.id) for loc in m.locations]
    for text, lid in spellings:
        for key in _keys(text):
            if not key:
                continue
            other = seen.setdefault(key, (lid, text))
            if other[0] != lid:
                clashes.append(f"{text!r} ({m.locations[lid].abbr}) and {other[1]!r} ({m.locations[other[0]].abbr})")
    assert clashes == []


def test_the_clash_check_sees_a_clash() -> None:
    assert _keys("King's Lynn") & _keys("Kings Lynn") and _keys("Sutton-at-Hone") & _keys("sutton at hone")


W3K_NAMES = {
    # Finding 6: refused before.
    "Gloucester": "glo",
    "Oxon": "oxf",
    "Berks": "brk",
    "Worcs": "wor",
    "Denbigh": "den",
    "Flint": "fli",
    "Notts": "ntt",
    "King\u2019s Lynn": "kly",
    # Other county abbreviations, county towns and older spellings.
    "Wilts": "wil",
    "Hants": "ham",
    "Salop": "shr",
    "Staffs": "sta",
    "Lincs": "lin",
    "Lancs": "lan",
    "Glos": "glo",
    "Bucks": "buc",
    "Herts": "hrt",
    "Cambs": "cam",
    "Northants": "nth",
    "Caernarvon": "cae",
    "Brecon": "bcn",
    "Carmarthen": "cmn",
    "Cardigan": "cdg",
    "Exeter": "dev",
    "Westmoreland": "wes",
    "Anglesea": "ang",
    "Inverlochy": "ftw",
    "Co. Meath": "mea",
    "Queens County": "qco",
    "Kingston upon Hull": "hul",
    "Sutton at Hone": "sut",
    "Ile de France": "idf",
    "Newcastle": "ncl",
    "\u201cLondon\u201d": "lon",
    "Aberdeenshire": "abd",
}

AD1000_NAMES = {
    "Constantinople": "mik",
    "Byzantium": "mik",
    "Adrianople": "edi",
    "Kyiv": "kie",
    "Jorvik": "yor",
    "York": "yor",
    "Nidaros": "tdh",
    "Wien": "vie",
    "Praha": "pra",
    "Kraków": "cra",
    "Königsberg": "kon",
    "Santiago de Compostela": "com",
    "Uleaborg": "oul",
    "Dnipro": "dni",
    "Borysthenes": "dni",
    "Odra": "ode",
    "Donau": "dan",
    "Duna": "dan",
    "Dunaj": "dan",
    "Labe": "elb",
    "Dnister": "dsr",
}


@pytest.mark.parametrize(("variant", "names"), [("w3k", W3K_NAMES), ("1000ad", AD1000_NAMES)])
def test_common_short_and_historic_names_are_read(variant: str, names: dict[str, str]) -> None:
    v = load_variant(variant)
    for written, abbr in names.items():
        order = parse_order(v, f"A {written} H")
        assert v.map.provinces[v.map.province_of(order.unit_loc or 0)].abbr == abbr, written


def test_every_w3k_and_1000ad_place_reads_back_by_its_full_name() -> None:
    for variant in ("w3k", "1000ad"):
        v = load_variant(variant)
        for loc in v.map.locations:
            text = f"Build F {loc.name}"
            assert parse_order(v, text).loc == loc.id, text  # type: ignore[attr-defined]
            assert format_order(v, parse_order(v, text), full=True) == text


def test_quoted_email_lines_are_ignored() -> None:
    from dippouch.core.notation import parse_orders

    v = load_variant("standard")
    got = parse_orders(v, "> A par - pic\n>> F bre - eng\nA par - bur\n  > quoted too")
    assert [p.text for p in got] == ["A par - bur"]


def test_a_misspelt_second_word_of_a_name_is_named_not_left_over() -> None:
    from dippouch.core.notation import OrderParseError

    v = load_variant("w3k")
    with pytest.raises(OrderParseError, match=r"no province 'Bristol Chanel'; did you mean Bristol Channel \(bch\)\?"):
        parse_order(v, "F Glamorgan - Bristol Chanel")
    with pytest.raises(OrderParseError, match="unexpected 'please' after a complete order"):
        parse_order(v, "A Oxon - Berks please")


def test_a_heading_naming_the_power_is_not_an_order() -> None:
    from dippouch.core.notation import parse_orders

    v = load_variant("w3k")
    got = parse_orders(v, "Protectorate orders\nA Deptford H\nThe Crown's orders:\nF Bristol H\nThe Crown\nF\n")
    assert [(p.power, p.text, p.error is None) for p in got] == [
        ("Protectorate", "A Deptford H", True),
        ("Crown", "F Bristol H", True),
        ("Crown", "F", False),  # a lone letter is not a heading
    ]
