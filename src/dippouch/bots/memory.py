"""What a bot remembers of the game: the moves of its power that failed, so that it does not send the same
failed plan again unchanged (the players' trial saw practice bots bounce in Rumania and Sweden for three years).

A bot is asked for one phase at a time and keeps nothing between calls (a worker process may play a game's
phases in turn, or restart), so its memory is worked out from the game's own record: each movement phase's
orders and their results, in order (:func:`remember`). A move that failed (a bounce, or a stronger defence)
counts one more failure of that plan each movement phase it is sent again and fails; a movement phase in which
it is not sent, or succeeds, forgets it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from dippouch.bots.engine import DippouchError, Move, Order, OrderResult, Outcome, PhaseKind, Variant, parse_order

__all__ = ["RECALLED", "Memory", "recalled", "remember"]


@dataclass(frozen=True)
class Memory:
    """A power's failed plans: (province moved from, province moved to) -> how many movement phases in a row
    the move was sent and failed."""

    failed: Mapping[tuple[int, int], int] = field(default_factory=lambda: MappingProxyType({}))

    def failures(self, src: int, dest: int) -> int:
        """How many times in a row the move from ``src`` to ``dest`` (provinces) has failed just now."""
        return self.failed.get((src, dest), 0)


def remember(variant: Variant, memory: Memory | None, power: str, results: Iterable[OrderResult]) -> Memory:
    """``memory`` after one more movement phase whose results are ``results`` (every power's; only ``power``'s
    moves are remembered, the failed ones counted on, the others forgotten)."""
    before = memory.failed if memory is not None else {}
    prov_of = variant.map.province_of
    now: dict[tuple[int, int], int] = {}
    for r in results:
        order: Order = r.order
        if r.power != power or r.automatic or not isinstance(order, Move):
            continue
        if r.result is Outcome.FAILS:
            key = (prov_of(order.loc), prov_of(order.dest))
            now[key] = before.get(key, 0) + 1
    return Memory(MappingProxyType(now))


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
            if r.get("power") not in wanted or r.get("result") != Outcome.FAILS.value or r.get("automatic"):
                continue
            try:
                order = parse_order(variant, str(r["order"]), phase_kind=PhaseKind.MOVEMENT)
            except (DippouchError, KeyError, ValueError):
                continue
            parsed.append(OrderResult(str(r["power"]), order, Outcome.FAILS))
        memories = {p: remember(variant, memories.get(p), p, parsed) for p in wanted}
    return memories
