"""What a game does when a player is away at its deadline: the coordinator's policy, decided here, applied
by the deadline worker (:mod:`dippouch.store.people.absences`).

A person records a holiday once (first and last day, inclusive); each game they play applies its own policy:

- ``extend``: the deadline moves to the same time on the day after the holiday ends, taking days from the
  player's budget in that game (as the e-mail judges' absences did); once the budget is spent the deadline
  stands, and what is left is given;
- ``stand_in``: a named person may order the seat while its player is away (their orders are the power's);
- ``standing``: the orders the player last sent for a phase of the same kind are sent again, each line
  checked against the position as every submission is: the lines that still fit carry, the units left without
  an order hold (or whatever the rules do with them);
- ``proxy`` (a variant whose rules allow proxy orders, W3K): each unit of the player is handed over to the ally
  they named in that game, as the rulebook's holiday advice has it ("their allies will be providing proxy
  orders for their troops"): the hand-overs are sent at the deadline, and the ally's orders for those units,
  sent with the ally's own, then count;
- ``none``: nothing (missed orders are missed).

The policy applies only to a player who must act and has sent nothing that stands for the phase: nothing a
player sent is replaced. Days are UTC days.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = ["DEFAULT_BUDGET_DAYS", "NEEDS_PROXY_ORDERS", "POLICIES", "Away", "away_on", "extension"]

POLICIES = {
    "none": "nothing: missed orders are missed",
    "extend": "extend the deadline from the player's budget of days",
    "stand_in": "a named stand-in orders the seat",
    "standing": "the player's last orders of that kind carry; units without one hold",
    "proxy": "an ally the player names orders their units (proxy orders)",
}
NEEDS_PROXY_ORDERS = frozenset({"proxy"})
"""Policies only a variant whose rules allow proxy orders (``[rules] proxy_orders``, W3K) may choose."""
DEFAULT_BUDGET_DAYS = 14
MAX_BUDGET_DAYS = 366


@dataclass(frozen=True)
class Away:
    id: int
    first_day: date
    last_day: date

    def covers(self, day: date) -> bool:
        return self.first_day <= day <= self.last_day


def away_on(absences: Sequence[Away], day: date) -> Away | None:
    """The absence covering ``day`` that ends last (overlapping holidays join), or None."""
    covering = [a for a in absences if a.covers(day)]
    return max(covering, key=lambda a: (a.last_day, a.id)) if covering else None


def back_on(absences: Sequence[Away], day: date) -> date | None:
    """The first day from ``day`` on that no absence covers, when ``day`` is covered (holidays that touch or
    overlap count as one); None when the player is not away on ``day``."""
    if away_on(absences, day) is None:
        return None
    d = day
    while (a := away_on(absences, d)) is not None:
        d = a.last_day + timedelta(days=1)
    return d


def extension(deadline: datetime, absences: Sequence[Away], budget_left: float) -> timedelta | None:
    """How much later the deadline goes for a player away on its day: to the same time of day on the day
    they are back, at most the whole days left in ``budget_left``; None when they are not away or no whole
    day is left."""
    back = back_on(absences, deadline.date())
    days = min((back - deadline.date()).days, int(budget_left)) if back is not None else 0
    return timedelta(days=days) if days > 0 else None
