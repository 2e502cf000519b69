"""W3K map: the reconstructed board's vital signs and the sea movement the rulebook spells out.

The Lyme Bay and Portland sets are the rulebook's own lists (its English Channel page); the Luce Bay,
Irish Sea and Caernarfonshire cases are its Irish Sea page, whose exact sets follow from our data.
"""

from __future__ import annotations

import copy

import pytest

from dippouch.catalog import load_variant
from dippouch.core.errors import VariantError
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import parse_unit
from dippouch.core.rules.w3k import derive_sea_edges, sea_areas
from dippouch.mapcheck import check_map


@pytest.fixture(scope="module")
def v():  # type: ignore[no-untyped-def]
    return load_variant("w3k")


def fleet_moves(v, where: str) -> set[str]:  # type: ignore[no-untyped-def]
    gmap = v.map
    return {gmap.locations[x].abbr for x in gmap.fleet_adj[gmap.loc(where)]}


# ------------------------------------------------------------------ the rulebook's sea examples

LYME_BAY = {
    "dev/sc",  # Devon/South Coast
    "dor/wc",  # Dorset/West Coast
    "ipo",  # The Isle of Portland
    "ply",  # The Plymouth Sea Area
    "sep",  # Les Sept-Isles
    "edd",  # Eddystone Rocks
    "por",  # The Portland Sea Area
    "hur",  # Hurd's Deep
    "alr",  # Alderney Race
    "gom",  # the Gulf of Mayo
    "wig",  # The Isle of Wight (read: the Wight Sea Area's primary region)
    "bfl",  # Barfleur & La Hougue
}

PORTLAND = (LYME_BAY - {"por"}) | {
    "cor",  # Corfe Castle
    "brt/nc",  # Brittany/North Coast
    "lno/wc",  # Lower Normandy/West Coast
    "cbg",  # Cherbourg
    "jer",
    "gue",
    "abe",  # Les Abers & Point de Corsen
    "lyb",  # Lyme Bay
}


def test_lyme_bay_reaches_exactly_the_rulebook_list(v) -> None:  # type: ignore[no-untyped-def]
    assert fleet_moves(v, "lyb") == LYME_BAY
    assert fleet_moves(v, "Lyme Bay") == LYME_BAY


def test_portland_reaches_exactly_the_rulebook_list(v) -> None:  # type: ignore[no-untyped-def]
    assert len(PORTLAND) == 19
    assert fleet_moves(v, "por") == PORTLAND


def test_luce_bay_reaches_its_area_its_direct_borders_and_its_shore(v) -> None:  # type: ignore[no-untyped-def]
    irish_sea_area = {"iri", "swf", "mcb", "lpb", "dcb", "cgb"}
    # Luce Bay touches the North Channel (a local region of Malin), so it reaches it and Malin's primary;
    # its only shore is Galloway.
    assert fleet_moves(v, "lub") == irish_sea_area | {"nch", "mal", "gal"}
    # ...but not the rest of the Malin area.
    assert not fleet_moves(v, "lub") & {"clf", "lfy", "soj"}


def test_irish_sea_primary_reaches_its_area_bordering_areas_and_every_shore(v) -> None:  # type: ignore[no-untyped-def]
    moves = fleet_moves(v, "iri")
    locals_ = {"lub", "swf", "mcb", "lpb", "dcb", "cgb"}
    assert locals_ <= moves
    assert {"mal", "lun"} <= moves  # primary regions of the bordering Malin and Lundy areas
    assert "nch" in moves  # a local region of Malin that borders the Irish Sea area (at Luce Bay)
    assert not moves & {"clf", "lfy", "soj", "bch", "cmb", "sev"}  # the rest of those areas
    shores = {"gal", "ann", "crl", "ald", "fur", "lan", "che", "fli", "den", "cae/nc", "cae/sc", "ang", "mer", "cdg"}
    shores |= {"pem", "dub", "dro", "mea", "lou", "wic", "wex", "dwn", "iom", "wes"}  # Westmorland: Arnside
    assert shores <= moves
    assert moves == locals_ | {"mal", "lun", "nch"} | shores


