"""1000 AD (Lovibond): defensive triple armies, Winter 999 placements, anarchy, and the game's end.

Each behaviour is selected by name in the variant's ``[rules]`` table and reads its parameters from data
(``homeland_kinds``, ``unit_limits``, ``support_table``, ``[victory]``), so another variant could reuse
them. Nothing here knows the variant's name or its provinces.

* ``may_enter = "homeland_only"`` / ``may_support = "homeland_only"``: units of the kinds in
  ``[rules] homeland_kinds`` (1000 AD: the defensive army ``D``) move only inside their power's homeland
  and support only actions inside or into it (rule 7).
* ``support_left = "ad1000_table"``: a defensive army's support is reduced, not cut, by the strongest
  single attack on it (rule 8's table: 3 minus the strength of that attack).
* ``build_sites = "homeland_at_start"``: in the game's first phase (the Winter 999 placements, rule 5)
  a power may place units anywhere inside its homeland; afterwards the standard sites apply.
* ``may_build_kind = "ad1000"``: homeland-bound kinds are built only in the homeland, and
  ``[rules] unit_limits`` caps how many of a kind a power may have at once (one ``D``, rule 7).
* ``prepare_orders`` / ``orders_refused`` / ``may_order`` / ``adjustment_delta`` /
  ``phase_end = "ad1000_anarchy"``: rule 13's anarchy, kept in ``Position.state["anarchy"]``; a power in
  civil disorder has every order refused (removals included) and its removals made for it.
* :func:`game_end`: rules 11 and 12, a pure function the game layer calls after each phase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dippouch.core.calendar import PhaseKind
from dippouch.core.messages import N_, Msg, msg
from dippouch.core.position import Position, Unit
from dippouch.core.rules.base import RuleHooks, behaviour, mapping_of, state_key

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""

if TYPE_CHECKING:
    from dippouch.core.orders import Order
    from dippouch.core.results import OrderResult
    from dippouch.core.variant import Variant

__all__ = [
    "ANARCHY_KEY",
    "GameEnd",
    "anarchy_status",
    "defensive_support_left",
    "game_end",
    "in_disorder",
]

ANARCHY_KEY = "anarchy"
"""``Position.state[ANARCHY_KEY]``: power -> ``"grace"`` (lost every home centre; one movement season to
retake one) or ``"disorder"`` (failed: civil disorder until it has no centres left)."""


@state_key(ANARCHY_KEY)
def _check_anarchy(variant: Variant, value: Any) -> str | None:
    return mapping_of(
        value,
        lambda p: None if p in variant.power_names else f"not a power ({', '.join(variant.power_names)})",
        lambda status: None if status in ("grace", "disorder") else 'is "grace" or "disorder"',
    )


def _homeland_kinds(hooks: RuleHooks) -> Sequence[str]:
    """``[rules] homeland_kinds``: read as is (a short list), since this runs once per order and candidate."""
    kinds: Sequence[str] = hooks.rules.get("homeland_kinds", ())
    return kinds


def _homeland(hooks: RuleHooks, power: str) -> frozenset[int]:
    return hooks.variant.homelands.get(power, frozenset())


# ---------------------------------------------------------------------------------------------- rule 7


@behaviour("may_enter", "homeland_only", N_("Defensive armies move only inside their power's homeland."))
def homeland_only_enter(hooks: RuleHooks, unit: Unit, province: int) -> bool:
    """A defensive army never leaves its power's homeland (moves and retreats alike)."""
    if unit.kind not in _homeland_kinds(hooks):
        return True
    return province in _homeland(hooks, unit.power)


@behaviour("may_support", "homeland_only", N_("Defensive armies support only actions inside or into their homeland."))
def homeland_only_support(hooks: RuleHooks, unit: Unit, target: int, dest: int | None) -> bool:
    """A defensive army supports only actions inside or into its homeland (rule 7).

    A hold is inside the homeland when the supported unit stands there; a move is "inside or into" it
    when it ends there, wherever it starts. A move out of the homeland ends outside and is refused.
    """
    if unit.kind not in _homeland_kinds(hooks):
        return True
    return (target if dest is None else dest) in _homeland(hooks, unit.power)


