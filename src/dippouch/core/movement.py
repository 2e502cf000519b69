"""Movement phases by Kruijswijk's method (DATC chapter 5, "The Math of Adjudication").

Orders are not processed in a sequence. Every move, support and convoy has one yes/no decision
(the move succeeds, the support is not cut, the convoying fleet is not dislodged), defined by equations
over other decisions and the four strengths (attack, hold, defend, prevent). :meth:`_Resolver.resolve`
finds the solution by guess and check; a decision that depends on itself with no or two consistent
answers goes to the backup rule: a cycle of moves all succeed (circular movement), a cycle with a
convoy breaks by failing its convoys (Szykman rule, the DATC preference).

Before resolution every order is classified as DATC v3.2 asks (issue 4.E.1): *illegal* (impossible
judged from the board alone; ignored, the unit holds and may be supported to hold), *invalid* (legal,
but it does not match the orders it needs, e.g. a support of a move not ordered), or valid.

Everything here works on province ids held in lists; the map's adjacency was compiled to frozensets
(:func:`dippouch.core.board.tables`). This module is the readable judgement of every order
(:meth:`_Judge.general`); under the standard rules the usual orders of a phase are settled before
resolution by the fast loop in :mod:`dippouch.core.fast.movement`, which hands everything else back here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple, overload

from dippouch.core.board import CONVOY, HOLD, MOVE, NONE, SUPPORT
from dippouch.core.board import BoardRoutes as _BoardRoutes
from dippouch.core.board import Tables as _Tables
from dippouch.core.board import tables as _tables
from dippouch.core.fast.decisions import Entry
from dippouch.core.fast.movement import settle_standard_orders
from dippouch.core.mapdata import GameMap
from dippouch.core.messages import N_, Msg, msg
from dippouch.core.order_checks import Judgement, movement_problem
from dippouch.core.orders import Convoy, Disband, Hold, Move, Order, Support
from dippouch.core.paths import convoy_path_exists
from dippouch.core.position import SHARED_UNITS, Dislodged, Position, Unit, fresh_dict, shared_unit
from dippouch.core.results import OrderResult, Outcome, Reason
from dippouch.core.rules.base import MovementSummary, RuleHooks

__all__ = ["MovementOutcome", "adjudicate_movement"]

# Enum members read as ``Outcome.X`` go through the enum metaclass's ``__getattr__`` hook (Python 3.11),
# about 900 machine instructions a read; the hot paths read these module constants instead.
_AVAILABLE = Outcome.AVAILABLE
_CUT = Outcome.CUT
_DISLODGED = Outcome.DISLODGED
_DISRUPTED = Outcome.DISRUPTED
_FAILS = Outcome.FAILS
_GIVEN = Outcome.GIVEN
_ILLEGAL = Outcome.ILLEGAL
_INVALID = Outcome.INVALID
_STANDS = Outcome.STANDS
_SUCCEEDS = Outcome.SUCCEEDS

# Order codes of the resolver (NONE, HOLD, MOVE, SUPPORT, CONVOY) are in core.board, shared with the fast loop.
# Decision states.
_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


class MovementOutcome(NamedTuple):
    """What a movement phase leaves (a named tuple: made once a phase, it costs a tenth of a dataclass)."""

    results: list[OrderResult]
    units: dict[int, Unit]
    """Province -> unit after the phase (dislodged units removed)."""
    dislodged: dict[int, Dislodged]
    """Province -> units that must retreat (those with no retreat already disbanded)."""


_new_tuple = tuple.__new__
_UNITS = SHARED_UNITS
_unit = shared_unit
_HOLDS: dict[tuple[str, int], Hold] = {}


def _hold(kind: str, loc: int) -> Hold:
    key = (kind, loc)
    h = _HOLDS.get(key)
    if h is None:
        h = _HOLDS[key] = Hold(kind, loc)
    return h


I18N_DOMAIN = "rules"
"""The catalogue of the adjudicator's reasons (:mod:`dippouch.core.messages`), which the results report shows."""

_NO_ORDER_HOLDS = msg("no order: holds")
_DESTROYED = msg("destroyed: no retreat possible")
_PARADOX = msg("convoy paradox: the convoy fails (Szykman rule)")
_NO_CONVOY = msg("no convoy was ordered for this move")
_NO_ROUTE = msg("the ordered convoys form no route")
_FIRST_COUNTS = N_("%(unit)s already has an order; the first one counts")
_SUPPORT_CUT = msg("support cut")
_NO_ROUTE_LEFT = msg("convoy disrupted: no route of fleets left")
_FAILED = msg("failed")


def _unit_text(gmap: GameMap, unit: Unit) -> str:
    return gmap.unit_label(unit.kind, unit.loc)


_ONES: dict[int, list[int]] = {}


def _ones(n: int) -> list[int]:
    got = _ONES.get(n)
    if got is None:
        got = _ONES[n] = [1] * n
    return got


