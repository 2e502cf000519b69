"""Bots that adapt (issue 43, point 2): the memory reads who attacked whom and which supports were given or
refused; the heuristic reads wars from it, takes the centres within reach, covers a centre a neighbour just moved
next to, drives for a solo when near one and holds a line against a power near one. Each test also shows the
behaviour is gone without the part it tests, so that it can fail."""

from __future__ import annotations

import random
from collections.abc import Iterable
from types import MappingProxyType

import pytest

import dippouch.bots.heuristic as heuristic
from bot_positions import V, position, province
from dippouch import settings
from dippouch.bots.engine import (
    Move,
    Order,
    PhaseKind,
    adjudicate,
    format_order,
    legal_orders,
    parse_order,
)
from dippouch.bots.heuristic import HeuristicBot, Values
from dippouch.bots.memory import Memory, recalled, remember
from dippouch.bots.search import SearchBot
from dippouch.core.errors import DippouchError


def _texts(orders: Iterable[Order]) -> set[str]:
    return {format_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in orders}


def _results(orders: dict[str, list[str]]) -> list:  # type: ignore[type-arg]
    parsed = {p: [parse_order(V, o, phase_kind=PhaseKind.MOVEMENT) for o in os_] for p, os_ in orders.items()}
    return list(adjudicate(V, V.start, parsed).results)


def test_the_memory_reads_attacks_supports_given_and_refused_and_arrivals() -> None:
    results = _results(
        {
            "Austria": ["F tri - ven", "A bud S A war - gal"],  # attacks Italy; a support Russia does not take
            "Russia": ["A war - sil"],
            "Germany": ["A mun S A par - bur"],  # a support France takes
            "France": ["A par - bur"],
        }
    )
    m = remember(V, None, "Italy", results)
    assert m.attacks == {("Austria", "Italy"): 1.0}
    assert m.at_war("Italy", "Austria") and m.enemies("Italy") == {"Austria"}
    assert m.helped == {("Germany", "France"): 1.0} and m.friendly("Germany", "France")
    assert m.refused == {("Austria", "Russia"): 1.0}
    assert ("France", province("bur")) in m.arrived and ("Russia", province("sil")) in m.arrived
    # Wars fade: a phase without attacks halves them, and the two are no longer read as at war.
    calm = remember(V, m, "Italy", _results({"Italy": ["A ven H"]}))
    assert calm.attacks == {("Austria", "Italy"): 0.5} and not calm.at_war("Italy", "Austria")
    # The store's record reads back the same.
    stored = [
        {"power": r.power, "order": format_order(V, r.order, phase_kind=PhaseKind.MOVEMENT), "result": r.result.value}
        | {"automatic": r.automatic}
        for r in results
    ]
    back = recalled(V, [stored], ["Italy"])["Italy"]
    assert back.attacks == m.attacks and back.helped == m.helped and back.refused == m.refused


def test_the_units_of_a_power_at_war_threaten_more_and_its_centres_are_worth_more() -> None:
    start = V.start
    war = Memory(attacks={("Germany", "France"): 2.0})
    plain, at_war = Values(V, start, "France"), Values(V, start, "France", war)
    assert at_war.threat[province("bur")] > plain.threat[province("bur")]  # German armies in Munich next to Burgundy
    assert at_war.threat[province("pic")] == plain.threat[province("pic")]  # England's fleets count as before
    assert at_war.base[province("mun")] > plain.base[province("mun")]


def test_a_centre_a_neighbour_just_moved_next_to_is_covered() -> None:
    p = position(
        {
            "France": "A bel, A pic, F mao, A spa",
            "Germany": "A bur, A ruh, F hol, A kie",
            "England": "F nth, F eng, A yor",
            "Italy": "A pie, A ven, F tys",
        },
        {
            "France": "par mar bre bel spa",
            "Germany": "mun ber kie hol den",
            "England": "lon edi lvp nwy",
            "Italy": "rom nap ven tun",
        },
        step=2,
    )
    bot = HeuristicBot()
    told = Memory(arrived=frozenset({("Germany", province("bur"))}))
    covered = {province("par"), province("mar")}

    def covers(orders: list[Order]) -> bool:
        return any(isinstance(o, Move) and V.map.province_of(o.dest) in covered for o in orders)

    assert covers(bot.orders(V, p, "France", random.Random(1), told))
    assert not covers(bot.orders(V, p, "France", random.Random(1)))  # nobody told: Paris left open


def test_no_centre_within_reach_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    # Austria bounced over Serbia and Rumania twice; Russia's army has gone, Serbia is free and unowned, and no
    # other power's unit can reach it. The memory alone sends the army elsewhere (Galicia); it takes Serbia.
    p = position(
        {
            "Austria": "A bud, A vie, F tri",
            "Russia": "A sil, A ukr, F sev",
            "Italy": "A ven, F ion",
            "Turkey": "A con, F bla",
        },
        {"Austria": "bud vie tri", "Russia": "mos war sev stp", "Italy": "rom nap ven", "Turkey": "ank con smy"},
        step=2,
    )
    told = Memory(MappingProxyType({(province("bud"), province("ser")): 2, (province("bud"), province("rum")): 2}))
    bot = HeuristicBot()
    assert "A bud - ser" in _texts(bot.orders(V, p, "Austria", random.Random(1), told))
    monkeypatch.setattr(HeuristicBot, "_neglected", staticmethod(lambda *a: None))
    assert "A bud - ser" not in _texts(bot.orders(V, p, "Austria", random.Random(1), told))


