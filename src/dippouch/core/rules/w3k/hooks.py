"""The ``w3k`` hook set: what W3K's rules change in the adjudicator, and the season's bookkeeping.

Proxy orders and supply transfers are decided before the phase is resolved (:meth:`W3KHooks.prepare_orders`);
conversions finish or lapse and the season's hand-overs and transfers are dropped at the end of a phase
(:meth:`W3KHooks.phase_end`); removals owed and not ordered are drawn by lots; a power with no centre keeps
one unit (the mercy position). Each order kind's value, notation, legal orders and drawing are in its own
module (:mod:`.convert`, :mod:`.hand_over`, :mod:`.transfer`); this one joins them to the rule hooks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from dippouch.core.calendar import PhaseKind
from dippouch.core.lookup import legal_order_makers
from dippouch.core.messages import N_, Arg, Msg, msg, nmsg
from dippouch.core.orders import Build, Disband, Order
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome
from dippouch.core.rules.base import AdjustmentContext, MovementSummary, RuleHooks, register_hooks
from dippouch.core.rules.w3k.common import CONVERTING, FLIP, PROXIES, SUPPLY, WORD, A
from dippouch.core.rules.w3k.convert import Convert, convert_problem
from dippouch.core.rules.w3k.hand_over import Proxy
from dippouch.core.rules.w3k.transfer import SendSupply

if TYPE_CHECKING:
    from dippouch.core.results import OrderResult

__all__ = ["W3KHooks"]

I18N_DOMAIN = "rules"
"""The catalogue of these rules' refusals and reasons (:mod:`dippouch.core.messages`)."""


# The phase's notes, one message per unit kind named in them (an army, a fleet): a kind glued into a sentence
# would not translate. A kind of another variant is written in English (these are W3K's rules).
_UNIT_WORDS = {"A": N_("the %(adjective)s army in %(place)s"), "F": N_("the %(adjective)s fleet in %(place)s")}
_DISRUPTED = {
    "A": N_("Conversion disrupted: %(who)s stays an army (%(reason)s)."),
    "F": N_("Conversion disrupted: %(who)s stays a fleet (%(reason)s)."),
}
_COMPLETED = {
    "A": N_("Conversion completed: %(who)s is now an army."),
    "F": N_("Conversion completed: %(who)s is now a fleet."),
}
_COMPLETED_NOW = {
    "A": N_("Conversion completed: %(who)s is now an army (now %(unit)s)."),
    "F": N_("Conversion completed: %(who)s is now a fleet (now %(unit)s)."),
}
_BEGUN = {
    "A": N_(
        "Conversion begun: %(who)s is converting to an army; it completes when ordered to convert again in the "
        "next movement season (an attack on it disrupts it)."
    ),
    "F": N_(
        "Conversion begun: %(who)s is converting to a fleet; it completes when ordered to convert again in the "
        "next movement season (an attack on it disrupts it)."
    ),
}
_LAPSED = {
    "A": N_("Conversion lapsed: %(who)s was not ordered to convert again, so it stays an army."),
    "F": N_("Conversion lapsed: %(who)s was not ordered to convert again, so it stays a fleet."),
}
_CONTINUES = {
    "A": N_(
        "Conversion continues: %(who)s is converting to an army; order it to convert again in the next movement "
        "season to complete it."
    ),
    "F": N_(
        "Conversion continues: %(who)s is converting to a fleet; order it to convert again in the next movement "
        "season to complete it."
    ),
}


def _said(table: Mapping[str, str], kind: str, **values: Arg) -> Msg:
    """The note of ``table`` for a unit of ``kind``; another kind's in English ("a unit")."""
    template = table.get(kind)
    if template is not None:
        return msg(template, **values)
    # A kind W3K does not name: the army's message with the kind's words (in English: no catalogue has it).
    worded = table["A"].replace("an army", A.get(kind, "a unit"))
    return msg(worded, **values)


