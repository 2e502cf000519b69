"""One truth for an order's fate: whether it can be carried out, judged from what is visible when it is given.

DATC v3.2 calls an order *illegal* when it is impossible judged from the board alone (issue 4.E.1): a move
to a province the unit cannot reach, a support of a unit that is not there, an order for another power's
unit, a build on a site the power may not use. Some orders are also certain to *fail* from the board alone
(a fleet built in a province with two coasts without naming one, 6.B.14; a fleet ordered from the coast it
is not on, 6.B.11). Every such decision is made here, and only here:

* the adjudicator (:mod:`~dippouch.core.movement`, :mod:`~dippouch.core.retreats`,
  :mod:`~dippouch.core.adjustments`) asks :func:`movement_problem`, :func:`retreat_problem` and
  :func:`adjustment_verdict` for every order it does not settle on its fast paths (which only ever
  accept orders these functions accept; tests hold them together);
* the game layer's check on arrival asks :func:`check_submission`, which runs the same functions over one
  power's orders in the order given, as the adjudicator will;
* the legal-order lists (:mod:`~dippouch.core.legal_orders`) are tested against :func:`check_submission`.

A variant's own order kinds are judged by its hooks (:meth:`RuleHooks.order_problem`,
:meth:`RuleHooks.prepare_orders`, :meth:`RuleHooks.adjustment_order`), called from here. What only the
other powers' orders of the same phase can decide (W3K: whether the owner hands a unit over, whether
another power sends supply) is not visible on arrival: :func:`check_submission` accepts such an order with
a note that says what it depends on (:meth:`RuleHooks.hand_over`, :meth:`RuleHooks.supply_note`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dippouch.core.board import BoardRoutes, tables
from dippouch.core.calendar import PhaseKind
from dippouch.core.mapdata import GameMap, ProvinceKind
from dippouch.core.messages import N_, Arg, Msg, choices, joined, msg
from dippouch.core.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, Support, Waive
from dippouch.core.position import Position, Unit
from dippouch.core.results import Outcome, why_of
from dippouch.core.rules.base import AdjustmentContext, RuleHooks, hooks_for
from dippouch.core.variant import Variant

__all__ = [
    "Checked",
    "Judgement",
    "adjustment_verdict",
    "check_submission",
    "fleet_move",
    "illegal_reason",
    "movement_problem",
    "retreat_problem",
]

_ILLEGAL = Outcome.ILLEGAL
_FAILS = Outcome.FAILS

I18N_DOMAIN = "rules"
"""The catalogue of the checks' refusals (:mod:`dippouch.core.messages`): what a player reads of a refused line."""

_NOT_FOR_ARMIES = {
    ProvinceKind.SEA: N_("an army cannot move to %(place)s, a sea province"),
    ProvinceKind.IMPASSABLE: N_("an army cannot move to %(place)s, a impassable province"),
}
_NOT_BUILT = {
    "A": N_("an army cannot be built in %(place)s"),
    "F": N_("a fleet cannot be built in %(place)s"),
}
_OUTCOME_SAID = {str(_ILLEGAL): msg("the order illegal"), str(_FAILS): msg("the order fails")}


def _outcome_said(word: str) -> Msg:
    """A refusal without a reason of its own: the result word."""
    return _OUTCOME_SAID.get(str(word)) or msg("the order %(word)s", word=str(word))


def _or(items: Iterable[str]) -> Arg:
    """``a or b or c``: the places a refusal offers (each "or" a list of two, said in the reader's words)."""
    out: Arg = ""
    for item in items:
        out = item if not out else choices((out, item))
    return out


_SUCCEEDS = Outcome.SUCCEEDS

_STANDARD_KINDS = (Hold, Move, Support, Convoy)
_NOT_MOVEMENT = (Build, Waive, Retreat, Disband)