class _Resolver:
    """The decisions of one movement phase; lists are indexed by province id."""

    def __init__(self, gmap: GameMap, units: Mapping[int, Unit], hooks: RuleHooks, n: int, standard: bool) -> None:
        self.gmap = gmap
        self.units = units
        self.hooks = hooks
        self.standard = standard
        self.code = [NONE] * n
        """Province -> code of the order its unit carries out; NONE while it has none (no order yet, no unit, or
        only orders found illegal): then it holds, and no equation asks about it. An order judged invalid is
        HOLD. (So ``code[p] >= HOLD`` says the unit at ``p`` has an order carried out: no list of its own.)"""
        self.dest = self.sup_dest = [-1] * n
        """Province -> where its unit moves (for a move) or the destination of the move it supports (for a
        support; -1 for a support to hold): a unit has one order carried out, so one list serves both."""
        self.convoyed = [False] * n
        self.invalid = [False] * n
        self.dest_loc = [-1] * n
        """Province -> location a fleet's move arrives on (its coast), -1 for armies and provinces without coasts."""
        self.at: list[Unit | None] = [None] * n
        """Province -> its unit (read by list index: cheaper than the units mapping, and the powers come with it)."""
        self.supports: dict[int, list[int]] = {}
        """Unit province -> provinces of the units giving it valid support (hold or move, as it is ordered)."""
        self.movers: dict[int, list[int]] = {}
        """Province -> provinces of the units with a valid (not invalid) move into it."""
        self.convoys_for: dict[int, set[int]] = {}
        """Army province -> sea provinces of fleets with a valid convoy order for its move."""
        self.res = [False] * n
        self.state = [_UNRESOLVED] * n
        self.deps: list[int] = []
        # Under the standard rules every strength is 1 and nothing writes these lists: one list is shared.
        self.strength = self.sup_value = _ones(n) if standard else [1] * n
        if not standard:
            self.sup_value = [1] * n

    # ------------------------------------------------------------------ guess and check
    def resolve(self, p: int) -> bool:
        state = self.state
        st = state[p]
        if st == _RESOLVED:
            return self.res[p]
        deps = self.deps
        if st == _GUESSING:
            if p not in deps:
                deps.append(p)
            return self.res[p]
        old = len(deps)
        self.res[p] = False
        state[p] = _GUESSING
        first = self.adjudicate(p)
        if len(deps) == old:
            if state[p] != _RESOLVED:
                self.res[p] = first
                state[p] = _RESOLVED
            return first
        if deps[old] != p:
            # Depends on someone else's guess: part of a larger cycle, decided by its head.
            deps.append(p)
            self.res[p] = first
            return first
        while len(deps) > old:
            state[deps.pop()] = _UNRESOLVED
        self.res[p] = True
        state[p] = _GUESSING
        second = self.adjudicate(p)
        if first == second:
            while len(deps) > old:
                state[deps.pop()] = _UNRESOLVED
            self.res[p] = first
            state[p] = _RESOLVED
            return first
        self._backup_rule(old)
        return self.resolve(p)

    def _backup_rule(self, old: int) -> None:
        cycle = self.deps[old:]
        del self.deps[old:]
        code = self.code
        if any(code[q] == CONVOY for q in cycle):
            # Szykman: the convoys in the paradox fail; everything else is decided again.
            for q in cycle:
                if code[q] == CONVOY:
                    self.res[q] = False
                    self.state[q] = _RESOLVED
                else:
                    self.state[q] = _UNRESOLVED
        elif all(code[q] == MOVE for q in cycle):
            # Circular movement: every move of the cycle succeeds.
            for q in cycle:
                self.res[q] = True
                self.state[q] = _RESOLVED
        else:
            # A paradox without convoys (possible only with variant orders): moves and supports fail.
            for q in cycle:
                self.res[q] = False
                self.state[q] = _RESOLVED

    def adjudicate(self, p: int) -> bool:
        c = self.code[p]
        if c == MOVE:
            return self.adjudicate_move(p)
        if c == SUPPORT:
            return self.adjudicate_support(p)
        if c == CONVOY:
            # Pandin's hack: adjudicate (not resolve) the attacks on the fleet, so every cycle is simple.
            for q in self.movers.get(p, ()):
                if self.adjudicate_move(q):
                    return False
        return True

    # ------------------------------------------------------------------ equations
    def path(self, p: int) -> bool:
        if not self.convoyed[p]:
            return True
        fleets = self.convoys_for.get(p)
        if not fleets:
            return False
        resolve = self.resolve
        return convoy_path_exists(self.gmap, p, self.dest[p], lambda s: s in fleets and resolve(s))

    def head_to_head(self, p: int) -> int:
        """The province of the unit ``p`` meets head to head, or -1 (neither may be convoyed)."""
        d = self.dest[p]
        if (
            self.code[d] == MOVE
            and self.dest[d] == p
            and not self.convoyed[p]
            and not self.convoyed[d]
            and not self.invalid[d]
        ):
            return d
        return -1

    def support_sum(self, p: int, exclude_power: str | None = None) -> int:
        total = 0
        at = self.at
        for s in self.supports.get(p, ()):
            if exclude_power is not None and at[s].power == exclude_power:  # type: ignore[union-attr]
                continue
            if self.resolve(s):
                total += self.sup_value[s]
        return total

    def attack_strength(self, p: int) -> int:
        if not self.path(p):
            return 0
        d = self.dest[p]
        there = self.at[d]
        if there is None:
            return self.strength[p] + self.support_sum(p)
        if self.code[d] == MOVE and self.head_to_head(p) < 0 and self.resolve(d):
            return self.strength[p] + self.support_sum(p)
        if there.power == self.at[p].power:  # type: ignore[union-attr]
            return 0
        return self.strength[p] + self.support_sum(p, there.power)

    def hold_strength(self, d: int) -> int:
        if self.at[d] is None:
            return 0
        if self.code[d] == MOVE:
            return 0 if self.resolve(d) else self.strength[d]
        return self.strength[d] + self.support_sum(d)

    def defend_strength(self, p: int) -> int:
        return self.strength[p] + self.support_sum(p)

    def prevent_strength(self, q: int) -> int:
        if not self.path(q):
            return 0
        o = self.head_to_head(q)
        if o >= 0 and self.resolve(o):
            return 0
        return self.strength[q] + self.support_sum(q)

    def adjudicate_move(self, p: int) -> bool:
        if self.invalid[p]:
            return False
        d = self.dest[p]
        att = self.attack_strength(p)
        if att == 0:
            return False
        o = self.head_to_head(p)
        if o >= 0:
            if att <= self.defend_strength(o):
                return False
        elif att <= self.hold_strength(d):
            return False
        # A loop, not any(): a generator would make cells of self, p and att on every call.
        for q in self.movers[d]:  # noqa: SIM110
            if q != p and att <= self.prevent_strength(q):
                return False
        return True

    def attackers_with_route(self, s: int) -> list[int]:
        """Units moving to ``s`` with a route, except the one from where the support is aimed."""
        aimed = self.sup_dest[s]
        return [q for q in self.movers.get(s, ()) if q != aimed and self.path(q)]

    def adjudicate_support(self, s: int) -> bool:
        aimed = self.sup_dest[s]
        movers = self.movers.get(s, ())
        at = self.at
        power = at[s].power  # type: ignore[union-attr]
        if self.standard:
            for q in movers:
                if q != aimed and at[q].power != power and self.path(q):  # type: ignore[union-attr]
                    return False
            # An attack from the supported destination cuts only by dislodging (6.D.15, 6.D.17). No
            # other attacker is left that could dislodge, so only that one is resolved (resolving more
            # would add false dependencies to paradox cycles).
            return aimed < 0 or aimed not in movers or not self.resolve(aimed)
        units = self.units
        supporter = units[s]
        cuts = self.hooks.cuts_support
        attackers = _Attackers(self, [q for q in movers if q != aimed and cuts(units[q], supporter)])
        left = self.hooks.support_left(
            supporter, attackers, attack_strength=lambda i: self.attack_strength(attackers.province(i))
        )
        if left <= 0:
            return False
        # Kept only when positive: while the support is merely guessed "given", it counts in full (or as
        # much as it was last found to give), never as the 0 of a failed evaluation.
        self.sup_value[s] = left
        # Dislodgement cuts too. Only another power's unit with a route can dislodge; under standard
        # behaviour every such unit except the one from the supported destination has cut already.
        return not any(at[q].power != power and (q == aimed or self.path(q)) and self.resolve(q) for q in movers)  # type: ignore[union-attr]


