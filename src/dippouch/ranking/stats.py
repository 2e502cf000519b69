"""A game's statistics from its phases as plain values: centres by power over time, and its key events (the
first centre to change hands, eliminations, stabs).

The phases are handed in (:class:`GameHistory`), never read from the store; orders and their fates are the
core's own values (:class:`~dippouch.core.results.OrderResult` with its :mod:`~dippouch.core.orders` order).
Locations are the compiled map's ids; ``province_of`` maps a coast to its province (a fleet on Spain's south
coast stands in Spain), and ids it does not list are provinces already.

A stab, as detected here, is either

- an attack on a power one supported: a power's unit moves (successfully or not) into a province held by
  another power (its unit stands there, or it owns the centre there) whose unit the mover supported in the
  previous movement phase; or
- a broken support: a power's unit moves against a unit of another power that is, in this very phase,
  ordered to support one of the mover's units (the mover cuts the support it is given).

Only orders that were judged count (not illegal nor invalid ones): an order the adjudicator threw out
attacked or supported nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from dippouch.core.orders import Move, Support
from dippouch.core.results import OrderResult, Outcome

__all__ = [
    "EventKind",
    "GameEvent",
    "GameHistory",
    "PhaseFacts",
    "centre_series",
    "eliminations",
    "first_centre_taken",
    "key_events",
    "stabs",
]

_THROWN_OUT = frozenset({Outcome.ILLEGAL, Outcome.INVALID})


@dataclass(frozen=True, slots=True)
class PhaseFacts:
    """One phase as it stood before its orders were adjudicated, and the orders' fates."""

    name: str
    """The phase's short name ("S1901M")."""
    year: int
    season: str
    kind: str
    """The core's :class:`~dippouch.core.calendar.PhaseKind` value ("movement", "retreats", "adjustments");
    only movement phases are read for stabs."""
    centres: Mapping[str, frozenset[int]]
    """Power -> the centre provinces it owns at the start of the phase."""
    units: Mapping[str, tuple[int, ...]]
    """Power -> the locations of its units at the start of the phase."""
    results: tuple[OrderResult, ...] = ()
    """The phase's orders with their results (movement phases)."""

    @property
    def movement(self) -> bool:
        return self.kind == "movement"


@dataclass(frozen=True, slots=True)
class GameHistory:
    phases: tuple[PhaseFacts, ...]
    province_of: Mapping[int, int] = field(default_factory=dict)
    """Location -> province, for coasts; other ids are their own province."""

    def province(self, loc: int) -> int:
        return self.province_of.get(loc, loc)

    @property
    def powers(self) -> tuple[str, ...]:
        """Every power named in any phase, in order of first appearance."""
        seen: dict[str, None] = {}
        for phase in self.phases:
            for power in (*phase.centres, *phase.units):
                seen.setdefault(power)
        return tuple(seen)


class EventKind(StrEnum):
    CENTRE_TAKEN = "centre taken"
    ELIMINATED = "eliminated"
    STAB_ATTACK = "attacked a power it supported"
    STAB_CUT = "cut a support it was given"


@dataclass(frozen=True, slots=True)
class GameEvent:
    phase: str
    kind: EventKind
    power: str
    """Who acted (took the centre, stabbed) or, for an elimination, who fell."""
    other: str | None = None
    """Who lost the centre or was stabbed."""
    province: int | None = None


def centre_series(history: GameHistory) -> Mapping[str, tuple[int, ...]]:
    """Power -> its centre count at the start of every phase, aligned with ``history.phases``."""
    return MappingProxyType(
        {
            power: tuple(len(phase.centres.get(power, frozenset())) for phase in history.phases)
            for power in history.powers
        }
    )


def _owners(phase: PhaseFacts) -> dict[int, str]:
    return {prov: power for power, provs in phase.centres.items() for prov in provs}


