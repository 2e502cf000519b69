"""Where a map with no picture puts its provinces: a layout of its border graph that reads as a board.

An imported map without its source's picture has points from a force-directed layout of its borders
(``interop/pictures.py``). Drawn as they are, a few provinces on the rim stretch into slivers across the
board and most crowd into a corner (DPjudge's Britain, MILA's Colonial, Empire, World), and fitting such
a drawing to the graph took minutes. Those points say nothing about geography, so the builder lays the
board out again itself, deterministically:

1. **Stress layout** (stress majorization, SMACOF, started from classical scaling) of the graph distances
   between provinces: provinces k borders apart end up about k steps apart, so the graph is spread evenly
   instead of crowding where a force layout's repulsion lost to its springs.
2. **Area equalisation** (Lloyd's relaxation): each point moves to the centre of its Voronoi cell in a
   rectangle shaped like the layout, with a pull towards its neighbours so the graph's arrangement holds;
   the cells end up of nearly equal area, so every province has room for its name and unit. A cell larger
   than the median is held the less the larger it is, so the frame's corners do not go to one rim province.

The fitting step (fit.py) then makes the drawn borders equal the graph, as for any map.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np
import shapely
from shapely.errors import GEOSException
from shapely.geometry import MultiPoint, Polygon, box

from dippouch.render.mapgen.graph import BorderGraph

__all__ = ["SPAN_KM", "border_layout"]

#: The longer side of a laid-out board, in km (as an imported picture's: 20 degrees about 0°N 0°E).
SPAN_KM = 2200.0


def _edges(graph: BorderGraph) -> set[tuple[str, str]]:
    return {e for e in (*graph.land, *graph.sea, *graph.connectors) if e[0] != e[1]}


def _distances(n: int, adj: list[list[int]]) -> np.ndarray:
    """Hops between every two provinces; provinces in separate pieces of the graph one more than the
    longest path apart (so the pieces lie side by side)."""
    d = np.full((n, n), -1.0)
    for s in range(n):
        d[s, s] = 0
        q = deque([s])
        while q:
            x = q.popleft()
            for y in adj[x]:
                if d[s, y] < 0:
                    d[s, y] = d[s, x] + 1
                    q.append(y)
    far = float(d.max()) + 1 if n else 1.0
    d[d < 0] = max(far, 2.0)
    return d


def _classical(d: np.ndarray) -> np.ndarray:
    """Classical scaling (Torgerson): the 2-D configuration whose distances best match ``d``; signs fixed
    so the result does not depend on the eigen-solver."""
    n = len(d)
    j = np.eye(n) - 1.0 / n
    b = -0.5 * j @ (d**2) @ j
    vals, vecs = np.linalg.eigh(b)
    order = np.argsort(vals)[::-1][:2]
    x = vecs[:, order] * np.sqrt(np.maximum(vals[order], 1e-9))
    for k in range(x.shape[1]):
        i = int(np.argmax(np.abs(x[:, k])))
        if x[i, k] < 0:
            x[:, k] = -x[:, k]
    if x.shape[1] < 2:
        x = np.column_stack([x, np.zeros(n)])
    # A graph with no spread (one province, or all at one spot) still gets distinct points.
    out: np.ndarray = x + 1e-3 * np.column_stack([np.cos(np.arange(n)), np.sin(np.arange(n))])
    return out


def _smacof(d: np.ndarray, x: np.ndarray, iterations: int = 300) -> np.ndarray:
    """Stress majorization with weights 1/d^2 (the Guttman transform), from ``x``."""
    n = len(d)
    with np.errstate(divide="ignore"):
        w = np.where(d > 0, 1.0 / np.maximum(d, 1e-9) ** 2, 0.0)
    np.fill_diagonal(w, 0.0)
    v = -w.copy()
    np.fill_diagonal(v, w.sum(axis=1))
    vp = np.linalg.pinv(v + 1.0 / n) - 1.0 / n  # pseudo-inverse of V (its null space is the constants)
    last = np.inf
    for _ in range(iterations):
        diff = x[:, None, :] - x[None, :, :]
        dist = np.sqrt((diff**2).sum(axis=2))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(dist > 1e-12, w * d / dist, 0.0)
        bm = -ratio
        np.fill_diagonal(bm, ratio.sum(axis=1))
        x = vp @ (bm @ x)
        stress = float((w * (dist - d) ** 2).sum())
        if last - stress < 1e-6 * max(last, 1.0):
            break
        last = stress
    return x


def _lloyd(x: np.ndarray, adj: list[list[int]], frame: Polygon, iterations: int = 80, pull: float = 0.15) -> np.ndarray:
    """Lloyd's relaxation in ``frame``: each point to its cell's centroid, pulled a little towards its
    neighbours' middle, so cells even out in area while bordering provinces stay side by side."""
    n = len(x)
    if n < 3:
        return x
    extend = frame.buffer(frame.length)
    x0, y0, x1, y1 = frame.bounds
    step = float(np.sqrt(frame.area / n))
    for _ in range(iterations):
        pts = MultiPoint([tuple(p) for p in x])
        try:
            cells = list(shapely.voronoi_polygons(pts, extend_to=extend, ordered=True).geoms)
        except GEOSException:
            break  # points nearly on one spot: the layout as it stands
        if len(cells) != n:
            break  # two points on one spot: keep what we have
        clipped = shapely.intersection(np.array(cells, dtype=object), frame)
        cent = np.array(
            [[c.centroid.x, c.centroid.y] if not c.is_empty else list(p) for c, p in zip(clipped, x, strict=True)]
        )
        mid = np.array([x[a].mean(axis=0) if a else x[i] for i, a in enumerate(adj)])
        # A cell larger than the median is held back by its neighbours (the pull and the contacts' moves)
        # the less the larger it is, so it moves into its own room: held as hard as any, provinces on the
        # rim were pulled inwards while their cells filled a corner of the frame (MILA's World: 6 times
        # the median before fitting, 9.4 after; a 400-province graph: 7.3).
        area = np.array([c.area for c in clipped])
        small = np.clip(np.median(area) / np.maximum(area, 1e-12), 0.0, 1.0)[:, None] ** 2
        held = pull * small
        new = (1 - held) * cent + held * mid + small * _contacts(x, adj, step)
        new[:, 0] = np.clip(new[:, 0], x0 + 1e-6, x1 - 1e-6)
        new[:, 1] = np.clip(new[:, 1], y0 + 1e-6, y1 - 1e-6)
        moved = float(np.abs(new - x).max())
        x = new
        if moved < 1e-4 * (x1 - x0):
            break
    return x


