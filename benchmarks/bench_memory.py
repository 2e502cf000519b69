"""Memory of one long-running process that loads many user variants: it must stay flat.

A web server or worker with user variants loads each game's variant; before the core kept its derived tables
on the objects they derive from, every variant ever built stayed alive through the core's module caches
keyed by ``id()`` (161 variants alive after 160 loads; RSS 28 -> 107 MiB). This loads ``--loads`` distinct
user variant files (each a small file extending ``standard`` or, one in three, ``w3k``, found through
``DIPPOUCH_VARIANT_PATH``), uses each as a game would (its legal orders listed, a phase adjudicated, its
orders written and read back), drops it, and prints the process's resident set size every ``--every`` loads,
with the number of variants alive. The catalog keeps the last ``KEPT_VARIANTS`` built variants, so RSS
climbs until that many are held and must be flat afterwards.

    .venv/bin/python benchmarks/bench_memory.py [--loads 500] [--every 50]

Measured on the shared 2-core machine (one in three files extends W3K; the disk cache off, so every load is a
build): RSS 24.9 MiB at the start, 85.8 after 50 loads, 123.8 after 100 (the catalog's 64 variants held), then
124.6-124.7 MiB from 150 to 500 loads, 64 variants alive throughout. The same script on the code before
(module caches keyed by ``id()``): 86, 152, 216, 280, 347, 408, 475, 540, 603, 662 MiB every 50 loads, one more
variant alive per load (500 at the end).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
from pathlib import Path


def rss_mib() -> float:
    """Resident set size now (Linux ``/proc``), in MiB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--loads", type=int, default=500)
    ap.add_argument("--every", type=int, default=50)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dippouch-bench-memory-") as tmp:
        folder = Path(tmp) / "variants"
        folder.mkdir()
        for i in range(args.loads):
            parent = "w3k" if i % 3 == 0 else "standard"
            (folder / f"user{i:04d}.toml").write_text(
                f'[variant]\nname = "user{i:04d}"\nextends = "{parent}"\ndescription = "user variant {i}"\n',
                encoding="utf-8",
            )
        os.environ["DIPPOUCH_VARIANT_PATH"] = str(folder)
        os.environ["DIPPOUCH_CACHE_DIR"] = "off"  # every load a build, as a server meeting new files
        os.environ["DIPPOUCH_SETTINGS"] = str(Path(tmp) / "no-settings.toml")

        from dippouch.catalog import KEPT_VARIANTS, load_variant
        from dippouch.core.adjudicator import adjudicate
        from dippouch.core.legal_orders import all_legal_orders
        from dippouch.core.notation import format_order, parse_orders
        from dippouch.core.variant import Variant

        rng = random.Random(1)
        print(f"{args.loads} distinct user variant files; the catalog keeps {KEPT_VARIANTS} built variants")
        print(f"{'loads':>6} {'RSS MiB':>8} {'variants alive':>15}")
        gc.collect()
        print(f"{0:>6} {rss_mib():>8.1f} {0:>15}")
        for i in range(args.loads):
            variant = load_variant(f"user{i:04d}")
            everyone = all_legal_orders(variant, variant.start)
            orders = {p: [rng.choice(opts[loc]) for loc in sorted(opts)] for p, opts in everyone.items() if opts}
            for chosen in orders.values():
                parse_orders(variant, "\n".join(format_order(variant, o) for o in chosen))
            adjudicate(variant, variant.start, orders, rng=rng)
            del variant, everyone, orders
            if (i + 1) % args.every == 0:
                gc.collect()
                alive = sum(1 for o in gc.get_objects() if isinstance(o, Variant))
                print(f"{i + 1:>6} {rss_mib():>8.1f} {alive:>15}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
