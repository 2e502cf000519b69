"""Hundred and Hundred3 as data: the map counts, every rulebook name, the starting positions and options."""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.mapdata import ProvinceKind
from dippouch.mapcheck import check_map

ARMY_TEXT = (
    "als-can als-lor ang-dev ang-lon ang-num anj-brt anj-nmd anj-orl ara-cas ara-guy ara-tou brt-guy brt-nmd "
    "brt-orl brt-poi cal-dij cal-fla cal-lon cal-nmd cal-par can-dau can-dij can-lor can-sav cha-dau cha-dij "
    "cha-par dau-dij dau-lim dau-orl dau-par dau-pro dau-sav dev-lon dev-num dev-wal dij-fla dij-lor dij-lux "
    "dij-par fla-hol fla-lux fri-hol fri-lux guy-poi guy-tou hol-lux lim-orl lim-poi lim-pro lim-tou lor-lux "
    "nmd-orl nmd-par num-sco num-wal orl-par orl-poi poi-tou pro-sav pro-tou"
)
FLEET_TEXT = (
    "ang-dov ang-lon ang-nth ang-num/ec ang-was ara/nc-bis ara/nc-cas ara/nc-guy ara/sc-cas ara/sc-med "
    "ara/sc-tou atl-bch atl-bis atl-cas atl-iri atl-med atl-pal bch-bis bch-brt bch-dev bch-ech bch-iri bch-wal "
    "bis-brt bis-cas bis-guy brt-ech brt-guy brt-nmd cal-dov cal-fla cal-lon cal-nmd cas-med dev-ech dev-lon "
    "dev-wal dov-ech dov-fla dov-hol dov-lon dov-nmd dov-was ech-lon ech-nmd fla-hol fri-hol fri-was hol-was "
    "iri-min iri-num/wc iri-pal iri-sco iri-wal med-pro med-sav med-tou min-nth min-pal min-sco nth-num/ec "
    "nth-sco nth-was num/ec-sco num/wc-sco num/wc-wal pro-sav pro-tou"
)
ARMY_EDGES = ARMY_TEXT.split()
FLEET_EDGES = FLEET_TEXT.split()
CENTRES_TEXT = "brt cal can cas dau dev dij fla guy hol lon lux nmd orl par sco tou"


def units(variant_name: str, **options: bool) -> set[str]:
    v = load_variant(variant_name, options or None)
    return {f"{u.power} {u.kind} {v.map.locations[u.loc].abbr}" for u in v.start.units.values()}


@pytest.mark.parametrize("name", ["hundred3", "hundred"])
def test_map_counts(name: str) -> None:
    v = load_variant(name)
    m = v.map
    assert len(m.provinces) == 41
    kinds = [p.kind for p in m.provinces]
    assert kinds.count(ProvinceKind.SEA) == 10
    assert kinds.count(ProvinceKind.LAND) == 12
    assert kinds.count(ProvinceKind.COAST) == 19
    assert len(m.supply_centres) == 17
    assert m.army_edge_count() == 61
    assert m.fleet_edge_count() == 68
    assert [m.locations[c].abbr for c in m.province("ara").coasts] == ["ara/nc", "ara/sc"]
    assert [m.locations[c].abbr for c in m.province("num").coasts] == ["num/ec", "num/wc"]
    assert v.victory["centres"] == 9
    for p in m.provinces:
        assert p.point is not None
        lon, lat = p.point
        assert -12 < lon < 10 and 40 < lat < 60, p.abbr


def test_edges_exactly_as_the_sources_agree() -> None:
    m = load_variant("hundred3").map
    army = {
        "-".join(sorted((m.provinces[a].abbr, m.provinces[b].abbr))) for a, adj in enumerate(m.army_adj) for b in adj
    }
    fleet = {
        "-".join(sorted((m.locations[a].abbr, m.locations[b].abbr))) for a, adj in enumerate(m.fleet_adj) for b in adj
    }
    assert army == set(ARMY_EDGES)
    assert fleet == set(FLEET_EDGES)


def test_centres_and_owners() -> None:
    v = load_variant("hundred3")
    m = v.map
    assert {m.provinces[c].abbr for c in m.supply_centres} == set(CENTRES_TEXT.split())
    owners: dict[str, set[str]] = {}
    for c, power in v.start.centres.items():
        owners.setdefault(power, set()).add(m.provinces[c].abbr)
    assert owners == {
        "England": {"cal", "dev", "guy", "lon", "nmd"},
        "Burgundy": {"dij", "fla", "hol", "lux"},
        "France": {"dau", "orl", "par", "tou"},
    }
    assert not m.province("pro").supply_centre
    # Build anywhere: nobody has home centres.
    assert all(not homes for homes in v.start.homes.values())


