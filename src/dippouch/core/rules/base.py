"""Rule hooks: the places where a variant may change how the adjudicator decides.

The standard rules are the default methods of :class:`RuleHooks`. A variant changes them in two ways,
both chosen by data in its ``[rules]`` table, never by the variant's name:

* parameters read by the default methods (``unit_costs = { D = 2 }``, ``unit_strength = { D = 3 }``,
  ``extra_build_centres = { Magyars = ["lom"] }``, ``build_sites = "owned"``);
* named behaviours: a hook module in :mod:`dippouch.core.rules` registers a function for a hook point
  with :func:`behaviour` and the variant selects it, e.g. ``[rules] build_sites = "owned"`` or
  ``[rules] phase_end = ["hundred_mercenaries"]``; a whole subclass registered with :func:`register_hooks`
  is selected by ``[rules] hooks = "<name>"``.

The adjudicator asks :attr:`RuleHooks.standard_movement` once per phase; when it is true (every variant
that changes nothing about strengths, unit kinds, supports or order kinds) the resolver never calls a
hook on its hot path. See docs/rule-hooks.md for every hook with examples.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from dippouch.core.derived import Derived
from dippouch.core.lookup import (
    BEHAVIOURS,
    BUILTIN_BEHAVIOURS,
    DESCRIPTIONS,
    DRAW_HOOKS,
    HOOK_POINTS,
    HOOK_SETS,
    STATE_KEYS,
    VICTORY_HOOKS,
    behaviour_names,
)
from dippouch.core.mapdata import ProvinceKind
from dippouch.core.messages import Msg, msg
from dippouch.core.orders import Build, Hold, Order, Waive
from dippouch.core.position import Position, Unit

if TYPE_CHECKING:
    from dippouch.core.results import OrderResult
    from dippouch.core.variant import Variant

__all__ = [
    "BUILTIN_BEHAVIOURS",
    "DRAW_HOOKS",
    "HOOK_POINTS",
    "VICTORY_HOOKS",
    "AdjustmentContext",
    "MovementSummary",
    "RuleHooks",
    "behaviour",
    "behaviour_names",
    "description",
    "hooks_for",
    "register_hooks",
    "state_key",
    "state_problems",
]

I18N_DOMAIN = "rules"
"""The catalogue of the rules' own reasons (:mod:`dippouch.core.messages`): a removal in civil disorder."""

# The registries (hook points, behaviours, hook sets, descriptions, victory and draw tests, state keys) are
# kept in core.lookup, the core's one registry, which the schema reads too; the functions that fill them,
# with their checks, are here.
_BEHAVIOURS = BEHAVIOURS
_CLASSES = HOOK_SETS
_DESCRIPTIONS = DESCRIPTIONS


def register_victory(
    name: str,
    winner: Callable[[Variant, Position], str | None] | None = None,
    draw: Callable[[Variant, Position], list[str] | None] | None = None,
    *,
    describe_victory: str | None = None,
    describe_draw: str | None = None,
) -> None:
    """Register a victory test and/or a draw condition under ``name`` (``[victory] hook``/``draw_hook``),
    each with the words that tell players what it asks."""
    if winner is not None:
        VICTORY_HOOKS[name] = winner
        if describe_victory:
            _DESCRIPTIONS[("victory", name)] = describe_victory
    if draw is not None:
        DRAW_HOOKS[name] = draw
        if describe_draw:
            _DESCRIPTIONS[("draw", name)] = describe_draw


def description(point: str, name: str) -> str | None:
    """The registered words for behaviour ``name`` of ``point`` (a hook point, ``"hooks"``, ``"victory"`` or
    ``"draw"``), or None when its module registered none."""
    return _DESCRIPTIONS.get((point, name))


F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound="type[RuleHooks]")