class _Attackers(Sequence[Unit]):
    """The units cutting a support that have a route, found only as far as a hook looks.

    The standard hook stops at the first one; evaluating every route up front would add dependencies on
    the other attacks and change which decisions form a paradox cycle (DATC 6.F.22-6.F.27).
    """

    def __init__(self, r: _Resolver, candidates: list[int]) -> None:
        self.r = r
        self.candidates = candidates
        self.found: list[int] = []
        self.tried = 0

    def _fill(self, upto: int) -> None:
        while len(self.found) <= upto and self.tried < len(self.candidates):
            q = self.candidates[self.tried]
            self.tried += 1
            if self.r.path(q):
                self.found.append(q)

    def province(self, i: int) -> int:
        self._fill(i)
        return self.found[i]

    def __iter__(self) -> Iterator[Unit]:
        i = 0
        while True:
            self._fill(i)
            if i >= len(self.found):
                return
            yield self.r.units[self.found[i]]
            i += 1

    def __len__(self) -> int:
        self._fill(len(self.candidates))
        return len(self.found)

    @overload
    def __getitem__(self, i: int) -> Unit: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Unit]: ...
    def __getitem__(self, i: int | slice) -> Unit | Sequence[Unit]:
        if isinstance(i, slice):
            return list(self)[i]
        if i < 0:
            i += len(self)
        self._fill(i)
        return self.r.units[self.found[i]]


def _fast_flags(hooks: RuleHooks) -> tuple[bool, bool]:
    """(standard movement hooks, standard ``may_order``), worked out once per hooks object (kept on it)."""
    got: tuple[bool, bool] | None = hooks.derived.get("movement.fast")
    if got is None:
        got = hooks.derived["movement.fast"] = (hooks.standard_movement, hooks.is_standard("may_order"))
    return got