# ---------------------------------------------------------------------------------------------- rule 8


def defensive_support_left(strength: int, attack_strengths: Sequence[int]) -> int:
    """Support a unit of ``strength`` still gives when attacked by attacks of ``attack_strengths``.

    Rule 8's table for the 3D, row by row (u = a unit, "S by" = supported by, "+" = another attack):
    u -> 2D; u S by u -> D; u + u -> 2D; u S by u & u -> nothing; u + u + u -> 2D; u S by u + u -> D.
    Every row is the same rule: only the strongest single attack counts, and it takes away its strength.
    """
    if not attack_strengths:
        return strength
    return max(0, strength - max(attack_strengths))


@behaviour(
    "support_left",
    "ad1000_table",
    N_(
        "A defensive army's support is reduced by the strongest single attack on it (rule 8), rather than cut outright."
    ),
)
def table_support_left(
    hooks: RuleHooks,
    supporter: Unit,
    attackers: Sequence[Unit],
    attack_strength: Any = None,
) -> int:
    """Rule 8 for units stronger than 1; ordinary units keep the standard rule (any attack cuts).

    ``attack_strength(i)``, when the adjudicator passes it, is the strength of ``attackers[i]``'s attack
    (the unit and its supports that stand, not counting supports by the supporter's own power). Without
    it each attacker counts with its own strength only.
    """
    cutting = [i for i, a in enumerate(attackers) if hooks.cuts_support(a, supporter)]
    own = hooks.unit_strength(supporter)
    if own <= 1:
        return 0 if cutting else own
    strengths = [
        int(attack_strength(i)) if attack_strength is not None else hooks.unit_strength(attackers[i]) for i in cutting
    ]
    return defensive_support_left(own, strengths)


# ---------------------------------------------------------------------------------------------- rules 5-7: building


@behaviour(
    "build_sites",
    "homeland_at_start",
    N_(
        "The opening placements (the first winter) may go anywhere in the power's homeland; later builds go in home centres."
    ),
)
def homeland_at_start_sites(hooks: RuleHooks, position: Position, power: str) -> frozenset[int]:
    """The game's first phase (Winter 999) places units anywhere in the homeland; later, standard sites.

    A power in civil disorder builds nothing (rule 13).
    """
    if in_disorder(position, power):
        return frozenset()
    if position.phase == hooks.variant.start.phase:
        return _homeland(hooks, power)
    return RuleHooks.build_sites(hooks, position, power)


@behaviour(
    "may_build_kind",
    "ad1000",
    N_("Defensive armies are built only inside the power's homeland, and only up to the limit per power."),
)
def ad1000_may_build_kind(hooks: RuleHooks, position: Position, power: str, kind: str, loc: int) -> bool:
    """Standard placement rules, plus: homeland-bound kinds only in the homeland, and per-kind limits.

    ``[rules] unit_limits = {D = 1}``: a power may have at most one defensive army at a time, so a new one
    can be built only once the last is gone. ``position`` includes the units built earlier in the phase
    when the adjudicator passes the running position.
    """
    if not RuleHooks.may_build_kind(hooks, position, power, kind, loc):
        return False
    gmap = hooks.variant.map
    if kind in _homeland_kinds(hooks) and gmap.province_of(loc) not in _homeland(hooks, power):
        return False
    limit = hooks.rules.get("unit_limits", {}).get(kind)
    if limit is not None:
        have = sum(1 for u in position.units.values() if u.power == power and u.kind == kind)
        if have >= int(limit):
            return False
    return True


# ---------------------------------------------------------------------------------------------- rule 13: anarchy