def test_caernarfonshire_south_coast_reaches_adjacent_sea_regions_only(v) -> None:  # type: ignore[no-untyped-def]
    # Cardigan Bay (local) and the Irish Sea (its area's primary), not the rest of the area.
    assert fleet_moves(v, "cae/sc") == {"cgb", "iri", "mer"}
    assert fleet_moves(v, "cae/nc") == {"lpb", "dcb", "iri", "ang", "den"}
    assert "Caernarfonshire (North Coast)" in {loc.name for loc in v.map.locations}


def test_derived_sea_moves_are_symmetric(v) -> None:  # type: ignore[no-untyped-def]
    areas = sea_areas(v.data)
    for sea in areas.area_of:
        for t in areas.neighbours(sea):
            if t in areas.area_of:
                assert sea in areas.neighbours(t), (sea, t)


def test_every_sea_region_is_in_one_area_with_one_primary(v) -> None:  # type: ignore[no-untyped-def]
    areas = sea_areas(v.data)
    seas = {p.abbr for p in v.map.provinces if p.kind == ProvinceKind.SEA}
    assert set(areas.area_of) == seas
    assert len(areas.primary) == len(v.data["sea_areas"]) == 23
    for area, members in areas.members.items():
        assert sum(1 for m in members if areas.is_primary(m)) == 1, area


def test_sea_area_mistakes_are_reported_with_their_place(v) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(dict(v.data))
    data["provinces"]["lyb"]["borders"] = ["dev", "portlnd", "edd"]
    data["provinces"]["hur"]["area"] = "portlnd"
    with pytest.raises(VariantError) as e:
        list(derive_sea_edges(data))
    text = str(e.value)
    assert "provinces.lyb.borders" in text and "dev/nc, dev/sc" in text
    assert "unknown province 'portlnd'" in text
    assert "provinces.hur.area" in text and "did you mean 'portland'" in text


# ------------------------------------------------------------------ vital signs


def test_vital_signs(v) -> None:  # type: ignore[no-untyped-def]
    rep = check_map(v)
    assert rep.problems == []
    assert rep.unexplained == []  # every long edge carries its reason in [mapcheck.long_edges]
    assert len(rep.long_edges) == 37
    gmap = v.map
    kinds = [p.kind for p in gmap.provinces]
    assert (kinds.count(ProvinceKind.LAND), kinds.count(ProvinceKind.COAST), kinds.count(ProvinceKind.SEA)) == (
        54,
        132,
        72,
    )
    assert len(gmap.supply_centres) == 109
    assert len(gmap.supply_centres) / 2 < 55
    assert gmap.army_edge_count() == 363
    assert gmap.fleet_edge_count() == 620
    split = {p.abbr for p in gmap.provinces if p.coasts}
    assert split == {"dor", "dev", "crn", "cae", "rss", "sth", "lew", "brt", "lno"}


def test_every_province_has_a_real_point_in_the_region(v) -> None:  # type: ignore[no-untyped-def]
    for p in v.map.provinces:
        assert p.point is not None, p.abbr
        lon, lat = p.point
        assert -16 <= lon <= 7 and 46 <= lat <= 61, p.abbr


def test_powers_units_and_centres(v) -> None:  # type: ignore[no-untyped-def]
    counts = {p: len(v.start.units_of(p)) for p in v.power_names}
    assert counts == {
        "Crown": 6,
        "Cumberland": 6,
        "Newcastle": 9,
        "Manchester": 10,
        "Protectorate": 6,
        "Montrose": 6,
        "Hamilton": 6,
        "Argyll": 6,
        "Ormond": 6,
        "Irish Confederacy": 9,
    }
    for prov, unit in v.start.units.items():
        assert v.start.centres.get(prov) == unit.power, v.map.provinces[prov].abbr
    assert len(v.start.centres) == 70
    assert all(not homes for homes in v.start.homes.values())


def test_capitals(v) -> None:  # type: ignore[no-untyped-def]
    caps = v.victory["capitals"]
    names = {k: [v.map.province(n).name for n in vals] for k, vals in caps.items()}
    assert names == {
        "England": ["London", "York"],
        "Scotland": ["Edinburgh", "Glasgow"],
        "Ireland": ["Dublin & the Pale", "Belfast"],
    }
    assert all(v.map.province(n).supply_centre for vals in caps.values() for n in vals)