class _Judge:
    """The full judgement of orders the standard fast loop does not settle (illegal, repeated, foreign and
    extra-kind orders, and every order under non-standard hooks), with the phase's lists it fills.

    A class rather than a function nested in :func:`adjudicate_movement`: a closure would turn every local it
    reads into a cell, and the fast loop would pay for that on each read. Made only when an order needs it.
    """

    __slots__ = (
        "convoy_orders",
        "convoys",
        "entries",
        "gmap",
        "holds",
        "hooks",
        "moves",
        "plain_order",
        "position",
        "r",
        "reasons",
        "routes",
        "spot",
        "stand_in",
        "std",
        "supports",
        "tab",
        "units",
        "word",
        "wrong_coast",
    )

    def __init__(
        self,
        gmap: GameMap,
        hooks: RuleHooks,
        position: Position,
        tab: _Tables,
        routes: _BoardRoutes,
        r: _Resolver,
        std: bool,
        plain_order: bool,
        entries: list[Entry],
        spot: list[int],
        word: list[Outcome | None],
        reasons: list[Msg | Reason | str],
        wrong_coast: dict[int, Msg],
        stand_in: dict[int, Order],
        moves: list[int],
        supports: list[Entry],
        convoy_orders: dict[tuple[int, int], list[int]],
        convoys: list[tuple[int, Convoy]],
        holds: list[int],
    ) -> None:
        self.gmap, self.hooks, self.position, self.units = gmap, hooks, position, position.units
        self.tab, self.routes, self.r, self.std, self.plain_order = tab, routes, r, std, plain_order
        self.entries, self.spot, self.word, self.reasons = entries, spot, word, reasons
        self.wrong_coast, self.stand_in = wrong_coast, stand_in
        self.moves, self.supports, self.convoy_orders, self.convoys, self.holds = (
            moves,
            supports,
            convoy_orders,
            convoys,
            holds,
        )

    def refuse(self, power: str, i: int, order: Order, prov: int, why: Msg) -> None:
        """Record an illegal order, decided on the spot."""
        spot = self.spot
        self.entries.append((power, i, order, len(self.r.code) + len(spot)))
        spot.append(prov)
        self.word.append(_ILLEGAL)
        self.reasons.append(why)

    def general(self, power: str, i: int, order: Order) -> None:
        """Judge one order and, if its unit carries it out, fill the resolver's lists (step 2)."""
        gmap, hooks, position, units, tab, routes, std = (
            self.gmap,
            self.hooks,
            self.position,
            self.units,
            self.tab,
            self.routes,
            self.std,
        )
        loc_prov, army_adj, army_ok, fleet_adj, fleet_reach, sea = (
            tab.loc_prov,
            tab.army_adj,
            tab.army_ok,
            tab.fleet_adj,
            tab.fleet_reach,
            tab.sea,
        )
        r, refuse, plain_order = self.r, self.refuse, self.plain_order
        code, dest, sup_dest, dest_loc = r.code, r.dest, r.sup_dest, r.dest_loc
        t = type(order)
        why = "?"
        dl = -1
        prov = -1
        unit = None
        if std and plain_order and (t is Move or t is Support or t is Hold or t is Convoy):
            # Fast path for legal orders of the ordering power's own units (convoys included), with no string
            # work; anything it does not accept goes to legality.movement_problem, which judges it in full.
            prov = loc_prov[order.loc]  # type: ignore[attr-defined]
            unit = units.get(prov)
            if unit is not None and unit.power == power:
                kind = unit.kind
                if t is Hold:
                    why = ""
                elif t is Move:
                    mo: Move = order  # type: ignore[assignment]
                    if kind == "A":
                        d = loc_prov[mo.dest]
                        if (not mo.via_convoy and d in army_adj[prov]) or (
                            d != prov and army_ok[d] and routes.exists(prov, d, -1)
                        ):
                            why = ""
                    elif kind == "F" and not mo.via_convoy and mo.dest in fleet_adj[unit.loc]:
                        dl = mo.dest
                        why = ""
                elif t is Support:
                    so: Support = order  # type: ignore[assignment]
                    tp = loc_prov[so.target]
                    tu = units.get(tp)
                    owner_ok = so.target_power is None or (tu is not None and so.target_power == tu.power)
                    if tu is not None and tp != prov and (kind == "A" or kind == "F") and owner_ok:
                        reach = army_adj[prov] if kind == "A" else fleet_reach[unit.loc]
                        if so.dest is None:
                            if tp in reach:
                                why = ""
                        else:
                            d = loc_prov[so.dest]
                            if d != prov and d != tp and d in reach:
                                if tu.kind == "A":
                                    if d in army_adj[tp] or (army_ok[d] and routes.exists(tp, d, prov)):
                                        why = ""
                                elif tu.kind == "F" and d in fleet_reach[tu.loc]:
                                    why = ""
                else:
                    co: Convoy = order  # type: ignore[assignment]
                    if kind == "F" and sea[prov]:
                        tp = loc_prov[co.target]
                        tu = units.get(tp)
                        owner_ok = co.target_power is None or (tu is not None and co.target_power == tu.power)
                        if tu is not None and tu.kind == "A" and owner_ok:
                            d = loc_prov[co.dest]
                            if d != tp and routes.proper(tp, d, prov):
                                why = ""
        actual = order
        extra = False
        if why:
            j = Judgement()
            problem = movement_problem(gmap, hooks, position, routes, power, order, j)
            unit, prov = j.unit, j.prov
            if problem:
                refuse(power, i, order, prov, problem)
                return
            assert j.actual is not None and unit is not None
            actual, extra = j.actual, j.extra
            dl = j.dest_loc
            if j.wrong_coast and code[prov] < 0:
                self.wrong_coast[prov] = j.wrong_coast
        assert unit is not None
        if code[prov] >= 0:
            refuse(power, i, order, prov, msg(_FIRST_COUNTS, unit=_unit_text(gmap, unit)))
            return
        self.entries.append((power, i, order, prov))
        dest_loc[prov] = dl
        # 2. Fill the resolver's lists with the order the unit carries out.
        if extra:
            self.stand_in[prov] = actual
            t = type(actual)
        if t is Move or isinstance(actual, Move):
            mo = actual  # type: ignore[assignment]
            code[prov] = MOVE
            dest[prov] = d = loc_prov[mo.dest]
            self.moves.append(prov)
            if (unit.kind if std else hooks.movement_kind(unit.kind)) == "A" and (
                mo.via_convoy or d not in army_adj[prov]
            ):
                r.convoyed[prov] = True
        elif t is Support or isinstance(actual, Support):
            so = actual  # type: ignore[assignment]
            code[prov] = SUPPORT
            sup_dest[prov] = loc_prov[so.dest] if so.dest is not None else -1
            self.supports.append((power, i, so, prov))
        elif t is Convoy or isinstance(actual, Convoy):
            co = actual  # type: ignore[assignment]
            code[prov] = CONVOY
            self.convoy_orders.setdefault((loc_prov[co.target], loc_prov[co.dest]), []).append(prov)
            self.convoys.append((prov, co))
        else:
            code[prov] = HOLD
            self.holds.append(prov)


class _LateJudge:
    """A :class:`_Judge` made on first need: most phases under the standard rules need none."""

    __slots__ = ("args", "judge")

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.judge: _Judge | None = None

    def general(self, power: str, i: int, order: Order) -> None:
        judge = self.judge
        if judge is None:
            judge = self.judge = _Judge(*self.args)
        judge.general(power, i, order)


