"""1897's rule hooks on their own: opening builds, build sites before and after 1899, home redefinition."""

from __future__ import annotations

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase
from dippouch.core.orders import Build
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant


def ids(v: Variant, *names: str) -> frozenset[int]:
    return frozenset(v.map.province(n).id for n in names)


def abbrs(v: Variant, provs: frozenset[int]) -> set[str]:
    return {v.map.provinces[p].abbr for p in provs}


def test_start_is_an_empty_board_in_winter_1897() -> None:
    v = load_variant("1897")
    assert v.calendar.name(v.start.phase) == "Winter 1897 Adjustments"
    assert not v.start.units
    assert not v.start.centres
    assert abbrs(v, v.start.homes["Russia"]) == {"mos", "sev", "stp", "war"}


def test_opening_gives_each_power_one_build_on_a_regular_home_centre() -> None:
    v = load_variant("1897")
    h = hooks_for(v)
    for p in v.power_names:
        assert h.adjustment_delta(v.start, p) == 1
    assert h.build_sites(v.start, "Russia") == ids(v, "mos", "sev", "war")
    assert h.build_sites(v.start, "England") == ids(v, "edi", "lon", "lvp")
    assert h.build_sites(v.start, "Austria") == ids(v, "bud", "tri", "vie")


def test_opening_build_takes_the_centre() -> None:
    v = load_variant("1897")
    h = hooks_for(v)
    lon = v.map.loc("lon")
    after = Position(
        phase=v.calendar.next(v.start.phase),
        units={lon: Unit("England", "A", lon)},
        centres={},
        homes=v.start.homes,
    )
    res = [OrderResult("England", Build("A", lon), Outcome.SUCCEEDS, index=0)]
    out = h.phase_end(v.start, after, res)
    assert out.centres == {lon: "England"}
    # Homes are not redefined before 1899.
    assert out.homes == v.start.homes


def test_before_1899_builds_only_on_owned_regular_homes_unless_the_option_is_on() -> None:
    for option, expect in ((False, {"lon"}), (True, {"lon", "nwy"})):
        v = load_variant("1897", {"build_any_owned": option})
        h = hooks_for(v)
        pos = Position(
            phase=v.calendar.parse("Winter 1898"),
            units={},
            centres={v.map.province("lon").id: "England", v.map.province("nwy").id: "England"},
            homes=v.start.homes,
        )
        assert abbrs(v, h.build_sites(pos, "England")) == expect
        assert h.adjustment_delta(pos, "England") == 2
        # From Winter 1899 on, the option no longer applies: homes decide.
        later = pos.with_(phase=v.calendar.parse("Winter 1900"), homes={"England": ids(v, "lon")})
        assert abbrs(v, h.build_sites(later, "England")) == {"lon"}


def test_homes_become_owned_centres_when_reaching_winter_1899() -> None:
    v = load_variant("1897")
    h = hooks_for(v)
    c = {v.map.province(n).id: "Austria" for n in ("ser", "gre", "rum")}
    c |= {v.map.province(n).id: "Germany" for n in ("mun", "kie", "tri")}
    before = Position(Phase(1899, 3), {}, c, v.start.homes)
    for target in ("Winter 1899", "Spring 1900"):  # also when nobody has adjustments
        after = before.with_(phase=v.calendar.parse(target))
        out = h.phase_end(before, after, [])
        assert abbrs(v, out.homes["Austria"]) == {"gre", "rum", "ser"}
        assert abbrs(v, out.homes["Germany"]) == {"kie", "mun", "tri"}
        assert out.homes["Italy"] == frozenset()
    # Once past Winter 1899, nothing changes again.
    fixed = h.phase_end(before, before.with_(phase=v.calendar.parse("Winter 1899")), [])
    spring = fixed.with_(phase=v.calendar.parse("Spring 1900 Movement"))
    moved = spring.with_(phase=v.calendar.parse("Winter 1900"), centres={**c, v.map.province("ven").id: "Austria"})
    assert h.phase_end(spring, moved, []).homes == fixed.homes