def behaviour(point: str, name: str, describe: str | None = None) -> Callable[[F], F]:
    """Register ``fn(hooks, *args)`` as behaviour ``name`` of hook ``point`` (a method name of RuleHooks);
    ``describe`` says in a player's words what it does (the variant pages show it).

    ``phase_end`` behaviours chain: a variant may list several and each transforms the next position.
    """
    if point not in _BEHAVIOURS:
        raise ValueError(f"no hook point {point!r}; known: {', '.join(HOOK_POINTS)}")

    def deco(fn: F) -> F:
        _BEHAVIOURS[point][name] = fn
        if describe:
            _DESCRIPTIONS[(point, name)] = describe
        return fn

    return deco


def register_hooks(name: str, describe: str | None = None) -> Callable[[C], C]:
    """Register a :class:`RuleHooks` subclass, selected by ``[rules] hooks = "<name>"``."""

    def deco(cls: C) -> C:
        _CLASSES[name] = cls
        if describe:
            _DESCRIPTIONS[("hooks", name)] = describe
        return cls

    return deco


StateCheck = Callable[["Variant", Any], str | None]
_STATE_KEYS = STATE_KEYS


def state_key(key: str) -> Callable[[StateCheck], StateCheck]:
    """Register ``check(variant, value) -> problem or None`` for ``Position.state[key]``.

    Variant state comes from outside (the adjudication contract, imported and stored games); a rule module
    declares each key it keeps so that a damaged value is refused with a message where it is read, rather
    than failing deep inside adjudication.
    """

    def deco(check: StateCheck) -> StateCheck:
        _STATE_KEYS[key] = check
        return check

    return deco


def state_problems(variant: Variant, state: Any) -> list[tuple[str, str]]:
    """``(key, problem)`` for every unknown key or damaged value of a variant ``state`` (empty: fine)."""
    if not isinstance(state, Mapping):
        return [("", "must be a JSON object of the variant's state")]
    problems: list[tuple[str, str]] = []
    for key, value in state.items():
        check = _STATE_KEYS.get(str(key))
        if check is None:
            known = ", ".join(sorted(_STATE_KEYS)) or "none"
            problems.append((str(key), f"no rule of {variant.name} keeps this state (known keys: {known})"))
            continue
        problem = check(variant, value)
        if problem:
            problems.append((str(key), problem))
    return problems


def mapping_of(
    value: Any, key_ok: Callable[[str], str | None], value_ok: Callable[[Any], str | None], limit: int = 1000
) -> str | None:
    """A shared shape check for state values that map names to small values."""
    if not isinstance(value, Mapping):
        return f"must be a JSON object, not {type(value).__name__}"
    if len(value) > limit:
        return f"has {len(value)} entries; at most {limit}"
    for k, v in value.items():
        problem = key_ok(str(k)) if isinstance(k, str) else "keys are names"
        if problem is None:
            problem = value_ok(v)
        if problem:
            return f"{str(k)[:40]!r}: {problem}"
    return None


@dataclass(frozen=True, slots=True)
class MovementSummary:
    """What happened in a movement phase, for hooks that act afterwards (extra order kinds, phase end).

    All keys are province ids.
    """

    moved: Mapping[int, int]
    """Origin province -> destination province of every successful move."""
    dislodged: Mapping[int, int]
    """Province of a dislodged unit -> province its attacker came from."""
    attacked: Mapping[int, tuple[int, ...]]
    """Province -> origins of every unit that tried to move there with a route (successful or not)."""
    bounced: frozenset[int]
    """Provinces left empty by a standoff."""


@dataclass(slots=True)
class AdjustmentContext:
    """Running state of an adjustment phase, handed to :meth:`RuleHooks.adjustment_order`.

    A hook that accepts an extra order (a W3K supply transfer) changes ``delta`` or ``centres`` here and
    returns the result; later orders of the same phase see the change.
    """

    position: Position
    delta: dict[str, int]
    """Power -> builds still allowed (positive) or removals still owed (negative)."""
    centres: dict[int, str]
    """Centre ownership as it stands during the phase (hooks may transfer centres)."""
    built: set[int] = field(default_factory=set)
    """Provinces built in already this phase."""
    state: dict[str, Any] = field(default_factory=dict)
    """Variant state to be stored in the next position (starts as a copy of ``position.state``)."""