def adjudicate_movement(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    orders: Mapping[str, Sequence[Order]],
) -> MovementOutcome:
    """Resolve a movement phase: results for every order (plus automatic holds) and the board after it."""
    n = gmap.province_count
    units = position.units
    # The map's tables and the hooks' flags, in one look-up a phase.
    # (the map, :func:`_tables` of the map, :func:`_fast_flags` of the hooks), kept on the hooks.
    setup: tuple[GameMap, _Tables, bool, bool] | None = hooks.derived.get("movement.setup")
    if setup is None or setup[0] is not gmap:
        setup = hooks.derived["movement.setup"] = (gmap, _tables(gmap), *_fast_flags(hooks))
    tab, std, plain_order = setup[1], setup[2], setup[3]
    loc_prov = tab.loc_prov
    mk = hooks.movement_kind
    # One entry per submitted order (see Entry): the order its unit carries out is judged at the end,
    # anything else is decided on the spot.
    entries: list[Entry] = []
    stand_in: dict[int, Order] = {}
    word: list[Outcome | None] = [None] * n
    """Slot -> outcome. For a province, of the order its unit carries out, once known: set for orders settled
    before resolution (invalid, wrong coast), and under the usual phase for every other one after it. Orders
    decided on the spot have their slots after the provinces."""
    reasons: list[Msg | Reason | str] = [""] * n
    """Slot -> the reason going with ``word``."""
    spot: list[int] = []
    """Slot - province_count -> the province an order decided on the spot names (-1: none)."""
    wrong_coast: dict[int, Msg] = {}
    routes = _BoardRoutes(gmap, units, tab, std, mk)
    r = _Resolver(gmap, units, hooks, n, std)
    code, dest, dest_loc, at, convoyed = r.code, r.dest, r.dest_loc, r.at, r.convoyed
    for p, u in units.items():
        at[p] = u
    if not std:
        for p, u in units.items():
            r.strength[p] = r.sup_value[p] = hooks.unit_strength(u)
    convoy_orders: dict[tuple[int, int], list[int]] = {}
    moves: list[int] = []
    """Provinces of the units whose move is carried out, in the order given. (An army's move by convoy is
    marked in the resolver's ``convoyed`` as it is accepted.)"""
    supports: list[Entry] = []
    """The supports carried out: their entries (the fast loop's own, shared with ``entries``), with the
    support order the unit carries out. Its destination province (or -1) is in the resolver's ``dest``."""
    convoys: list[tuple[int, Convoy]] = []
    holds: list[int] = []

    # 1. Board legality of each order; the first legal order of a unit is the one it carries out.
    if std and plain_order:
        # The standard fast loop (dippouch.core.fast.movement): a legal hold, move, support or convoy for a unit
        # of the ordering power with no order yet is settled there. Anything else (illegal, repeated or
        # foreign orders, extra order kinds) comes back to ``general``, which judges it in full and says why;
        # the fast loop only ever accepts what ``general`` would accept.
        late = _LateJudge(
            gmap, hooks, position, tab, routes, r, std, plain_order, entries, spot, word, reasons, wrong_coast,
            stand_in, moves, supports, convoy_orders, convoys, holds,
        )  # fmt: skip
        settle_standard_orders(
            orders, tab, routes, r, entries, supports, moves, holds, convoy_orders, convoys, late.general
        )
    else:
        judge = _Judge(
            gmap, hooks, position, tab, routes, r, std, plain_order, entries, spot, word, reasons, wrong_coast,
            stand_in, moves, supports, convoy_orders, convoys, holds,
        )  # fmt: skip
        for power, olist in orders.items():
            for i, order in enumerate(olist):
                judge.general(power, i, order)

    # 3. Routes: which moves go by convoy, and which convoyed moves have their convoy ordered.
    invalid, movers = r.invalid, r.movers
    # An army moving next door goes by convoy only if a fleet of its own power legally orders it (2025EE):
    # looked up from the few convoy orders, not per move.
    for (p, d), ordered in convoy_orders.items():
        if code[p] == MOVE and dest[p] == d and not convoyed[p]:
            mover = at[p]
            if (mover.kind if std else mk(mover.kind)) == "A":  # type: ignore[union-attr]
                mine = mover.power  # type: ignore[union-attr]
                for f in ordered:
                    if at[f].power == mine:  # type: ignore[union-attr]
                        convoyed[p] = True
                        break
    for p in moves:
        d = dest[p]
        if wrong_coast and p in wrong_coast:
            invalid[p] = True
            word[p], reasons[p] = _FAILS, wrong_coast[p]
            continue
        if convoyed[p]:
            matching = convoy_orders.get((p, d)) if convoy_orders else None
            fleets = set(matching or ())
            r.convoys_for[p] = fleets
            if not fleets or not convoy_path_exists(gmap, p, d, fleets):
                invalid[p] = True
                word[p] = _INVALID
                reasons[p] = _NO_CONVOY if not fleets else _NO_ROUTE
                continue
        got = movers.get(d)
        if got is None:
            movers[d] = [p]
        else:
            got.append(p)

    # 4. Supports and convoys that do not match what was ordered are invalid. A support counts only for
    # the order it matches: hold supports for units that do not move, move supports for that move.
    r_supports = r.supports
    res, state = r.res, r.state
    pending: list[int] = []
    """Decisions left to guess and check, resolved in province order (as the board is laid out)."""
    matched: list[int] = []
    """Supports that match the order they name (the others are invalid)."""
    invalid_word = _INVALID
    unmatched = tab.unmatched
    for _power, _i, order, p in supports:
        sp: Support = order  # type: ignore[assignment]
        tp = loc_prov[sp.target]
        d = dest[p]
        if d < 0:
            ok = code[tp] != MOVE
        elif code[tp] == MOVE and dest[tp] == d:
            # 6.B.9: a support naming the other coast of the destination matches nothing.
            ok = sp.dest == d or dest_loc[tp] < 0 or dest_loc[tp] == sp.dest
        else:
            ok = False
        if ok:
            matched.append(p)
            got = r_supports.get(tp)
            if got is None:
                r_supports[tp] = [p]
            else:
                got.append(p)
            if std:
                # Under the standard rules a support nobody attacks is given (step 5), decided here.
                if p not in movers:
                    res[p] = True
                    state[p] = _RESOLVED
                else:
                    pending.append(p)
        else:
            word[p] = invalid_word
            tu = at[tp]
            key = (tu.loc, tu.kind, sp.dest)  # type: ignore[union-attr]
            try:
                reasons[p] = unmatched[key]
            except KeyError:
                reasons[p] = unmatched[key] = Reason(_unmatched_support, gmap, tu, sp.dest)
            code[p] = HOLD
    for p, cv in convoys:
        tp = loc_prov[cv.target]
        d = loc_prov[cv.dest]
        if code[tp] != MOVE or dest[tp] != d:
            # A convoy matching an army that goes by land stays "available" (6.G.7) but takes no part.
            word[p] = invalid_word
            reasons[p] = Reason(_unmatched_convoy, gmap, units[tp], d)
            code[p] = HOLD
        elif std:
            # As for supports: a convoying fleet nobody attacks is available.
            if p not in movers:
                res[p] = True
                state[p] = _RESOLVED
            else:
                pending.append(p)

    # 5. Resolve every decision. Under the standard rules many are settled by their own order alone: a
    # support or convoy nobody attacks stands; an invalid move fails; an unconvoyed move into an empty
    # province nobody else enters succeeds, and one that only unconvoyed, unsupported moves enter fails (as
    # they all do); an unsupported one against a unit that stays or meets it head to head fails. Those are
    # set directly (they depend on no other decision, so no cycle can contain them); guess and check does the
    # rest. (Supports and convoys were settled so in step 4.)
    if std:
        for p in moves:
            if invalid[p]:
                state[p] = _RESOLVED  # res[p] is already False
                continue
            if convoyed[p]:
                pending.append(p)
                continue
            d = dest[p]
            if at[d] is None:
                qs = movers[d]
                if len(qs) == 1:
                    res[p] = True
                    state[p] = _RESOLVED
                    continue
                for q in qs:
                    if convoyed[q] or q in r_supports:
                        break
                else:
                    state[p] = _RESOLVED  # a standoff: attack 1 against the others' prevent strength 1
                    continue
            elif p not in r_supports and (code[d] != MOVE or (dest[d] == p and not convoyed[d] and not invalid[d])):
                state[p] = _RESOLVED  # res[p] is already False: attack 1 (or 0) against at least 1
                continue
            pending.append(p)
    else:
        pending = [p for p, c in enumerate(code) if c > HOLD]
    pending.sort()
    resolve = r.resolve
    for p in pending:
        if state[p] != _RESOLVED:
            resolve(p)

    return _finish(
        gmap,
        hooks,
        position,
        r,
        entries,
        stand_in,
        word,
        reasons,
        spot,
        moves,
        supports,
        matched,
        convoys,
        holds,
    )


