"""The README's map pictures: every built-in variant drawn with a busy phase of a seeded sample game.

Run by ``scripts/mapshots`` (``python -m dippouch.render.shots [--out docs/maps] [VARIANT ...]``). The same
seed gives the same pictures, so regenerating them after a change to the drawing or the geometry shows
exactly what changed. Each picture is reduced to a 256-colour palette to stay small in the repository.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from dippouch.catalog import builtin_names, load_variant
from dippouch.core.calendar import PhaseKind
from dippouch.core.variant import Variant
from dippouch.render.sample import SamplePhase, sample_phases
from dippouch.render.svg import RenderOptions, render_svg

__all__ = ["busiest_phase", "main", "shot"]


def busiest_phase(variant: Variant, *, seed: int = 2, phases: int = 8) -> SamplePhase:
    """The sample phase with the most to see: a movement phase with a dislodgement and many orders, or (for
    a variant that opens with placements, like 1897) the opening builds when nothing busier comes."""
    played = sample_phases(variant, seed=seed, phases=phases)

    def score(ph: SamplePhase) -> tuple[int, int, int]:
        kind = variant.calendar.kind(ph.position.phase)
        dislodged = any(r["dislodged"] for r in ph.results)
        return (kind == PhaseKind.MOVEMENT, dislodged, sum(len(t) for t in ph.orders.values()))

    return max(played, key=score)


def shot(variant: Variant, *, width: int = 1000, colours: int = 256) -> bytes:
    from PIL import Image

    from dippouch.render.output import svg_to_png

    ph = busiest_phase(variant)
    phase = variant.calendar.name(ph.position.phase)
    svg = render_svg(
        variant, ph.position, ph.orders, ph.results, RenderOptions(title="A sample game", phase_name=phase)
    )
    png = svg_to_png(svg, width=width)
    pic = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    pic.save(out, format="PNG", optimize=True)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/mapshots", description="Write docs/maps/<variant>.png for the README.")
    ap.add_argument("variants", nargs="*", help="Variants to draw (default: every built-in variant).")
    ap.add_argument("--out", default="docs/maps", help="Folder to write the pictures into.")
    ap.add_argument("--width", type=int, default=1000, help="Picture width in pixels.")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.variants or builtin_names():
        data = shot(load_variant(name), width=args.width)
        path = out / f"{name}.png"
        path.write_bytes(data)
        print(f"wrote {path} ({len(data) // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