class Judgement:
    """What judging a movement order learns besides the reason: the order the unit carries out (a variant's
    stand-in for its own order kinds), where a fleet arrives, and a certain failure for the wrong coast."""

    __slots__ = ("actual", "dest_loc", "extra", "prov", "unit", "wrong_coast")

    def __init__(self) -> None:
        self.prov = -1
        """The province of the unit the order names (-1 for an order of another phase's kind)."""
        self.actual: Order | None = None
        """The order the unit carries out: the order itself, or the hooks' stand-in for an extra kind."""
        self.extra = False
        """The order is a variant's own kind, carried out as :attr:`actual` (its hook gives the result)."""
        self.unit: Unit | None = None
        """The unit the order names, when there is one."""
        self.dest_loc = -1
        """Where a moving fleet arrives (its coast), or -1."""
        self.wrong_coast: Msg | None = None
        """Why a fleet move that names the other coast of the fleet's province fails (6.B.11), or None."""


# --------------------------------------------------------------------------------------------------
# Movement


def movement_problem(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    routes: BoardRoutes,
    power: str,
    order: Order,
    j: Judgement,
) -> Msg | None:
    """Why ``power``'s ``order`` is illegal in a movement phase (None: legal). Fills ``j``.

    The order must name a unit that ``power`` may order (:meth:`RuleHooks.may_order`); a variant's own order
    kind must pass its :meth:`RuleHooks.order_problem` and is then judged as its stand-in
    (:meth:`RuleHooks.stand_in_order`); everything else by :func:`illegal_reason`. A failure certain from
    the board (6.B.11's wrong coast) is not illegal: it is left in ``j.wrong_coast``.
    """
    loc = order.unit_loc
    standard_kind = isinstance(order, _STANDARD_KINDS)
    if loc is None or (not standard_kind and isinstance(order, _NOT_MOVEMENT)):
        return msg("not an order of a movement phase")
    prov = j.prov = gmap.province_of(loc)
    unit = position.units.get(prov)
    if unit is None:
        return msg("no unit in %(place)s", place=gmap.label(prov))
    j.unit = unit
    if not hooks.may_order(position, power, unit):
        if unit.power == power:
            return msg(
                "%(unit)s is under another power's orders this season", unit=gmap.unit_label(unit.kind, unit.loc)
            )
        return msg(
            "%(unit)s belongs to %(owner)s; %(power)s cannot order it",
            unit=gmap.unit_label(unit.kind, unit.loc),
            owner=unit.power,
            power=power,
        )
    actual = order
    if not standard_kind:
        sub = hooks.stand_in_order(position, power, order)
        if sub is None:
            return msg("this order is not allowed here")
        why = hooks.order_problem(position, power, order)
        if why:
            return why
        j.extra = True
        actual = sub
    j.actual = actual
    return illegal_reason(gmap, hooks, position.units, routes, unit, prov, actual, j)


