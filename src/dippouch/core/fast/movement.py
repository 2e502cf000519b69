"""The standard fast loop of a movement phase: standard orders settled inline, before resolution.

The readable judgement of an order is :meth:`dippouch.core.movement._Judge.general`: it asks the order
checks (:mod:`dippouch.core.order_checks`) and the variant's hooks, says why an order is refused, and fills
the resolver's lists. Under the standard rules, most orders of a phase are a legal hold, move, support or
convoy for a unit of the ordering power with no order yet; this loop settles those with a few list
look-ups, and hands anything else (illegal, repeated or foreign orders, extra order kinds) to ``general``,
which judges it in full and says why. The loop only ever accepts what ``general`` would accept:
tests/core/test_movement_paths_agree.py plays positions both ways and compares every result, and the DATC cases
run both ways.

A function of its own, called once a phase, rather than inlined in
:func:`dippouch.core.movement.adjudicate_movement`: it reads only locals (lists of the resolver, the map's
tables), so moving it costs one call a phase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from dippouch.core.board import CONVOY, HOLD, MOVE, SUPPORT, BoardRoutes, Tables
from dippouch.core.fast.decisions import Entry, ResolverLists
from dippouch.core.orders import Convoy, Hold, Move, Order, Support

__all__ = ["settle_standard_orders"]


def settle_standard_orders(
    orders: Mapping[str, Sequence[Order]],
    tab: Tables,
    routes: BoardRoutes,
    r: ResolverLists,
    entries: list[Entry],
    supports: list[Entry],
    moves: list[int],
    holds: list[int],
    convoy_orders: dict[tuple[int, int], list[int]],
    convoys: list[tuple[int, Convoy]],
    general: Callable[[str, int, Order], None],
) -> None:
    """Settle each legal hold, move, support and convoy for a unit of the ordering power with no order yet
    (the first legal order of a unit is the one it carries out), filling the resolver's lists as
    ``general`` would; hand every other order to ``general``."""
    loc_prov, army_adj, fleet_adj, fleet_reach, sea, army_ok = (
        tab.loc_prov,
        tab.army_adj,
        tab.fleet_adj,
        tab.fleet_reach,
        tab.sea,
        tab.army_ok,
    )
    add = entries.append
    code, dest, sup_dest, dest_loc, at, convoyed = r.code, r.dest, r.sup_dest, r.dest_loc, r.at, r.convoyed
    for power, olist in orders.items():
        for i, order in enumerate(olist):
            t = type(order)
            if t is Support:
                so: Support = order  # type: ignore[assignment]
                prov = loc_prov[so.loc]
                unit = at[prov]
                if unit is not None and unit.power == power and code[prov] < 0:
                    tp = loc_prov[so.target]
                    tu = at[tp]
                    # An owner named in the order must be the unit's (else legality says why).
                    if tu is not None and tp != prov and (so.target_power is None or so.target_power == tu.power):
                        # A unit that is no fleet supports by army adjacency, as _illegal_reason judges it.
                        reach = fleet_reach[unit.loc] if unit.kind == "F" else army_adj[prov]
                        sd = so.dest
                        if sd is None:
                            d = -1
                            ok = tp in reach
                        else:
                            # Tests as statements, not one boolean expression: a comparison followed by
                            # a conditional jump runs a specialised instruction, one whose value is
                            # kept runs the generic comparison.
                            d = loc_prov[sd]
                            ok = False
                            if d != prov and d != tp and d in reach:
                                tk = tu.kind
                                if tk == "A":
                                    ok = d in army_adj[tp] or (army_ok[d] and routes.exists(tp, d, prov))
                                elif tk == "F":
                                    ok = d in fleet_reach[tu.loc]
                        if ok:
                            entry = (power, i, order, prov)
                            add(entry)
                            code[prov] = SUPPORT
                            sup_dest[prov] = d
                            supports.append(entry)
                            continue
            elif t is Move:
                mo: Move = order  # type: ignore[assignment]
                prov = loc_prov[mo.loc]
                unit = at[prov]
                if unit is not None and unit.power == power and code[prov] < 0:
                    dl = mo.dest
                    d = loc_prov[dl]
                    kind = unit.kind
                    if kind == "A":
                        if not mo.via_convoy and d in army_adj[prov]:
                            ok = True
                        elif d != prov and army_ok[d] and routes.exists(prov, d, -1):
                            ok = convoyed[prov] = True
                        else:
                            ok = False
                    elif kind == "F" and not mo.via_convoy and dl in fleet_adj[unit.loc]:
                        ok = True
                        dest_loc[prov] = dl
                    else:
                        ok = False
                    if ok:
                        add((power, i, order, prov))
                        code[prov] = MOVE
                        dest[prov] = d
                        moves.append(prov)
                        continue
            elif t is Hold:
                prov = loc_prov[order.loc]  # type: ignore[attr-defined]
                unit = at[prov]
                if unit is not None and unit.power == power and code[prov] < 0:
                    add((power, i, order, prov))
                    code[prov] = HOLD
                    holds.append(prov)
                    continue
            elif t is Convoy:
                co: Convoy = order  # type: ignore[assignment]
                prov = loc_prov[co.loc]
                unit = at[prov]
                if unit is not None and unit.power == power and code[prov] < 0 and unit.kind == "F" and sea[prov]:
                    tp = loc_prov[co.target]
                    tu = at[tp]
                    d = loc_prov[co.dest]
                    if (
                        tu is not None
                        and tu.kind == "A"
                        and d != tp
                        and (co.target_power is None or co.target_power == tu.power)
                        and routes.proper(tp, d, prov)
                    ):
                        add((power, i, order, prov))
                        code[prov] = CONVOY
                        got_fleets = convoy_orders.get((tp, d))
                        if got_fleets is None:
                            convoy_orders[(tp, d)] = [prov]
                        else:
                            got_fleets.append(prov)
                        convoys.append((prov, co))
                        continue
            general(power, i, order)