ANNEXE_1 = """
Bristol|Gloucestershire|Wiltshire|Oxfordshire|Glamorganshire|Worcestershire|Rouen, in French Normandy
Caernarfonshire (North Coast)|Denbighshire|Flintshire|Islands of Furness, in Lancashire|Allerdale, in Cumberland
Carlisle, in Cumberland|Den Haag, in the United Provinces|Newcastle-upon-Tyne|County Palatine of Durham
Honour of Richmond|York|Bolsover Castle, in Derbyshire|Nottinghamshire|Le Havre, in French Normandy|Edinburgh
Tweeddale|Teviotdale & Liddesdale|Stornoway, on the island of Lewis|Island of Lewis (West Coast)|Island of Skye
Amsterdam, in the United Provinces|Dublin & the Pale|County Meath|Drogheda, in Meath
County Palatine of Tipperary|County Limerick|Ennis, in County Clare|Brest, in French Brittany|Deptford, in Surrey
Sutton-at-Hone, in Kent|Aylesford, in Kent|Canterbury, in Kent|Port of Deal, in Kent|Hastings & Pevensey, in Sussex
Utrecht, in the United Provinces|Cambridgeshire|Suffolk|Norwich, in Norfolk|Great Yarmouth, in Norfolk
King's Lynn, in Norfolk|Colchester, in Essex|Cherbourg, in French Normandy|Argyll|Gylen Castle, in Lorne|Kintyre
Islay|Belfast, City and Castle|Derry, in County Londonderry|Nantes, in French Brittany|Aberdeen|Marr
Buchan & Formanrtine|The Shire of Elgin|The Shire of Forfar|Perth|Kilkenny, in Leinster|Clonmel, in Cross Tipperary
East Riding, County Cork, in Munster|County Sligo|County Roscommon|County Leitrim|Antwerp, in the Spanish Netherlands
Saint-Valery-sur-Somme
"""

OTHER_NAMES = """
London|Glasgow|Surrey|Staffordshire|Shropshire|Cheshire|Ashby-de-la-Zouch Castle|Annandale & Nithsdale|Eskdale
Northumberland|Carham Castle|Teesdale|Merse|Dublin & Caernarfon Bays|Irish Sea|Morecombe Bay|Solway Firth|Luce Bay
Fort William|Kisimul Castle|Portland (Dorset)|Devon/South Coast|Dorset/West Coast|The Isle of Portland|Corfe Castle
Brittany/North Coast|Lower Normandy/West Coast|Jersey|Guernsey|Les Sept-Isles|Eddystone Rocks|Hurd's Deep
Alderney Race|Gulf of Mayo|Barfleur & La Hougue|Les Abers & Point de Corsen|Plymouth|Portland|Isle of Wight|Wight
"""


@pytest.mark.parametrize(
    "name", [n for block in (ANNEXE_1, OTHER_NAMES) for line in block.strip().splitlines() for n in line.split("|")]
)
def test_every_region_the_rulebook_names_is_on_the_map(v, name: str) -> None:  # type: ignore[no-untyped-def]
    kind, loc = parse_unit(v, name)
    assert kind is None
    assert 0 <= loc < len(v.map.locations)


def test_split_coast_names_read_as_in_the_rulebook(v) -> None:  # type: ignore[no-untyped-def]
    gmap = v.map
    assert gmap.locations[parse_unit(v, "Devon/South Coast")[1]].abbr == "dev/sc"
    assert gmap.locations[parse_unit(v, "Island of Lewis (West Coast)")[1]].abbr == "lew/wc"
    assert gmap.locations[parse_unit(v, "Teesdale")[1]].abbr == "tev"  # the Annandale example's "Teesdale"
    assert gmap.locations[parse_unit(v, "Portland (Dorset)")[1]].abbr == "ipo"
    assert gmap.locations[parse_unit(v, "Portland")[1]].abbr == "por"