def illegal_reason(
    gmap: GameMap,
    hooks: RuleHooks,
    units: Mapping[int, Unit],
    routes: BoardRoutes,
    unit: Unit,
    prov: int,
    order: Order,
    e: Judgement,
) -> Msg | None:
    """Why an order is impossible judged from the board alone (DATC 4.E.1), or None if it is legal."""
    provinces = gmap.provinces
    mk = hooks.movement_kind(unit.kind)
    if isinstance(order, Hold):
        return None
    if isinstance(order, Move):
        d = gmap.province_of(order.dest)
        name = gmap.label(order.dest)
        if d == prov:
            return msg("a unit cannot move to the province it is in")
        if not hooks.may_enter(unit, d):
            return msg("%(unit)s may not enter %(place)s", unit=gmap.unit_label(unit.kind, unit.loc), place=name)
        if mk == "F":
            if order.via_convoy:
                return msg("only armies can be convoyed")
            why, e.dest_loc = fleet_move(gmap, unit.loc, order.dest)
            # 6.B.11: the order names the other coast, from where the move would be possible. The order is
            # legal as written, but the fleet cannot change coast by it: the move fails.
            if (
                why
                and order.loc != unit.loc
                and gmap.province_of(order.loc) == prov
                and not fleet_move(gmap, order.loc, order.dest)[0]
            ):
                ordered = gmap.label(order.loc)
                e.wrong_coast = msg(
                    "%(reason)s (the order names %(place)s, but naming a coast does not move the fleet)",
                    reason=why,
                    place=ordered,
                )
                return None
            return why
        if mk != "A":
            return msg("a unit of kind %(kind)s cannot move", kind=unit.kind)
        if provinces[d].kind not in (ProvinceKind.LAND, ProvinceKind.COAST):
            return msg(
                _NOT_FOR_ARMIES.get(provinces[d].kind, N_("an army cannot move to %(place)s, a %(kind)s province")),
                place=name,
                kind=provinces[d].kind.value,
            )
        if (order.via_convoy or d not in gmap.army_adj[prov]) and not routes.exists(prov, d, -1):
            if order.via_convoy:
                return msg(
                    "no fleets stand where they could convoy %(unit)s to %(place)s",
                    unit=gmap.unit_label(unit.kind, unit.loc),
                    place=name,
                )
            return msg(
                "%(place)s is not next to %(here)s and no fleets could convoy there", place=name, here=gmap.label(prov)
            )
        return None
    if isinstance(order, Support):
        t = gmap.province_of(order.target)
        if t == prov:
            return msg("a unit cannot support itself")
        tu = units.get(t)
        if tu is None:
            return msg("no unit in %(place)s to support", place=gmap.label(t))
        if order.target_power is not None and tu.power != order.target_power:
            return _owner_mismatch(gmap, tu, order.target_power)

        def reaches(x: int) -> bool:
            if mk == "F":
                return x in gmap.fleet_reach[unit.loc]
            return x in gmap.army_adj[prov]

        if order.dest is None:
            if not reaches(t):
                return msg(
                    "%(unit)s cannot reach %(place)s", unit=gmap.unit_label(unit.kind, unit.loc), place=gmap.label(t)
                )
            if not hooks.may_support(unit, t, None):
                return msg("%(unit)s may not support there", unit=gmap.unit_label(unit.kind, unit.loc))
            return None
        d = gmap.province_of(order.dest)
        if d == prov:
            return msg("a unit cannot support a move into its own province")
        if d == t:
            return msg("a unit cannot move to the province it is in")
        if not reaches(d):
            return msg(
                "%(unit)s cannot reach %(place)s", unit=gmap.unit_label(unit.kind, unit.loc), place=gmap.label(d)
            )
        if not hooks.may_support(unit, t, d):
            return msg("%(unit)s may not support there", unit=gmap.unit_label(unit.kind, unit.loc))
        tmk = hooks.movement_kind(tu.kind)
        if not hooks.may_enter(tu, d):
            return msg("%(unit)s may not enter %(place)s", unit=gmap.unit_label(tu.kind, tu.loc), place=gmap.label(d))
        if tmk == "F":
            if d not in gmap.fleet_reach[tu.loc]:
                return msg(
                    "%(unit)s cannot move to %(place)s", unit=gmap.unit_label(tu.kind, tu.loc), place=gmap.label(d)
                )
            return None
        if tmk != "A" or provinces[d].kind not in (ProvinceKind.LAND, ProvinceKind.COAST):
            return msg("%(unit)s cannot move to %(place)s", unit=gmap.unit_label(tu.kind, tu.loc), place=gmap.label(d))
        if d in gmap.army_adj[t]:
            return None
        if routes.exists(t, d, prov):
            return None
        return msg(
            "%(unit)s cannot reach %(place)s, not even by a convoy the supporter is not in",
            unit=gmap.unit_label(tu.kind, tu.loc),
            place=gmap.label(d),
        )
    if isinstance(order, Convoy):
        if mk != "F" or provinces[prov].kind != ProvinceKind.SEA:
            return msg("only a fleet at sea can convoy")
        t = gmap.province_of(order.target)
        tu = units.get(t)
        if tu is None:
            return msg("no unit in %(place)s to convoy", place=gmap.label(t))
        if order.target_power is not None and tu.power != order.target_power:
            return _owner_mismatch(gmap, tu, order.target_power)
        if hooks.movement_kind(tu.kind) != "A":
            return msg("only armies can be convoyed")
        d = gmap.province_of(order.dest)
        if d == t:
            return msg("a unit cannot move to the province it is in")
        if not routes.proper(t, d, prov):
            return msg(
                "this fleet is not on any convoy route from %(start)s to %(place)s",
                start=gmap.label(t),
                place=gmap.label(d),
            )
        return None
    return msg("not an order of a movement phase")