def test_a_power_near_a_solo_drives_for_it() -> None:
    big = "mos sev stp war rum bul con ank smy ber kie mun den swe"
    p = position(
        {
            "Russia": "A rum, A gal, A bul, F sev, A ukr, A sil, A boh, F aeg, A pru, F bal",
            "Austria": "A bud, A vie, A tri",
            "Italy": "A ven, F nap",
            "Germany": "A mun",
            "England": "F nth",
        },
        {
            "Austria": "bud tri vie",
            "Russia": big,
            "Italy": "ven rom nap ser gre",
            "Germany": "hol bel",
            "England": "lon lvp edi nwy",
        },
        step=2,
    )
    assert Values(V, p, "Russia").mode == "solo"
    bot = HeuristicBot()

    def grabs() -> int:
        orders = bot.orders(V, p, "Russia", random.Random(1))
        return sum(1 for o in orders if isinstance(o, Move) and p.centres.get(V.map.province_of(o.dest)) != "Russia")

    driving = grabs()
    heuristic.NEAR_SOLO, before = 5.0, heuristic.NEAR_SOLO
    try:
        assert grabs() < driving
    finally:
        heuristic.NEAR_SOLO = before


def test_the_others_hold_a_line_against_a_power_near_a_solo() -> None:
    big = "mos sev stp war rum bul con ank smy ber kie mun den swe"
    p = position(
        {
            "Austria": "A bud, A tri",
            "Russia": "A rum, A gal, A bul, F sev, A ukr, A sil, A boh, F aeg",
            "Italy": "A ven, F nap",
        },
        {"Austria": "bud tri vie", "Russia": big, "Italy": "ven rom nap"},
        step=2,
    )
    v = Values(V, p, "Austria")
    assert v.mode == "line" and v.leader == "Russia"
    bot = HeuristicBot()
    assert "A bud H" in _texts(bot.orders(V, p, "Austria", random.Random(1)))  # Budapest faces Russia's armies
    heuristic.NEAR_SOLO, before = 5.0, heuristic.NEAR_SOLO
    try:
        assert "A bud H" not in _texts(bot.orders(V, p, "Austria", random.Random(1)))
    finally:
        heuristic.NEAR_SOLO = before


def test_the_search_budget_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_SEARCH_BUDGET", "1.5")
    settings.reread()
    try:
        assert SearchBot().budget == 1.5
        assert SearchBot(budget=0.2).budget == 0.2
        monkeypatch.setenv("DIPPOUCH_SEARCH_BUDGET", "lots")
        settings.reread()
        with pytest.raises(DippouchError, match=r"DIPPOUCH_SEARCH_BUDGET='lots' is not seconds from 0\.05 to 30"):
            SearchBot()
        monkeypatch.delenv("DIPPOUCH_SEARCH_BUDGET")
        settings.reread()
        assert SearchBot().budget == 0.5
    finally:
        settings.reread()


def _order(text: str) -> Order:
    return parse_order(V, text, phase_kind=PhaseKind.MOVEMENT)


def test_a_failed_move_is_sent_again_only_with_more_support_than_it_had() -> None:
    from dippouch.bots.engine import OrderResult, Outcome
    from dippouch.bots.search import _repeats_failure

    once = [
        OrderResult("Austria", _order("A vie - gal"), Outcome.FAILS),
        OrderResult("Austria", _order("A bud S A vie - gal"), Outcome.GIVEN),
    ]
    m = remember(V, remember(V, None, "Austria", once), "Austria", once)
    key = (province("vie"), province("gal"))
    assert m.failures(*key) == 2 and m.supports_had(*key) == 1
    # The same plan (one support) again is not weighed by the search level; with a second support it is.
    assert _repeats_failure([_order("A vie - gal"), _order("A bud S A vie - gal")], m, V)
    assert not _repeats_failure([_order("A vie - gal"), _order("A bud S A vie - gal"), _order("F tri H")], Memory(), V)
    p = position(
        {"Austria": "A vie, A bud, A boh", "Russia": "A war, A ukr, A sil"},
        {"Austria": "vie bud tri", "Russia": "war mos sev stp"},
        step=2,
    )
    legal = legal_orders(V, p, "Austria")

    def plans() -> list[heuristic._Plan]:
        chosen = {"vie": "A vie - gal", "bud": "A bud S A vie - gal", "boh": "A boh H"}
        out = []
        for loc, options in legal.items():
            unit = p.units[V.map.province_of(loc)]
            order = _order(chosen[V.map.provinces[V.map.province_of(loc)].abbr])
            dest = V.map.province_of(order.dest) if isinstance(order, Move) else V.map.province_of(loc)
            out.append(heuristic._Plan(unit, options, order, dest, 1.0))
        return out

    values = Values(V, p, "Austria")
    again = plans()
    HeuristicBot._no_repeats(p, again, values, V.map, m, set())
    assert _texts(pl.order for pl in again) == {"A vie - gal", "A bud S A vie - gal", "A boh S A vie - gal"}
    # Told only that it failed, not with what support, the one support it has would do: the plan unchanged.
    unchanged = plans()
    HeuristicBot._no_repeats(p, unchanged, values, V.map, Memory(m.failed), set())
    assert _texts(pl.order for pl in unchanged) == {"A vie - gal", "A bud S A vie - gal", "A boh H"}
