"""Which postal address is in force on a day: the rulebook's player list, where a player gives a primary
address and dated alternates ("from 3 to 21 August: ..."), and correspondents read the one that applies.

Computed, never typed twice: the store keeps each address once with its days, and every roster asks
:func:`address_in_force`. When dated alternates overlap, the one that began most recently wins (a trip within
a longer stay is where the player is), then the shorter, then the one added last; outside every alternate the
primary applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = ["PostalAddress", "address_in_force", "changes_ahead"]


@dataclass(frozen=True)
class PostalAddress:
    id: int
    text: str
    first_day: date | None = None
    """The first day an alternate is preferred (inclusive); None for the primary address."""
    last_day: date | None = None
    """The last day it is preferred (inclusive); None for the primary address."""

    @property
    def primary(self) -> bool:
        return self.first_day is None

    def covers(self, day: date) -> bool:
        return self.first_day is not None and self.last_day is not None and self.first_day <= day <= self.last_day


def _rank(a: PostalAddress) -> tuple[date, int, int]:
    assert a.first_day is not None and a.last_day is not None
    return (a.first_day, -(a.last_day - a.first_day).days, a.id)


def address_in_force(addresses: Sequence[PostalAddress], day: date) -> PostalAddress | None:
    """The address correspondence should go to on ``day``: the covering alternate that began last (then
    the shorter, then the newer), else the primary, else None."""
    covering = [a for a in addresses if a.covers(day)]
    if covering:
        return max(covering, key=_rank)
    primaries = [a for a in addresses if a.primary]
    return max(primaries, key=lambda a: a.id) if primaries else None


def changes_ahead(addresses: Sequence[PostalAddress], today: date) -> list[tuple[date, PostalAddress | None]]:
    """The days after ``today`` on which the address in force changes, with the address from that day:
    what a roster lists as "upcoming changes". Only a dated address's first day or the day after its last can
    change anything, so only those are asked."""
    points = sorted(
        {d for a in addresses if a.first_day and a.last_day for d in (a.first_day, a.last_day + timedelta(days=1))}
    )
    out: list[tuple[date, PostalAddress | None]] = []
    current = address_in_force(addresses, today)
    for d in points:
        if d <= today:
            continue
        now = address_in_force(addresses, d)
        if now != current:
            out.append((d, now))
            current = now
    return out
