"""Home centres chosen in play: the 1897 family of rules.

A game may open with an adjustment phase on an empty board in which each power builds a fixed number of
units on sites of its choice and owns only what it built on (1897, 1898). Later, at the start of a given
year's adjustments, every centre a power owns may become its home centre for the rest of the game, and
only those: a captured home centre changes hands with its new owner (1897's rules 3 to 5).

Everything is chosen by ``[rules]`` data:

* ``adjustment_delta = "opening_builds"`` with ``opening_builds = N``: in the variant's first phase
  every power has exactly N builds whatever it owns (it owns nothing yet).
* ``build_sites = "chosen_homes"``: in the first phase, the power's ``opening_sites`` (default: its
  regular home centres; 1897 leaves St Petersburg out of Russia's); afterwards the standard rule (owned
  home centres), or any owned centre before ``homes_from_owned_year`` when ``early_build_sites = "owned"``.
* ``phase_end = ["opening_builds_own", "homes_from_owned"]``: a centre built on in the first phase
  becomes the builder's; when play reaches the adjustments of ``homes_from_owned_year`` (or passes the
  point where they would be, if nobody had adjustments), each power's homes become the centres it owns.
"""

from __future__ import annotations

from collections.abc import Sequence

from dippouch.core.calendar import Phase, PhaseKind
from dippouch.core.messages import N_
from dippouch.core.orders import Build
from dippouch.core.position import Position
from dippouch.core.results import OrderResult, Outcome
from dippouch.core.rules.base import RuleHooks, behaviour

__all__ = ["homes_fixed_at", "opening_sites"]

I18N_DOMAIN = "rules"
"""The catalogue of the messages said here (locale/<lang>/LC_MESSAGES/rules.po)."""


def _is_opening(hooks: RuleHooks, position: Position) -> bool:
    """The variant's first phase, an adjustment phase on the starting board."""
    start = hooks.variant.start.phase
    return position.phase == start and hooks.variant.calendar.kind(start) == PhaseKind.ADJUSTMENTS


def homes_fixed_at(hooks: RuleHooks) -> Phase | None:
    """The adjustment phase at whose start owned centres become home centres, or None if never."""
    year = hooks.rules.get("homes_from_owned_year")
    if year is None:
        return None
    cal = hooks.variant.calendar
    for step, s in enumerate(cal.steps):
        if s.kind == PhaseKind.ADJUSTMENTS:
            return Phase(int(year), step)
    return None


def opening_sites(hooks: RuleHooks, power: str) -> frozenset[int]:
    """Where ``power`` may build in the opening: ``[rules.opening_sites]`` or its regular home centres."""
    listed = hooks.rules.get("opening_sites", {}).get(power)
    if listed is None:
        return hooks.variant.start.homes.get(power, frozenset())
    gmap = hooks.variant.map
    return frozenset(gmap.province_of(gmap.loc(str(name))) for name in listed)


@behaviour(
    "adjustment_delta",
    "opening_builds",
    N_("In the opening winter every power builds one unit on a centre of its choosing."),
)
def opening_delta(hooks: RuleHooks, position: Position, power: str) -> int:
    """Exactly ``opening_builds`` builds each in the opening (nobody owns a centre yet); standard later."""
    if _is_opening(hooks, position):
        return int(hooks.rules.get("opening_builds", 1)) - len(position.units_of(power))
    return RuleHooks.adjustment_delta(hooks, position, power)


@behaviour(
    "build_sites",
    "chosen_homes",
    N_("Each power chooses its first home centre in the opening winter; owned centres become homes later."),
)
def chosen_home_sites(hooks: RuleHooks, position: Position, power: str) -> frozenset[int]:
    """Opening: the power's opening sites. Then owned home centres (or, optionally, any owned centre
    until home centres are fixed, as DPjudge and vDiplomacy play 1897)."""
    if _is_opening(hooks, position):
        return opening_sites(hooks, power)
    fixed = homes_fixed_at(hooks)
    owned = frozenset(p for p, o in position.centres.items() if o == power)
    if fixed is not None and position.phase == fixed:
        # The winter the homes are redefined: its owned centres ARE its homes. Said here as well as in
        # the phase-end step, because the adjudicator asks whether anybody can build in this winter
        # (to decide whether to skip it) before phase-end behaviours run.
        return owned
    if hooks.rules.get("early_build_sites") == "owned" and fixed is not None and position.phase < fixed:
        return owned
    return RuleHooks.build_sites(hooks, position, power)


@behaviour("phase_end", "opening_builds_own", N_("A centre built on in the opening winter becomes the builder's."))
def opening_builds_own(hooks: RuleHooks, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
    """A centre built on in the opening becomes the builder's: it is the only centre a power owns."""
    if not _is_opening(hooks, before):
        return after
    gmap = hooks.variant.map
    centres = dict(after.centres)
    for r in results:
        if isinstance(r.order, Build) and r.result == Outcome.SUCCEEDS:
            prov = gmap.province_of(r.order.loc)
            if gmap.provinces[prov].supply_centre:
                centres[prov] = r.power
    return after.with_(centres=centres)


@behaviour(
    "phase_end",
    "homes_from_owned",
    N_("From the year the variant names, the centres a power owns become its home centres."),
)
def homes_from_owned(hooks: RuleHooks, before: Position, after: Position, results: Sequence[OrderResult]) -> Position:
    """At the start of the ``homes_from_owned_year`` adjustments, owned centres become the only homes.

    Runs once, on the step that reaches (or skips past) that adjustment phase, after centre ownership
    has been updated, so the adjustments of that very winter already build on the new homes.
    """
    fixed = homes_fixed_at(hooks)
    if fixed is None or not (before.phase < fixed <= after.phase):
        return after
    homes: dict[str, frozenset[int]] = {p.name: frozenset() for p in hooks.variant.powers}
    for prov, owner in after.centres.items():
        homes[owner] = homes.get(owner, frozenset()) | {prov}
    return after.with_(homes=homes)