@register_hooks(
    "w3k",
    describe=N_(
        "Proxy orders: a power may hand a unit to another power for one season; in winter a power may send "
        "the supply of units to another, which may then build beyond its own count. Removals owed and not ordered "
        "are drawn by lots. A power with no centre keeps one unit (the mercy position)."
    ),
)
class W3KHooks(RuleHooks):
    """The W3K rules that data cannot express (see the module docstring and docs/variants/w3k.md)."""

    # -- orders decided before the phase is resolved

    def prepare_orders(
        self, position: Position, orders: Mapping[str, Sequence[Order]]
    ) -> tuple[Position, dict[tuple[str, int], tuple[str, Msg | str]]]:
        kind = self.variant.calendar.kind(position.phase)
        decided: dict[tuple[str, int], tuple[str, Msg | str]] = {}
        state = dict(position.state)
        if kind == PhaseKind.MOVEMENT:
            state[PROXIES] = self._proxies(position, orders, decided)
        elif kind == PhaseKind.ADJUSTMENTS:
            state[SUPPLY] = self._transfers(position, orders, decided)
        else:
            for power, olist in orders.items():
                for i, o in enumerate(olist):
                    if isinstance(o, (Proxy, SendSupply)):
                        decided[(power, i)] = ("illegal", msg("not an order of a retreat phase"))
        return position.with_(state=state), decided

    def _proxies(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        decided: dict[tuple[str, int], tuple[str, Msg | str]],
    ) -> dict[str, str]:
        gmap = self.variant.map
        handed: dict[str, str] = {}
        for power, olist in orders.items():
            for i, o in enumerate(olist):
                if isinstance(o, SendSupply):
                    decided[(power, i)] = ("illegal", msg("supply is sent in Winter adjustments only"))
                    continue
                if not isinstance(o, Proxy):
                    continue
                prov = gmap.province_of(o.loc)
                unit = position.units.get(prov)
                abbr = gmap.provinces[prov].abbr
                name = gmap.label(prov)
                if unit is None:
                    decided[(power, i)] = ("illegal", msg("no unit in %(place)s", place=name))
                elif o.owner is not None and o.owner != unit.power:
                    label = gmap.unit_label(unit.kind, unit.loc)
                    decided[(power, i)] = (
                        "illegal",
                        msg(
                            "%(unit)s belongs to %(owner)s, not to %(named)s as the order says",
                            unit=label,
                            owner=unit.power,
                            named=o.owner,
                        ),
                    )
                elif unit.power != power:
                    decided[(power, i)] = (
                        "illegal",
                        msg(
                            "only %(owner)s, its owner, can hand over the unit in %(place)s",
                            owner=unit.power,
                            place=name,
                        ),
                    )
                elif o.to == power or o.to not in self.variant.power_names:
                    decided[(power, i)] = ("illegal", msg("cannot hand a unit to %(power)s", power=repr(o.to)))
                elif abbr in handed:
                    decided[(power, i)] = (
                        "illegal",
                        msg(
                            "the unit in %(place)s is already under the orders of %(power)s; the first hand-over counts",
                            place=name,
                            power=handed[abbr],
                        ),
                    )
                else:
                    handed[abbr] = o.to
                    decided[(power, i)] = (
                        "succeeds",
                        msg("%(power)s orders the unit in %(place)s this season", power=o.to, place=name),
                    )
        return handed

    def _transfers(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        decided: dict[tuple[str, int], tuple[str, Msg | str]],
    ) -> dict[str, int]:
        net: dict[str, int] = {}
        names = self.variant.power_names
        for power, olist in orders.items():
            available = self._own_delta(position, power)
            for i, o in enumerate(olist):
                if isinstance(o, Proxy):
                    decided[(power, i)] = ("illegal", msg("units are handed over in movement seasons only"))
                    continue
                if not isinstance(o, SendSupply):
                    continue
                if o.to == power or o.to not in names:
                    decided[(power, i)] = ("illegal", msg("cannot send supply to %(power)s", power=repr(o.to)))
                elif o.count < 1:
                    decided[(power, i)] = ("illegal", msg("send at least one unit's supply"))
                elif o.count > available:
                    decided[(power, i)] = (
                        "illegal",
                        nmsg(
                            "%(power)s has %(count)d unit of excess supply, not %(asked)d",
                            "%(power)s has %(count)d units of excess supply, not %(asked)d",
                            max(available, 0),
                            power=power,
                            count=max(available, 0),
                            asked=o.count,
                        ),
                    )
                else:
                    available -= o.count
                    net[power] = net.get(power, 0) - o.count
                    net[o.to] = net.get(o.to, 0) + o.count
                    decided[(power, i)] = (
                        "succeeds",
                        nmsg(
                            "%(count)d unit of supply to %(power)s for this Winter",
                            "%(count)d units of supply to %(power)s for this Winter",
                            o.count,
                            count=o.count,
                            power=o.to,
                        ),
                    )
            builds = [i for i, o in enumerate(olist) if isinstance(o, Build)]
            removals = [i for i, o in enumerate(olist) if isinstance(o, Disband)]
            if builds and removals:
                why = msg("a player may not list both builds and removals; any removals owed are drawn by lots")
                for i in builds + removals:
                    decided[(power, i)] = ("illegal", why)
        self._covered_removals(position, orders, net, decided)
        return net

    def _covered_removals(
        self,
        position: Position,
        orders: Mapping[str, Sequence[Order]],
        net: Mapping[str, int],
        decided: dict[tuple[str, int], tuple[str, Msg | str]],
    ) -> None:
        """Removals made unnecessary by supply received this Winter fail (the first ones still owed count).

        The recipient wrote them, legally, before it could know of the transfer, so they are not illegal;
        they are just not carried out ("fails"), and the units stay.
        """
        gmap = self.variant.map
        for power, olist in orders.items():
            received = net.get(power, 0)
            if received <= 0:
                continue
            owed = max(0, -(self._own_delta(position, power) + received))
            for i, o in enumerate(olist):
                if not isinstance(o, Disband) or (power, i) in decided:
                    continue
                unit = position.units.get(gmap.province_of(o.loc))
                if unit is None or unit.power != power:
                    continue  # judged as usual (illegal)
                if owed > 0:
                    owed -= self.unit_cost(unit.kind)
                    continue
                decided[(power, i)] = (
                    "fails",
                    msg("no removal needed: supply received this Winter covers %(power)s's units", power=power),
                )

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        """The owner orders its units, except one handed to another power this season (proxy order)."""
        handed = position.state.get(PROXIES)
        if handed:
            gmap = self.variant.map
            to = handed.get(gmap.provinces[gmap.province_of(unit.loc)].abbr)
            if to is not None:
                return bool(to == power)
        return unit.power == power

    # -- conversion

    def convert_problem(self, position: Position, power: str, order: Convert) -> Msg | None:
        """Why ``order`` cannot be a conversion, or ``None`` when it can (:func:`.convert.convert_problem`)."""
        return convert_problem(self.variant, position, order)

    def order_problem(self, position: Position, power: str, order: Order) -> Msg | None:
        """A conversion outside a coastal centre its owner owns is illegal; hand-overs and supply transfers
        are decided in :meth:`prepare_orders` and never reach the movement phase."""
        if isinstance(order, Convert):
            return self.convert_problem(position, power, order)
        return msg("not an order of a movement phase")

    def hand_over(self, position: Position, unit: Unit, power: str) -> tuple[Position, Msg] | None:
        """An order for another power's unit counts only if its owner hands the unit over this season."""
        gmap = self.variant.map
        abbr = gmap.provinces[gmap.province_of(unit.loc)].abbr
        handed = dict(position.state.get(PROXIES) or {})
        handed[abbr] = power
        note = msg(
            "%(unit)s is %(owner)s's: this order counts only if %(owner)s hands the unit over to %(power)s this "
            "season (its order '%(unit)s under orders of %(power)s'); otherwise it is judged illegal and the unit "
            "follows %(owner)s's orders",
            unit=gmap.unit_label(unit.kind, unit.loc),
            owner=unit.power,
            power=power,
        )
        return position.with_(state={**position.state, PROXIES: handed}), note

    def supply_note(self, position: Position, power: str) -> Msg | None:
        """Builds beyond a power's own supply count only if another power sends it supply this Winter."""
        return msg(
            "beyond %(power)s's own supply: this build counts only if another power sends %(power)s supply this "
            "Winter (Send N supply to ...); otherwise it is judged illegal",
            power=power,
        )

    def extra_order_result(
        self, position: Position, power: str, order: Order, summary: MovementSummary
    ) -> tuple[str, Msg | str]:
        # Conversions only: order_problem refused every other extra order, and illegal conversions, before the
        # phase was resolved.
        assert isinstance(order, Convert)
        gmap = self.variant.map
        prov = gmap.province_of(order.loc)
        attackers = summary.attacked.get(prov, ())
        if attackers:
            names = ", ".join(sorted(gmap.label(a) for a in attackers))
            return "disrupted", msg("conversion disrupted by the attack from %(places)s", places=names)
        unit = position.units[prov]
        if position.state.get(CONVERTING, {}).get(gmap.provinces[prov].abbr) == unit.kind:
            return "succeeds", msg("conversion complete")
        return "succeeds", msg("conversion begun; order it again next movement season")

    def extra_legal_orders(
        self,
        position: Position,
        power: str,
        orders: dict[int, list[Order]],
        standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
    ) -> None:
        """Add W3K's own orders to ``power``'s legal orders: each order kind's module registered how
        (:func:`.convert.add_legal_converts`, :func:`.hand_over.add_legal_hand_overs`,
        :func:`.transfer.add_legal_transfers`), and they are asked in registration order, so a unit's list
        has its conversions before its hand-overs."""
        for add in legal_order_makers(self.variant.rules):
            add(self, position, power, orders, standard)

    # -- adjustments

    def _own_delta(self, position: Position, power: str) -> int:
        owned = sum(1 for o in position.centres.values() if o == power)
        cost = sum(self.unit_cost(u.kind) for u in position.units.values() if u.power == power)
        if owned == 0:
            return min(0, 1 - cost)  # the mercy position: one unit is kept without a centre
        return owned - cost

    def adjustment_delta(self, position: Position, power: str) -> int:
        """Owned centres minus units, with the mercy position and this Winter's supply transfers."""
        return self._own_delta(position, power) + int(position.state.get(SUPPLY, {}).get(power, 0))

    def builds_used(self, order: Order) -> int:
        return order.count if isinstance(order, SendSupply) else super().builds_used(order)

    def adjustment_order(self, ctx: AdjustmentContext, power: str, order: Order) -> tuple[str, Msg | str] | None:
        return None  # transfers are decided in prepare_orders; anything else is illegal

    def removal_order(
        self, position: Position, power: str, count: int, rng: random.Random | None
    ) -> tuple[list[int], Msg]:
        """Removals owed and not ordered are drawn by lots (rulebook: "drawing lots or a similar method")."""
        gmap = self.variant.map
        units = sorted(
            (u for u in position.units.values() if u.power == power),
            key=lambda u: gmap.locations[u.loc].abbr,
        )
        lots = N_("drawn by lots (the game's random draw) among %(units)s: %(drawn)s")
        seed = ""
        if rng is None:
            phase = self.variant.calendar.name(position.phase)
            rng = random.Random(f"w3k {phase} {power}")
            seed = repr(f"w3k {phase} {power}")
            lots = N_("drawn by lots (a draw seeded with %(seed)s) among %(units)s: %(drawn)s")
        pool = list(units)
        drawn: list[Unit] = []
        paid = 0
        while pool and paid < count:
            u = pool.pop(rng.randrange(len(pool)))
            drawn.append(u)
            paid += self.unit_cost(u.kind)
        names = ", ".join(gmap.unit_label(u.kind, u.loc) for u in units)
        picked = ", ".join(gmap.unit_label(u.kind, u.loc) for u in drawn)
        said = msg(lots, units=names, drawn=picked, seed=seed) if seed else msg(lots, units=names, drawn=picked)
        return [gmap.province_of(u.loc) for u in drawn], said

    # -- phase end: conversions finish, per-season hand-overs and transfers lapse

    def phase_end(self, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
        after = super().phase_end(before, after, results)
        state = dict(after.state)
        state.pop(PROXIES, None)
        state.pop(SUPPLY, None)
        converting: dict[str, str] = dict(before.state.get(CONVERTING, {}))
        units = dict(after.units)
        gmap = self.variant.map
        if self.variant.calendar.kind(before.phase) == PhaseKind.MOVEMENT:
            going: dict[str, str] = {}
            for r in results:
                if not isinstance(r.order, Convert) or r.result != Outcome.SUCCEEDS:
                    continue
                prov = gmap.province_of(r.order.loc)
                unit = before.units[prov]
                if units.get(prov) != unit:
                    continue
                if converting.get(gmap.provinces[prov].abbr) == unit.kind:
                    new_kind = "F" if unit.kind == "A" else "A"
                    loc = (r.order.coast if r.order.coast is not None else prov) if new_kind == "F" else prov
                    units[prov] = Unit(unit.power, new_kind, loc)
                else:
                    going[gmap.provinces[prov].abbr] = unit.kind
            converting = going
        else:
            converting = {
                k: v
                for k, v in converting.items()
                if before.units.get(gmap.province_of(gmap.loc(k))) == units.get(gmap.province_of(gmap.loc(k)))
            }
        if converting:
            state[CONVERTING] = converting
        else:
            state.pop(CONVERTING, None)
        return after.with_(units=units, state=state)

    # -- reports: what the W3K rules did, in words

    def phase_notes(self, before: Position, after: Position, results: Sequence[OrderResult]) -> list[Msg]:
        """Conversions (begun, continued, disrupted, completed, lapsed), hand-overs and supply sent."""
        gmap = self.variant.map
        notes: list[Msg] = []
        kind = self.variant.calendar.kind(before.phase)
        was: Mapping[str, str] = before.state.get(CONVERTING) or {}
        still: Mapping[str, str] = after.state.get(CONVERTING) or {}
        if kind == PhaseKind.MOVEMENT:
            ordered: set[int] = set()
            for r in results:
                if not isinstance(r.order, Convert) or r.automatic:
                    continue
                prov = gmap.province_of(r.order.loc)
                unit = before.units.get(prov)
                if unit is None or r.result == Outcome.ILLEGAL:
                    continue
                ordered.add(prov)
                who = self._unit_words(unit)
                if r.result == Outcome.DISRUPTED:
                    notes.append(_said(_DISRUPTED, unit.kind, who=who, reason=r.why))
                elif r.result == Outcome.SUCCEEDS and gmap.provinces[prov].abbr in was:
                    new = after.units.get(prov)
                    if new is not None:
                        notes.append(
                            _said(_COMPLETED_NOW, FLIP[unit.kind], who=who, unit=gmap.unit_label(new.kind, new.loc))
                        )
                    else:
                        notes.append(_said(_COMPLETED, FLIP[unit.kind], who=who))
                elif r.result == Outcome.SUCCEEDS:
                    notes.append(_said(_BEGUN, FLIP[unit.kind], who=who))
            for abbr, unit_kind in sorted(was.items()):
                prov = gmap.province_of(gmap.loc(abbr))
                unit = before.units.get(prov)
                if unit is None or prov in ordered:
                    continue
                notes.append(_said(_LAPSED, unit_kind, who=self._unit_words(unit)))
            for r in results:
                if isinstance(r.order, Proxy) and r.result == Outcome.SUCCEEDS:
                    unit = before.units.get(gmap.province_of(r.order.loc))
                    if unit is not None:
                        notes.append(
                            msg(
                                "Hand-over: %(who)s was under %(power)s's orders this season.",
                                who=self._unit_words(unit),
                                power=r.order.to,
                            )
                        )
        else:
            for abbr, unit_kind in sorted(was.items()):
                prov = gmap.province_of(gmap.loc(abbr))
                unit = before.units.get(prov)
                if unit is None:
                    continue
                if abbr in still:
                    notes.append(_said(_CONTINUES, FLIP[unit_kind], who=self._unit_words(unit)))
                else:
                    notes.append(msg("Conversion ended: %(who)s is no longer there.", who=self._unit_words(unit)))
            for r in results:
                if isinstance(r.order, SendSupply) and r.result == Outcome.SUCCEEDS:
                    notes.append(
                        nmsg(
                            "Supply sent: %(power)s gave %(count)d unit of its supply to %(to)s this Winter.",
                            "Supply sent: %(power)s gave %(count)d units of its supply to %(to)s this Winter.",
                            r.order.count,
                            power=r.power,
                            count=r.order.count,
                            to=r.order.to,
                        )
                    )
        return notes

    def _unit_words(self, unit: Unit) -> Msg:
        """``the Crown army in Bristol``: a unit in a report's sentence."""
        variant = self.variant
        adjective = variant.power(unit.power).adjective if unit.power in variant.power_names else unit.power
        said = {"adjective": adjective, "place": variant.map.label(variant.map.province_of(unit.loc))}
        template = _UNIT_WORDS.get(unit.kind)
        if template is None:
            return msg(f"the {adjective} {WORD.get(unit.kind, 'unit')} in {said['place']}")
        return msg(template, **said)