def test_hundred3_start_follows_the_rules_section() -> None:
    # The header of hundred3.txt says F English Channel; its rule 6 says F Devon. We follow rule 6.
    assert units("hundred3") == {
        "Burgundy A dij", "Burgundy A fla", "Burgundy A lux", "Burgundy F hol",
        "England A cal", "England A guy", "England A nmd", "England F dev", "England F lon",
        "France A dau", "France A orl", "France A par", "France A tou",
    }  # fmt: skip


def test_hundred_start_has_the_mercenary() -> None:
    v = load_variant("hundred")
    assert units("hundred") == units("hundred3") | {"France A pro"}
    assert len(v.start.units_of("France")) == 5
    assert len(v.start.centres_of("France")) == 4
    assert not v.map.province("pro").supply_centre


def test_rule_6d_option_starts_the_fleet_in_the_channel() -> None:
    v = load_variant("hundred", {"english_channel": True})
    got = units("hundred", english_channel=True)
    assert "England F ech" in got and "England F dev" not in got
    assert len(got) == 14
    dev = v.map.province("dev").id
    assert v.start.centres[dev] == "England"
    assert dev not in v.start.units
    assert load_variant("hundred").options["english_channel"] is False


@pytest.mark.parametrize(
    ("alias", "abbr"),
    [
        ("ams", "hol"), ("amsterdam", "hol"), ("ant", "fla"), ("antwerp", "fla"), ("ply", "dev"),
        ("plymouth", "dev"), ("aqu", "guy"), ("aquitaine", "guy"), ("swa", "lor"), ("swabia", "lor"),
        ("cat", "ara"), ("catalonia", "ara"), ("ibe", "cas"), ("iberia", "cas"), ("art", "cal"),
        ("artois", "cal"), ("orleans", "orl"), ("Orleanais", "orl"), ("northumberland", "num"),
        ("Strait of Dover", "dov"), ("dover", "dov"), ("The Wash", "was"), ("wash", "was"),
        ("The Pale", "pal"), ("pale", "pal"), ("Bristol Channel", "bch"), ("English Channel", "ech"),
        ("Bay of Biscay", "bis"), ("Atlantic", "atl"), ("Mediterranean", "med"), ("nmd", "nmd"),
        ("Normandy", "nmd"), ("brt", "brt"), ("Brittany", "brt"), ("num", "num"), ("nth", "nth"),
        ("Guyenne", "guy"), ("Cantons", "can"), ("swiss", "can"), ("castille", "cas"),
    ],
)  # fmt: skip
def test_every_rulebook_name(alias: str, abbr: str) -> None:
    m = load_variant("hundred").map
    assert m.provinces[m.province_of(m.loc(alias))].abbr == abbr


def test_rulebook_full_names() -> None:
    # The list of full names and abbreviations in hundred3.txt, word for word.
    table = {
        "als": "Alsace", "ang": "Anglia", "anj": "Anjou", "ara": "Aragon", "atl": "Atlantic", "bis": "Biscay",
        "bch": "Bristol Channel", "brt": "Brittany", "cal": "Calais", "can": "Cantons", "cas": "Castile",
        "cha": "Charolais", "dev": "Devon", "dau": "Dauphine", "dij": "Dijon", "dov": "Strait of Dover",
        "ech": "English Channel", "fla": "Flanders", "fri": "Friesland", "guy": "Guyenne", "hol": "Holland",
        "iri": "Irish Sea", "lim": "Limousin", "lon": "London", "lor": "Lorraine", "lux": "Luxembourg",
        "med": "Mediterranean", "min": "Minch", "nmd": "Normandy", "nth": "North Sea", "num": "Northumbria",
        "orl": "Orleanais", "par": "Paris", "poi": "Poitou", "pro": "Provence", "sav": "Savoy", "sco": "Scotland",
        "was": "The Wash", "pal": "The Pale", "tou": "Toulouse", "wal": "Wales",
    }  # fmt: skip
    m = load_variant("hundred3").map
    assert {p.abbr: p.name for p in m.provinces} == table


def test_london_calais_border_for_both_kinds() -> None:
    m = load_variant("hundred").map
    lon, cal = m.loc("lon"), m.loc("cal")
    assert cal in m.army_adj[lon] and lon in m.army_adj[cal]
    assert cal in m.fleet_adj[lon] and lon in m.fleet_adj[cal]


def test_castile_passes_fleets_between_biscay_and_the_mediterranean() -> None:
    m = load_variant("hundred3").map
    cas = m.loc("cas")
    assert {m.locations[x].abbr for x in m.fleet_adj[cas]} == {"ara/nc", "ara/sc", "atl", "bis", "med"}


@pytest.mark.parametrize("name", ["hundred3", "hundred"])
def test_mapcheck_finds_nothing_unexplained(name: str) -> None:
    rep = check_map(load_variant(name))
    assert rep.problems == []
    assert rep.unexplained == []
    assert [(e.a, e.b) for e in rep.long_edges] == [("cal", "dij")]
