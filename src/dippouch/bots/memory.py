"""What a bot remembers of the game: the moves of its power that failed (so that it does not send the same
failed plan again unchanged: the players' trial saw practice bots bounce in Rumania and Sweden for three years),
who attacked whom, which supports were given and which refused, and where other powers' units just arrived.

A bot is asked for one phase at a time and keeps nothing between calls (a worker process may play a game's
phases in turn, or restart), so its memory is worked out from the game's own record: each movement phase's
orders and their results, in order (:func:`remember`). A move that failed (a bounce, or a stronger defence)
counts one more failure of that plan each movement phase it is sent again and fails; a movement phase in which
it is not sent, or succeeds, forgets it. Attacks and supports fade: each movement phase halves what was
counted before and adds what the phase saw, so a power that attacked once a year ago is nearly forgiven, and
one that attacks every phase is read as at war (:meth:`Memory.at_war`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from dippouch.bots.engine import (
    DippouchError,
    Move,
    Order,
    OrderResult,
    Outcome,
    PhaseKind,
    Support,
    Variant,
    parse_order,
)

__all__ = ["FADE", "RECALLED", "WAR", "Memory", "recalled", "remember"]

FADE = 0.5
"""Each movement phase keeps this share of the attacks and supports counted before it."""
WAR = 0.9
"""Attacks (faded) from one power on another at and above which they are read as at war."""

_Pairs = Mapping[tuple[str, str], float]


def _empty() -> _Pairs:
    return MappingProxyType({})


@dataclass(frozen=True)
class Memory:
    """What a power's bot knows of the game's last movement phases.

    ``failed``: (province moved from, province moved to) -> how many movement phases in a row the power's move
    was sent and failed. ``attacks``: (attacker, attacked) -> faded count of moves and supported moves by the
    attacker's units into provinces the attacked power's units stood in. ``helped``: (helper, helped) -> faded
    count of supports one power's units gave another's (a hold or a move). ``refused``: (supporter, refuser) ->
    faded count of supports given to another power's unit that it did not take (it moved elsewhere, so the
    support came to nothing). ``arrived``: (power, province) of every unit that moved in the last movement
    phase (the stab guard watches units that came to a power's borders). ``backing``: for each move in
    ``failed``, how many of the power's own units supported it when it last failed (sent again, it needs
    more: the same move with the same support is the same plan)."""

    failed: Mapping[tuple[int, int], int] = field(default_factory=lambda: MappingProxyType({}))
    attacks: _Pairs = field(default_factory=_empty)
    helped: _Pairs = field(default_factory=_empty)
    refused: _Pairs = field(default_factory=_empty)
    arrived: frozenset[tuple[str, int]] = frozenset()
    backing: Mapping[tuple[int, int], int] = field(default_factory=lambda: MappingProxyType({}))
    last: Mapping[int, tuple[str, Order]] = field(default_factory=lambda: MappingProxyType({}))
    """Every power's orders of the last movement phase, by the province the unit stood in: (power, order).
    Players repeat themselves (a unit that bounced tries again, a support stays where it was needed), so the
    search level samples the others' replies partly from what they did last."""

    def failures(self, src: int, dest: int) -> int:
        """How many times in a row the move from ``src`` to ``dest`` (provinces) has failed just now."""
        return self.failed.get((src, dest), 0)

    def supports_had(self, src: int, dest: int) -> int:
        """How many own supports the failed move from ``src`` to ``dest`` had when it last failed."""
        return self.backing.get((src, dest), 0)

    def hostility(self, attacker: str, attacked: str) -> float:
        """How much ``attacker`` has attacked ``attacked`` lately, less what it helped it (never below 0)."""
        return max(0.0, self.attacks.get((attacker, attacked), 0.0) - self.helped.get((attacker, attacked), 0.0))

    def at_war(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are at war: one has attacked the other lately (about once in the last phase,
        or twice in the last few), more than it helped."""
        return self.hostility(a, b) >= WAR or self.hostility(b, a) >= WAR

    def enemies(self, power: str) -> set[str]:
        """The powers at war with ``power``."""
        names = {a for a, _ in self.attacks} | {b for _, b in self.attacks}
        return {p for p in names if p != power and self.at_war(p, power)}

    def friendly(self, other: str, power: str) -> bool:
        """Whether ``other`` has helped ``power`` lately and not attacked it."""
        return self.helped.get((other, power), 0.0) > 0 and self.attacks.get((other, power), 0.0) < WAR / 2

    def busy(self, other: str, power: str) -> bool:
        """Whether ``other`` is at war with a power that is not ``power`` (its units are needed elsewhere)."""
        names = {a for a, _ in self.attacks} | {b for _, b in self.attacks}
        return any(self.at_war(other, p) for p in names if p not in (other, power))


def _fade(before: _Pairs, now: dict[tuple[str, str], float]) -> _Pairs:
    out = {k: v * FADE for k, v in before.items() if v * FADE >= 0.05}
    for k, v in now.items():
        out[k] = out.get(k, 0.0) + v
    return MappingProxyType(out)


def remember(variant: Variant, memory: Memory | None, power: str, results: Iterable[OrderResult]) -> Memory:
    """``memory`` after one more movement phase whose results are ``results`` (every power's: ``power``'s
    failed moves are counted on and the others forgotten; every power's attacks and supports are counted)."""
    before = memory if memory is not None else Memory()
    prov_of = variant.map.province_of
    results = list(results)
    # Who stood where as the phase began: every unit has an order (automatic holds included).
    owner: dict[int, str] = {}
    for r in results:
        loc = r.order.unit_loc
        if loc is not None:
            owner[prov_of(loc)] = r.power
    moves = {
        prov_of(r.order.loc): prov_of(r.order.dest)
        for r in results
        if isinstance(r.order, Move) and r.result not in (Outcome.ILLEGAL, Outcome.INVALID)
    }
    now: dict[tuple[int, int], int] = {}
    own_supports: dict[tuple[int, int], int] = {}
    for r in results:
        o = r.order
        if r.power == power and isinstance(o, Support) and o.dest is not None and r.result is not Outcome.ILLEGAL:
            key = (prov_of(o.target), prov_of(o.dest))
            own_supports[key] = own_supports.get(key, 0) + 1
    attacks: dict[tuple[str, str], float] = {}
    helped: dict[tuple[str, str], float] = {}
    refused: dict[tuple[str, str], float] = {}
    arrived: set[tuple[str, int]] = set()
    for r in results:
        order: Order = r.order
        if r.automatic:
            continue
        if isinstance(order, Move):
            src, dest = prov_of(order.loc), prov_of(order.dest)
            if r.power == power and r.result is Outcome.FAILS:
                now[(src, dest)] = before.failures(src, dest) + 1
            victim = owner.get(dest)
            if victim is not None and victim != r.power and r.result not in (Outcome.ILLEGAL, Outcome.INVALID):
                attacks[(r.power, victim)] = attacks.get((r.power, victim), 0.0) + 1.0
            if r.result is Outcome.SUCCEEDS:
                arrived.add((r.power, dest))
        elif isinstance(order, Support) and r.result is not Outcome.ILLEGAL:
            target = prov_of(order.target)
            supported = owner.get(target)
            if supported is None or supported == r.power:
                continue
            to = prov_of(order.dest) if order.dest is not None else None
            taken = moves.get(target) == to if to is not None else target not in moves
            if not taken:
                refused[(r.power, supported)] = refused.get((r.power, supported), 0.0) + 1.0
                continue
            helped[(r.power, supported)] = helped.get((r.power, supported), 0.0) + 1.0
            victim = owner.get(to) if to is not None else None
            if victim is not None and victim != r.power:
                attacks[(r.power, victim)] = attacks.get((r.power, victim), 0.0) + 0.5
    return Memory(
        MappingProxyType(now),
        _fade(before.attacks, attacks),
        _fade(before.helped, helped),
        _fade(before.refused, refused),
        frozenset(arrived),
        MappingProxyType({k: own_supports.get(k, 0) for k in now}),
        MappingProxyType(
            {
                prov_of(r.order.unit_loc): (r.power, r.order)
                for r in results
                if not r.automatic and r.order.unit_loc is not None
            }
        ),
    )


RECALLED = 4
"""Movement phases read back from a stored game: a move failing longer in a row than this counts as this."""


def recalled(
    variant: Variant, phases: Iterable[Sequence[Mapping[str, Any]]], powers: Iterable[str]
) -> dict[str, Memory]:
    """Each of ``powers``' memory from a stored game's processed movement phases, oldest first (each phase's
    results as the store keeps them: power, order text, result, automatic); only the last :data:`RECALLED`
    are read. An order the variant no longer reads is left out (it can only make the memory shorter)."""
    wanted = list(powers)
    memories: dict[str, Memory] = {}
    for results in list(phases)[-RECALLED:]:
        parsed: list[OrderResult] = []
        for r in results:
            try:
                order = parse_order(variant, str(r["order"]), phase_kind=PhaseKind.MOVEMENT)
                outcome = Outcome(str(r.get("result")))
            except (DippouchError, KeyError, ValueError):
                continue
            parsed.append(OrderResult(str(r["power"]), order, outcome, automatic=bool(r.get("automatic"))))
        memories = {p: remember(variant, memories.get(p), p, parsed) for p in wanted}
    return memories
