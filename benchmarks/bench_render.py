"""Map drawing speed: geometry load, SVG of a busy W3K phase, PNG of it.

    .venv/bin/python benchmarks/bench_render.py [--variant w3k] [--repeat 30]

- geometry load: reading and parsing the variant's geometry file, cold (the loader's cache emptied before
  each run); target under 200 ms;
- first SVG: the first drawing with a loaded geometry, which also places the names and other static parts
  of the picture (cached per process after it);
- SVG, warm: a phase with every unit ordered (W3K's Summer 1642: 70 units, moves, supports, convoys, holds,
  proxies where drawn, one illegal order), geometry and static parts ready; target under 30 ms;
- PNG: cairosvg converting that SVG at its own size (1200 pixels wide) and at scale 2; target under 1 s;
- atlas PDF: that SVG printed as the results PDF's atlas on A4 (the overview and, for W3K, its seven
  regional sheets; render/atlas.py), every page drawn by Cairo.

Times are wall-clock medians (and the fastest and slowest) of --repeat runs in this process, with the
process CPU time beside them: the machine is shared, and CPU time moves less with the load. Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def measure(
    fn: Callable[[], Any], repeat: int, before: Callable[[], None] | None = None
) -> tuple[list[float], list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def line(label: str, wall: list[float], cpu: list[float], target: float | None = None) -> str:
    med = statistics.median(wall) * 1000
    text = (
        f"{label:<28} {med:8.1f} ms  (fastest {min(wall) * 1000:.1f}, slowest {max(wall) * 1000:.1f}; "
        f"CPU {statistics.median(cpu) * 1000:.1f} ms)"
    )
    if target is not None:
        text += f"  target < {target:.0f} ms: {'met' if med < target else 'NOT met'}"
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="w3k")
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()

    from dippouch.catalog import load_variant
    from dippouch.render import RenderOptions, render_svg, svg_to_png
    from dippouch.render import geometry as geometry_module
    from dippouch.render.geometry import load_geometry
    from dippouch.render.sample import sample_phases

    v = load_variant(args.variant)
    phase = sample_phases(v, seed=2, phases=1)[0]
    ordered = sum(len(t) for t in phase.orders.values())
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"{v.title}: {v.calendar.name(phase.position.phase)}, {len(phase.position.units)} units, "
        f"{ordered} orders; {args.repeat} runs"
    )
    path = geometry_module.geometry_path(v)
    print(f"geometry {path.name}: {path.stat().st_size:,} bytes")

    wall, cpu = measure(lambda: load_geometry(v), args.repeat, before=geometry_module._CACHE.clear)
    print(line("geometry load (cold)", wall, cpu, 200))
    geo = load_geometry(v)
    options = RenderOptions(title="benchmark")

    def draw() -> str:
        return render_svg(v, phase.position, phase.orders, phase.results, options, geometry=geo)

    wall, cpu = measure(draw, min(args.repeat, 10), before=lambda: v.derived.pop("render.static", None))
    print(line("first SVG (names placed)", wall, cpu))
    draw()
    wall, cpu = measure(draw, args.repeat)
    svg = draw()
    print(line("SVG, warm", wall, cpu, 30))
    drawn = svg.count('class="order ')
    print(f"{'':<28} {len(svg):,} characters, {drawn} orders drawn")
    reps = max(3, args.repeat // 6)
    wall, cpu = measure(lambda: svg_to_png(svg), reps)
    png = svg_to_png(svg)
    print(line("PNG, 1x", wall, cpu, 1000) + f"  {len(png):,} bytes")
    wall, cpu = measure(lambda: svg_to_png(svg, scale=2.0), reps)
    print(line("PNG, 2x", wall, cpu, 1000))
    from dippouch.render import atlas_pdf
    from dippouch.render.atlas import sheets_for

    wall, cpu = measure(lambda: atlas_pdf(v, svg, "benchmark"), reps)
    pdf = atlas_pdf(v, svg, "benchmark")
    pages = 1 + len(sheets_for(v, svg))
    print(line(f"atlas PDF, A4, {pages} pages", wall, cpu) + f"  {len(pdf):,} bytes")


if __name__ == "__main__":
    main()
