"""Order values. Text becomes these in :mod:`dippouch.core.notation`; the adjudicator reads only these.

A unit is designated by ``kind`` (``None`` when the player omitted it) and ``loc``, a location id. The
coast in ``loc`` may be wrong (DATC 6.B.10: a wrong coast of the ordered unit is ignored), so the
adjudicator matches units by province.
"""

from __future__ import annotations

from dataclasses import dataclass

from dippouch.core.lookup import Drawing, register_order_kind

__all__ = [
    "Build",
    "Convoy",
    "Disband",
    "Hold",
    "Move",
    "Order",
    "Retreat",
    "Support",
    "Waive",
]


class Order:
    """Base of every order, including the extra kinds variants define."""

    __slots__ = ()

    @property
    def unit_loc(self) -> int | None:
        """The location of the ordered unit, or ``None`` for orders about no unit (build, waive)."""
        return getattr(self, "loc", None)


@dataclass(frozen=True, slots=True)
class Hold(Order):
    kind: str | None
    loc: int


@dataclass(frozen=True, slots=True)
class Move(Order):
    kind: str | None
    loc: int
    dest: int
    via_convoy: bool = False


@dataclass(frozen=True, slots=True)
class Support(Order):
    """Support to hold (``dest is None``) or to move from ``target`` to ``dest``."""

    kind: str | None
    loc: int
    target_kind: str | None
    target: int
    dest: int | None = None
    target_power: str | None = None
    """The power the order names as the supported unit's owner ("supports the Crown Army Ashby"), or None.
    When named, the unit there must be that power's (:mod:`~dippouch.core.order_checks`)."""


@dataclass(frozen=True, slots=True)
class Convoy(Order):
    kind: str | None
    loc: int
    target: int
    """Where the convoyed army stands."""
    dest: int
    target_power: str | None = None
    """The power the order names as the convoyed army's owner, or None (checked like a support's)."""


@dataclass(frozen=True, slots=True)
class Retreat(Order):
    kind: str | None
    loc: int
    dest: int


@dataclass(frozen=True, slots=True)
class Disband(Order):
    """A dislodged unit disbanding in a retreat phase, or a removal in an adjustment phase."""

    kind: str | None
    loc: int


@dataclass(frozen=True, slots=True)
class Build(Order):
    kind: str
    loc: int


@dataclass(frozen=True, slots=True)
class Waive(Order):
    """Decline a build (DATC v3.2 says "decline"; the hobby says "waive")."""

    @property
    def unit_loc(self) -> int | None:
        return None


# How the standard orders are drawn (the renderer draws by shape, never by order class; see lookup.Drawing).
register_order_kind(Hold, lambda o: Drawing("hold", "hold", unit=o.loc))
register_order_kind(Move, lambda o: Drawing("move", "move", unit=o.loc, dest=o.dest, dashed=o.via_convoy))
register_order_kind(Retreat, lambda o: Drawing("retreat", "retreat", unit=o.loc, dest=o.dest, dislodged=True))
register_order_kind(
    Support,
    lambda o: Drawing(
        "support",
        "support support-hold" if o.dest is None else "support support-move",
        unit=o.loc,
        target=o.target,
        dest=o.dest,
    ),
)
register_order_kind(Convoy, lambda o: Drawing("convoy", "convoy", unit=o.loc, target=o.target, dest=o.dest))
register_order_kind(Disband, lambda o: Drawing("remove", "remove", unit=o.loc, dislodged=True))
register_order_kind(Build, lambda o: Drawing("build", "build", unit=o.loc, kind=o.kind))
register_order_kind(Waive, lambda o: None)
