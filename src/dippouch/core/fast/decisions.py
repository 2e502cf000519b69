"""What the movement resolver (:mod:`dippouch.core.movement`) and its fast loop (:mod:`.movement`) both read:
the entry of a submitted order and the resolver's per-province lists that the fast loop fills.

Types only, in a module of their own so that the two import it and not each other: the readable resolver
calls the fast loop, and the fast loop names the shapes it fills without importing the resolver.
"""

from __future__ import annotations

from typing import Protocol

from dippouch.core.orders import Order
from dippouch.core.position import Unit

__all__ = ["Entry", "ResolverLists"]

Entry = tuple[str, int, Order, int]
"""A submitted order: power, index in the power's list, order and slot: the province of its unit for the
order the unit carries out (judged at the end), or ``province_count + k`` for the k-th order decided on the
spot (illegal), whose outcome and reason are kept at that slot."""


class ResolverLists(Protocol):
    """The lists of the movement resolver the fast loop writes, indexed by province id (the resolver's
    ``_Resolver`` has them; what each holds is documented there)."""

    code: list[int]
    dest: list[int]
    sup_dest: list[int]
    dest_loc: list[int]
    at: list[Unit | None]
    convoyed: list[bool]