_ANARCHY_WORDS = N_(
    "Anarchy (rule 13): a power that loses all its home centres has one movement season to retake one; if it "
    "fails, it falls into civil disorder for good: every order it sends is refused, its units hold, its "
    "dislodged units are disbanded, it builds nothing and its removals are made for it. It survives until it "
    "has lost every centre."
)
"""Rule 13 in words: one rule, registered with each of the hooks that carry it out."""


def anarchy_status(position: Position, power: str) -> str | None:
    """``"grace"``, ``"disorder"`` or ``None`` (see :data:`ANARCHY_KEY`)."""
    got = position.state.get(ANARCHY_KEY, {})
    status = got.get(power) if isinstance(got, Mapping) else None
    return str(status) if status else None


def in_disorder(position: Position, power: str) -> bool:
    return anarchy_status(position, power) == "disorder"


_DISORDER_EFFECT = {
    PhaseKind.MOVEMENT: N_("the units hold"),
    PhaseKind.RETREATS: N_("the dislodged units are disbanded"),
    PhaseKind.ADJUSTMENTS: N_("nothing is built and removals are made by the civil-disorder rule"),
}


@behaviour("orders_refused", "ad1000_anarchy", _ANARCHY_WORDS)
def anarchy_orders_refused(hooks: RuleHooks, position: Position, power: str) -> Msg | None:
    """Rule 13 puts the power itself out of play, not just its units, so every order it sends is refused.

    The text names what happens instead, since the player reading the report did not choose it.
    """
    if not in_disorder(position, power):
        return None
    effect = _DISORDER_EFFECT.get(hooks.variant.calendar.kind(position.phase), "")
    refused = msg("%(power)s: in civil disorder, no orders are taken", power=power)
    return msg("%(first)s; %(then)s", first=refused, then=msg(effect)) if effect else refused


@behaviour("prepare_orders", "ad1000_anarchy", _ANARCHY_WORDS)
def anarchy_prepare_orders(
    hooks: RuleHooks, position: Position, orders: Mapping[str, Sequence[Order]]
) -> tuple[Position, dict[tuple[str, int], tuple[str, Msg | str]]]:
    """Refuse every order of a power in civil disorder, in every phase, before anything is judged.

    ``may_order`` alone covers only orders to units, so removals (which the adjustment rules accept from
    any power that owes them) would slip through; deciding them here leaves the removals owed to the
    civil-disorder rule, as rule 13 wants, and gives movement and retreat orders the same clear reason.
    """
    decided: dict[tuple[str, int], tuple[str, Msg | str]] = {}
    for power, olist in orders.items():
        if not olist:
            continue
        why = hooks.orders_refused(position, power)
        if why is not None:
            for i in range(len(olist)):
                decided[(power, i)] = ("illegal", why)
    return position, decided


@behaviour("may_order", "ad1000_anarchy", _ANARCHY_WORDS)
def anarchy_may_order(hooks: RuleHooks, position: Position, power: str, unit: Unit) -> bool:
    """A power in civil disorder gives no orders: its units hold and its retreats disband."""
    return unit.power == power and not in_disorder(position, power)


@behaviour("adjustment_delta", "ad1000_anarchy", _ANARCHY_WORDS)
def anarchy_adjustment_delta(hooks: RuleHooks, position: Position, power: str) -> int:
    """In civil disorder a power builds nothing, but still owes removals (made for it)."""
    delta = RuleHooks.adjustment_delta(hooks, position, power)
    return min(delta, 0) if in_disorder(position, power) else delta


def _holds_a_home(hooks: RuleHooks, position: Position, power: str) -> bool:
    """Owns a home centre, or has just retaken one by standing in it (ownership changes only in the Fall)."""
    homes = position.homes.get(power, frozenset())
    if any(position.centres.get(h) == power for h in homes):
        return True
    gmap = hooks.variant.map
    return any(u.power == power and gmap.province_of(u.loc) in homes for u in position.units.values())


