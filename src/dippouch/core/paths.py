"""Convoy routes: chains of fleets in sea provinces. Shared by the adjudicator and legal-order generation."""

from __future__ import annotations

from collections.abc import Callable, Container

from dippouch.core.mapdata import GameMap, ProvinceKind

__all__ = ["convoy_path_exists", "is_convoy_endpoint"]


def _kinds(gmap: GameMap) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """(coastal, sea) flags by province id, worked out once per map (kept on it): route searches run per order."""
    got: tuple[tuple[bool, ...], tuple[bool, ...]] | None = gmap.derived.get("paths.kinds")
    if got is None:
        coastal = tuple(p.kind == ProvinceKind.COAST for p in gmap.provinces)
        sea = tuple(p.kind == ProvinceKind.SEA for p in gmap.provinces)
        got = gmap.derived["paths.kinds"] = (coastal, sea)
    return got


def is_convoy_endpoint(gmap: GameMap, province: int) -> bool:
    """Only coastal provinces can be where a convoyed army starts or lands."""
    return _kinds(gmap)[0][province]


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
    coastal, is_sea = _kinds(gmap)
    if src == dst or not coastal[src] or not coastal[dst]:
        return False
    ok: Callable[[int], bool] = fleets if callable(fleets) else fleets.__contains__
    seas = gmap.seas_next_to
    targets = seas[dst]
    frontier = [s for s in seas[src] if s != avoid and ok(s)]
    seen = set(frontier)
    reach = gmap.fleet_reach
    while frontier:
        sea = frontier.pop()
        if sea in targets:
            return True
        for nxt in reach[sea]:
            if nxt not in seen and nxt != avoid and is_sea[nxt] and ok(nxt):
                seen.add(nxt)
                frontier.append(nxt)
    return False


def fleet_on_proper_route(
    gmap: GameMap,
    src: int,
    dst: int,
    fleets: Container[int],
    fleet: int,
) -> bool:
    """Whether the fleet in sea province ``fleet`` lies on a *proper* convoy route from ``src`` to ``dst``.

    DATC 4.E.1 / 6.G.19: a convoy order is legal only if the fleet is necessary for at least one route,
    and a route is proper when it never jumps to a province that an earlier province of the route already
    touches (no short cut is possible). Routes run through sea provinces in ``fleets``; the land border
    between ``src`` and ``dst`` (a convoy to an adjacent province) is not part of the convoy graph.
    """
    if src == dst or fleet not in fleets:
        return False
    if not is_convoy_endpoint(gmap, src) or not is_convoy_endpoint(gmap, dst):
        return False
    seas = gmap.seas_next_to
    near_src = seas[src]
    near_dst = seas[dst]
    reach = gmap.fleet_reach
    sea_kind = ProvinceKind.SEA

    def ok(s: int) -> bool:
        return s in fleets and gmap.provinces[s].kind == sea_kind

    path: list[int] = []

    def dfs(sea: int, used: bool) -> bool:
        used = used or sea == fleet
        if sea in near_dst:
            # Finishing here is proper; going on would skip a shorter route to dst.
            return used
        path.append(sea)
        try:
            for nxt in reach[sea]:
                if nxt in path or not ok(nxt) or nxt in near_src:
                    continue
                # nxt must not touch any route province before ``sea`` (else a short cut exists).
                if any(nxt in reach[p] for p in path[:-1]):
                    continue
                if dfs(nxt, used):
                    return True
        finally:
            path.pop()
        return False

    return any(ok(s) and dfs(s, False) for s in near_src)