class RuleHooks:
    """The standard rules, one method per decision a variant may change.

    Construct through :func:`hooks_for`. Methods take integer ids (provinces, locations) and
    :class:`~dippouch.core.position.Unit` values; none may do I/O or use randomness other than the
    ``rng`` passed in.
    """

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.rules: Mapping[str, Any] = variant.rules
        self._strengths: dict[str, int] = {str(k): int(v) for k, v in dict(self.rules.get("unit_strength", {})).items()}
        self._costs: dict[str, int] = {str(k): int(v) for k, v in dict(self.rules.get("unit_costs", {})).items()}
        self._moves_as: dict[str, str] = {str(k): str(v) for k, v in dict(self.rules.get("moves_as", {})).items()}
        extra = self.rules.get("extra_build_centres", {})
        gmap = variant.map
        self._extra_sites: dict[str, frozenset[int]] = {
            str(p): frozenset(gmap.province_of(gmap.loc(str(n))) for n in names) for p, names in dict(extra).items()
        }
        self._phase_end: list[Callable[..., Position]] = []
        self.derived = Derived()
        """Tables the adjudicator and legal-order generation derive from these hooks, kept with them."""

    # ------------------------------------------------------------------ fast-path switch
    def is_standard(self, point: str) -> bool:
        """Whether the hook ``point`` is the standard one: neither a behaviour the variant's ``[rules]`` set on
        this object nor a subclass's override. Fast paths that skip a hook ask this first."""
        return point not in self.__dict__ and getattr(type(self), point) is getattr(RuleHooks, point)

    @property
    def standard_movement(self) -> bool:
        """True when no movement hook differs from the standard one, so the resolver may skip them all."""
        for point in ("movement_kind", "may_enter", "may_support", "unit_strength", "support_left", "cuts_support"):
            if not self.is_standard(point):
                return False
        return not self._strengths and not self._moves_as

    # ------------------------------------------------------------------ who orders what
    def prepare_orders(
        self, position: Position, orders: Mapping[str, Sequence[Order]]
    ) -> tuple[Position, dict[tuple[str, int], tuple[str, Msg | str]]]:
        """See every order of the phase before any is judged; standard: nothing to do.

        Returns the position the phase is judged from (its ``state`` may carry what the orders decided,
        for :meth:`may_order` or :meth:`adjustment_delta` to read) and results already decided, keyed by
        ``(power, index)`` with ``(result word, reason)``; the adjudicator reports those and judges the rest
        without them. W3K: proxy hand-overs, supply transfers, and lists mixing builds with removals.
        """
        return position, {}

    def orders_refused(self, position: Position, power: str) -> Msg | None:
        """Why ``power`` may give no orders at all this phase, or ``None`` (standard: it always may).

        The game layer refuses a submission's lines with this text as they arrive and does not wait for
        the power; a variant's :meth:`prepare_orders` reports any such orders that reach the adjudicator
        as illegal with it (1000 AD: a power in civil disorder, whose units hold and whose removals are
        made for it).
        """
        return None

    def may_order(self, position: Position, power: str, unit: Unit) -> bool:
        """Whether ``power`` may give ``unit`` an order this phase (standard: only its owner; 6.A.6).

        W3K proxies: the owner hands the unit to another power for one season (kept in ``position.state``).
        An order refused here is reported illegal and the unit gets no order from that power.
        """
        return unit.power == power

    # ------------------------------------------------------------------ unit kinds
    def movement_kind(self, kind: str) -> str:
        """Which adjacency a unit kind uses: ``"A"`` (army) or ``"F"`` (fleet). ``[rules] moves_as = {D = "A"}``."""
        return self._moves_as.get(kind, kind)

    def may_enter(self, unit: Unit, province: int) -> bool:
        """Extra limits on where a unit may move or retreat (1000 AD's "D" stays inside its homeland)."""
        return True

    def may_support(self, unit: Unit, target: int, dest: int | None) -> bool:
        """Extra limits on supports: ``dest`` is None for a hold support of ``target`` (province ids)."""
        return True

    def unit_strength(self, unit: Unit) -> int:
        """Strength of a unit in attack, defence, hold and prevention (standard 1; ``unit_strength = {D = 3}``)."""
        return self._strengths.get(unit.kind, 1)

    def cuts_support(self, attacker: Unit, supporter: Unit) -> bool:
        """Whether an attack (with a route) on the supporter cuts its support: only another power's (6.D.20)."""
        return attacker.power != supporter.power

    def support_left(
        self,
        supporter: Unit,
        attackers: Sequence[Unit],
        attack_strength: Callable[[int], int] | None = None,
    ) -> int:
        """Strength a support still adds, given the units attacking the supporter with a route.

        ``attackers`` are the units for which :meth:`cuts_support` holds and that have a route, except the
        unit in the province the support is aimed at (it only cuts by dislodging, 6.D.15/6.D.17; the
        adjudicator handles dislodgement). The sequence is lazy: routes are only looked at as far as the
        hook reads, so stop at the first attacker when one is enough. ``attack_strength(i)``, passed by
        the adjudicator whenever the movement hooks are not the standard ones, is the attack strength of
        ``attackers[i]`` on the supporter (its supports that stand, not counting the supporter's power's).
        Standard: any attack that :meth:`cuts_support` cuts the whole support; 1000 AD reduces a
        defensive army's support per table.
        """
        for a in attackers:
            if self.cuts_support(a, supporter):
                return 0
        return self.unit_strength(supporter) if self._strengths else 1

    # ------------------------------------------------------------------ extra order kinds
    def stand_in_order(self, position: Position, power: str, order: Order) -> Order | None:
        """The standard order the adjudicator resolves in place of an order kind it does not know.

        Return ``None`` to report the order illegal. Default: the unit holds (it can be supported to
        hold, gives no support). W3K "convert" uses this default and decides its own result in
        :meth:`extra_order_result`.
        """
        loc = order.unit_loc
        if loc is None:
            return None
        unit = position.units.get(self.variant.map.province_of(loc))
        return Hold(unit.kind if unit else None, loc)

    def order_problem(self, position: Position, power: str, order: Order) -> Msg | None:
        """Why an order of a variant's own kind is illegal judged from the board alone, or ``None``.

        Asked before the phase is resolved, by the adjudicator and by the check on arrival alike
        (:func:`dippouch.core.order_checks.movement_problem`); an order refused here is reported illegal and its
        unit holds. W3K: a conversion outside a coastal supply centre its owner owns.
        """
        return None

    def hand_over(self, position: Position, unit: Unit, power: str) -> tuple[Position, Msg] | None:
        """For an order ``power`` sent for another power's ``unit``: the position as it would be if the owner
        handed the unit over this phase, and a note saying that the order counts only then; or ``None``.

        Standard: ``None`` (another power's unit is never ordered; 6.A.6). The check on arrival cannot see
        the owner's orders, so it judges the order against this position and shows the note (W3K proxies).
        """
        return None

    def supply_note(self, position: Position, power: str) -> Msg | None:
        """When ``power``'s builds beyond its own count may still count because another power may send it
        supply this phase: a note saying so (W3K supply transfers); ``None`` (standard) when they cannot."""
        return None

    def extra_legal_orders(
        self,
        position: Position,
        power: str,
        orders: dict[int, list[Order]],
        standard: Callable[[Position], Mapping[str, Mapping[int, Sequence[Order]]]],
    ) -> None:
        """Add the variant's own order kinds to ``power``'s legal orders (``orders``, changed in place).

        Called by :func:`dippouch.core.legal_orders.legal_orders` after it has listed the standard orders;
        ``standard(position)`` lists the standard orders of every power in another position, for a hook
        that needs them (W3K: the orders of a unit handed over, as its owner would have them). Passed in, so
        that rule modules never import the legal-order generator. Standard: nothing to add.
        """
        return None

    def extra_order_result(
        self, position: Position, power: str, order: Order, summary: MovementSummary
    ) -> tuple[str, Msg | str]:
        """Result word (an :class:`~dippouch.core.results.Outcome` value) and reason for an extra order kind.

        Called after movement is resolved. Default: the unit stood (``"stands"``), or was dislodged.
        W3K: ``("disrupted", "conversion disrupted by A ...")`` when ``summary.attacked`` has its province.
        """
        return "stands", ""

    # ------------------------------------------------------------------ adjustments
    def unit_cost(self, unit_kind: str) -> int:
        """Supply centres a unit of this kind needs (1000 AD: ``unit_costs = {D = 2}``)."""
        return self._costs.get(unit_kind, 1)

    def builds_used(self, order: Order) -> int:
        """How much of a power's build allowance an adjustment order uses, so that the note on what is left
        unordered agrees with the adjudicator: a build its unit's cost, a waived build one. W3K: a supply
        transfer the supply it sends."""
        if isinstance(order, Build):
            return self.unit_cost(order.kind)
        return 1 if isinstance(order, Waive) else 0

    def adjustment_delta(self, position: Position, power: str) -> int:
        """Builds allowed (positive) or removals owed (negative): owned centres minus unit costs.

        Removals owed are counted in cost units; the adjudicator removes units until the power's
        units cost no more than its centres. 1897's opening winter overrides this (exactly one build).
        """
        owned = sum(1 for o in position.centres.values() if o == power)
        cost = sum(self.unit_cost(u.kind) for u in position.units.values() if u.power == power)
        return owned - cost

    def build_sites(self, position: Position, power: str) -> frozenset[int]:
        """Provinces where ``power`` may build this phase (vacancy is checked by the adjudicator).

        Standard: its home centres that it owns. ``[rules] build_sites = "owned"``: any owned centre
        (Hundred, W3K). ``extra_build_centres = {Power = [...]}`` adds centres usable while owned (1000 AD).
        """
        owned = frozenset(p for p, o in position.centres.items() if o == power)
        homes = position.homes.get(power, frozenset())
        return (homes & owned) | (self._extra_sites.get(power, frozenset()) & owned)

    def may_build_kind(self, position: Position, power: str, kind: str, loc: int) -> bool:
        """Whether a unit of ``kind`` may be built on location ``loc`` (standard: A on land/coast, F on a coast).

        The coast of a split-coast province must be named (6.B.14): ``loc`` is then a coast id.
        """
        gmap = self.variant.map
        mk = self.movement_kind(kind)
        if mk not in ("A", "F"):
            return False
        prov = gmap.provinces[gmap.province_of(loc)]
        if mk == "F":
            return prov.kind == ProvinceKind.COAST and gmap.can_hold("F", loc)
        return gmap.can_hold("A", loc)

    def adjustment_order(self, ctx: AdjustmentContext, power: str, order: Order) -> tuple[str, Msg | str] | None:
        """Decide an order kind the standard adjustment phase does not know (W3K supply transfer).

        Return ``(result word, reason)``, or ``None`` to report it illegal. The hook may change ``ctx``.
        """
        return None

    def removal_order(
        self, position: Position, power: str, count: int, rng: random.Random | None
    ) -> tuple[list[int], Msg]:
        """Provinces of the units to remove, in order, when ``power`` owes removals it did not order.

        ``count`` is in cost units (remove until paid). Returns the provinces and a reason for the
        report. Standard (DATC 6.J, 2023 rules): farthest from the nearest OWNED supply centre first,
        counting every adjacent province whatever the unit kind; ties: fleets before armies, then by
        province name alphabetically. W3K draws lots with ``rng`` and names the draw in the reason.
        """
        units = [u for u in position.units.values() if u.power == power]
        owned = [p for p, o in position.centres.items() if o == power]
        dist = self._distances(owned)
        gmap = self.variant.map

        def key(u: Unit) -> tuple[int, int, str]:
            prov = gmap.province_of(u.loc)
            return (-dist[prov], 0 if u.kind == "F" else 1, gmap.provinces[prov].name.lower())

        out: list[int] = []
        paid = 0
        for u in sorted(units, key=key):
            if paid >= count:
                break
            out.append(gmap.province_of(u.loc))
            paid += self.unit_cost(u.kind)
        return out, msg("civil disorder: farthest from an owned supply centre")

    def _distances(self, sources: Sequence[int]) -> list[int]:
        """Moves from the nearest source province, over any adjacency (army or fleet)."""
        gmap = self.variant.map
        n = gmap.province_count
        far = n + 1
        dist = [far] * n
        graph = _any_adjacency(self.variant)
        frontier = list(sources)
        for s in frontier:
            dist[s] = 0
        d = 0
        while frontier:
            d += 1
            nxt: list[int] = []
            for p in frontier:
                for q in graph[p]:
                    if dist[q] == far:
                        dist[q] = d
                        nxt.append(q)
            frontier = nxt
        return dist

    # ------------------------------------------------------------------ reports
    def phase_notes(self, before: Position, after: Position, results: Sequence[OrderResult]) -> list[Msg]:
        """Sentences for the phase's report about what the variant's own rules did, beyond each order's
        result (W3K: conversions begun, continued, disrupted, completed or lapsed; hand-overs; supply sent).
        ``after`` is the next position as the adjudicator returned it. Standard: nothing to add."""
        return []

    # ------------------------------------------------------------------ phase end
    def phase_end(self, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
        """Transform the next position once a phase is adjudicated (variant state, home redefinitions).

        Behaviours listed in ``[rules] phase_end`` run in turn. Examples: 1897 redefines home centres at
        Winter 1899, Hundred removes mercenaries, 1000 AD counts anarchy, W3K finishes conversions.
        """
        for fn in self._phase_end:
            after = fn(self, before, after, results)
        return after


def _any_adjacency(variant: Variant) -> tuple[frozenset[int], ...]:
    """Province adjacency for any unit kind (armies and fleets alike), used for civil-disorder distance.

    Kept on the map it is derived from, so it goes with the map (and a later map never sees it).
    """
    gmap = variant.map
    hit: tuple[frozenset[int], ...] | None = gmap.derived.get("rules.any_adjacency")
    if hit is not None:
        return hit
    sets = [set(a) for a in gmap.army_adj]
    for loc, reach in enumerate(gmap.fleet_reach):
        sets[gmap.province_of(loc)].update(reach)
    got = gmap.derived["rules.any_adjacency"] = tuple(frozenset(s) for s in sets)
    return got


def hooks_for(variant: Variant) -> RuleHooks:
    """The hooks a variant's ``[rules]`` table selects (made once, kept on the variant).

    Raises ``ValueError`` naming the unknown behaviour and the known ones if the data asks for
    something no hook module registered.
    """
    cached: RuleHooks | None = variant.derived.get("rules.hooks")
    if cached is not None:
        return cached
    rules = variant.rules
    cls_name = rules.get("hooks")
    cls: type[RuleHooks] = RuleHooks
    if cls_name:
        if cls_name not in _CLASSES:
            raise ValueError(f"[rules] hooks = {cls_name!r}: no such hook set; known: {', '.join(sorted(_CLASSES))}")
        cls = _CLASSES[cls_name]
    hooks = cls(variant)
    for point in HOOK_POINTS:
        chosen = rules.get(point)
        if not isinstance(chosen, (str, list)):
            continue
        names = [chosen] if isinstance(chosen, str) else [str(c) for c in chosen]
        for name in names:
            if name in BUILTIN_BEHAVIOURS.get(point, ()):
                if name == "owned":
                    hooks.build_sites = _owned_sites.__get__(hooks)  # type: ignore[method-assign]
                continue
            fn = _BEHAVIOURS[point].get(name)
            if fn is None:
                known = ", ".join(behaviour_names(point)) or "none registered"
                raise ValueError(f"[rules] {point} = {name!r}: no such behaviour; known: {known}")
            if point == "phase_end":
                hooks._phase_end.append(fn)
            else:
                setattr(hooks, point, fn.__get__(hooks))
    variant.derived["rules.hooks"] = hooks
    return hooks


def _owned_sites(self: RuleHooks, position: Position, power: str) -> frozenset[int]:
    """``build_sites = "owned"``: any supply centre the power owns (Hundred, W3K)."""
    return frozenset(p for p, o in position.centres.items() if o == power)
