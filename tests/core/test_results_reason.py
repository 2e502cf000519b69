"""Reasons written on demand read, compare, hash and pickle exactly like the plain strings they stand for."""

from __future__ import annotations

import pickle

from dippouch.catalog import load_variant
from dippouch.core.adjudicator import adjudicate
from dippouch.core.messages import Msg, msg
from dippouch.core.orders import Hold, Move
from dippouch.core.results import OrderResult, Outcome, Reason

CALLS: list[int] = []


def _text(n: int) -> Msg:
    CALLS.append(n)
    return msg("bounced (%(a)d vs %(b)d)", a=n, b=n)


def test_lazy_reason_is_written_once_and_behaves_as_its_text() -> None:
    CALLS.clear()
    lazy = OrderResult("France", Hold("A", 1), Outcome.FAILS, reason=Reason(_text, 1))
    plain = OrderResult("France", Hold("A", 1), Outcome.FAILS, reason="bounced (1 vs 1)")
    assert CALLS == []
    assert lazy.reason == "bounced (1 vs 1)" and type(lazy.reason) is str
    assert lazy == plain and hash(lazy) == hash(plain) and repr(lazy) == repr(plain)
    assert lazy._asdict() == plain._asdict()
    assert lazy._replace(index=3).reason == "bounced (1 vs 1)"
    assert pickle.loads(pickle.dumps(lazy)) == plain
    assert lazy.why == msg("bounced (%(a)d vs %(b)d)", a=1, b=1) and plain.why == Msg("bounced (1 vs 1)")
    assert CALLS == [1]  # formatted on the first read only
    assert lazy != OrderResult("France", Hold("A", 1), Outcome.FAILS, reason="bounced (2 vs 2)")


def test_adjudicated_failure_reason_is_text() -> None:
    variant = load_variant("standard")
    gmap = variant.map
    start = variant.start
    par, bur, mar = (gmap.loc(x) for x in ("par", "bur", "mar"))
    orders = {"France": [Move("A", par, bur), Move("A", mar, bur)]}
    res = adjudicate(variant, start, orders)
    fails = [r for r in res.results if r.result == Outcome.FAILS]
    assert len(fails) == 2
    assert [r.reason for r in fails] == ["bounced with A Marseilles (1 vs 1)", "bounced with A Paris (1 vs 1)"]


def test_order_result_fields_keep_the_order_the_hot_paths_build_them_in() -> None:
    """movement.py and adjustments.py build results as plain tuples (``tuple.__new__``) in this field order."""
    from dippouch.core.results import OrderResult

    assert OrderResult._fields == ("power", "order", "result", "dislodged", "destroyed", "automatic", "reason", "index")
