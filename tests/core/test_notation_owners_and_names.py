"""Orders that name the owner of the unit they support or convoy, and the other ways players write names.

"Army Shropshire supports the Crown Army Ashby-de-la-Zouch into Staffordshire" (the W3K rulebook), "A mar S
the French army in Burgundy", "F nth C English A lon - bel": the owner is read, kept in the order, written
back, and checked against the board by the one legality check (the arrival check and the adjudicator alike).
Names: a leading "the", a sea's "Sea Area"/"area", "the south coast of Caernarfonshire".
"""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.notation import OrderParseError, format_order, parse_order
from dippouch.core.order_checks import check_submission
from dippouch.core.orders import Convoy, Move, Support
from dippouch.core.results import Outcome
from dippouch.core.rules.w3k import Proxy
from helpers import board

STD = load_variant("standard")
W3K = load_variant("w3k")


def L(name: str, v: object = STD) -> int:
    return v.map.loc(name)  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("A Mar S the French army in Burgundy", Support("A", L("mar"), "A", L("bur"), None, "France")),
        ("A Bur S German A Mun - Ruh", Support("A", L("bur"), "A", L("mun"), L("ruh"), "Germany")),
        ("A Bur supports Germany's Munich to Ruhr", Support("A", L("bur"), None, L("mun"), L("ruh"), "Germany")),
        ("A Bur S the German Army Munich into Ruhr", Support("A", L("bur"), "A", L("mun"), L("ruh"), "Germany")),
        ("F Nth C English A Lon - Bel", Convoy("F", L("nth"), L("lon"), L("bel"), "England")),
        ("F Nth convoys the English army in London to Belgium", Convoy("F", L("nth"), L("lon"), L("bel"), "England")),
        ("A Mar S A Bur", Support("A", L("mar"), "A", L("bur"), None, None)),
    ],
)
def test_an_owner_named_before_the_supported_or_convoyed_unit_is_read(text: str, order: object) -> None:
    got = parse_order(STD, text)
    assert got == order
    for full in (False, True):
        assert parse_order(STD, format_order(STD, got, full=full)) == got


def test_the_owner_is_written_back_in_the_canonical_form() -> None:
    assert format_order(STD, parse_order(STD, "A Bur S German A Mun - Ruh")) == "A bur S Germany A mun - ruh"
    assert format_order(STD, parse_order(STD, "A Bur S Germany's Mun - Ruh")) == "A bur S Germany's mun - ruh"
    assert format_order(STD, parse_order(STD, "F Nth C English A Lon - Bel")) == "F nth C England A lon - bel"


def test_the_rulebooks_support_naming_the_crown_reads() -> None:
    got = parse_order(W3K, "Army Shropshire supports the Crown Army Ashby-de-la-Zouch into Staffordshire")
    assert got == Support("A", L("shr", W3K), "A", L("ash", W3K), L("sta", W3K), "Crown")
    assert format_order(W3K, got) == "A shr S Crown A ash - sta"
    many = parse_order(W3K, "Army Shropshire supports the Irish Confederacy's Army Staffordshire")
    assert many == Support("A", L("shr", W3K), "A", L("sta", W3K), None, "Irish Confederacy")


def test_a_power_that_is_also_a_place_is_an_owner_only_before_a_unit() -> None:
    # Argyll is a power and a region: "supports Argyll" is the unit in Argyll.
    assert parse_order(W3K, "Army Lorne supports Argyll") == Support("A", L("lor", W3K), None, L("arg", W3K))
    assert parse_order(W3K, "Army Lorne supports Argyll Army Argyll") == Support(
        "A", L("lor", W3K), "A", L("arg", W3K), None, "Argyll"
    )
    assert parse_order(W3K, "Army Lorne supports Army Argyll") == Support("A", L("lor", W3K), "A", L("arg", W3K))