def _owner_mismatch(gmap: GameMap, unit: Unit, named: str) -> Msg:
    """The order names another owner for the unit it supports or convoys: the player meant another unit (or
    another board), so the order is not carried out for whoever stands there."""
    return msg(
        "%(unit)s belongs to %(owner)s, not to %(named)s as the order says; name %(owner)s or no owner",
        unit=gmap.unit_label(unit.kind, unit.loc),
        owner=unit.power,
        named=named,
    )


def fleet_move(gmap: GameMap, loc: int, dest: int) -> tuple[Msg | None, int]:
    """Why a fleet on ``loc`` cannot move to ``dest`` (or None), and the location it would arrive on."""
    d = gmap.province_of(dest)
    name = gmap.label(dest)
    adj = gmap.fleet_adj[loc]
    here = f"F {gmap.label(loc)}"
    cannot = msg("%(unit)s cannot reach %(place)s", unit=here, place=name)
    if dest != d:
        return (None, dest) if dest in adj else (cannot, -1)
    coasts = gmap.provinces[d].coasts
    if coasts:
        reach = [c for c in coasts if c in adj]
        if len(reach) == 1:
            return None, reach[0]
        if reach:
            return msg("name the coast: %(options)s", options=_or(gmap.label(c) for c in reach)), -1
        return cannot, -1
    return (None, d) if d in adj else (cannot, -1)


# --------------------------------------------------------------------------------------------------
# Retreats


def retreat_problem(
    gmap: GameMap, hooks: RuleHooks, position: Position, power: str, order: Order
) -> tuple[Msg | None, int, int]:
    """Why ``power``'s ``order`` is illegal in a retreat phase (``""``: legal), the province of the unit it
    names (-1: none) and, for a retreat, the location the unit retreats to (a missing coast filled in when
    only one fits; -1 for a disband).

    Only retreats (a move reads as one) and disbands of the power's dislodged units, to a place the unit
    may retreat to (6.H.1-6.H.4); which of two retreats to one province succeeds is the phase's business.
    """
    loc = order.unit_loc
    dest = order.dest if isinstance(order, Retreat) or (isinstance(order, Move) and not order.via_convoy) else -1
    if loc is None or (dest < 0 and not isinstance(order, Disband)):
        return msg("only retreats and disbands are ordered in a retreat phase"), -1, -1
    prov = gmap.province_of(loc)
    d = position.dislodged.get(prov)
    if d is None:
        return msg("no dislodged unit in %(place)s", place=gmap.label(prov)), -1, -1
    if not hooks.may_order(position, power, d.unit):
        owner = msg("%(unit)s belongs to %(owner)s", unit=gmap.unit_label(d.unit.kind, d.unit.loc), owner=d.unit.power)
        return owner, prov, -1
    if dest < 0:
        return None, prov, -1
    to = _retreat_location(gmap, d.retreats, dest)
    if to < 0:
        options = ", ".join(sorted(gmap.label(x) for x in d.retreats))
        if not options:
            return (
                msg("cannot retreat to %(place)s (legal retreats: none: it can only disband)", place=gmap.label(dest)),
                prov,
                -1,
            )
        return (
            msg("cannot retreat to %(place)s (legal retreats: %(places)s)", place=gmap.label(dest), places=options),
            prov,
            -1,
        )
    return None, prov, to


def _retreat_location(gmap: GameMap, allowed: frozenset[int], dest: int) -> int:
    """The location a retreat order names, if it is allowed: a missing coast is filled in when only one fits."""
    if dest in allowed:
        return dest
    prov = gmap.province_of(dest)
    if prov in allowed:  # an army ordered with a coast: coasts mean nothing to armies (6.B.12)
        return prov
    coasts = gmap.provinces[prov].coasts
    if dest == prov and coasts:
        fits = [c for c in coasts if c in allowed]
        if len(fits) == 1:
            return fits[0]
    return -1


# --------------------------------------------------------------------------------------------------
# Adjustments


