"""Convoy routes: chains of fleets in sea provinces. Shared by the adjudicator and legal-order generation."""

from __future__ import annotations

from collections.abc import Callable, Container

from dippouch.core.mapdata import GameMap, ProvinceKind

__all__ = ["convoy_path_exists", "is_convoy_endpoint"]


def is_convoy_endpoint(gmap: GameMap, province: int) -> bool:
    """Only coastal provinces can be where a convoyed army starts or lands."""
    return gmap.provinces[province].kind == ProvinceKind.COAST


def convoy_path_exists(
    gmap: GameMap,
    src: int,
    dst: int,
    fleets: Container[int] | Callable[[int], bool],
    *,
    avoid: int | None = None,
) -> bool:
    """Whether an army in province ``src`` could be convoyed to ``dst`` through sea provinces in ``fleets``.

    ``fleets`` holds the sea provinces whose fleets may take part (a set, or a predicate). ``avoid`` is a
    sea province left out, which is how "is this fleet necessary for some route" questions are asked.
    """
    if src == dst or not is_convoy_endpoint(gmap, src) or not is_convoy_endpoint(gmap, dst):
        return False
    ok: Callable[[int], bool] = fleets if callable(fleets) else fleets.__contains__
    seas = gmap.seas_next_to
    targets = seas[dst]
    frontier = [s for s in seas[src] if s != avoid and ok(s)]
    seen = set(frontier)
    while frontier:
        sea = frontier.pop()
        if sea in targets:
            return True
        for nxt in gmap.fleet_reach[sea]:
            if nxt not in seen and nxt != avoid and gmap.provinces[nxt].kind == ProvinceKind.SEA and ok(nxt):
                seen.add(nxt)
                frontier.append(nxt)
    return False
