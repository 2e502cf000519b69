"""Positions of every phase kind on all six variants, and orders (legal, illegal, of every kind) to try on them.

Shared by the tests that hold the arrival check, the legal-order lists and the adjudicator together
(tests/core/test_legal_vs_adjudicator.py, tests/core/test_arrival_property.py). Everything is built from fixed seeds.
"""

from __future__ import annotations

import random
from functools import cache

from test_properties import random_orders, random_position

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.legal_orders import legal_orders
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position
from dippouch.core.variant import Variant
from test_shelf_sample import heavy_variants

# dippouch's own variants and one of the shelf (tests/test_shelf_sample.py): this for every shelf variant would
# multiply the file's time; tests/variants/test_shelf.py checks the whole shelf at once.
VARIANTS = heavy_variants("1900")


@cache
def variant(name: str) -> Variant:
    return load_variant(name)


@cache
def position_pool(name: str) -> tuple[Position, ...]:
    """The opening, random movement and adjustment positions, and retreat positions reached by playing."""
    v = variant(name)
    rng = random.Random(f"pool {name}")
    pool = [v.start]
    for density in (0.3, 0.5, 0.8):
        pool.append(random_position(v, rng, PhaseKind.MOVEMENT, density))
        pool.append(random_position(v, rng, PhaseKind.ADJUSTMENTS, density))
    retreats = 0
    for attempt in range(40):
        if retreats >= 3:
            break
        before = random_position(v, rng, PhaseKind.MOVEMENT, 0.9)
        after = adjudicate(v, before, random_orders(v, before, rng), rng=random.Random(attempt)).next
        if v.calendar.kind(after.phase) == PhaseKind.RETREATS:
            pool.append(after)
            retreats += 1
    # A few phases of play from the opening: the variant's state (W3K conversions, 1000 AD anarchy) and the
    # opening's own rules (1897's chosen homes, 1000 AD's placements) come up.
    pos = v.start
    for turn in range(6):
        pos = adjudicate(v, pos, random_orders(v, pos, rng), rng=random.Random(turn)).next
        pool.append(pos)
    return tuple(pool)


def candidate_orders(v: Variant, position: Position, power: str, rng: random.Random, n: int) -> list[Order]:
    """``n`` orders for ``power``: legal ones, and orders of every kind between random places and units."""
    gmap = v.map
    kind = v.calendar.kind(position.phase)
    legal = [o for listed in legal_orders(v, position, power).values() for o in listed]
    units = list(position.units.values())
    mine = [u for u in units if u.power == power] or units
    locs = range(len(gmap.locations))
    provs = range(gmap.province_count)
    out: list[Order] = []
    for _ in range(n):
        if legal and rng.random() < 0.35:
            out.append(rng.choice(legal))
            continue
        if kind == PhaseKind.ADJUSTMENTS:
            pick = rng.random()
            if pick < 0.6:
                out.append(Build(rng.choice(["A", "F", "D"]), rng.choice(locs)))
            elif pick < 0.7:
                out.append(Waive())
            elif units:
                u = rng.choice(mine)
                out.append(Disband(rng.choice([u.kind, None]), u.loc))
            continue
        if kind == PhaseKind.RETREATS:
            gone = [d.unit for d in position.dislodged.values()] or mine
            if not gone:
                continue
            u = rng.choice(gone)
            if rng.random() < 0.8:
                out.append(Retreat(rng.choice([u.kind, None, "A", "F"]), u.loc, rng.choice(locs)))
            else:
                out.append(Disband(u.kind, u.loc))
            continue
        if not units:
            continue
        u = rng.choice(mine if rng.random() < 0.8 else units)
        split = [w for w in mine if gmap.provinces[gmap.province_of(w.loc)].coasts]
        if split and rng.random() < 0.3:
            u = rng.choice(split)  # a fleet on one of two coasts, or an army in such a province
        other = rng.choice(units)
        given = rng.choice([u.kind, None, "A", "F"])
        # The unit's place as a player may write it: its province, or either coast of it (6.B.10, 6.B.11).
        here = rng.choice([u.loc, u.loc, gmap.province_of(u.loc), *gmap.provinces[gmap.province_of(u.loc)].coasts])
        pick = rng.random()
        if pick < 0.1:
            out.append(Hold(given, here))
        elif pick < 0.5:
            near = sorted(gmap.fleet_adj[u.loc] | gmap.army_adj[gmap.province_of(u.loc)])
            dest = rng.choice(near) if near and rng.random() < 0.6 else rng.choice(locs)
            out.append(Move(given, here, dest, rng.random() < 0.2))
        elif pick < 0.85:
            supported_to = rng.choice([None, rng.choice(provs)])
            out.append(Support(given, here, rng.choice([other.kind, None]), other.loc, supported_to))
        else:
            out.append(Convoy(given, here, other.loc, rng.choice(provs)))
    return out
