"""Bots remember their failed moves and do not send them again unchanged (issue 43: in a practice game "the same
bounces repeat for three years (Rumania, Sweden)"): the memory counts a move's failures in a row and forgets it
when it is not sent or succeeds; the heuristic level, told a move failed, sends the unit elsewhere or supports
it; and in whole games the bots no longer bounce the same way three movement phases running."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType

import pytest

from dbsupport import migrated_sqlite
from dippouch.bots import seats
from dippouch.bots.engine import Move, Order, OrderResult, Outcome, Position, Support, Variant
from dippouch.bots.heuristic import HeuristicBot, Values
from dippouch.bots.memory import Memory, recalled, remember
from dippouch.bots.play import play_game
from dippouch.bots.seats import play_seats, seat_bot
from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions


def _move(v: Variant, src: str, dest: str) -> Move:
    return Move("A", v.map.loc(src), v.map.loc(dest))


def test_the_memory_counts_failures_in_a_row_and_forgets_the_rest() -> None:
    v = load_variant("standard")
    bounce = _move(v, "ven", "tyr")
    other = _move(v, "rom", "apu")
    results = [
        OrderResult("Italy", bounce, Outcome.FAILS),
        OrderResult("Italy", other, Outcome.SUCCEEDS),
        OrderResult("Austria", _move(v, "vie", "tyr"), Outcome.FAILS),
    ]
    first = remember(v, None, "Italy", results)
    key = (v.map.province_of(bounce.loc), v.map.province_of(bounce.dest))
    assert dict(first.failed) == {key: 1}
    again = remember(v, first, "Italy", results[:1])
    assert again.failures(*key) == 2
    assert remember(v, again, "Italy", [OrderResult("Italy", bounce, Outcome.SUCCEEDS)]).failures(*key) == 0
    assert remember(v, again, "Italy", []).failed == {}
    held = OrderResult("Italy", bounce, Outcome.FAILS, automatic=True)
    assert remember(v, None, "Italy", [held]).failed == {}


def _unit_orders(v: Variant, orders: list[Order], src: str) -> Order:
    loc = v.map.province_of(v.map.loc(src))
    return next(o for o in orders if o.unit_loc is not None and v.map.province_of(o.unit_loc) == loc)


def test_told_a_move_failed_the_heuristic_goes_elsewhere_or_with_support() -> None:
    v = load_variant("standard")
    start: Position = v.start
    bot = HeuristicBot()
    for power in v.power_names:
        plain = bot.orders(v, start, power, random.Random(1))
        for order in plain:
            if not isinstance(order, Move):
                continue
            src, dest = v.map.province_of(order.loc), v.map.province_of(order.dest)
            if dest in v.map.supply_centres and dest not in start.centres and not Values(v, start, power).threat[dest]:
                continue  # a free centre no other power can reach is entered again (test_bot_adapt.py)
            told = Memory(MappingProxyType({(src, dest): 2}))
            now = bot.orders(v, start, power, random.Random(1), told)
            mine = _unit_orders(v, now, v.map.provinces[src].abbr)
            supported = any(
                isinstance(o, Support) and o.dest is not None and v.map.province_of(o.target) == src and o.dest == dest
                for o in now
            )
            assert mine != order or supported, (power, order, now)


def _repeats(seed: int, memory: bool) -> int:
    """Moves sent unsupported and failed three movement phases running, in a 6-year heuristic game."""

    class Forgetful(HeuristicBot):
        def orders(self, variant, position, power, rng, memory=None):  # type: ignore[no-untyped-def]
            return super().orders(variant, position, power, rng, None)

    v = load_variant("standard")
    bot = HeuristicBot() if memory else Forgetful()
    seats = dict.fromkeys(v.power_names, bot)
    runs: dict[tuple[str, int, int], int] = {}
    worst = 0
    rng = random.Random(seed)
    position = v.start
    memories: dict[str, Memory] = {}
    while position.phase.year < 1907:
        orders = {
            p: seats[p].orders(v, position, p, random.Random(rng.getrandbits(64)), memories.get(p))
            for p in v.power_names
        }
        res = adjudicate(v, position, orders, rng=random.Random(rng.getrandbits(64)))
        if v.calendar.kind(position.phase).name == "MOVEMENT":
            memories = {p: remember(v, memories.get(p), p, res.results) for p in v.power_names}
            supported = {
                (r.power, v.map.province_of(r.order.target), r.order.dest)
                for r in res.results
                if isinstance(r.order, Support) and r.order.dest is not None
            }
            now: dict[tuple[str, int, int], int] = {}
            for r in res.results:
                if isinstance(r.order, Move) and r.result is Outcome.FAILS and not r.automatic:
                    key = (r.power, v.map.province_of(r.order.loc), v.map.province_of(r.order.dest))
                    if (key[0], key[1], key[2]) not in supported:
                        now[key] = runs.get(key, 0) + 1
            runs = now
            worst = max([worst, *runs.values()])
        position = res.next
    return worst


def test_whole_games_do_not_bounce_the_same_way_three_times_running() -> None:
    # Without its memory the heuristic repeats an unsupported failed move three or more movement phases
    # running in these games; with it, never.
    assert max(_repeats(seed, memory=False) for seed in range(3)) >= 3
    assert max(_repeats(seed, memory=True) for seed in range(3)) < 3


def test_play_game_hands_each_power_its_memory() -> None:
    seen: list[Memory | None] = []

    class Watching(HeuristicBot):
        def orders(self, variant, position, power, rng, memory=None):  # type: ignore[no-untyped-def]
            if power == "Italy":
                seen.append(memory)
            return super().orders(variant, position, power, rng, memory)

    v = load_variant("standard")
    play_game(v, dict.fromkeys(v.power_names, Watching()), seed=4, max_years=3)
    assert seen[0] is None and any(m is not None for m in seen[1:])


def test_seated_bots_recall_the_stored_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot seated in a stored game (a practice game, a seat in civil disorder) is handed what its power's
    moves came to in the game's processed movement phases, read back from the store."""
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    store_games.create_game(store, "g", "standard", now=now)
    store_submissions.submit(store, "g", "Austria", "A vie - gal\nA bud - ser", now=now)
    store_submissions.submit(store, "g", "Russia", "A war - gal", now=now)
    store_processing.process(store, "g", now=now + timedelta(days=30), force=True)
    v = load_variant("standard")
    got = recalled(
        v, [store_history.phase_record(store, "g", "Spring 1901 Movement")["results"]], ["Austria", "Russia", "Italy"]
    )
    gal = v.map.province_of(v.map.loc("gal"))
    assert got["Austria"].failures(v.map.province_of(v.map.loc("vie")), gal) == 1
    assert got["Russia"].failures(v.map.province_of(v.map.loc("war")), gal) == 1
    assert dict(got["Austria"].failed) == {(v.map.province_of(v.map.loc("vie")), gal): 1} and not got["Italy"].failed
    store_submissions.submit(
        store, "g", "Austria", "A vie - gal", now=now + timedelta(days=31)
    )  # the same bounce again
    store_submissions.submit(store, "g", "Russia", "A war - gal", now=now + timedelta(days=31))
    store_processing.process(store, "g", now=now + timedelta(days=60), force=True)  # Fall 1901 Movement
    store_processing.process(store, "g", now=now + timedelta(days=90), force=True)  # Winter 1901: adjustments
    handed: dict[str, Memory | None] = {}

    class Watching(HeuristicBot):
        def orders(self, variant, position, power, rng, memory=None):  # type: ignore[no-untyped-def]
            handed[power] = memory
            return super().orders(variant, position, power, rng, memory)

    monkeypatch.setattr(seats, "make_bot", lambda level: Watching())
    seat_bot(store, "g", "Austria", "heuristic", now=now + timedelta(days=91))
    play_seats(store, now=now + timedelta(days=91), games=["g"])
    # Spring 1902: Austria's bot is told Vienna to Galicia failed twice running.
    told = handed["Austria"]
    assert told is not None and dict(told.failed) == {(v.map.province_of(v.map.loc("vie")), gal): 2}
