"""Building a map without a picture: how long ``mapgen`` takes and whether the board reads.

    .venv/bin/python benchmarks/bench_mapgen_layout.py [FILE.toml ...] [--sizes 60,120,250]

For each variant file given (an import of a map whose source had no picture: MILA's colonial.map, empire.map
imported without their SVG), and for generated maps of the given sizes (a planar border graph with points
crowded as the importer's force layout left them, the shape tests/render/test_mapgen_layout.py uses): the
build with fitting, its CPU seconds (this process: the machine is shared, the wall clock moves with other
work) and wall seconds, the fitting rounds' best count of wrong borders, the area spread and names under
9 px as `dippouch mapcheck --boards` measures them (``--markdown``: one table row each, as in
docs/import.md). Not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "render"))


def run(path: Path, markdown: bool = False) -> str:
    from dippouch.catalog import load_variant
    from dippouch.mapcheck import check_readability
    from dippouch.render.geometry import geometry_path
    from dippouch.render.mapgen.build import dumps
    from dippouch.render.mapgen.checks import check_geometry
    from dippouch.render.mapgen.pipeline import build

    v = load_variant(str(path))
    wall, cpu = time.perf_counter(), time.process_time()
    doc = build(v)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = geometry_path(v)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(doc), encoding="utf-8")
    rep = check_readability(v)
    geo = check_geometry(v)
    if markdown:  # a row of the table in docs/import.md
        return (
            f"| {v.name} | {len(v.map.provinces)} | x{rep.spread:.1f} ({rep.largest}) | {rep.smallest:.1f} | "
            f"{'no' if rep.unreadable else 'yes'} | {geo.mismatches} | {cpu:.0f} ({wall:.0f}) |"
        )
    return (
        f"{v.name}: {len(v.map.provinces)} provinces, {cpu:.1f} s CPU ({wall:.1f} s wall), "
        f"wrong borders {geo.mismatches}; {rep.summary()}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--sizes", default="60,120")
    ap.add_argument("--markdown", action="store_true", help="One table row per board, as in docs/import.md.")
    args = ap.parse_args()
    for f in args.files:
        print(run(f, args.markdown), flush=True)
    from test_mapgen_layout import _planar_map

    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s):
            path = Path(tmp) / f"planar{n}.toml"
            path.write_text(_planar_map(n, 7).replace('"planar"', f'"planar{n}"'), encoding="utf-8")
            print(run(path, args.markdown), flush=True)


if __name__ == "__main__":
    main()
