"""Bots play whole games of every variant through its own rules, choosing only the engine's legal orders."""

from __future__ import annotations

import itertools
import random

import pytest

from dippouch.bots import LEVELS, BotError, make_bot
from dippouch.bots.base import RandomBot
from dippouch.bots.engine import Build, Disband, PhaseKind, adjudicate, adjustment_delta, hooks_for, legal_orders
from dippouch.bots.heuristic import HeuristicBot
from dippouch.bots.play import play_game
from dippouch.bots.search import SearchBot
from dippouch.catalog import load_variant, variant_names

VARIANTS = ("standard", "hundred3", "hundred", "1897", "1000ad", "w3k")


def test_every_builtin_variant_is_covered() -> None:
    assert set(VARIANTS) <= set(variant_names())


@pytest.mark.parametrize("name", VARIANTS)
def test_a_game_of_mixed_bot_levels_runs_to_its_end_or_year_limit_without_an_illegal_order(name: str) -> None:
    variant = load_variant(name)
    levels = ("heuristic", "random", "search", "hold")
    seats = {
        p: SearchBot(budget=0.02, candidates=3, replies=2) if levels[i % 4] == "search" else make_bot(levels[i % 4])
        for i, p in enumerate(variant.power_names)
    }
    record = play_game(variant, seats, seed=3, max_years=3)
    assert record.illegal == 0
    assert record.phases >= 3
    assert record.ending in ("year limit", "victory", "ranked", "last_year", "no_powers")
    assert sum(record.centres.values()) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
def test_heuristic_bots_play_every_variant_for_ten_years_without_an_illegal_order(name: str) -> None:
    variant = load_variant(name)
    record = play_game(variant, {p: HeuristicBot() for p in variant.power_names}, seed=5, max_years=10)
    assert record.illegal == 0
    assert record.years >= 1


@pytest.mark.parametrize("name", VARIANTS)
def test_heuristic_bots_end_with_more_centres_than_random_bots(name: str) -> None:
    variant = load_variant(name)
    powers = variant.power_names
    totals = {"heuristic": 0.0, "random": 0.0}
    for game in range(2):  # seats swapped between the two games
        seats = {p: HeuristicBot() if (i + game) % 2 == 0 else RandomBot() for i, p in enumerate(powers)}
        record = play_game(variant, seats, seed=game, max_years=5)
        for p in powers:
            totals[seats[p].name] += record.centres[p]
    assert totals["heuristic"] > totals["random"]


def _first_winter(name: str, power_index: int = 0) -> tuple[object, object, str]:
    variant = load_variant(name)
    position = variant.start
    rng = random.Random(1)
    bot = HeuristicBot()
    while variant.calendar.kind(position.phase) is not PhaseKind.ADJUSTMENTS:
        orders = {p: bot.orders(variant, position, p, rng) for p in variant.power_names}
        position = adjudicate(variant, position, orders).next
    return variant, position, variant.power_names[power_index]


@pytest.mark.parametrize("name", ["1897", "1000ad", "w3k", "standard"])
def test_builds_are_what_the_variants_adjustment_rule_allows(name: str) -> None:
    """1897's opening Winter gives one build to powers that own nothing; 1000 AD's placements cost a triple
    army two; W3K's Winter comes first: the bots build exactly the allowance, counted the variant's way."""
    variant, position, _ = _first_winter(name)
    hooks = hooks_for(variant)  # type: ignore[arg-type]
    bot = HeuristicBot()
    for power in variant.power_names:  # type: ignore[attr-defined]
        delta = adjustment_delta(variant, position, power)  # type: ignore[arg-type]
        orders = bot.orders(variant, position, power, random.Random(2))  # type: ignore[arg-type]
        legal = legal_orders(variant, position, power)  # type: ignore[arg-type]
        if delta > 0 and any(isinstance(o, Build) for os_ in legal.values() for o in os_):
            used = sum(hooks.builds_used(o) for o in orders)
            assert 0 < used <= delta, (power, delta, orders)
        if delta < 0:
            assert all(isinstance(o, Disband) for o in orders) and orders
    if name == "1897":
        # Nobody owns a centre in Winter 1897: the opening rule gives each power one build, not 0 - 0.
        assert all(adjustment_delta(variant, position, p) == 1 for p in variant.power_names)  # type: ignore[arg-type, attr-defined]


def test_1000ad_placements_never_build_a_second_triple_army() -> None:
    """The one-triple-army limit is a rule of the set of builds: each site alone would allow one."""
    variant = load_variant("1000ad")
    position = variant.start
    assert variant.calendar.kind(position.phase) is PhaseKind.ADJUSTMENTS
    for power in variant.power_names:
        orders = HeuristicBot().orders(variant, position, power, random.Random(0))
        assert sum(1 for o in orders if isinstance(o, Build) and o.kind == "D") <= 1
    resolution = adjudicate(
        variant,
        position,
        {p: HeuristicBot().orders(variant, position, p, random.Random(0)) for p in variant.power_names},
    )
    assert not [r for r in resolution.results if r.result.value == "illegal"]


def test_search_stops_at_its_budget_and_plays_legal_orders() -> None:
    """The budget is read from the bot's clock: a clock that ticks a millisecond a reading makes the test
    independent of the machine's speed; the bot weighs candidates and stops at the first reading past it."""
    variant = load_variant("w3k")
    position = variant.start
    rng = random.Random(0)
    while variant.calendar.kind(position.phase) is not PhaseKind.MOVEMENT:
        position = adjudicate(
            variant, position, {p: HeuristicBot().orders(variant, position, p, rng) for p in variant.power_names}
        ).next
    power = variant.power_names[0]
    ticks = itertools.count()
    bot = SearchBot(budget=0.2, clock=lambda: next(ticks) / 1000)
    orders = bot.orders(variant, position, power, rng)
    legal = {o for os_ in legal_orders(variant, position, power).values() for o in os_}
    assert orders and all(o in legal for o in orders)
    assert bot.last_evaluations >= 10
    assert next(ticks) <= 205  # the readings stop within a few of the budget's 200


def test_an_unknown_level_is_refused_with_the_levels() -> None:
    with pytest.raises(BotError, match="unknown bot level 'heuristc'; the levels are hold, random, heuristic, search"):
        make_bot("heuristc")
    assert [make_bot(level).name for level in LEVELS] == list(LEVELS)


def test_a_game_keeps_every_powers_centres_year_by_year_and_where_it_ended() -> None:
    """The ladder's ``--trace`` prints these rows: one a game year, each the centres after that year's last
    phase, and one more for the year a solo came in, with the centres it ended on."""
    variant = load_variant("standard")
    limited = play_game(variant, dict.fromkeys(variant.power_names, RandomBot()), 5, max_years=3)
    assert [year for year, _ in limited.yearly] == [1901, 1902, 1903]
    assert limited.yearly[-1][1] == limited.centres and limited.ending == "year limit"
    seats = {p: HeuristicBot() if p == "France" else make_bot("hold") for p in variant.power_names}
    solo = play_game(variant, seats, 5, max_years=20)
    assert solo.winner == "France"
    year, centres = solo.yearly[-1]
    assert centres == solo.centres and centres["France"] >= 18 and solo.final is not None
    assert year == solo.final.phase.year and [y for y, _ in solo.yearly] == list(range(1901, year + 1))