def adjustment_verdict(
    gmap: GameMap,
    hooks: RuleHooks,
    ctx: AdjustmentContext,
    units: dict[int, Unit],
    power: str,
    order: Order,
) -> tuple[Outcome, Msg | str]:
    """Judge one adjustment order against the phase as it stands (``ctx``, ``units``) and carry it out.

    Orders are judged top to bottom (DATC 4.D.4-4.D.6): a build uses up one of the power's builds, a site
    built on is taken; an order that cannot be carried out changes nothing. Returns the result word and
    why. The adjudicator's general path and the check on arrival both judge through this function.
    """
    delta = ctx.delta[power]
    if isinstance(order, Build):
        if delta <= 0:
            return _ILLEGAL, msg(
                N_("%(power)s has no builds left") if ctx.built else N_("%(power)s may not build"), power=power
            )
        prov = gmap.province_of(order.loc)
        abbr = gmap.label(prov)
        plain_sites = hooks.is_standard("build_sites") and not hooks._extra_sites
        if plain_sites:
            # Standard build sites (owned home centres), without a position made for the hook.
            now = None
            site = ctx.centres.get(prov) == power and prov in ctx.position.homes.get(power, ())
        else:
            now = ctx.position.with_(units=units, centres=ctx.centres)
            site = prov in hooks.build_sites(now, power)
        if not site:
            return _ILLEGAL, _not_a_site(gmap, hooks, ctx, units, power, prov, plain_sites)
        if prov in ctx.built:
            return _ILLEGAL, msg("a unit was already built in %(place)s", place=abbr)
        if prov in units:
            return _ILLEGAL, msg(
                "%(place)s is occupied by %(unit)s", place=abbr, unit=gmap.unit_label(units[prov].kind, units[prov].loc)
            )
        cost = hooks.unit_cost(order.kind)
        if cost > delta:
            return _ILLEGAL, msg(
                "a %(kind)s needs %(cost)d centres; %(power)s has %(count)d to build with",
                kind=order.kind,
                cost=cost,
                power=power,
                count=delta,
            )
        province = gmap.provinces[prov]
        if (
            hooks.movement_kind(order.kind) == "F"
            and province.coasts
            and order.loc == prov
            and province.kind == ProvinceKind.COAST
        ):
            coasts = _or(gmap.label(c) for c in province.coasts)
            return _FAILS, msg("name the coast to build a fleet in %(place)s: %(options)s", place=abbr, options=coasts)
        where = order.loc
        if where != prov and hooks.movement_kind(order.kind) == "A":
            where = prov  # a coast means nothing to an army (DATC 4.B.6)
        if now is None and not hooks.is_standard("may_build_kind"):
            now = ctx.position.with_(units=units, centres=ctx.centres)
        if not hooks.may_build_kind(ctx.position if now is None else now, power, order.kind, where):
            # ``[rules] unit_limits`` (1000 AD: one defensive army at a time): say that, not "cannot be built here".
            limit = hooks.rules.get("unit_limits", {}).get(order.kind)
            have = sum(1 for u in units.values() if u.power == power and u.kind == order.kind)
            if limit is not None and have >= int(limit):
                return _ILLEGAL, msg(
                    "%(power)s already has %(count)d %(kind)s; at most %(limit)s at a time",
                    power=power,
                    count=have,
                    kind=order.kind,
                    limit=limit,
                )
            not_here = _NOT_BUILT.get(order.kind, N_("a unit %(kind)s cannot be built in %(place)s"))
            return _ILLEGAL, msg(not_here, kind=order.kind, place=gmap.label(order.loc))
        units[prov] = Unit(power, order.kind, where)
        ctx.built.add(prov)
        ctx.delta[power] = delta - cost
        return _SUCCEEDS, ""
    if isinstance(order, Waive):
        if delta <= 0:
            return _ILLEGAL, msg("%(power)s has no build to decline", power=power)
        ctx.delta[power] = delta - 1
        return _SUCCEEDS, ""
    if isinstance(order, Disband):
        if delta >= 0:
            return _ILLEGAL, msg(
                N_("%(power)s owes no removals") if delta == 0 else N_("%(power)s may build, not remove"), power=power
            )
        prov = gmap.province_of(order.loc)
        u = units.get(prov)
        if u is None or u.power != power or prov in ctx.built:
            return _ILLEGAL, msg("%(power)s has no unit in %(place)s", power=power, place=gmap.label(prov))
        del units[prov]
        ctx.delta[power] = delta + hooks.unit_cost(u.kind)
        return _SUCCEEDS, ""
    got = hooks.adjustment_order(ctx, power, order)
    if got is None:
        return _ILLEGAL, msg("not an order of an adjustment phase")
    word, reason = got
    return Outcome(word), reason


