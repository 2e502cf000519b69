"""The W3K rulebook's worked examples, in its own words, are legal and resolve as it says.

The examples are data (tests/data/w3k_rulebook_examples.toml): each one's position, the orders as the
rulebook writes them, and the outcome it states. Each is read by the real reader, checked on arrival by the
one legality check, and adjudicated. Then every name the rulebook writes for a region (a list taken from its
whole text, each with the region it means) must resolve.
"""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.notation import parse_order, parse_unit
from dippouch.core.order_checks import check_submission
from dippouch.core.orders import Disband, Order
from dippouch.core.position import Position
from dippouch.core.results import Outcome, Resolution
from dippouch.core.variant import Variant
from helpers import board

DATA = Path(__file__).parents[1] / "data" / "w3k_rulebook_examples.toml"
EXAMPLES: list[dict[str, Any]] = tomllib.loads(DATA.read_text(encoding="utf-8"))["examples"]
SECTIONS = {
    "Unit orders",
    "Sea movement and Sea Areas",
    "Convoys",
    "More detail on movement, attack, and support",
    "Proxy orders for units",
    "Transferring supply",
    "Annexe 3 suggested style guide",
}


@pytest.fixture(scope="module")
def v() -> Variant:
    return load_variant("w3k")


def _orders(example: dict[str, Any]) -> list[dict[str, Any]]:
    """The example's orders; a list of destinations ("each") is one move order per destination."""
    if "each" in example:
        power = next(iter(example["units"]))
        return [
            {"power": power, "order": example["each"].format(d), "result": example["result"]}
            for d in example["destinations"]
        ]
    return list(example["orders"])


def _power(example: dict[str, Any], name: str) -> str:
    return str(example.get("players", {}).get(name, name))


def _text(example: dict[str, Any], text: str) -> str:
    """The rulebook's "Player B" becomes the power that plays it in this example."""
    for player, power in example.get("players", {}).items():
        text = re.sub(rf"\b{re.escape(player)}\b", f"Player {power}", text)
    return text


def _position(v: Variant, example: dict[str, Any]) -> Position:
    return board(
        v, example["phase"], example["units"], example.get("centres"), homes={p: frozenset() for p in v.power_names}
    )


def _run(
    v: Variant, example: dict[str, Any], rows: list[dict[str, Any]]
) -> tuple[Position, dict[str, list[Order]], Resolution]:
    pos = _position(v, example)
    kind = v.calendar.kind(pos.phase)
    by_power: dict[str, list[Order]] = {}
    for row in rows:
        # The real reader: a rulebook order it cannot read fails the test here, with the reader's message.
        order = parse_order(v, _text(example, row["order"]), phase_kind=kind)
        by_power.setdefault(_power(example, row["power"]), []).append(order)
    return pos, by_power, adjudicate(v, pos, by_power, rng=random.Random(1642))


def test_the_data_file_holds_every_section_with_worked_examples() -> None:
    assert {e["section"] for e in EXAMPLES} == SECTIONS
    assert len({e["id"] for e in EXAMPLES}) == len(EXAMPLES)
    for e in EXAMPLES:
        for row in _orders(e):
            assert row.get("result") is None or row["result"] in {o.value for o in Outcome}, (e["id"], row)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_rulebook_example(v: Variant, example: dict[str, Any]) -> None:
    rows = _orders(example)
    if "each" in example:
        # One fleet, one destination at a time: each move of the list on its own.
        outcomes = []
        for row in rows:
            _, _, res = _run(v, example, [row])
            [r] = res.results
            outcomes.append((row["order"], r.result.value, r.reason))
        assert [o for o in outcomes if o[1] != example["result"]] == []
        return
    pos, by_power, res = _run(v, example, rows)
    # Arrival: every order the rulebook expects to be carried out is accepted by the check players get.
    for power, orders in by_power.items():
        checked = check_submission(v, pos, power, orders)
        expected = [row for row in rows if _power(example, row["power"]) == power]
        for row, c in zip(expected, checked, strict=True):
            if row.get("result") != "illegal":
                assert c.problem is None, (row["order"], c.problem)
    # Adjudication: every order legal unless the rulebook says it is not carried out; results as stated.
    seen: dict[str, int] = {}
    for row in rows:
        power = _power(example, row["power"])
        index = seen.get(power, 0)
        seen[power] = index + 1
        [r] = [r for r in res.results if r.power == power and r.index == index and not r.automatic]
        if row.get("result") != "illegal":
            assert r.result != Outcome.ILLEGAL, (row["order"], r.reason)
        if "result" in row:
            assert r.result.value == row["result"], (row["order"], r.result.value, r.reason)
    gmap = v.map
    for where, who in example.get("after", {}).items():
        unit = res.next.units.get(gmap.province_of(gmap.loc(where)))
        got = "" if unit is None else f"{unit.power} {unit.kind}"
        assert got == who, (where, got)
    assert {gmap.provinces[p].abbr for p in res.next.dislodged} == set(example.get("dislodged", []))
    lots = {
        p: sum(1 for r in res.results if r.automatic and r.power == p and isinstance(r.order, Disband))
        for p in v.power_names
    }
    assert {p: n for p, n in lots.items() if n} == example.get("lots", {})