def _contacts(x: np.ndarray, adj: list[list[int]], step: float, rate: float = 0.25) -> np.ndarray:
    """Moves that make the cells' contacts those of the graph: two neighbours whose cells do not touch
    (not joined in the Delaunay triangulation) are drawn together, two cells that touch without a border
    are pushed apart."""
    from scipy.spatial import Delaunay, QhullError

    n = len(x)
    out = np.zeros_like(x)
    try:
        tri = Delaunay(x)
    except (QhullError, ValueError):  # Qhull refuses degenerate sets (all points on a line)
        return out
    touching: set[tuple[int, int]] = set()
    for simplex in tri.simplices:
        a, b, c = (int(v) for v in simplex)
        touching |= {(min(a, b), max(a, b)), (min(b, c), max(b, c)), (min(a, c), max(a, c))}
    declared = {(min(i, j), max(i, j)) for i in range(n) for j in adj[i]}
    for i, j in declared - touching:
        v = x[j] - x[i]
        d = float(np.hypot(*v)) or 1e-9
        out[i] += rate * v * max(d - step, 0.0) / d / 2
        out[j] -= rate * v * max(d - step, 0.0) / d / 2
    for i, j in touching - declared:
        v = x[j] - x[i]
        d = float(np.hypot(*v)) or 1e-9
        push = rate * 0.5 * max(1.2 * step - d, 0.0) / d / 2
        out[i] -= v * push
        out[j] += v * push
    return out


def border_layout(
    names: Iterable[str], graph: BorderGraph, span_km: float = SPAN_KM
) -> tuple[dict[str, tuple[float, float]], Polygon]:
    """Points (km, about 0, 0) for ``names`` laid out from ``graph``, and the board's rectangle round them."""
    order = sorted(set(names))
    n = len(order)
    if n == 0:
        return {}, box(-span_km / 2, -span_km / 2, span_km / 2, span_km / 2)
    idx = {a: i for i, a in enumerate(order)}
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, c in sorted(_edges(graph)):
        if a in idx and c in idx:
            adj[idx[a]].append(idx[c])
            adj[idx[c]].append(idx[a])
    if n == 1:
        x = np.zeros((1, 2))
    elif n == 2:
        x = np.array([[-0.5, 0.0], [0.5, 0.0]])
    else:
        d = _distances(n, adj)
        x = _smacof(d, _classical(d))
    # A rectangle shaped like the layout (not thinner than 1:2), half a step round it.
    x = x - x.mean(axis=0)
    lo, hi = x.min(axis=0), x.max(axis=0)
    w, h = float(hi[0] - lo[0]), float(hi[1] - lo[1])
    if h > w:  # boards are drawn wider than tall
        x = x[:, ::-1].copy()
        w, h = h, w
    w, h = max(w, 1.0), max(h, 0.5 * max(w, 1.0))
    step = float(np.sqrt(w * h / n))
    frame = box(-w / 2 - step / 2, -h / 2 - step / 2, w / 2 + step / 2, h / 2 + step / 2)
    x = _lloyd(x, adj, frame)
    k = span_km / max(frame.bounds[2] - frame.bounds[0], frame.bounds[3] - frame.bounds[1])
    x = np.round(x * k, 3)
    fx0, fy0, fx1, fy1 = (v * k for v in frame.bounds)
    return {a: (float(x[i, 0]), float(x[i, 1])) for a, i in idx.items()}, box(fx0, fy0, fx1, fy1)
