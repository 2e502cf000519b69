"""Fog of war's rule (:mod:`dippouch.core.sight`): on random positions of every heavy variant, a power always
sees its own units and centres, never a unit with nothing of its own next to it, and sees exactly what its
units' and centres' neighbourhoods hold."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dippouch.core.position import Position, Unit
from dippouch.core.sight import sight, sight_of, veil
from dippouch.core.variant import Variant
from order_positions import VARIANTS, position_pool, variant

SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Variant, Position, str]:
    name = draw(st.sampled_from(VARIANTS))
    v = variant(name)
    pos = draw(st.sampled_from(position_pool(name)))
    return v, pos, draw(st.sampled_from(v.power_names))


def _near(v: Variant, unit: Unit, power: str, pos: Position) -> bool:
    """Whether anything of ``power`` is next to (or on) ``unit``'s province by any adjacency of the map."""
    m = v.map
    prov = m.province_of(unit.loc)
    mine = [u for u in pos.units.values() if u.power == power] + [
        d.unit for d in pos.dislodged.values() if d.unit.power == power
    ]
    places = {m.province_of(u.loc) for u in mine} | set(pos.centres_of(power))
    if prov in places:
        return True
    around = set(m.army_adj[prov])
    for loc in range(len(m.locations)):
        if m.province_of(loc) == prov:
            around |= m.fleet_reach[loc]
    for loc, reach in enumerate(m.fleet_reach):
        if prov in reach:
            around.add(m.province_of(loc))
    around |= {p for p, adj in enumerate(m.army_adj) if prov in adj}
    return bool(around & places)


@SETTINGS
@given(cases())
def test_own_units_and_centres_are_always_seen(case: tuple[Variant, Position, str]) -> None:
    v, pos, power = case
    seen = sight(v, pos, power)
    for prov, unit in pos.units.items():
        if unit.power == power:
            assert seen.units.get(prov) == unit
    for prov, d in pos.dislodged.items():
        if d.unit.power == power:
            assert seen.dislodged.get(prov) == d
    for prov in pos.centres_of(power):
        assert seen.centres.get(prov) == power


@SETTINGS
@given(cases())
def test_a_unit_with_nothing_of_the_power_near_is_never_seen(case: tuple[Variant, Position, str]) -> None:
    v, pos, power = case
    seen = sight(v, pos, power)
    for prov, unit in pos.units.items():
        if not _near(v, unit, power, pos):
            assert prov not in seen.units and not seen.sees(prov)


@SETTINGS
@given(cases())
def test_what_is_seen_is_what_stands_in_the_seen_provinces(case: tuple[Variant, Position, str]) -> None:
    v, pos, power = case
    seen = sight(v, pos, power)
    assert dict(seen.units) == {p: u for p, u in pos.units.items() if p in seen.provinces}
    assert dict(seen.centres) == {p: o for p, o in pos.centres.items() if p in seen.provinces}
    veiled = veil(pos, seen)
    # Veiling is idempotent: what is left sees no less, so nothing more is taken away.
    assert veil(veiled, sight(v, veiled, power)) == veiled
    assert veiled.phase == pos.phase and veiled.homes == pos.homes


@SETTINGS
@given(cases(), st.data())
def test_two_seats_see_the_union_of_what_each_sees(case: tuple[Variant, Position, str], data: st.DataObject) -> None:
    v, pos, power = case
    other = data.draw(st.sampled_from(v.power_names))
    both = sight_of(v, pos, (power, other))
    assert both.provinces == sight(v, pos, power).provinces | sight(v, pos, other).provinces


def test_a_fleet_sees_by_sea_and_an_army_by_land() -> None:
    """The rule's own example: a fleet on Spain's south coast sees the Gulf of Lyon, not Gascony; an army in
    Spain sees Gascony, not the Gulf of Lyon."""
    v = variant("standard")
    m = v.map
    spa = m.province_of(m.loc("spa"))
    start = v.start.with_(units={}, centres={}, dislodged={})
    fleet = start.with_(units={spa: Unit("France", "F", m.loc("spa/sc"))})
    army = start.with_(units={spa: Unit("France", "A", spa)})
    gol, gas = m.province_of(m.loc("gol")), m.province_of(m.loc("gas"))
    assert sight(v, fleet, "France").sees(gol) and not sight(v, fleet, "France").sees(gas)
    assert sight(v, army, "France").sees(gas) and not sight(v, army, "France").sees(gol)
    # Nothing of England's anywhere: England sees nothing at all.
    assert sight(v, fleet, "England").provinces == frozenset()