def _not_a_site(
    gmap: GameMap,
    hooks: RuleHooks,
    ctx: AdjustmentContext,
    units: Mapping[int, Unit],
    power: str,
    prov: int,
    plain: bool,
) -> Msg:
    """Why ``prov`` is not a place ``power`` may build on, and where it may."""
    now = ctx.position.with_(units=units, centres=ctx.centres)
    sites = hooks.build_sites(now, power)
    vacant = sorted((gmap.label(p) for p in sites if p not in units and p not in ctx.built), key=str.lower)
    hint = (
        msg("%(power)s may build in %(places)s", power=power, places=", ".join(vacant))
        if vacant
        else msg("%(power)s has no vacant site to build on", power=power)
    )
    place = gmap.label(prov)
    if not gmap.provinces[prov].supply_centre:
        return msg("%(place)s is not a supply centre; %(reason)s", place=place, reason=hint)
    owns_its_sites = all(ctx.centres.get(p) == power for p in sites)
    if ctx.centres.get(prov) != power and (plain or owns_its_sites):
        return msg("%(power)s does not own %(place)s; %(reason)s", power=power, place=place, reason=hint)
    if plain:
        return msg("%(place)s is not a home centre of %(power)s; %(reason)s", place=place, power=power, reason=hint)
    return msg(
        "%(place)s is not one of %(power)s's build sites this phase; %(reason)s", place=place, power=power, reason=hint
    )


# --------------------------------------------------------------------------------------------------
# The check on arrival: one power's orders, judged as the adjudicator will judge them


@dataclass(frozen=True, slots=True)
class Checked:
    """One order of a submission and its fate as far as it can be known when it arrives."""

    order: Order
    """The order as it will be carried out (unit type, coasts and the unit's own coast filled in from the
    board), or as given when it is refused."""
    problem: Msg | None = None
    """Why it will not be carried out; ``None`` when it is accepted."""
    note: Msg | None = None
    """For an accepted order that the other powers' orders of the phase decide: what it depends on."""
    first: int | None = None
    """For an order refused because its unit already has one: the index of that earlier order."""

    @property
    def accepted(self) -> bool:
        return self.problem is None


def check_submission(variant: Variant, position: Position, power: str, orders: Sequence[Order]) -> list[Checked]:
    """Judge ``power``'s ``orders`` (in the order given) with the adjudicator's own rules, as they arrive.

    The result for each order is what the adjudicator will do with it, as far as the board and this power's
    orders decide: refused with the adjudicator's reason (illegal, or certain to fail), or accepted as it
    will be carried out. The first order for a unit counts, as in the adjudicator. An order whose fate the
    other powers' orders of the phase decide is accepted with a note (W3K hand-overs and supply).
    """
    hooks = hooks_for(variant)
    refused = hooks.orders_refused(position, power)
    if refused is not None:
        return [Checked(o, refused) for o in orders]
    kind = variant.calendar.kind(position.phase)
    listed = list(orders)
    judged, decided = hooks.prepare_orders(position, {power: listed})
    out: list[Checked | None] = [None] * len(listed)
    gmap = variant.map
    for (p, i), (word, reason) in decided.items():
        if p != power:
            continue
        order = listed[i]
        if word in (_ILLEGAL, _FAILS):
            out[i] = Checked(order, why_of(reason) if reason else _outcome_said(word))
            continue
        loc = order.unit_loc
        unit = position.units.get(gmap.province_of(loc)) if loc is not None else None
        out[i] = Checked(_as_carried_out(gmap, position, order, unit, -1) if unit is not None else order)
    if kind == PhaseKind.MOVEMENT:
        _check_movement(variant, hooks, judged, power, listed, out)
    elif kind == PhaseKind.RETREATS:
        _check_retreats(variant, hooks, judged, power, listed, out)
    else:
        _check_adjustments(variant, hooks, judged, power, listed, out)
    return [c if c is not None else Checked(o, msg("not judged")) for c, o in zip(out, listed, strict=True)]