def first_centre_taken(history: GameHistory) -> GameEvent | None:
    """The first centre one power owned and another owns a phase later (a neutral taken is not one)."""
    for before, after in zip(history.phases, history.phases[1:], strict=False):
        was, now = _owners(before), _owners(after)
        taken = sorted((prov, now[prov], owner) for prov, owner in was.items() if now.get(prov, owner) != owner)
        if taken:
            prov, taker, loser = taken[0]
            return GameEvent(after.name, EventKind.CENTRE_TAKEN, taker, loser, prov)
    return None


def eliminations(history: GameHistory) -> list[GameEvent]:
    """Each power that held centres or units and, from some phase on, holds neither: the phase it is first
    seen with nothing."""
    out: list[GameEvent] = []
    alive: set[str] = set()
    gone: set[str] = set()
    for phase in history.phases:
        for power in history.powers:
            holds = bool(phase.centres.get(power)) or bool(phase.units.get(power))
            if holds:
                alive.add(power)
                gone.discard(power)
            elif power in alive and power not in gone:
                gone.add(power)
                out.append(GameEvent(phase.name, EventKind.ELIMINATED, power))
    return out


def _occupants(history: GameHistory, phase: PhaseFacts) -> dict[int, str]:
    """Province -> the power whose unit stands there at the start of ``phase``."""
    return {history.province(loc): power for power, locs in phase.units.items() for loc in locs}


def _judged(phase: PhaseFacts) -> list[OrderResult]:
    return [r for r in phase.results if r.result not in _THROWN_OUT]


def _supported(history: GameHistory, phase: PhaseFacts) -> set[tuple[str, str]]:
    """(supporter, supported) for every judged support one power gave another's unit in ``phase``."""
    occupant = _occupants(history, phase)
    out: set[tuple[str, str]] = set()
    for r in _judged(phase):
        if isinstance(r.order, Support):
            owner = occupant.get(history.province(r.order.target))
            if owner is not None and owner != r.power:
                out.add((r.power, owner))
    return out


def stabs(history: GameHistory) -> list[GameEvent]:
    """Every stab (see the module's docstring), in phase order, each (phase, stabber, victim, province) once."""
    out: list[GameEvent] = []
    seen: set[tuple[str, EventKind, str, str, int]] = set()
    previous: PhaseFacts | None = None
    for phase in history.phases:
        if not phase.movement:
            continue
        occupant = _occupants(history, phase)
        owner = _owners(phase)
        helped = _supported(history, previous) if previous is not None else set()
        # Province of a supporting unit -> (its power, the power it supports): the supports given this phase.
        giving: dict[int, tuple[str, str]] = {}
        for r in _judged(phase):
            if isinstance(r.order, Support):
                target_owner = occupant.get(history.province(r.order.target))
                if target_owner is not None and target_owner != r.power:
                    giving[history.province(r.order.loc)] = (r.power, target_owner)
        for r in _judged(phase):
            if not isinstance(r.order, Move):
                continue
            dest = history.province(r.order.dest)
            found: list[tuple[EventKind, str]] = []
            helper = giving.get(dest)
            if helper is not None and helper[1] == r.power:
                found.append((EventKind.STAB_CUT, helper[0]))
            for held_by in dict.fromkeys((occupant.get(dest), owner.get(dest))):
                if held_by is not None and held_by != r.power and (r.power, held_by) in helped:
                    found.append((EventKind.STAB_ATTACK, held_by))
            for kind, victim in found:
                key = (phase.name, kind, r.power, victim, dest)
                if key not in seen:
                    seen.add(key)
                    out.append(GameEvent(phase.name, kind, r.power, victim, dest))
        previous = phase
    return out


def key_events(history: GameHistory) -> list[GameEvent]:
    """The first centre taken, the eliminations and the stabs, in the order of the game's phases."""
    order = {phase.name: i for i, phase in enumerate(history.phases)}
    first = first_centre_taken(history)
    events = ([first] if first else []) + eliminations(history) + stabs(history)
    return sorted(events, key=lambda e: order.get(e.phase, len(order)))