def _finish(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    r: _Resolver,
    entries: list[Entry],
    stand_in: dict[int, Order],
    word: list[Outcome | None],
    why: list[Msg | Reason | str],
    spot: list[int],
    moves: list[int],
    supports: list[Entry],
    matched: list[int],
    convoys: list[tuple[int, Convoy]],
    holds: list[int],
) -> MovementOutcome:
    """The results and the board after the phase, once every decision is resolved.

    In the usual phase (standard orders, nobody dislodged) each carried-out order's word is set once per
    province from its kind and decision, and one comprehension over the submitted orders makes the results;
    anything else goes to :func:`_finish_general`, which judges order by order.
    """
    units = position.units
    res = r.res
    dest = r.dest
    moved: dict[int, int] = {}
    succeeds, fails, stands = _SUCCEEDS, _FAILS, _STANDS
    for p in moves:
        # A move's word follows from its decision (an extra order kind standing in as a move is judged by
        # its hook, below).
        if res[p]:
            moved[p] = dest[p]
            if word[p] is None and not (stand_in and p in stand_in):
                word[p] = succeeds
        elif word[p] is None and not (stand_in and p in stand_in):
            word[p] = fails
            why[p] = Reason(_move_failure, gmap, r, p)
    dislodged_by: dict[int, int] = {}
    at = r.at
    new_units = fresh_dict(units)
    for p, d in moved.items():
        del new_units[p]
        if at[d] is not None and d not in moved:
            dislodged_by[d] = p
            del new_units[d]
    dest_loc = r.dest_loc
    made = _UNITS
    for p, d in moved.items():
        u = at[p]
        loc = dest_loc[p]
        key = (u.power, u.kind, loc if loc >= 0 else d)  # type: ignore[union-attr]
        nu = made.get(key)
        new_units[d] = nu if nu is not None else _unit(*key)

    if dislodged_by or stand_in or not r.standard:
        return _finish_general(
            gmap, hooks, position, r, entries, stand_in, word, why, spot, moved, dislodged_by, new_units
        )
    # The usual phase: standard orders only and nobody dislodged. Every carried-out order's word
    # follows from its kind and decision alone; the words are set per province, then one pass over the
    # submitted orders makes the results.
    for p in matched:
        if res[p]:
            word[p] = _GIVEN
        else:
            word[p] = _CUT
            why[p] = Reason(_cut_reason, gmap, r, dislodged_by, p)
    for p, _cv in convoys:
        if word[p] is None:
            if res[p]:
                word[p] = _AVAILABLE
            else:
                word[p] = _DISRUPTED
                why[p] = _PARADOX
    for p in holds:
        word[p] = stands
    # All eight fields given: the named tuple is built directly, skipping its argument-parsing __new__.
    results = [
        _new_tuple(OrderResult, (power, order, word[slot], False, False, False, why[slot], index))
        for power, index, order, slot in entries
    ]
    if len(moves) + len(supports) + len(convoys) + len(holds) < len(units):
        # Units without an order carried out: an automatic hold each, unless an illegal order of their
        # own power's stands in for it.
        code = r.code
        speaking = _flagged(entries, code, units, spot)
        for p, u in units.items():
            if code[p] < 0 and p not in speaking:
                results.append(OrderResult(u.power, _hold(u.kind, u.loc), stands, False, False, True, _NO_ORDER_HOLDS))
    return _new_tuple(MovementOutcome, (results, new_units, {}))


