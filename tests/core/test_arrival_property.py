"""The check on arrival and the adjudicator agree, on random positions of all six variants.

Hypothesis draws a position (every phase kind; see tests/order_positions.py), a power, and order lines:
legal orders, random orders of every kind, and both mutated as players mistype them (the wrong unit letter,
a coast left out, a misspelt name, other spellings). For each submission:

* a line the check accepts is never judged illegal by the adjudicator, nor certain to fail for a reason
  visible on arrival, unless the check's note says what it depends on (W3K hand-overs and supply);
* a line it refuses (other than unreadable lines and lines headed for another power) is never carried out
  when it is sent to the adjudicator anyway;
* the echo is the order as it will be carried out: it shows the unit's real type, reads back to itself, and
  the adjudicator gives it the same results as the line as written.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from dippouch.core.adjudicator import adjudicate
from dippouch.core.calendar import PhaseKind
from dippouch.core.notation import format_order, parse_order
from dippouch.core.orders import Order
from dippouch.core.position import Position
from dippouch.core.results import Outcome
from dippouch.core.variant import Variant
from dippouch.game import LineCheck, check_orders
from order_positions import VARIANTS, candidate_orders, position_pool, variant

# 250 examples a variant: 500 took 38 s of a full run (14 s when the test was written). Derandomized: every run
# checks the same ones.
SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=250,
    phases=[HPhase.explicit, HPhase.reuse, HPhase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Failures the board alone makes certain: the arrival check must refuse these lines.
CERTAIN_FAILURES = ("naming a coast does not move the fleet", "name the coast")


def mutate(text: str, rng: random.Random) -> str:
    """What players do to an order: another unit letter, no coast, a typo, another arrow, lower case."""
    words = text.split(" ")
    pick = rng.random()
    if pick < 0.2:
        words = [{"A": "F", "F": "A"}.get(w, w) if i == 0 or rng.random() < 0.5 else w for i, w in enumerate(words)]
    elif pick < 0.35:
        words = [w.split("/")[0] for w in words]
    elif pick < 0.5 and len(words) > 1:
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) > 2:
            j = rng.randrange(len(w))
            words[i] = w[:j] + rng.choice("aeiou") + w[j + 1 :]
    elif pick < 0.6:
        words = ["->" if w == "-" else w for w in words]
    elif pick < 0.7:
        words = [w.lower() for w in words]
    elif pick < 0.75 and words and words[0] in ("A", "F"):
        words = words[1:]  # no unit type at all
    return " ".join(words)


def lines_for(v: Variant, position: Position, power: str, rng: random.Random, count: int) -> list[str]:
    kind = v.calendar.kind(position.phase)
    orders = candidate_orders(v, position, power, rng, count)
    out = []
    for o in orders:
        text = format_order(v, o, phase_kind=kind)
        out.append(mutate(text, rng) if rng.random() < 0.5 else text)
    return out


def _parsed(v: Variant, kind: PhaseKind, text: str) -> Order:
    return parse_order(v, text, phase_kind=kind)


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(data=st.data())
def test_what_the_check_accepts_the_adjudicator_carries_out(name: str, data: st.DataObject) -> None:
    v = variant(name)
    pool = position_pool(name)
    position = pool[data.draw(st.integers(0, len(pool) - 1), label="position")]
    power = data.draw(st.sampled_from(v.power_names), label="power")
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    texts = lines_for(v, position, power, rng, data.draw(st.integers(1, 12), label="lines"))
    kind = v.calendar.kind(position.phase)
    checks = check_orders(v, position, power, "\n".join(texts))
    where = f"{v.calendar.name(position.phase)}, {power}"

    judged: list[tuple[LineCheck, Order]] = []  # every readable line of this power, in order
    for c in checks:
        if c.order is None:
            continue  # unreadable, or headed for another power
        judged.append((c, _parsed(v, kind, c.text)))
    accepted = [(c, o) for c, o in judged if c.accepted]

    # 1. The accepted lines, as written, are carried out (or fail only for what the other powers decide).
    res = adjudicate(v, position, {power: [o for _, o in accepted]}, rng=random.Random(0))
    mine = {r.index: r for r in res.results if r.power == power and r.index is not None}
    for i, (c, _) in enumerate(accepted):
        r = mine[i]
        if c.note is not None and "counts only if" in c.note:
            continue
        assert r.result != Outcome.ILLEGAL, f"{where}: {c.text!r} accepted as {c.order}, judged illegal: {r.reason}"
        assert not any(f in r.reason for f in CERTAIN_FAILURES), f"{where}: {c.text!r} accepted, {r.reason}"

    # 2. The echo is the order carried out: the unit's real type, reading back to itself, the same results.
    echoed = [_parsed(v, kind, c.order or "") for c, _ in accepted]
    for (c, _), o in zip(accepted, echoed, strict=True):
        assert format_order(v, o, phase_kind=kind) == c.order
        loc = o.unit_loc
        unit_kind = getattr(o, "kind", None)
        if loc is not None and unit_kind is not None and not c.order.startswith("Build"):
            prov = v.map.province_of(loc)
            unit = position.dislodged[prov].unit if kind == PhaseKind.RETREATS else position.units.get(prov)
            assert unit is not None and unit.kind == unit_kind and unit.loc == loc, f"{where}: echo {c.order}"
    again = adjudicate(v, position, {power: echoed}, rng=random.Random(0))
    words = [(r.index, r.result, r.dislodged) for r in res.results if r.power == power and not r.automatic]
    again_words = [(r.index, r.result, r.dislodged) for r in again.results if r.power == power and not r.automatic]
    assert sorted(words) == sorted(again_words), f"{where}: {[c.order for c, _ in accepted]}"

    # 3. A refused line is never carried out, even when sent to the adjudicator with everything else.
    everything = adjudicate(v, position, {power: [o for _, o in judged]}, rng=random.Random(0))
    all_results = {r.index: r for r in everything.results if r.power == power and r.index is not None}
    for i, (c, _) in enumerate(judged):
        if c.accepted:
            continue
        r = all_results[i]
        assert r.result in (Outcome.ILLEGAL, Outcome.FAILS), (
            f"{where}: {c.text!r} refused ({c.error}) but the adjudicator says {r.result}"
        )