def _check_movement(
    variant: Variant,
    hooks: RuleHooks,
    position: Position,
    power: str,
    orders: list[Order],
    out: list[Checked | None],
) -> None:
    gmap = variant.map
    routes = BoardRoutes(gmap, position.units, tables(gmap), hooks.standard_movement, hooks.movement_kind)
    taken: dict[int, int] = {}
    for i, order in enumerate(orders):
        if out[i] is not None:
            continue
        j = Judgement()
        why = movement_problem(gmap, hooks, position, routes, power, order, j)
        note = None
        unit = j.unit
        if why and unit is not None and unit.power != power:
            handed = hooks.hand_over(position, unit, power)
            if handed is not None:
                # Judged as if the owner handed the unit over; the note says that it counts only then.
                pos2, note = handed
                j = Judgement()
                why = movement_problem(gmap, hooks, pos2, routes, power, order, j)
        if why:
            out[i] = Checked(order, why)
            continue
        if j.wrong_coast:
            out[i] = Checked(order, j.wrong_coast)
            continue
        assert unit is not None
        again = _ordered_before(gmap, taken, unit, order, i)
        if again is not None:
            out[i] = again
            continue
        done = _as_carried_out(gmap, position, order, unit, j.dest_loc)
        out[i] = Checked(done, note=joined(note, _kind_note(gmap, position, order, unit)))


def _check_retreats(
    variant: Variant,
    hooks: RuleHooks,
    position: Position,
    power: str,
    orders: list[Order],
    out: list[Checked | None],
) -> None:
    gmap = variant.map
    taken: dict[int, int] = {}
    going: dict[int, int] = {}  # province retreated to -> index of the first retreat there
    for i, order in enumerate(orders):
        if out[i] is not None:
            continue
        why, prov, to = retreat_problem(gmap, hooks, position, power, order)
        if why:
            out[i] = Checked(order, why)
            continue
        unit = position.dislodged[prov].unit
        again = _ordered_before(gmap, taken, unit, order, i)
        if again is not None:
            out[i] = again
            continue
        done: Order = Retreat(unit.kind, unit.loc, to) if to >= 0 else Disband(unit.kind, unit.loc)
        note = _kind_note(gmap, position, order, unit)
        if to >= 0:
            q = gmap.province_of(to)
            if q in going:
                # Both retreats fail (6.H.7): visible now, so both lines say so.
                k = going[q]
                clash = msg("two retreats to %(place)s both fail and both units are disbanded", place=gmap.label(q))
                first = out[k]
                assert first is not None
                out[k] = dataclasses.replace(first, note=joined(first.note, clash))
                note = joined(note, clash)
            else:
                going[q] = i
        out[i] = Checked(done, note=note)


def _ordered_before(gmap: GameMap, taken: dict[int, int], unit: Unit, order: Order, i: int) -> Checked | None:
    """The refusal of order ``i`` when ``unit`` already has an earlier order (the first one counts, as in the
    adjudicator), pointing at that order; ``None`` when it is the unit's first, which ``taken`` then records."""
    prov = gmap.province_of(unit.loc)
    first = taken.setdefault(prov, i)
    if first == i:
        return None
    return Checked(
        order,
        msg("%(unit)s already has an order; the first one counts", unit=gmap.unit_label(unit.kind, unit.loc)),
        first=first,
    )


def _check_adjustments(
    variant: Variant,
    hooks: RuleHooks,
    position: Position,
    power: str,
    orders: list[Order],
    out: list[Checked | None],
) -> None:
    gmap = variant.map
    ctx = AdjustmentContext(
        position=position,
        delta={power: hooks.adjustment_delta(position, power)},
        centres=dict(position.centres),
        state=dict(position.state),
    )
    units = dict(position.units)
    for i, order in enumerate(orders):
        if out[i] is not None:
            continue
        note = None
        had = ctx.delta[power]
        if isinstance(order, Build | Waive):
            need = hooks.unit_cost(order.kind) if isinstance(order, Build) else 1
            if had < need:
                note = hooks.supply_note(position, power)
                if note is not None:
                    # Judged as if the supply it needs were sent; the note says that it counts only then.
                    ctx.delta[power] = need
        before = dict(units)
        word, why = adjustment_verdict(gmap, hooks, ctx, units, power, order)
        if word != _SUCCEEDS:
            ctx.delta[power] = had
            out[i] = Checked(order, why_of(why) if why else _outcome_said(word))
            continue
        if note is not None:
            # A build that counts only if supply is sent spends none of the power's own count: without the
            # supply the adjudicator judges it illegal, and the power's other lines (the removals it owes,
            # its other builds) must be judged as they will be then.
            ctx.delta[power] = had
        out[i] = Checked(_as_built(gmap, before, units, order), note=note)