def _finish_general(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    r: _Resolver,
    entries: list[Entry],
    stand_in: dict[int, Order],
    word: list[Outcome | None],
    why: list[Msg | Reason | str],
    spot: list[int],
    moved: dict[int, int],
    dislodged_by: dict[int, int],
    new_units: dict[int, Unit],
) -> MovementOutcome:
    """:func:`_finish` for a phase with dislodgements, extra order kinds or non-standard hooks."""
    units = position.units
    res = r.res
    succeeds, stands = _SUCCEEDS, _STANDS
    # Standoffs: provinces left empty though a move with some prevent strength went there.
    # Only retreats (and extra-order hooks) need them.
    bounced: set[int] = set()
    for d, qs in r.movers.items():
        if d not in new_units and any(not res[q] and r.prevent_strength(q) > 0 for q in qs):
            bounced.add(d)
    attacked: dict[int, tuple[int, ...]] = {}
    if stand_in:
        # Only extra order kinds (their hooks) need to know every attack with a route.
        for d, qs in r.movers.items():
            routed = tuple(q for q in qs if r.path(q))
            if routed:
                attacked[d] = routed

    mk = hooks.movement_kind
    dislodged: dict[int, Dislodged] = {}
    loc_prov = _tables(gmap).loc_prov
    for p, a in dislodged_by.items():
        u = units[p]
        cands = gmap.fleet_adj[u.loc] if mk(u.kind) == "F" else gmap.army_adj[p]
        ok = frozenset(
            loc
            for loc in cands
            if (q := loc_prov[loc]) not in new_units
            and q not in bounced
            and (q != a or r.convoyed[a])
            and hooks.may_enter(u, q)
        )
        dislodged[p] = Dislodged(u, ok, a)

    # Only the hooks of extra order kinds read the summary.
    summary = (
        MovementSummary(moved=moved, dislodged=dislodged_by, attacked=attacked, bounced=frozenset(bounced))
        if stand_in
        else None
    )

    results: list[OrderResult] = []
    append = results.append
    flagged: set[int] = set()
    """Units with no order carried out whose dislodged flag went on an illegal order of their power's."""
    code = r.code
    n = len(code)
    for power, index, order, p in entries:
        outcome, reason = word[p], why[p]
        if p < n:
            # The order the unit carries out: it takes the dislodged flag.
            dis = p in dislodged_by
            if outcome is None:
                t = type(order)
                extra = p in stand_in if stand_in else False
                if t is Hold and not dis and not extra:
                    outcome = stands
                elif extra or not res[p] or dis:
                    outcome, reason = _judge(gmap, hooks, position, r, power, order, p, extra, dislodged_by, summary)
                elif t is Move:
                    outcome = succeeds
                elif t is Support:
                    outcome = _GIVEN
                    if not r.standard and r.sup_value[p] < r.strength[p]:
                        # A support reduced rather than cut (1000 AD's defensive army): say by whom.
                        names = ", ".join(_unit_text(gmap, units[q]) for q in r.attackers_with_route(p))
                        reason = msg("support reduced to %(value)d by %(units)s", value=r.sup_value[p], units=names)
                elif t is Convoy:
                    outcome = _AVAILABLE
                else:
                    outcome, reason = _judge(gmap, hooks, position, r, power, order, p, extra, dislodged_by, summary)
            if dis:
                if outcome is stands:
                    outcome = _DISLODGED
                append(OrderResult(power, order, outcome, True, not dislodged[p].retreats, False, reason, index))
                continue
        else:
            # Decided on the spot (illegal). If the unit it names carries out no order, the first such order
            # of its own power's takes the unit's flags.
            assert outcome is not None
            p = spot[p - n]
            if p >= 0 and code[p] < 0 and p not in flagged:
                owner_unit = units.get(p)
                if owner_unit is not None and owner_unit.power == power:
                    flagged.add(p)
                    if p in dislodged_by:
                        append(
                            OrderResult(power, order, outcome, True, not dislodged[p].retreats, False, reason, index)
                        )
                        continue
        append(_new_tuple(OrderResult, (power, order, outcome, False, False, False, reason, index)))
    # Units without an order (or with only another power's orders): automatic holds.
    for p, u in units.items() if n - code.count(NONE) + len(flagged) < len(units) else ():
        if code[p] >= 0 or p in flagged:
            continue
        dis = p in dislodged_by
        destroyed = dis and not dislodged[p].retreats
        results.append(
            OrderResult(
                u.power,
                _hold(u.kind, u.loc),
                _DISLODGED if dis else _STANDS,
                dis,
                destroyed,
                True,
                Reason(_dislodged_reason, gmap, units, dislodged_by, p) if dis else _NO_ORDER_HOLDS,
            )
        )
    # Units that cannot retreat are disbanded now.
    for p, gone in list(dislodged.items()):
        if not gone.retreats:
            u = gone.unit
            results.append(
                OrderResult(
                    u.power,
                    Disband(u.kind, u.loc),
                    _SUCCEEDS,
                    True,
                    True,
                    True,
                    _DESTROYED,
                )
            )
            del dislodged[p]
    return _new_tuple(MovementOutcome, (results, new_units, dislodged))


