"""``legal_orders`` shares one phase's work between the calls for each power: threads must not mix phases up.

A web server asks from several threads at once. Each call must answer for the position it was given, and a
list handed to one caller (theirs to change) must never be handed to another. Under stress (twelve threads,
a switch every microsecond) the earlier design, a shared list rewritten in place, failed about one run in
two: a list was handed to two callers.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.legal_orders import all_legal_orders, legal_orders
from dippouch.core.position import Position

V = load_variant("standard")


def _positions(count: int) -> list[Position]:
    """Movement positions of one random game: each differs from the others."""
    rng = random.Random(5)
    out: list[Position] = []
    position = V.start
    while len(out) < count:
        options = all_legal_orders(V, position)
        if V.calendar.kind(position.phase).value == "movement":
            out.append(position)
        orders = {p: [rng.choice(x) for x in o.values() if x] for p, o in options.items()}
        position = adjudicate(V, position, orders).next
    return out


@contextmanager
def _switch_often() -> Iterator[None]:
    """Make the interpreter switch threads every microsecond, so interleavings that are rare become common."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def test_threads_asking_about_different_positions_get_their_own_answers() -> None:
    positions = _positions(6)
    expected = [
        {p: {loc: set(o) for loc, o in x.items()} for p, x in all_legal_orders(V, q).items()} for q in positions
    ]
    handed: list[int] = []
    wrong: list[str] = []

    def ask(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(800):
            i = rng.randrange(len(positions))
            power = rng.choice(V.power_names)
            got = legal_orders(V, positions[i], power)
            handed.extend(id(x) for x in got.values())
            if {loc: set(o) for loc, o in got.items()} != expected[i][power]:
                wrong.append(f"position {i}, {power}")
            # Keep the lists alive, so that an id seen twice means the same list handed out twice.
            keep.append(got)

    keep: list[object] = []
    with _switch_often():
        threads = [threading.Thread(target=ask, args=(seed,)) for seed in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not wrong, f"{len(wrong)} answers for another position, first {wrong[0]}"
    assert len(handed) == len(set(handed)), "a list was handed to two callers"