def test_a_proxy_order_may_name_the_owner_of_the_unit_handed_over() -> None:
    lon = L("lon", W3K)
    for text in (
        "Command of the Protectorate's Army London is offered to Player Manchester",
        "The Protectorate's Army London is under the orders of Manchester",
    ):
        got = parse_order(W3K, text)
        assert got == Proxy("A", lon, "Manchester", "Protectorate")
        assert parse_order(W3K, format_order(W3K, got)) == got


def test_a_wrong_owner_is_refused_on_arrival_and_by_the_adjudicator() -> None:
    pos = board(STD, "Spring 1901", {"France": ["A mar"], "Germany": ["A bur"]})
    orders = [parse_order(STD, "A Mar S the French army in Burgundy")]
    [checked] = check_submission(STD, pos, "France", orders)
    assert checked.problem is not None
    assert "A Burgundy belongs to Germany, not to France as the order says" in checked.problem
    res = adjudicate(STD, pos, {"France": orders})
    [r] = [r for r in res.results if r.power == "France"]
    assert r.result == Outcome.ILLEGAL and "belongs to Germany" in r.reason


def test_a_convoy_naming_the_wrong_owner_is_refused() -> None:
    pos = board(STD, "Spring 1901", {"England": ["F nth"], "France": ["A lon"]})
    [checked] = check_submission(STD, pos, "England", [parse_order(STD, "F Nth C English A Lon - Bel")])
    assert checked.problem is not None and "belongs to France, not to England" in checked.problem


def test_the_right_owner_is_accepted_and_kept() -> None:
    pos = board(STD, "Spring 1901", {"France": ["A mar", "A bur"], "Germany": ["A mun"]})
    [checked] = check_submission(STD, pos, "France", [parse_order(STD, "A Bur S German A Mun - Ruh")])
    assert checked.problem is None
    assert format_order(STD, checked.order) == "A bur S Germany A mun - ruh"


def test_a_proxy_naming_the_wrong_owner_is_refused() -> None:
    pos = board(W3K, "Summer 1642", {"Protectorate": ["A lon"]}, homes={p: frozenset() for p in W3K.power_names})
    order = parse_order(W3K, "Command of the Crown's Army London is offered to Manchester")
    [checked] = check_submission(W3K, pos, "Protectorate", [order])
    assert checked.problem is not None and "belongs to Protectorate, not to Crown" in checked.problem


def test_an_owner_before_the_ordered_unit_gets_a_specific_message() -> None:
    with pytest.raises(OrderParseError) as e:
        parse_order(W3K, "Newcastle's Army Staffordshire holds.")
    assert "an order starts with its unit, without the owner: write 'Army Staffordshire holds'" in str(e.value)


@pytest.mark.parametrize(
    ("text", "dest"),
    [
        ("Army Cheshire attacks Shropshire", "shr"),
        ("Army Cheshire enters Shropshire", "shr"),
        ("Army Cheshire into Shropshire", "shr"),
    ],
)
def test_attack_enter_and_into_are_moves(text: str, dest: str) -> None:
    assert parse_order(W3K, text) == Move("A", L("che", W3K), L(dest, W3K))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("the Gulf of Mayo", "gom"),
        ("The Plymouth Sea Area", "ply"),
        ("the Portland Sea Area", "por"),
        ("Plymouth area", "ply"),
        ("the Irish Sea", "iri"),
        ("Shire of Elgin", "elg"),
        ("the south coast of Caernarfonshire", "cae/sc"),
        ("north coast of Caernarfonshire", "cae/nc"),
    ],
)
def test_names_with_the_sea_area_and_coast_of(text: str, where: str) -> None:
    order = parse_order(W3K, f"F Irish Sea - {text}" if where != "iri" else f"F Cardigan Bay - {text}")
    assert isinstance(order, Move) and order.dest == L(where, W3K)


def test_coast_of_a_province_in_the_standard_map() -> None:
    assert parse_order(STD, "F Mao - the north coast of Spain") == Move("F", L("mao"), L("spa/nc"))
    assert parse_order(STD, "F Bot - St Petersburg south coast") == Move("F", L("bot"), L("stp/sc"))