def _flagged(entries: list[Entry], code: list[int], units: Mapping[int, Unit], spot: list[int]) -> set[int]:
    """Units with no order carried out whose first order of their own power's (an illegal one) stands in for
    it in the results, so they get no automatic hold."""
    flagged: set[int] = set()
    n = len(code)
    for power, _index, _order, slot in entries:
        p = spot[slot - n] if slot >= n else -1
        if p >= 0 and code[p] < 0 and p not in flagged:
            u = units.get(p)
            if u is not None and u.power == power:
                flagged.add(p)
    return flagged


def _dislodged_reason(gmap: GameMap, units: Mapping[int, Unit], by: Mapping[int, int], p: int) -> Msg:
    return msg("dislodged by %(unit)s", unit=_unit_text(gmap, units[by[p]]))


def _judge(
    gmap: GameMap,
    hooks: RuleHooks,
    position: Position,
    r: _Resolver,
    power: str,
    o: Order,
    p: int,
    extra: bool,
    dislodged_by: Mapping[int, int],
    summary: MovementSummary | None,
) -> tuple[Outcome, Msg | Reason | str]:
    """Result word and reason of a chosen order once every decision is resolved (the reason written lazily).

    ``dislodged_by`` maps a dislodged unit's province to its attacker's; ``summary`` is made only when
    extra order kinds were judged (their hook reads it).
    """
    units = position.units
    if extra:
        assert summary is not None
        word, reason = hooks.extra_order_result(position, power, o, summary)
        return Outcome(word), reason
    if isinstance(o, Move):
        if r.res[p]:
            return _SUCCEEDS, ""
        return _FAILS, Reason(_move_failure, gmap, r, p)
    if isinstance(o, Support):
        if r.res[p]:
            return _GIVEN, ""
        return _CUT, Reason(_cut_reason, gmap, r, dislodged_by, p)
    if isinstance(o, Convoy):
        if r.res[p]:
            return _AVAILABLE, ""
        if p in dislodged_by:
            return _DISRUPTED, msg("fleet dislodged by %(unit)s", unit=_unit_text(gmap, units[dislodged_by[p]]))
        return _DISRUPTED, _PARADOX
    if p in dislodged_by:
        return _STANDS, Reason(_dislodged_reason, gmap, units, dislodged_by, p)
    return _STANDS, ""


def _unmatched_support(gmap: GameMap, target: Unit, dest: int | None) -> Msg:
    if dest is None:
        return msg("%(unit)s was ordered to move, not to hold", unit=_unit_text(gmap, target))
    return msg("%(unit)s was not ordered to %(place)s", unit=_unit_text(gmap, target), place=gmap.label(dest))


def _unmatched_convoy(gmap: GameMap, target: Unit, dest: int) -> Msg:
    return msg("%(unit)s was not ordered to %(place)s", unit=_unit_text(gmap, target), place=gmap.label(dest))


def _cut_reason(gmap: GameMap, r: _Resolver, dislodged: Mapping[int, int], p: int) -> Msg:
    units = r.units
    if p in dislodged:
        return msg("supporter dislodged by %(unit)s", unit=_unit_text(gmap, units[dislodged[p]]))
    cutters = [q for q in r.attackers_with_route(p) if units[q].power != units[p].power]
    names = ", ".join(_unit_text(gmap, units[q]) for q in cutters)
    return msg("support cut by %(units)s", units=names) if names else _SUPPORT_CUT


def _move_failure(gmap: GameMap, r: _Resolver, p: int) -> Msg:
    units = r.units
    d = r.dest[p]
    if not r.path(p):
        return _NO_ROUTE_LEFT
    att = r.attack_strength(p)
    if att == 0 and d in units and units[d].power == units[p].power:
        return msg("cannot dislodge its own %(unit)s", unit=_unit_text(gmap, units[d]))
    o = r.head_to_head(p)
    if o >= 0:
        dfn = r.defend_strength(o)
        if att == dfn:
            # Equal strength is a bounce, not a loss: only a greater defence beat this move.
            return msg(
                "bounced head-to-head with %(unit)s (%(attack)d vs %(defence)d)",
                unit=_unit_text(gmap, units[o]),
                attack=att,
                defence=dfn,
            )
        if att < dfn:
            return msg(
                "lost head-to-head with %(unit)s (%(attack)d vs %(defence)d)",
                unit=_unit_text(gmap, units[o]),
                attack=att,
                defence=dfn,
            )
    else:
        hold = r.hold_strength(d)
        if att <= hold and d in units:
            return msg(
                "bounced off %(unit)s (%(attack)d vs %(defence)d)",
                unit=_unit_text(gmap, units[d]),
                attack=att,
                defence=hold,
            )
    for q in r.movers[d]:
        if q != p:
            pv = r.prevent_strength(q)
            if att <= pv:
                return msg(
                    "bounced with %(unit)s (%(attack)d vs %(defence)d)",
                    unit=_unit_text(gmap, units[q]),
                    attack=att,
                    defence=pv,
                )
    return _FAILED
