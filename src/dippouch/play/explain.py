"""A phase's adjudication told in sentences a new player follows: "the two armies bounced: equal strength 1
against 1", "your support was cut because A Galicia attacked Silesia".

Every sentence is read off the adjudicator's own result for an order (its outcome word, its flags and the
reason the engine gave, whose values name the units and the strengths) and off the other results of the same
phase (which supports were given to a move, which move entered a dislodged unit's province), never written
for one lesson: a different set of orders gets a different, and still true, explanation. Pure: a function of
the variant, the position adjudicated, the orders and the :class:`~dippouch.core.results.Resolution`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import N_, Msg, msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import OrderResult, Outcome, Resolution
from dippouch.core.variant import Variant

I18N_DOMAIN = "rules"
"""The catalogue of these sentences (they are messages, said in the reader's language where shown)."""

__all__ = ["Said", "explain"]


@dataclass(frozen=True)
class Said:
    """One sentence of an explanation, with whose unit it is about (a page puts the reader's own first)."""

    power: str
    text: Msg
    mine: bool = False


def explain(
    variant: Variant,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
    resolution: Resolution,
    me: str | None = None,
) -> list[Said]:
    """What happened to every order of the phase ``position`` was in, the reader's (``me``) first."""
    kind = variant.calendar.kind(position.phase)
    teller = _Teller(variant, position, resolution.results)
    out: list[Said] = []
    told: set[frozenset[object]] = set()
    # The reader's results first: a bounce of two units is told once, from the reader's side where it is theirs.
    for r in sorted(resolution.results, key=lambda r: r.power != me):
        if kind == PhaseKind.MOVEMENT:
            said = teller.movement(r)
        elif kind == PhaseKind.RETREATS:
            said = teller.retreat(r)
        else:
            said = teller.adjustment(r)
        for s in said:
            if s.id in (_BOUNCED_WITH, _BOUNCED_HEAD_TO_HEAD):
                key = frozenset((s.id, s.args["unit"], s.args["other"], s.args.get("place")))
                if key in told:
                    continue
                told.add(key)
            out.append(Said(r.power, s, r.power == me))
    del orders  # the results carry each order; kept in the signature for callers that hold them apart
    return out


_BOUNCED_WITH = N_(
    "%(unit)s and %(other)s both tried to enter %(place)s and bounced: neither moved there. %(strengths)s"
)
_BOUNCED_HEAD_TO_HEAD = N_("%(unit)s and %(other)s moved against each other and bounced: neither moved. %(strengths)s")


class _Teller:
    """The sentences of one phase's results, which read each other (a move's supports, a unit's attacker)."""

    def __init__(self, variant: Variant, position: Position, results: Sequence[OrderResult]) -> None:
        self.gmap = variant.map
        self.position = position
        self.results = results

    # -- names

    def prov(self, loc: int) -> int:
        return self.gmap.province_of(loc)

    def place(self, loc: int) -> str:
        return self.gmap.label(loc)

    def province_name(self, loc: int) -> str:
        return self.gmap.provinces[self.prov(loc)].name

    def unit_at(self, loc: int, kind: str | None = None) -> str:
        """A unit as the engine's reasons name it (``A Munich``), its kind read off the board when the order
        left it out."""
        prov = self.prov(loc)
        # In a retreat phase the unit an order names is the dislodged one (its attacker stands there too).
        unit: Unit | None = self.position.dislodged[prov].unit if prov in self.position.dislodged else None
        if unit is None:
            unit = self.position.units.get(prov)
        if unit is not None:
            return self.gmap.unit_label(unit.kind, unit.loc)
        return self.gmap.unit_label(kind, loc)

    # -- strengths, from the supports the engine found given

    def supports_given(self, mover: int, dest: int | None) -> int:
        """Supports given to the unit in ``mover``'s province, to ``dest`` (``None``: to stay where it is)."""
        n = 0
        for r in self.results:
            o = r.order
            if not (isinstance(o, Support) and r.result == Outcome.GIVEN and self.prov(o.target) == mover):
                continue
            aimed = None if o.dest is None else self.prov(o.dest)
            n += aimed == dest
        return n

    def order_of(self, prov: int) -> OrderResult | None:
        for r in self.results:
            loc = r.order.unit_loc
            if loc is not None and self.prov(loc) == prov and not isinstance(r.order, Build):
                return r
        return None

    def moves_into(self, prov: int) -> list[OrderResult]:
        return [r for r in self.results if isinstance(r.order, Move) and self.prov(r.order.dest) == prov]

    # -- movement

    def movement(self, r: OrderResult) -> list[Msg]:
        o = r.order
        out: list[Msg] = []
        if isinstance(o, Move):
            out.append(self.move(r, o))
        elif r.result in (Outcome.ILLEGAL, Outcome.INVALID):
            out.append(msg("%(unit)s: the order was not carried out: %(reason)s", unit=self.who(o), reason=r.why))
        elif isinstance(o, Support):
            out.append(self.support(r, o))
        elif isinstance(o, Convoy):
            out.append(self.convoy(r, o))
        elif isinstance(o, Hold) and not r.dislodged:
            if r.automatic:
                out.append(msg("%(unit)s had no order and held its place.", unit=self.who(o)))
            else:
                out.append(msg("%(unit)s held its place.", unit=self.who(o)))
        if r.dislodged:
            out.append(self.dislodged(r))
        return out

    def who(self, o: Order) -> str:
        loc = o.unit_loc
        return "" if loc is None else self.unit_at(loc, getattr(o, "kind", None))

    def move(self, r: OrderResult, o: Move) -> Msg:
        unit, to = self.who(o), self.place(o.dest)
        if r.result == Outcome.SUCCEEDS:
            helpers = self.supports_given(self.prov(o.loc), self.prov(o.dest))
            if helpers:
                return msg(
                    "%(unit)s moved to %(place)s, with strength %(attack)d (%(supports)d of it from supports).",
                    unit=unit,
                    place=to,
                    attack=1 + helpers,
                    supports=helpers,
                )
            return msg("%(unit)s moved to %(place)s.", unit=unit, place=to)
        why = r.why
        args = why.args
        if why.id == "bounced off %(unit)s (%(attack)d vs %(defence)d)":
            return msg(
                "%(unit)s did not enter %(place)s: it bounced off %(other)s, which stayed there. %(strengths)s",
                unit=unit,
                place=to,
                other=args["unit"],
                strengths=_strengths(args),
            )
        if why.id == "bounced with %(unit)s (%(attack)d vs %(defence)d)":
            return msg(
                _BOUNCED_WITH,
                unit=unit,
                other=args["unit"],
                place=to,
                strengths=_strengths(args),
            )
        if why.id == "bounced head-to-head with %(unit)s (%(attack)d vs %(defence)d)":
            return msg(_BOUNCED_HEAD_TO_HEAD, unit=unit, other=args["unit"], strengths=_strengths(args))
        if why.id == "lost head-to-head with %(unit)s (%(attack)d vs %(defence)d)":
            return msg(
                "%(unit)s and %(other)s moved against each other and %(unit)s lost. %(strengths)s",
                unit=unit,
                other=args["unit"],
                strengths=_strengths(args),
            )
        if why.id == "no convoy was ordered for this move":
            return msg(
                "%(unit)s could not reach %(place)s: it is not next to it, and no fleet was ordered to convoy it "
                "there.",
                unit=unit,
                place=to,
            )
        if why.id == "convoy disrupted: no route of fleets left":
            broken = [
                self.who(c.order)
                for c in self.results
                if isinstance(c.order, Convoy)
                and c.result == Outcome.DISRUPTED
                and self.prov(c.order.target) == self.prov(o.loc)
            ]
            if broken:
                return msg(
                    "%(unit)s could not cross to %(place)s: the convoy of %(fleets)s was disrupted.",
                    unit=unit,
                    place=to,
                    fleets=", ".join(broken),
                )
            return msg("%(unit)s could not cross to %(place)s: no convoying fleet was left.", unit=unit, place=to)
        if r.result in (Outcome.ILLEGAL, Outcome.INVALID):
            return msg("%(unit)s: the order was not carried out: %(reason)s", unit=unit, reason=why)
        return msg("%(unit)s did not move to %(place)s: %(reason)s.", unit=unit, place=to, reason=why)

    def support(self, r: OrderResult, o: Support) -> Msg:
        unit = self.who(o)
        target = self.unit_at(o.target, o.target_kind)
        if r.result == Outcome.GIVEN:
            if o.dest is None:
                return msg("%(unit)s supported %(target)s to hold.", unit=unit, target=target)
            return msg(
                "%(unit)s supported %(target)s into %(place)s.", unit=unit, target=target, place=self.place(o.dest)
            )
        why = r.why
        if why.id == "support cut by %(units)s":
            return msg(
                "The support of %(unit)s was cut because %(units)s attacked %(place)s: a unit that is attacked "
                "gives no support.",
                unit=unit,
                units=why.args["units"],
                place=self.province_name(o.loc),
            )
        if why.id == "supporter dislodged by %(unit)s":
            return msg(
                "The support of %(unit)s counted for nothing: %(other)s dislodged it.",
                unit=unit,
                other=why.args["unit"],
            )
        return msg("The support of %(unit)s did not count: %(reason)s.", unit=unit, reason=why)

    def convoy(self, r: OrderResult, o: Convoy) -> Msg:
        unit, army = self.who(o), self.unit_at(o.target)
        if r.result == Outcome.AVAILABLE:
            return msg("%(unit)s convoyed %(army)s towards %(place)s.", unit=unit, army=army, place=self.place(o.dest))
        why = r.why
        if why.id == "fleet dislodged by %(unit)s":
            return msg(
                "The convoy of %(unit)s was disrupted: %(other)s dislodged the fleet, so %(army)s could not cross.",
                unit=unit,
                other=why.args["unit"],
                army=army,
            )
        return msg("The convoy of %(unit)s did not carry %(army)s: %(reason)s.", unit=unit, army=army, reason=why)

    def dislodged(self, r: OrderResult) -> Msg:
        loc = r.order.unit_loc
        assert loc is not None
        prov = self.prov(loc)
        unit = self.unit_at(loc)
        winner = next((m for m in self.moves_into(prov) if m.result == Outcome.SUCCEEDS), None)
        if winner is None:
            return msg("%(unit)s was dislodged.", unit=unit)
        mover = winner.order
        assert isinstance(mover, Move)
        attack = 1 + self.supports_given(self.prov(mover.loc), prov)
        own = self.order_of(prov)
        if own is not None and isinstance(own.order, Move):
            # A unit that tried to move away defends with 1 (its own move's supports count only head to head).
            defence = 1
            if self.prov(own.order.dest) == self.prov(mover.loc):
                defence += self.supports_given(prov, self.prov(own.order.dest))
        else:
            defence = 1 + self.supports_given(prov, None)
        then = (
            msg("It had nowhere to retreat and was destroyed.")
            if r.destroyed
            else msg("It must retreat (or be disbanded) before the next move.")
        )
        return msg(
            "%(unit)s was dislodged by %(other)s: strength %(attack)d against %(defence)d. %(then)s",
            unit=unit,
            other=self.who(mover),
            attack=attack,
            defence=defence,
            then=then,
        )

    # -- retreats

    def retreat(self, r: OrderResult) -> list[Msg]:
        o = r.order
        unit = self.who(o)
        if isinstance(o, Retreat):
            if r.result == Outcome.SUCCEEDS:
                return [msg("%(unit)s retreated to %(place)s.", unit=unit, place=self.place(o.dest))]
            why = r.why
            if why.id == "bounced with %(units)s; the unit is disbanded":
                return [
                    msg(
                        "%(unit)s was disbanded: %(units)s retreated to %(place)s too, and units that retreat to the "
                        "same place are all disbanded.",
                        unit=unit,
                        units=why.args["units"],
                        place=self.province_name(o.dest),
                    )
                ]
            return [msg("%(unit)s: the order was not carried out: %(reason)s", unit=unit, reason=why)]
        if isinstance(o, Disband):
            if r.automatic:
                return [msg("%(unit)s had no retreat order and was disbanded.", unit=unit)]
            return [msg("%(unit)s was disbanded.", unit=unit)]
        return [msg("%(unit)s: the order was not carried out: %(reason)s", unit=unit, reason=r.why)]

    # -- adjustments

    def adjustment(self, r: OrderResult) -> list[Msg]:
        o = r.order
        if r.result not in (Outcome.SUCCEEDS, Outcome.STANDS, Outcome.GIVEN, Outcome.AVAILABLE):
            return [msg("%(order)s: not carried out: %(reason)s", order=self.build_text(o), reason=r.why)]
        if isinstance(o, Build):
            return [msg("%(unit)s was built.", unit=self.gmap.unit_label(o.kind, o.loc))]
        if isinstance(o, Disband):
            return [msg("%(unit)s was removed.", unit=self.who(o))]
        if isinstance(o, Waive):
            return [msg("%(power)s waived a build.", power=r.power)]
        return []

    def build_text(self, o: Order) -> str:
        if isinstance(o, Build):
            return self.gmap.unit_label(o.kind, o.loc)
        return self.who(o) or type(o).__name__.lower()


def _strengths(args: Mapping[str, object]) -> Msg:
    """The strengths an engine's reason gave, said with what they mean for the move."""
    attack, defence = args["attack"], args["defence"]
    assert isinstance(attack, int) and isinstance(defence, int)
    if attack == defence:
        return msg(
            "Equal strength, %(attack)d against %(defence)d: a move needs more strength than what stands against it.",
            attack=attack,
            defence=defence,
        )
    return msg("Strength %(attack)d against %(defence)d.", attack=attack, defence=defence)