_KIND_WORDS = {"A": "an army", "F": "a fleet"}
_OTHER_KIND = {
    ("A", "F"): N_("the unit in %(place)s is an army, not a fleet: the order is read for it as written here"),
    ("F", "A"): N_("the unit in %(place)s is a fleet, not an army: the order is read for it as written here"),
}


def _kind_note(gmap: GameMap, position: Position, order: Order, unit: Unit) -> Msg | None:
    """When the order gives a unit the wrong type: which unit it is for (the adjudicator ignores the type)."""
    notes = []
    given = getattr(order, "kind", None)
    if given is not None and given != unit.kind:
        notes.append(_kind_text(gmap, unit, given))
    if isinstance(order, Support) and order.target_kind is not None:
        target = position.units.get(gmap.province_of(order.target))
        if target is not None and target.kind != order.target_kind:
            notes.append(_kind_text(gmap, target, order.target_kind))
    return joined(*notes)


def _kind_text(gmap: GameMap, unit: Unit, given: str) -> Msg:
    place = gmap.label(gmap.province_of(unit.loc))
    known = _OTHER_KIND.get((unit.kind, given))
    if known is not None:
        return msg(known, place=place)
    what = _KIND_WORDS.get(unit.kind, f"a unit {unit.kind}")
    said = _KIND_WORDS.get(given, f"a unit {given}")
    return msg(
        "the unit in %(place)s is %(what)s, not %(said)s: the order is read for it as written here",
        place=place,
        what=what,
        said=said,
    )


def _as_carried_out(gmap: GameMap, position: Position, order: Order, unit: Unit, dest_loc: int) -> Order:
    """The order with the unit's own type and coast, and what the board says of the units and places it names.

    The adjudicator matches a unit by its province and uses the unit's real type (a type or coast given wrongly
    for the ordered unit is ignored, 6.A.?/6.B.10): the canonical text shows what it will do.
    """
    if isinstance(order, Move):
        dest = order.dest
        if dest_loc >= 0:
            dest = dest_loc  # the coast a fleet arrives on
        elif gmap.locations[dest].coast is not None and gmap.can_hold("A", gmap.province_of(dest)):
            dest = gmap.province_of(dest)  # an army ignores a coast (6.B.12)
        return Move(unit.kind, unit.loc, dest, order.via_convoy)
    if isinstance(order, Support):
        target = position.units.get(gmap.province_of(order.target))
        if target is None:
            return dataclasses.replace(order, kind=unit.kind, loc=unit.loc)
        return Support(unit.kind, unit.loc, target.kind, target.loc, order.dest, order.target_power)
    if isinstance(order, Convoy):
        target = position.units.get(gmap.province_of(order.target))
        loc = target.loc if target is not None else order.target
        return Convoy(unit.kind, unit.loc, loc, order.dest, order.target_power)
    if isinstance(order, Hold):
        return Hold(unit.kind, unit.loc)
    if dataclasses.is_dataclass(order) and {f.name for f in dataclasses.fields(order)} >= {"kind", "loc"}:
        return dataclasses.replace(order, kind=unit.kind, loc=unit.loc)
    return order


def _as_built(gmap: GameMap, before: Mapping[int, Unit], after: Mapping[int, Unit], order: Order) -> Order:
    """An adjustment order as carried out: the unit built (an army's coast dropped), the unit removed."""
    if isinstance(order, Build):
        new = after.get(gmap.province_of(order.loc))
        return Build(new.kind, new.loc) if new is not None else order
    if isinstance(order, Disband):
        gone = before.get(gmap.province_of(order.loc))
        return Disband(gone.kind, gone.loc) if gone is not None else order
    return order