def test_the_supports_the_rulebook_names_now_count(v: Variant) -> None:
    """The two orders that were read wrongly or judged illegal: Northumberland's support of Eskdale (no
    border) and the support naming the Crown as the owner (no province 'the Crown')."""
    pos = board(v, "Summer 1642", {"Newcastle": ["A nhb"], "Cumberland": ["A esk", "A shr"], "Crown": ["A ash"]})
    texts = {
        "Newcastle": ["Army Northumberland supports Eskdale."],
        "Cumberland": ["Army Shropshire supports the Crown Army Ashby-de-la-Zouch into Staffordshire"],
    }
    orders = {p: [parse_order(v, t) for t in ts] for p, ts in texts.items()}
    for power, os_ in orders.items():
        assert [c.problem for c in check_submission(v, pos, power, os_)] == [None]


# --------------------------------------------------------------------------------------------------
# Every name the rulebook writes for a region, as written, and the region (or coast) it means. Taken from
# the whole text: the examples, the sea-area lists, the capitals, Annexe 1's starting units, and the
# regions the history names. Names of countries and provinces of the time that are no region of the
# board (England, Wales, Ulster, Munster, the Pale on its own, French Normandy) are not in it.

RULEBOOK_NAMES: dict[str, str] = {
    # Dramatis personae and the history
    "Kingston-upon-Hull": "hul",
    "York": "yor",
    "Edinburgh": "edi",
    "Newcastle": "ncl",
    "Cambridge": "cam",
    # Winning the game
    "London": "lon",
    "Glasgow": "gls",
    "Dublin": "dub",
    "Belfast": "bel",
    # Unit orders
    "Ashby-de-la-Zouch Castle": "ash",
    "Ashby-de-la-Zouch": "ash",
    "Staffordshire": "sta",
    "Shropshire": "shr",
    "Cheshire": "che",
    # Sea movement and Sea Areas
    "Luce Bay": "lub",
    "the Irish Sea": "iri",
    "Irish Sea": "iri",
    "the south coast of Caernarfonshire": "cae/sc",
    "Lyme Bay": "lyb",
    "the Portland Sea Area": "por",
    "The Portland Sea Area": "por",
    "Devon/South Coast": "dev/sc",
    "Dorset/West Coast": "dor/wc",
    "The Isle of Portland": "ipo",
    "Corfe Castle": "cor",
    "The Plymouth Sea Area": "ply",
    "Les Sept-Isles": "sep",
    "Eddystone Rocks": "edd",
    "Brittany/North Coast": "brt/nc",
    "Lower Normandy/West Coast": "lno/wc",
    "Cherbourg": "cbg",
    "Jersey": "jer",
    "Guernsey": "gue",
    "Hurd's Deep": "hur",
    "Alderney Race": "alr",
    "the Gulf of Mayo": "gom",
    "Les Abers & Point de Corsen": "abe",
    "The Isle of Wight": "wig",
    "Barfleur & La Hougue": "bfl",
    # Convoys
    "Caernarfonshire": "cae",
    "Dublin & the Pale": "dub",
    "Dublin & Caernarfon Bays": "dcb",
    "Morecombe Bay": "mcb",
    "Morecombe": "mcb",
    "Solway Firth": "swf",
    # More detail on movement, attack, and support
    "Annandale & Nithsdale": "ann",
    "Annandale": "ann",
    "Carlisle": "crl",
    "Eskdale": "esk",
    "Northumberland": "nhb",
    "Carham Castle": "cah",
    "Carham": "cah",
    "Teesdale": "tev",
    "Merse": "mrs",
    # Proxy orders, transferring supply
    "Surrey": "sry",
    "Fort William": "ftw",
    "Kisimul Castle": "kis",
    "Glamorganshire": "gla",
    "Portland (Dorset)": "ipo",
    "Hastings & Pevensey": "hpv",
    # Annexe 1, as written
    "Bristol": "bri",
    "Gloucestershire": "glo",
    "Wiltshire": "wil",
    "Oxfordshire": "oxf",
    "Worcestershire": "wor",
    "Rouen, in French Normandy": "rou",
    "Caernarfonshire (North Coast)": "cae/nc",
    "Denbighshire": "den",
    "Flintshire": "fli",
    "Islands of Furness, in Lancashire": "fur",
    "Allerdale, in Cumberland": "ald",
    "Carlisle, in Cumberland": "crl",
    "Den Haag, in the United Provinces": "hag",
    "Newcastle-upon-Tyne": "ncl",
    "County Palatine of Durham": "dur",
    "Honour of Richmond": "ric",
    "Bolsover Castle, in Derbyshire": "bol",
    "Nottinghamshire": "ntt",
    "Le Havre, in French Normandy": "hav",
    "Tweeddale": "twd",
    "Teviotdale & Liddesdale": "tev",
    "Stornoway, on the island of Lewis": "sto",
    "Island of Lewis (West Coast)": "lew/wc",
    "Island of Skye": "sky",
    "Amsterdam, in the United Provinces": "ams",
    "County Meath, of Leinster, in the Pale": "mea",
    "Drogheda, in Meath": "dro",
    "County Palatine of Tipperary, in Munster": "tip",
    "County Limerick, in Munster": "lim",
    "Ennis, in County Clare": "enn",
    "Brest, in French Brittany": "brs",
    "Deptford, in Surrey": "dep",
    "Sutton-at-Hone, in Kent": "sut",
    "Aylesford, in Kent": "ayl",
    "Canterbury, in Kent": "cty",
    "Port of Deal, in Kent": "dea",
    "Hastings & Pevensey, in Sussex": "hpv",
    "Utrecht, in the United Provinces": "utr",
    "Cambridgeshire": "cam",
    "Suffolk": "suf",
    "Norwich, in Norfolk": "nor",
    "Great Yarmouth, in Norfolk": "gya",
    "King's Lynn, in Norfolk": "kly",
    "Colchester, in Essex": "col",
    "Cherbourg, in French Normandy": "cbg",
    "Argyll": "arg",
    "Gylen Castle, in Lorne": "gyl",
    "Kintyre": "kty",
    "Islay": "isl",
    "Belfast, City and Castle": "bel",
    "Derry, in County Londonderry": "dry",
    "Nantes, in French Brittany": "nan",
    "Aberdeen": "abd",
    "Marr": "mar",
    "Buchan & Formanrtine": "bfm",
    "The Shire of Elgin": "elg",
    "The Shire of Forfar": "frf",
    "Perth": "pth",
    "Saint-Valery-sur-Somme, in French Picardy": "val",
    "Kilkenny, in Leinster": "kkn",
    "Clonmel, in Cross Tipperary": "clo",
    "East Riding, County Cork, in Munster": "eco",
    "County Sligo, in Connaught": "sli",
    "County Roscommon, in Connaught": "rsc",
    "County Leitrim, in Connaught": "ltm",
    "Antwerp, in the Spanish Netherlands": "anw",
}


@pytest.mark.parametrize(("text", "where"), list(RULEBOOK_NAMES.items()))
def test_every_name_the_rulebook_writes_resolves(v: Variant, text: str, where: str) -> None:
    got = parse_unit(v, text)[1]
    assert v.map.locations[got].abbr == where, text
