"""Properties of adjudication that must hold for every position and every choice of legal orders.

Positions are random (any unit kind on any place it may stand, random centre ownership) on every shipped
variant; orders are drawn from :func:`legal_orders`, with a lean towards moves and supports of moves so that
battles, dislodgements and retreat phases are common. Hypothesis draws a seed and a unit density and runs
derandomized, so a run is repeatable; a position is built from the seed with :class:`random.Random` because
drawing hundreds of provinces one by one from Hypothesis is far slower on the big maps (W3K).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Move, Order, Retreat, Support
from dippouch.core.position import Position, Unit
from dippouch.core.results import Resolution
from dippouch.core.rules.base import hooks_for
from dippouch.core.variant import Variant
from test_shelf_sample import heavy_variants

SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    # Shrinking a random position can take minutes; a failure is reported as drawn (the messages name units).
    phases=[HPhase.explicit, HPhase.reuse, HPhase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("loeb9")
_CACHE: dict[str, Variant] = {}


def variant(name: str) -> Variant:
    if name not in _CACHE:
        _CACHE[name] = load_variant(name)
    return _CACHE[name]


# --- generators ------------------------------------------------------------------------------------------


def phase_of_kind(v: Variant, kind: PhaseKind, rng: random.Random) -> Phase:
    steps = [i for i, s in enumerate(v.calendar.steps) if s.kind == kind]
    step = rng.choice(steps)
    # A few cycles after the start: openings (1897's first winter) have rules of their own.
    cycles = 3 + rng.randrange(3)
    year = v.calendar.start.year + v.calendar.steps[step].offset + cycles * v.calendar.cycle_years
    return Phase(year, step)


def random_position(v: Variant, rng: random.Random, kind: PhaseKind, density: float) -> Position:
    """Units of random powers on a random share of the places they may stand; centres owned at random."""
    gmap = v.map
    powers = v.power_names
    units: dict[int, Unit] = {}
    # Big maps (W3K has over 250 provinces) get the unit count of a 100-province map, to keep the file fast.
    density *= min(1.0, 100 / len(gmap.provinces))
    for prov in gmap.provinces:
        if rng.random() >= density:
            continue
        options = [("A", prov.id)] if gmap.can_hold("A", prov.id) else []
        options += [("F", loc) for loc in gmap.fleet_locations(prov.id)]
        if not options:
            continue
        ukind, loc = rng.choice(options)
        units[prov.id] = Unit(rng.choice(powers), ukind, loc)
    centres = {c: rng.choice(powers) for c in gmap.supply_centres if rng.random() < 0.85}
    return Position(
        phase=phase_of_kind(v, kind, rng),
        units=units,
        centres=centres,
        homes=dict(v.start.homes),
        state=dict(v.start.state),
    )


def choose(options: Sequence[Order], rng: random.Random) -> Order:
    """Lean towards action: moves and supports of moves half the time, anything legal otherwise."""
    if rng.random() < 0.8:
        active = [o for o in options if isinstance(o, Move) or (isinstance(o, Support) and o.dest is not None)]
        if active:
            return rng.choice(active)
    return rng.choice(list(options))


def random_orders(v: Variant, position: Position, rng: random.Random) -> dict[str, list[Order]]:
    orders: dict[str, list[Order]] = {}
    for power in v.power_names:
        legal = legal_orders(v, position, power)
        chosen = [choose(legal[loc], rng) for loc in sorted(legal) if legal[loc]]
        if chosen:
            orders[power] = chosen
    return orders


def full_adjustment_orders(v: Variant, position: Position, rng: random.Random) -> dict[str, list[Order]]:
    """Every power builds on as many sites as it may, or removes exactly as many units as it must."""
    orders: dict[str, list[Order]] = {}
    for power in v.power_names:
        legal = legal_orders(v, position, power)
        if not legal:
            continue
        need = hooks_for(v).adjustment_delta(position, power)
        places = sorted(legal)
        rng.shuffle(places)
        if need > 0:
            # Build while the budget lasts (a unit may cost more than one centre: 1000 AD's D).
            hooks = hooks_for(v)
            picks: list[Order] = []
            for p in places:
                affordable = [o for o in legal[p] if isinstance(o, Build) and hooks.unit_cost(o.kind) <= need]
                if affordable:
                    pick = rng.choice(affordable)
                    picks.append(pick)
                    need -= hooks.unit_cost(pick.kind)
        else:
            picks = [legal[p][0] for p in places[:-need]]
        orders[power] = picks
    return orders


# --- checks ----------------------------------------------------------------------------------------------


def assert_board_consistent(v: Variant, position: Position) -> None:
    """Each unit sits in the province it is filed under, on a place its kind may stand: one per province."""
    for prov, unit in position.units.items():
        assert v.map.province_of(unit.loc) == prov, f"unit {unit} filed under province {prov}"
        assert v.map.can_hold("F" if unit.kind == "F" else "A", unit.loc), f"{unit} cannot stand there"
    for prov, d in position.dislodged.items():
        assert v.map.province_of(d.unit.loc) == prov
        for r in d.retreats:
            assert v.map.province_of(r) not in position.units, f"retreat of {d.unit} to an occupied province"


def unit_census(units: Sequence[Unit]) -> Counter[tuple[str, str]]:
    return Counter((u.power, u.kind) for u in units)


def outcome_table(res: Resolution) -> Counter[tuple[object, ...]]:
    return Counter((r.power, r.order, r.result, r.dislodged, r.destroyed, r.automatic) for r in res.results)


def board(p: Position) -> tuple[object, ...]:
    return (
        p.phase,
        dict(p.units),
        {k: (d.unit, d.retreats) for k, d in p.dislodged.items()},
        dict(p.centres),
    )


def shuffled(orders: Mapping[str, Sequence[Order]], rng: random.Random) -> dict[str, list[Order]]:
    powers = list(orders)
    rng.shuffle(powers)
    out: dict[str, list[Order]] = {}
    for p in powers:
        lst = list(orders[p])
        rng.shuffle(lst)
        out[p] = lst
    return out


# --- properties ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.2, 0.9))
def test_movement_keeps_every_unit_and_one_unit_per_province(name: str, seed: int, density: float) -> None:
    v = variant(name)
    rng = random.Random(seed)
    before = random_position(v, rng, PhaseKind.MOVEMENT, density)
    orders = random_orders(v, before, rng)
    res = adjudicate(v, before, orders)
    after = res.next
    assert_board_consistent(v, after)
    # Every unit is on the board, waiting to retreat, or destroyed (dislodged with nowhere to go): none lost,
    # none created.
    destroyed = {
        v.map.province_of(r.order.unit_loc) for r in res.results if r.destroyed and r.order.unit_loc is not None
    }
    assert all(p in before.units for p in destroyed)
    after_units = [*after.units.values(), *(d.unit for d in after.dislodged.values())]
    after_units += [before.units[p] for p in destroyed]
    assert unit_census(after_units) == unit_census(list(before.units.values()))
    # Units that moved went where their order sent them, and only there.
    moved_to = {r.order.dest for r in res.results if isinstance(r.order, Move) and r.result == "succeeds"}
    for prov, unit in after.units.items():
        if before.units.get(prov) != unit:
            assert unit.loc in moved_to or v.map.province_of(unit.loc) in {v.map.province_of(d) for d in moved_to}


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.3, 0.9))
def test_adjudication_ignores_the_listing_order_of_orders(name: str, seed: int, density: float) -> None:
    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.MOVEMENT, density)
    orders = random_orders(v, position, rng)
    first = adjudicate(v, position, orders)
    second = adjudicate(v, position, shuffled(orders, rng))
    # Results carry the index in the submitted list, which shuffling changes; compare everything else.
    assert outcome_table(first) == outcome_table(second)
    assert board(first.next) == board(second.next)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.5, 0.95))
def test_retreats_never_stack_units_nor_create_any(name: str, seed: int, density: float) -> None:
    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.MOVEMENT, density)
    after_moves = adjudicate(v, position, random_orders(v, position, rng)).next
    if v.calendar.kind(after_moves.phase) != PhaseKind.RETREATS:
        return  # nobody dislodged; other examples cover retreats (see the counter test below)
    orders = random_orders(v, after_moves, rng)
    res = adjudicate(v, after_moves, orders)
    after = res.next
    assert_board_consistent(v, after)
    assert not after.dislodged or v.calendar.kind(after.phase) == PhaseKind.RETREATS
    stayed = dict(after_moves.units)
    # Units that were not dislodged are untouched by a retreat phase (adjustments may follow, so compare
    # before any builds: every unit standing before the retreats still stands).
    for p, u in stayed.items():
        assert after.units.get(p) == u
    arrived = [u for p, u in after.units.items() if p not in stayed]
    retreated = {
        (r.power, r.order.loc, r.order.dest)
        for r in res.results
        if isinstance(r.order, Retreat) and r.result == "succeeds"
    }
    waiting = dict(after_moves.dislodged)
    for u in arrived:
        # Only a dislodged unit can appear, on one of its retreat places, by a retreat that succeeded.
        sources = [d for d in waiting.values() if d.unit.power == u.power and d.unit.kind == u.kind]
        assert any(u.loc in d.retreats for d in sources), f"{u} appeared from nowhere"
        assert any(dest == u.loc and power == u.power for power, _, dest in retreated)
    assert len(after.units) <= len(after_moves.units) + len(after_moves.dislodged)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.1, 0.7))
def test_full_adjustments_bring_units_to_centres_and_build_only_on_vacant_sites(
    name: str, seed: int, density: float
) -> None:
    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.ADJUSTMENTS, density)
    sites = {p: set(legal_orders(v, position, p)) for p in v.power_names}
    orders = full_adjustment_orders(v, position, rng)
    res = adjudicate(v, position, orders)
    after = res.next
    assert_board_consistent(v, after)
    for power in v.power_names:
        before_units = position.units_of(power)
        after_units = after.units_of(power)
        need = hooks_for(v).adjustment_delta(position, power)
        new = [u for u in after_units if position.units.get(v.map.province_of(u.loc)) != u]
        for u in new:
            prov = v.map.province_of(u.loc)
            assert prov not in position.units, f"{power} built {u} on an occupied province"
            assert need > 0 and prov in sites[power], f"{power} built {u} outside its build sites"
        hooks = hooks_for(v)
        plain_costs = all(hooks.unit_cost(u.kind) == 1 for u in [*before_units, *after_units])
        if need < 0:
            assert not new
            assert hooks.adjustment_delta(after, power) >= 0, power
            if plain_costs:
                assert hooks.adjustment_delta(after, power) == 0, power
        elif need > 0:
            assert hooks.adjustment_delta(after, power) >= 0, power
            if plain_costs:
                mine = [(r.order, r.result.value, r.reason) for r in res.results if r.power == power]
                assert len(after_units) == len(before_units) + min(need, len(sites[power])), (power, mine)
        else:
            assert Counter(after_units) == Counter(before_units), power


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.3, 0.9))
def test_civil_disorder_removes_down_to_centres(name: str, seed: int, density: float) -> None:
    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.ADJUSTMENTS, density)
    after = adjudicate(v, position, {}).next
    assert_board_consistent(v, after)
    hooks = hooks_for(v)
    for power in v.power_names:
        need = hooks.adjustment_delta(position, power)
        assert all(u in position.units.values() for u in after.units_of(power)), "a unit appeared"
        if need >= 0:
            assert Counter(after.units_of(power)) == Counter(position.units_of(power)), "missing builds are waived"
        else:
            assert hooks.adjustment_delta(after, power) >= 0, f"{power} still owes removals"


def test_random_play_reaches_retreats_and_adjustments() -> None:
    """Guards the generators: the retreat property above is empty unless battles dislodge units."""
    v = variant("standard")
    rng = random.Random(5)
    kinds: Counter[PhaseKind] = Counter()
    for _ in range(30):
        position = random_position(v, rng, PhaseKind.MOVEMENT, 0.7)
        nxt = adjudicate(v, position, random_orders(v, position, rng)).next
        kinds[v.calendar.kind(nxt.phase)] += 1
    assert kinds[PhaseKind.RETREATS] >= 5, kinds


def no_illegal(res: Resolution) -> None:
    """Orders taken from ``legal_orders`` are never rejected as illegal: the two agree on what is legal."""
    bad = [(r.power, r.order, r.reason) for r in res.results if not r.automatic and r.result == "illegal"]
    assert not bad, f"legal_orders offered orders the adjudicator calls illegal: {bad}"


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.2, 0.9))
def test_legal_orders_are_never_judged_illegal(name: str, seed: int, density: float) -> None:
    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.MOVEMENT, density)
    res = adjudicate(v, position, random_orders(v, position, rng))
    no_illegal(res)
    if v.calendar.kind(res.next.phase) == PhaseKind.RETREATS:
        no_illegal(adjudicate(v, res.next, random_orders(v, res.next, rng)))
    # Builds are legal one at a time; together they may break a variant's limit (1000 AD: one D at a time), so
    # a build judged illegal in company must be legal when ordered alone.
    adjusting = random_position(v, rng, PhaseKind.ADJUSTMENTS, density)
    res = adjudicate(v, adjusting, full_adjustment_orders(v, adjusting, rng))
    for r in res.results:
        if not r.automatic and r.result == "illegal":
            no_illegal(adjudicate(v, adjusting, {r.power: [r.order]}))


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.2, 0.9))
def test_legal_orders_and_positions_survive_text_and_json(name: str, seed: int, density: float) -> None:
    """What the formatter writes, the parser reads back as the same order; positions round-trip as JSON."""
    from dippouch.core.jsonio import position_from_json, position_to_json
    from dippouch.core.notation import format_order, parse_order

    v = variant(name)
    rng = random.Random(seed)
    position = random_position(v, rng, PhaseKind.MOVEMENT, density)
    kind = v.calendar.kind(position.phase)
    for power in v.power_names:
        for options in legal_orders(v, position, power).values():
            for order in rng.sample(options, min(4, len(options))):
                text = format_order(v, order, phase_kind=kind)
                assert parse_order(v, text, phase_kind=kind) == order, text
    after = adjudicate(v, position, random_orders(v, position, rng)).next
    for p in (position, after):
        again = position_from_json(v, position_to_json(v, p))
        assert board(again) == board(p)
        assert dict(again.homes) == dict(p.homes)
