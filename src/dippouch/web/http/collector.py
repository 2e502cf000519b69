"""The garbage collector of ``dippouch serve``: full collections that walk only what is new.

A full collection stops every thread of the process (it holds the interpreter lock), so no request is
answered while it runs. ``serve`` freezes what starting made (the collector's permanent generation), but what
the server keeps afterwards (variants loaded for a new game, sandboxes, caches of pages and maps) is walked
again at every full collection: measured with one hostile person beside 50 players (benchmarks/README.md,
issue 52), some 100,000 such objects and 70-90 ms of CPU a collection, one every 5-10 s, the stall a
player's page or submission met.

:func:`install` makes each full collection freeze what it found alive, so the next one walks only what was made
since (a few milliseconds). What is frozen is never walked, so a cycle of objects that dies after its freezing
is not freed: once the frozen objects have grown by :data:`GROWTH` times their number at the last true
collection, the next full collection is a true one (everything unfrozen, walked once, the survivors frozen
again), as Go's collector runs when its heap has grown by ``GOGC`` percent. The memory such cycles hold is
bounded by that growth; the rare true collection costs what every full collection cost before.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

__all__ = ["GROWTH", "Collector", "install"]

GROWTH = 1.0
"""How much the frozen objects may grow (1.0: double) before a true full collection."""


@dataclass
class Collector:
    """What the collector's callback keeps between collections."""

    growth: float
    limit: int
    """Frozen objects past which the next full collection is a true one."""
    true_next: bool = False
    """Everything was unfrozen: the next full collection walks it all."""
    true_collections: int = 0
    young_collections: int = 0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        # The collection is over when "stop" is called: moving the survivors to the permanent generation
        # is a merge of the collector's lists, safe here.
        gc.freeze()
        if self.true_next:
            self.true_next = False
            self.true_collections += 1
            self.limit = self._limit(gc.get_freeze_count())
            return
        self.young_collections += 1
        if gc.get_freeze_count() > self.limit:
            gc.unfreeze()
            self.true_next = True

    def _limit(self, frozen: int) -> int:
        return int(frozen * (1.0 + self.growth)) + 1


def install(growth: float = GROWTH) -> Collector:
    """Freeze what the process holds now (a true full collection first) and keep each later full collection
    to what is new; returns the callback (``gc.callbacks.remove`` it to stop)."""
    gc.collect()
    gc.freeze()
    collector = Collector(growth, 0)
    collector.limit = collector._limit(gc.get_freeze_count())
    gc.callbacks.append(collector)
    return collector
