"""1000 AD's reconstructed map: the rulebook's facts exactly, our reconstruction pinned by its vital signs."""

from __future__ import annotations

import pytest

from dippouch.catalog import load_variant
from dippouch.core.mapdata import ProvinceKind
from dippouch.mapcheck import check_map, edge_key


@pytest.fixture(scope="module")
def v():  # type: ignore[no-untyped-def]
    return load_variant("1000ad")


# Rule 3, with the abbreviations resolved as docs/variants/1000ad.md explains (Bar = Bari -> bai,
# Ara = Arad -> ard, Cra = Crakow, Lin = Linz, Lyo = Lyon).
HOMES = {
    "British": "abe dum yor mth wal mer mal wwa lon",
    "Franks": "bri nor rou nan par try lyo bor tou rho",
    "Moors": "lis tol val and mor ora alg bon gaf",
    "Byzantines": "nap bai caf sic zag kho kis ard var edi mik oth mod cre am",
    "Vikings": "tro jor tdh dov ber osl ska jel hve sch",
    "Magyars and Polacks": "ess elb ode vit pra vie plz lin cra dan",
    "Polotjans and Dregovites": "liv lov kur kon vil smo dvi pol dsr",
}


def test_home_centres_exactly_as_rule_3(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    got = {p: sorted(m.provinces[h].abbr for h in hs) for p, hs in v.start.homes.items()}
    assert got == {p: sorted(h.split()) for p, h in HOMES.items()}
    assert [len(h.split()) for h in HOMES.values()] == [9, 10, 9, 15, 10, 10, 9]
    # Everyone owns their home centres and nothing else; nobody has a unit before Winter 999.
    for power, homes in v.start.homes.items():
        assert set(v.start.centres_of(power)) == set(homes)
    assert v.start.units == {}
    assert v.calendar.name(v.start.phase) == "Winter 999 Adjustments"


def test_vital_signs(v) -> None:  # type: ignore[no-untyped-def]
    rep = check_map(v)
    c = rep.counts
    assert (c["provinces"], c["land"], c["coast"], c["sea"]) == (143, 37, 83, 23)
    assert (c["centres"], c["home_centres"], c["neutral_centres"]) == (93, 72, 21)
    assert (c["army_edges"], c["fleet_edges"]) == (238, 242)
    assert c["split_coasts"] == 1
    assert c["components"] == 1
    assert rep.problems == []
    assert rep.unexplained == []
    assert len(rep.long_edges) == 13


def test_lombardy_and_neutral_centres(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    lom = m.province("lom")
    assert lom.supply_centre and lom.kind == ProvinceKind.COAST
    assert lom.id not in v.start.centres
    neutrals = sorted(m.provinces[p].abbr for p in m.supply_centres if p not in v.start.centres)
    assert neutrals == sorted(
        [
            "lom",
            "rey",
            "dub",
            "lim",
            "usa",
            "got",
            "kie",
            "ros",
            "lag",
            "leo",
            "nav",
            "bar",
            "cas",
            "rom",
            "sar",
            "sax",
            "bay",
            "maa",
            "obo",
            "jom",
            "dij",
        ]
    )


@pytest.mark.parametrize(
    "a,b", [("jel", "hve"), ("hve", "ska"), ("cor", "sar"), ("caf", "sic"), ("and", "mor"), ("mik", "am")]
)
def test_rule_10_direct_land_connections(v, a: str, b: str) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    pa, pb = m.province(a).id, m.province(b).id
    assert pb in m.army_adj[pa] and pa in m.army_adj[pb]
    # Both are coasts on a common sea, so fleets may sail between them too.
    assert pb in m.fleet_reach[pa]


def test_no_other_army_edge_crosses_a_sea_to_an_island(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    for island in ("cre", "got"):
        assert m.army_adj[m.province(island).id] == frozenset()
    iceland = {m.province(x).id for x in ("rey", "gey", "vjo", "vfj")}
    for p in iceland:
        assert m.army_adj[p] <= iceland


def test_every_province_has_a_real_point(v) -> None:  # type: ignore[no-untyped-def]
    for p in v.map.provinces:
        assert p.point is not None
        lon, lat = p.point
        assert -25 <= lon <= 40 and 33 <= lat <= 73, p.abbr


def test_ambiguous_abbreviations_resolve(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    assert m.province("bar").name == "Barcelona"
    assert m.province("bai").name == "Bari"
    assert m.province("bari").abbr == "bai"
    assert m.province("crk").abbr == "cra"
    assert m.province("liz").abbr == "lin"
    assert m.province("vjj").abbr == "vfj"
    assert m.province("wva").abbr == "wwa"
    assert m.province("ara").name == "Aragorn"
    assert m.province("cok").name == "Cork"
    assert m.province("cor").name == "Corsica"
    assert m.province("lyo").name == "Lyon"


def test_vardar_split_coast(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    wc, ec = m.loc("var/wc"), m.loc("var/ec")
    assert m.province("adr").id in m.fleet_reach[wc] and m.province("adr").id not in m.fleet_reach[ec]
    assert m.province("aeg").id in m.fleet_reach[ec] and m.province("aeg").id not in m.fleet_reach[wc]
    assert m.loc("var/wc") in m.fleet_adj[m.loc("oth")] and m.loc("var/ec") in m.fleet_adj[m.loc("oth")]


def test_homelands(v) -> None:  # type: ignore[no-untyped-def]
    m = v.map
    for power, homes in v.start.homes.items():
        assert homes <= v.homelands[power]
    extra = {p: sorted(m.provinces[x].abbr for x in v.homelands[p] - v.start.homes[p]) for p in v.homelands}
    assert extra["Byzantines"] == ["apu", "dra", "mol"]
    assert all(not e for p, e in extra.items() if p != "Byzantines")
    # The Magyars and Polacks have no coastal home province (hence Lombardy, rule 4).
    assert all(m.provinces[x].kind == ProvinceKind.LAND for x in v.homelands["Magyars and Polacks"])


def test_justifications_name_real_edges(v) -> None:  # type: ignore[no-untyped-def]
    keys = set(v.data["mapcheck"]["long_edges"])
    assert keys == {edge_key(e.a, e.b) for e in check_map(v).long_edges}


def test_victory_targets_name_every_power(v) -> None:  # type: ignore[no-untyped-def]
    assert set(v.victory["by_power"]) == set(v.power_names)
    assert sorted(v.victory["by_power"].values()) == [25, 25, 25, 28, 28, 28, 31]
    assert v.victory["remaining"] == 3
    assert v.calendar.last_year == 1015