@behaviour("phase_end", "ad1000_anarchy", _ANARCHY_WORDS)
def anarchy_phase_end(hooks: RuleHooks, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
    """Rule 13, after every phase.

    A power that owns none of its home centres gets ``"grace"``. When the next movement season is over
    (after its retreats, if any) it must own a home centre again or have a unit standing in one (the
    season's "attempt to recapture"); if not, it falls into ``"disorder"`` for good. A power with no
    centres left is out of the game and is no longer tracked.
    """
    cal = hooks.variant.calendar
    old = before.state.get(ANARCHY_KEY, {}) or {}
    new: dict[str, str] = {}
    # A movement season is over once its movement phase is adjudicated and no retreats of it are pending,
    # or once its retreats are adjudicated; a retreat into a home centre counts as retaking it.
    season_over = (
        cal.kind(before.phase) == PhaseKind.MOVEMENT and cal.kind(after.phase) != PhaseKind.RETREATS
    ) or cal.kind(before.phase) == PhaseKind.RETREATS
    for power in hooks.variant.power_names:
        if not after.centres_of(power):
            continue
        status = old.get(power)
        if status == "disorder":
            new[power] = "disorder"
        elif status == "grace":
            if not _holds_a_home(hooks, after, power):
                new[power] = "disorder" if season_over else "grace"
        elif not any(after.centres.get(h) == power for h in after.homes.get(power, frozenset())):
            new[power] = "grace"
    state = {k: v for k, v in after.state.items() if k != ANARCHY_KEY}
    if new:
        state[ANARCHY_KEY] = new
    return after.with_(state=state)


# ---------------------------------------------------------------------------------------------- rules 11-12


@dataclass(frozen=True, slots=True)
class GameEnd:
    kind: str
    """``"victory"`` (rule 12 b-d), ``"ranked"`` (12 e), ``"last_year"`` (rule 11)."""
    powers: tuple[str, ...]
    """The winner; or the remaining powers, largest first; or the survivors sharing the draw."""
    text: str


def remaining_powers(variant: Variant, position: Position) -> list[str]:
    """Powers still in the game: any supply centre (a power in anarchy remains until it has none, rule 13)."""
    return [p for p in variant.power_names if position.centres_of(p)]


def game_end(variant: Variant, position: Position) -> GameEnd | None:
    """Whether the game ends on reaching ``position`` (rules 11 and 12; a draw by agreement is the game's).

    Checked after every phase; centre counts change only at the end of the year, so the check matters after
    the Fall moves. ``[victory] by_power`` gives each power's target (fallback ``centres``); ``remaining``
    ends the game when that many powers or fewer are left, ranked by size; the calendar's ``last_year``
    ends it once its last phase is done, in a draw of the survivors.
    """
    vic = variant.victory
    targets = vic.get("by_power", {})
    default = vic.get("centres")
    counts = {p: len(position.centres_of(p)) for p in variant.power_names}
    winners = [
        p
        for p in variant.power_names
        if (targets.get(p, default) is not None and counts[p] >= int(targets.get(p, default)))
    ]
    if winners:
        # Two powers cannot both reach 25+ on a board of 93 often, but if they do the larger one wins.
        winners.sort(key=lambda p: (-counts[p], p))
        w = winners[0]
        return GameEnd("victory", (w,), f"{w} win with {counts[w]} supply centres.")
    remaining = remaining_powers(variant, position)
    limit = vic.get("remaining")
    if limit is not None and len(remaining) <= int(limit):
        ranked = tuple(sorted(remaining, key=lambda p: (-counts[p], p)))
        listing = ", ".join(f"{p} ({counts[p]})" for p in ranked)
        return GameEnd("ranked", ranked, f"Only {len(ranked)} powers remain; they rank by size: {listing}.")
    last = variant.calendar.last_year
    if last is not None and position.phase.year > last:
        return GameEnd("last_year", tuple(remaining), f"The game ends after {last}; a draw of {', '.join(remaining)}.")
    return None
