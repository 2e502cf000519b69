"""A head-to-head battle's reason: equal strength is a bounce for the side that met it, a loss only for the side
that met a greater strength (each side worded from its own attack against the other's defence)."""

from __future__ import annotations

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.messages import msg
from dippouch.core.notation import parse_order
from dippouch.core.results import OrderResult, Outcome
from helpers import board

BOUNCED = "bounced head-to-head with %(unit)s (%(attack)d vs %(defence)d)"
LOST = "lost head-to-head with %(unit)s (%(attack)d vs %(defence)d)"


def _results(orders: dict[str, list[str]]) -> dict[str, OrderResult]:
    """Each order's result, by the order's text, on a board of just the ordered units."""
    v = load_variant("standard")
    pos = board(v, "Spring 1901", {power: [" ".join(o.split()[:2]) for o in lines] for power, lines in orders.items()})
    parsed = {power: {parse_order(v, o): o for o in lines} for power, lines in orders.items()}
    res = adjudicate(v, pos, {power: list(lines) for power, lines in parsed.items()})
    return {parsed[r.power][r.order]: r for r in res.results}


def test_an_equal_head_to_head_is_a_bounce_on_both_sides() -> None:
    got = _results({"Austria": ["F tri - ven"], "Italy": ["A ven - tri"]})
    assert got["F tri - ven"].result == got["A ven - tri"].result == Outcome.FAILS
    assert got["F tri - ven"].why == msg(BOUNCED, unit="A Venice", attack=1, defence=1)
    assert got["A ven - tri"].why == msg(BOUNCED, unit="F Trieste", attack=1, defence=1)
    assert got["F tri - ven"].reason == "bounced head-to-head with A Venice (1 vs 1)"


def test_a_real_head_to_head_loss_keeps_lost() -> None:
    got = _results({"Germany": ["A mun - bur"], "France": ["A bur - mun", "A ruh S A bur - mun"]})
    assert got["A bur - mun"].result == Outcome.SUCCEEDS
    assert got["A mun - bur"].why == msg(LOST, unit="A Burgundy", attack=1, defence=2)


def test_each_side_is_worded_from_its_own_attack() -> None:
    """Italy's own support for the Austrian fleet counts in the fleet's defence but not in its attack on Italy:
    the fleet meets an equal defence (a bounce), the army a greater one (a loss); neither moves."""
    got = _results({"Austria": ["F tri - ven"], "Italy": ["A ven - tri", "A rom S F tri - ven"]})
    assert got["F tri - ven"].result == got["A ven - tri"].result == Outcome.FAILS
    assert got["F tri - ven"].why == msg(BOUNCED, unit="A Venice", attack=1, defence=1)
    assert got["A ven - tri"].why == msg(LOST, unit="F Trieste", attack=1, defence=2)
