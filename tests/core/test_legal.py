"""Legal-order generation: counts checked by hand on the opening, convoys, retreats, adjustments, round trips."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from dippouch.catalog import load_variant
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.legal_orders import all_legal_orders, legal_orders
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.notation import format_order, parse_order
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.paths import fleet_on_proper_route
from dippouch.core.position import Dislodged, Position, Unit

V = load_variant("standard")
M = V.map


def L(name: str) -> int:
    return M.loc(name)


def P(name: str) -> int:
    return M.province_of(M.loc(name))


def position(units: list[tuple[str, str, str]], *, step: int = 0, **kw: object) -> Position:
    placed = {P(loc): Unit(power, kind, L(loc)) for power, kind, loc in units}
    return V.start.with_(phase=Phase(1901, step), units=placed, **kw)


def texts(orders: Mapping[int, Sequence[Order]], loc: str) -> list[str]:
    return [format_order(V, o) for o in orders[L(loc)]]


def test_england_opening_by_hand() -> None:
    """Worked out on the map: each unit holds, moves to each neighbour, supports what its neighbours can reach."""
    got = legal_orders(V, V.start, "England")
    assert texts(got, "edi") == [
        "F edi H",
        "F edi - cly",
        "F edi - nth",
        "F edi - nwg",
        "F edi - yor",
        "F edi S F lon - nth",
        "F edi S F lon - yor",
        "F edi S A lvp - cly",
        "F edi S A lvp - yor",
    ]
    assert sorted(texts(got, "lon")) == sorted(
        [
            "F lon H",
            "F lon - eng",
            "F lon - nth",
            "F lon - wal",
            "F lon - yor",
            "F lon S F edi - nth",
            "F lon S F edi - yor",
            "F lon S A lvp - wal",
            "F lon S A lvp - yor",
            "F lon S F bre - eng",  # the French fleet can reach the Channel too
        ]
    )
    assert sorted(texts(got, "lvp")) == sorted(
        [
            "A lvp H",
            "A lvp - cly",
            "A lvp - edi",
            "A lvp - wal",
            "A lvp - yor",
            "A lvp S F edi",
            "A lvp S F edi - cly",
            "A lvp S F edi - yor",
            "A lvp S F lon - wal",
            "A lvp S F lon - yor",
        ]
    )


def test_turkey_fleet_ankara_by_hand() -> None:
    got = legal_orders(V, V.start, "Turkey")
    # H; to arm, bla, con; hold support of A con; A smy to arm or con; Russia's F sev to arm or bla.
    assert sorted(texts(got, "ank")) == sorted(
        [
            "F ank H",
            "F ank - arm",
            "F ank - bla",
            "F ank - con",
            "F ank S A con",
            "F ank S A smy - arm",
            "F ank S A smy - con",
            "F ank S F sev - arm",
            "F ank S F sev - bla",
        ]
    )


def test_opening_counts() -> None:
    """Per power in Spring 1901 (England and Turkey's fleet verified by hand above; the rest by the same rule)."""
    counts = {pw: sum(len(v) for v in legal_orders(V, V.start, pw).values()) for pw in V.power_names}
    assert counts == {
        "Austria": 34,
        "England": 29,
        "France": 30,
        "Germany": 38,
        "Italy": 38,
        "Russia": 42,
        "Turkey": 27,
    }
    # Russia's fleet on the south coast of St Petersburg moves only along that coast.
    assert sorted(texts(legal_orders(V, V.start, "Russia"), "stp/sc"))[:4] == [
        "F stp/sc - bot",
        "F stp/sc - fin",
        "F stp/sc - lvn",
        "F stp/sc H",
    ]


def test_fleet_moves_name_the_coast() -> None:
    pos = position([("France", "F", "mao")])
    got = texts(legal_orders(V, pos, "France"), "mao")
    assert "F mao - spa/nc" in got and "F mao - spa/sc" in got and "F mao - spa" not in got


def test_convoys() -> None:
    pos = position(
        [
            ("England", "A", "lon"),
            ("England", "F", "nth"),
            ("England", "F", "eng"),
            ("France", "A", "bre"),
            ("Germany", "F", "hel"),
            ("Russia", "F", "bar"),  # a sea fleet cut off from the others
        ]
    )
    eng = legal_orders(V, pos, "England")
    lon = texts(eng, "lon")
    assert "A lon - bel" in lon  # not adjacent: a convoy, no "via convoy" needed
    assert "A lon - nwy" in lon
    assert "A lon - yor" in lon and "A lon - yor via convoy" in lon  # adjacent: both readings
    assert "A lon - lon" not in lon and "A lon - stp" not in lon
    nth = texts(eng, "nth")
    assert "F nth C A lon - bel" in nth
    assert "F nth C A bre - nwy" in nth  # through eng and nth
    # lon -> nth -> eng -> bre is not a proper route: lon touches eng, so nth is not needed (DATC 6.G.19).
    assert "F nth C A lon - bre" not in nth
    assert "F eng C A lon - bre" in texts(eng, "eng")
    # English Channel carries the French army too, and the German fleet in Helgoland Bight carries via nth.
    assert "F eng C A bre - lon" in texts(eng, "eng")
    hel = texts(legal_orders(V, pos, "Germany"), "hel")
    assert "F hel C A lon - kie" in hel and "F hel C A lon - den" not in hel  # nth touches den itself
    # A fleet on a coast never convoys.
    assert not any(isinstance(o, Convoy) for orders in eng.values() for o in orders if o.unit_loc == L("lon"))
    # The lone Barents fleet has no army to carry.
    assert not any(isinstance(o, Convoy) for o in legal_orders(V, pos, "Russia")[L("bar")])
    # Supports of a convoyed move.
    assert "F eng S A lon - bel" in texts(eng, "eng")


def test_convoy_needs_a_proper_route_through_the_fleet() -> None:
    """A fleet convoys only on a route without a short cut (DATC 4.E.1, 6.G.19)."""
    pos = position(
        [
            ("England", "A", "yor"),
            ("England", "F", "nth"),
            ("England", "F", "ska"),  # off nth; next to den, nwy, swe
            ("France", "A", "bel"),
        ]
    )
    got = legal_orders(V, pos, "England")
    ska = texts(got, "ska")
    assert "F ska C A yor - swe" in ska  # yor -> nth -> ska -> swe: nth does not touch swe
    assert "F ska C A yor - nwy" not in ska  # nth touches nwy: ska is a detour
    assert "F ska C A yor - den" not in ska
    assert "F ska C A yor - bel" not in ska  # ska would be a dead end
    nth = texts(got, "nth")
    assert {"F nth C A yor - nwy", "F nth C A yor - swe", "F nth C A bel - yor", "F nth C A bel - swe"} <= set(nth)
    # Supports of a convoyed move must not rely on the supporter's own convoy.
    assert "F nth S A bel - swe" not in nth  # nth cannot reach swe anyway
    assert "F ska S A yor - swe" not in ska  # the only route runs through ska itself
    assert "F ska S A yor - nwy" in ska  # yor -> nth -> nwy, without ska


def test_retreats() -> None:
    pos = position(
        [("France", "A", "bur")],
        step=1,
        dislodged={P("mun"): Dislodged(Unit("Germany", "A", L("mun")), frozenset({P("boh"), P("sil")}))},
    )
    got = legal_orders(V, pos, "Germany")
    assert got == {
        L("mun"): [Retreat("A", L("mun"), P("boh")), Retreat("A", L("mun"), P("sil")), Disband("A", L("mun"))]
    }
    assert legal_orders(V, pos, "France") == {}


def test_builds() -> None:
    pos = position([("Russia", "A", "mos")], step=4)
    got = legal_orders(V, pos, "Russia")
    assert set(got) == {P("stp"), P("sev"), P("war")}  # mos is occupied
    assert got[P("stp")] == [
        Build("A", L("stp")),
        Build("F", L("stp/nc")),
        Build("F", L("stp/sc")),
        Waive(),
    ]
    assert got[P("war")] == [Build("A", L("war")), Waive()]  # inland: no fleet
    assert texts(got, "sev") == ["Build A sev", "Build F sev", "Waive"]


def test_removals() -> None:
    units = [("Austria", "A", "bud"), ("Austria", "A", "vie"), ("Austria", "F", "tri"), ("Austria", "A", "ser")]
    got = legal_orders(V, position(units, step=4), "Austria")  # 3 centres, 4 units
    assert sorted(got) == sorted(L(u[2]) for u in units)
    assert got[L("ser")] == [Disband("A", L("ser"))]
    assert legal_orders(V, position(units[:3], step=4), "Austria") == {}


def _random_position(rng: random.Random) -> Position:
    units: dict[int, Unit] = {}
    for _ in range(rng.randint(10, 34)):
        p = rng.randrange(M.province_count)
        prov = M.provinces[p]
        if p in units or prov.kind == ProvinceKind.IMPASSABLE:
            continue
        kinds = []
        if prov.kind != ProvinceKind.SEA:
            kinds.append(("A", p))
        kinds.extend(("F", loc) for loc in M.fleet_locations(p))
        if not kinds:
            continue
        kind, loc = rng.choice(kinds)
        units[p] = Unit(rng.choice(V.power_names), kind, loc)
    return V.start.with_(units=units)


@pytest.mark.parametrize("seed", range(30))
def test_every_order_formats_and_reparses_to_itself(seed: int) -> None:
    rng = random.Random(seed)
    pos = _random_position(rng)
    for pw in V.power_names:
        for loc, orders in legal_orders(V, pos, pw).items():
            unit = pos.units[M.province_of(loc)]
            assert unit.power == pw and unit.loc == loc
            assert orders[0] == Hold(unit.kind, loc)
            assert len(set(orders)) == len(orders), "no order twice"
            for o in orders:
                assert parse_order(V, format_order(V, o)) == o
                if isinstance(o, Move) and not o.via_convoy:
                    assert M.province_of(o.dest) != M.province_of(loc)
                if isinstance(o, Support):
                    assert o.target != loc and (o.dest is None or o.dest != M.province_of(loc))


def test_retreat_and_build_orders_reparse_in_their_phase() -> None:
    pos = position(
        [("Russia", "A", "mos")],
        step=1,
        dislodged={P("stp"): Dislodged(Unit("Russia", "F", L("stp/sc")), frozenset({P("fin"), P("bot")}))},
    )
    for orders in legal_orders(V, pos, "Russia").values():
        for o in orders:
            assert parse_order(V, format_order(V, o), phase_kind=PhaseKind.RETREATS) == o
    pos = position([("Russia", "A", "mos")], step=4)
    for orders in legal_orders(V, pos, "Russia").values():
        for o in orders:
            text = format_order(V, o, phase_kind=PhaseKind.ADJUSTMENTS)
            assert parse_order(V, text, phase_kind=PhaseKind.ADJUSTMENTS) == o


@pytest.mark.parametrize("seed", range(20))
def test_all_powers_at_once_matches_one_at_a_time(seed: int) -> None:
    pos = _random_position(random.Random(seed))
    together = all_legal_orders(V, pos)
    assert together == {pw: legal_orders(V, pos, pw) for pw in V.power_names}


@pytest.mark.parametrize("seed", range(25))
def test_convoy_orders_match_the_adjudicators_route_rule(seed: int) -> None:
    """The one-walk route search in legal_orders agrees with paths.fleet_on_proper_route on crowded seas."""
    rng = random.Random(seed)
    seas = [p.id for p in M.provinces if p.kind == ProvinceKind.SEA]
    coasts = [p.id for p in M.provinces if p.kind == ProvinceKind.COAST]
    units = {s: Unit("England", "F", s) for s in rng.sample(seas, rng.randint(4, 16))}
    for c in rng.sample(coasts, 10):
        units[c] = Unit("France", "A", c)
    pos = V.start.with_(units=units)
    fleets = {p for p, u in units.items() if p in seas}
    listed = {
        (o.loc, o.target, o.dest)
        for orders in legal_orders(V, pos, "England").values()
        for o in orders
        if isinstance(o, Convoy)
    }
    expected = {
        (f, a, d)
        for f in fleets
        for a, u in units.items()
        if u.kind == "A"
        for d in coasts
        if fleet_on_proper_route(M, a, d, fleets, f)
    }
    assert listed == expected


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_matches_the_general_one(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The standard rules' cached fast path lists exactly what the hook-calling general path lists."""
    import dippouch.core.legal_orders as legal

    rng = random.Random(seed)
    pos = _random_position(rng)
    seas = [p.id for p in M.provinces if p.kind == ProvinceKind.SEA]
    units = dict(pos.units)
    for s in rng.sample(seas, rng.randint(0, 8)):  # crowd the seas so convoys abound
        units.setdefault(s, Unit(rng.choice(V.power_names), "F", s))
    pos = pos.with_(units=units)
    fast = all_legal_orders(V, pos)
    monkeypatch.setattr(legal, "_FORCE_GENERAL", True)
    general = all_legal_orders(V, pos)
    assert fast.keys() == general.keys()
    for power in fast:
        assert fast[power].keys() == general[power].keys()
        for loc, orders in fast[power].items():
            assert orders[0] == general[power][loc][0]
            assert sorted(map(repr, orders)) == sorted(map(repr, general[power][loc]))


def test_repeated_calls_hand_out_copies() -> None:
    first = legal_orders(V, V.start, "England")
    first[L("lon")].clear()
    assert len(legal_orders(V, V.start, "England")[L("lon")]) == 10


def test_variant_extra_orders_only_where_the_rules_enable_them() -> None:
    """A variant's hooks add order kinds of their own through RuleHooks.extra_legal_orders."""
    from dataclasses import replace

    from dippouch.core.rules.base import RuleHooks, register_hooks

    @register_hooks("test_waits")
    class Waits(RuleHooks):
        def extra_legal_orders(self, position, power, orders, standard) -> None:  # type: ignore[no-untyped-def]
            for loc, listed in orders.items():
                listed.append(Hold(None, loc))  # a stand-in for a variant order kind

    w = replace(V, rules={**V.rules, "hooks": "test_waits"})
    got = legal_orders(w, w.start, "England")
    assert got[L("lon")][-1] == Hold(None, L("lon"))
    assert all_legal_orders(w, w.start)["England"] == got
    assert Hold(None, L("lon")) not in legal_orders(V, V.start, "England")[L("lon")]


@pytest.mark.parametrize("seed", range(20))
def test_standard_adjustments_in_one_pass_match_the_hooks(seed: int) -> None:
    """The one-pass adjustments of the standard rules list what asking the rule hooks power by power lists."""
    import dippouch.core.legal_orders as legal

    rng = random.Random(seed)
    step = next(i for i, s in enumerate(V.calendar.steps) if s.kind == PhaseKind.ADJUSTMENTS)
    pos = _random_position(rng)
    centres = {c: rng.choice(V.power_names) for c in M.supply_centres if rng.random() < 0.8}
    pos = pos.with_(phase=Phase(1901, step), centres=centres)
    fast = legal._adjustments_all(V, pos)
    assert fast == {p: legal._adjustments(V, pos, p) for p in V.power_names}
    if seed in (1, 2, 4):  # these seeds give some power builds and another removals
        assert any(isinstance(o, Build) for orders in fast.values() for listed in orders.values() for o in listed)
        assert any(isinstance(o, Disband) for orders in fast.values() for listed in orders.values() for o in listed)
    for p in V.power_names:
        assert legal_orders(V, pos, p) == fast[p]
