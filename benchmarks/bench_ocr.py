"""Photographed W3K orders read back: how many lines each OCR engine gets right, flags, or gets wrong.

From a fixed seed, random W3K games are played with random legal orders (movement with hand-overs,
conversions and proxies, retreats, Winter builds, removals and supply transfers, whatever
:func:`dippouch.core.legal_orders.legal_orders` offers); at phases along the way a power's orders are written on a
sheet in the rulebook's Annexe 3 layout (name, position, game, "Summer 1642 Movement Orders", a version
line, then one order a line, in short, full or spelled-out words), in a typed or a handwriting-like font
from Debian's font packages, and "photographed": the sheet turned, seen in perspective on a table, lit
with a shadow, blurred, speckled with sensor noise, saved as JPEG at a phone's resolution.

Each photograph is read by each engine (:mod:`dippouch.mail.ocr_engines`) and decided against the legal
orders (:mod:`dippouch.mail.ocr_match`). Per order written:

- exact: proposed as exactly that order;
- flagged: not proposed (flagged for the coordinator, or not found);
- wrong: proposed as a different order (wrong-and-accepted), and lines proposed that were never written.

Goal (issue bar): typed 98% exact, handwriting-like 80%, no wrong-and-accepted, under 5 s a photo.

    .venv/bin/python benchmarks/bench_ocr.py --photos 40
    .venv/bin/python benchmarks/bench_ocr.py --photos 2 --engines tesseract --save /tmp/photos
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FONTS: dict[str, list[str]] = {
    "typed": [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
        "/usr/share/fonts/opentype/courier-prime/Courier Prime.otf",
        "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    ],
    "handwriting": [
        "/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",
        "/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf",
        "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
        "/usr/share/fonts/truetype/breip/Breip.ttf",
        "/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",
    ],
}
"""Debian packages: fonts-dejavu-core, fonts-liberation, fonts-courier-prime, fonts-freefont-ttf (typed);
fonts-comic-neue, fonts-humor-sans, fonts-dkg-handwriting, fonts-breip, fonts-femkeklaver (handwriting-like).
scripts/mail-packages installs them. Missing ones are left out and named."""

PHONES = [(1200, 1600), (1536, 2048), (2250, 3000), (3024, 4032)]
"""Photograph sizes (width, height) of phone cameras, small to 12 megapixels."""


@dataclass
class Sheet:
    font_class: str
    font: str
    phase: str
    position: Any
    power: str
    orders: list[str]
    """What was written, as the legal orders' canonical full forms."""
    photo: bytes


@dataclass
class Tally:
    photos: int = 0
    lines: int = 0
    exact: int = 0
    flagged: int = 0
    wrong: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    wrongs: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Positions and orders


def positions(seed: int, wanted: int) -> list[tuple[Any, Any]]:
    """(variant, position) pairs of random W3K games from ``seed``: movement, retreat and Winter phases."""
    from dippouch.catalog import load_variant
    from dippouch.core.adjudicator import adjudicate
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import all_legal_orders

    variant = load_variant("w3k")
    rng = random.Random(seed)
    out: list[tuple[Any, Any]] = []
    while len(out) < wanted:
        position = variant.start
        for _ in range(12):
            out.append((variant, position))
            legal = all_legal_orders(variant, position)
            kind = variant.calendar.kind(position.phase)
            orders = {p: _choose(variant, position, p, legal[p], rng, kind) for p in variant.power_names}
            position = adjudicate(variant, position, orders).next
            if kind == PhaseKind.ADJUSTMENTS and len(out) >= wanted:
                break
    return out


def _choose(
    variant: Any, position: Any, power: str, legal: dict[int, list[Any]], rng: random.Random, kind: Any
) -> list[Any]:
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.order_checks import check_submission

    if not legal:
        return []
    if kind == PhaseKind.ADJUSTMENTS:
        places = sorted(legal)
        rng.shuffle(places)
        need = abs(len(position.centres_of(power)) - len(position.units_of(power))) or 1
        orders = [rng.choice(legal[p]) for p in places[: max(1, need)] if legal[p]]
    else:
        orders = [rng.choice(legal[loc]) for loc in sorted(legal) if legal[loc]]
    # Only orders the line check accepts as they stand (the sheet's orders are all good ones).
    verdicts = check_submission(variant, position, power, orders)
    return [v.order for v in verdicts if v.problem is None]


# --------------------------------------------------------------------------------------------------
# Drawing and photographing


def _spelled(full: str) -> str:
    words = full.split(" ")
    out = []
    for i, w in enumerate(words):
        if w == "A" and (i == 0 or words[i - 1] in ("S", "C")):
            out.append("Army")
        elif w == "F" and (i == 0 or words[i - 1] in ("S", "C")):
            out.append("Fleet")
        elif w == "-":
            out.append("moves to")
        elif w == "S" and i > 0:
            out.append("supports")
        elif w == "C" and i > 0:
            out.append("convoys")
        elif w == "H" and i == len(words) - 1:
            out.append("holds")
        else:
            out.append(w)
    return " ".join(out)


def sheet_lines(
    variant: Any, position: Any, power: str, orders: list[Any], rng: random.Random
) -> tuple[list[str], list[str]]:
    """The lines written on the sheet and the orders they mean (canonical full forms)."""
    from dippouch.core.notation import format_order

    kind = variant.calendar.kind(position.phase)
    season = variant.calendar.name(position.phase)
    heading = [rng.choice(["Jane Smith", "Tom Fairfax", "R. Sinha"]), power, "Powick Bridge", f"{season} Orders"]
    if rng.random() < 0.5:
        heading.append(f"Version {rng.randint(1, 4)}")
    written, meant = [], []
    for o in orders:
        full = format_order(variant, o, phase_kind=kind, full=True)
        style = rng.random()
        if style < 0.35:
            line = format_order(variant, o, phase_kind=kind)
        elif style < 0.7:
            line = full
        else:
            line = _spelled(full)
        written.append(line)
        meant.append(full)
    return heading + written, meant


def photograph(lines: list[str], font_path: str, handwriting: bool, rng: random.Random) -> bytes:
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    size = rng.randint(44, 58)
    font = ImageFont.truetype(font_path, size)
    width = max(1240, int(max(font.getlength(ln) for ln in lines)) + 200)
    step = int(size * rng.uniform(1.6, 1.9))
    height = max(1754, 200 + step * len(lines))
    paper = Image.new("L", (width, height), rng.randint(232, 250))
    draw = ImageDraw.Draw(paper)
    ink = rng.randint(10, 60)
    y = 120
    for ln in lines:
        x = 100 + (rng.randint(-12, 12) if handwriting else 0)
        if handwriting:
            # Each line written by hand: its own slight slope and baseline.
            strip = Image.new("L", (width, step + 20), 0)
            ImageDraw.Draw(strip).text((x, 10), ln, fill=255, font=font)
            strip = strip.rotate(rng.uniform(-1.2, 1.2), resample=Image.Resampling.BICUBIC, center=(x, step // 2))
            paper.paste(ink, (0, y + rng.randint(-6, 6) - 10), strip)
        else:
            draw.text((x, y), ln, fill=ink, font=font)
        y += step
    # On a table, turned, in perspective.
    table = Image.new("L", (int(width * 1.25), int(height * 1.2)), rng.randint(60, 140))
    table.paste(paper, ((table.width - width) // 2, (table.height - height) // 2))
    table = table.rotate(rng.uniform(-4, 4), resample=Image.Resampling.BICUBIC, fillcolor=int(np.asarray(table).mean()))
    w, h = table.size
    d = 0.06
    quad = [
        (rng.uniform(0, d) * w, rng.uniform(0, d) * h),
        (rng.uniform(0, d) * w, h - rng.uniform(0, d) * h),
        (w - rng.uniform(0, d) * w, h - rng.uniform(0, d) * h),
        (w - rng.uniform(0, d) * w, rng.uniform(0, d) * h),
    ]
    table = table.transform((w, h), Image.Transform.QUAD, [c for p in quad for c in p], Image.Resampling.BICUBIC)
    # A shadow across one side, blur, noise, a phone's resolution and its JPEG.
    a = np.asarray(table, dtype=np.float64)
    yy, xx = np.mgrid[0:h, 0:w]
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * xx / w + np.sin(angle) * yy / h) * 1.0
    ramp = (ramp - ramp.min()) / max(float(np.ptp(ramp)), 1e-9)
    depth = rng.uniform(0.35, 0.6)
    a = a * (1 - depth * np.clip(ramp * 1.6 - 0.4, 0, 1))
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.4)))
    phone = rng.choice(PHONES)
    img = img.resize(phone if img.width < img.height else phone[::-1], Image.Resampling.BILINEAR)
    a = np.asarray(img, dtype=np.float64) + np.random.default_rng(rng.randrange(2**32)).normal(
        0, rng.uniform(4, 10), (img.height, img.width)
    )
    rgb = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).convert("RGB")
    out = io.BytesIO()
    rgb.save(out, format="JPEG", quality=rng.randint(60, 88))
    return out.getvalue()


def sheets(seed: int, count: int) -> tuple[list[Sheet], list[str]]:
    """``count`` photographs, half typed and half handwriting-like; and the fonts not installed."""
    from dippouch.core.calendar import PhaseKind

    rng = random.Random(seed)
    fonts = {c: [f for f in fs if Path(f).exists()] for c, fs in FONTS.items()}
    missing = [f for fs in FONTS.values() for f in fs if not Path(f).exists()]
    fonts = {c: fs for c, fs in fonts.items() if fs}
    if not fonts:
        raise SystemExit("no font of the benchmark is installed (scripts/mail-packages installs them)")
    pool = positions(seed, max(4, count))
    out: list[Sheet] = []
    tries = 0
    while len(out) < count and tries < count * 50:
        tries += 1
        variant, position = rng.choice(pool)
        kind = variant.calendar.kind(position.phase)
        from dippouch.core.legal_orders import legal_orders

        powers = [p for p in variant.power_names if legal_orders(variant, position, p)]
        if not powers:
            continue
        power = rng.choice(powers)
        orders = _choose(variant, position, power, legal_orders(variant, position, power), rng, kind)
        if not orders or (kind == PhaseKind.MOVEMENT and len(orders) > 14):
            continue
        font_class = sorted(fonts)[len(out) % len(fonts)]
        font = rng.choice(fonts[font_class])
        lines, meant = sheet_lines(variant, position, power, orders, rng)
        photo = photograph(lines, font, font_class == "handwriting", rng)
        out.append(
            Sheet(font_class, Path(font).stem, variant.calendar.name(position.phase), position, power, meant, photo)
        )
    return out, missing


# --------------------------------------------------------------------------------------------------
# Reading back


def _cpu() -> float:
    """CPU seconds of this process and of the programs it ran (tesseract): the machine this runs on is shared,
    so wall time says more about the neighbours than about the engine. On a quiet machine with two cores,
    wall time is at most this (RapidOCR uses both cores)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def evaluate(sheet: Sheet, engine: str, tally: Tally) -> None:
    from dippouch.catalog import load_variant
    from dippouch.mail.ocr_engines import read_lines
    from dippouch.mail.ocr_match import match_lines

    variant = load_variant("w3k")
    position = sheet.position
    t0 = _cpu()
    lines = read_lines(sheet.photo, engine=engine)
    readings = match_lines(
        variant, position, sheet.power, lines, ["Jane Smith", "Tom Fairfax", "R. Sinha", "Powick Bridge"]
    )
    took = _cpu() - t0
    tally.photos += 1
    tally.seconds += took
    tally.slowest = max(tally.slowest, took)
    proposed = [r.text for r in readings if r.verdict == "order"]
    left = list(sheet.orders)
    tally.lines += len(sheet.orders)
    for p in proposed:
        if p in left:
            left.remove(p)
            tally.exact += 1
        else:
            tally.wrong += 1
            tally.wrongs.append(f"{sheet.font}: proposed {p!r}; written {sheet.orders}")
    tally.flagged += len(left)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", type=int, default=40, help="photographs to make (half typed, half handwriting-like)")
    ap.add_argument("--seed", type=int, default=1642)
    ap.add_argument("--engines", default="", help="comma-separated: rapidocr,tesseract (default: every one installed)")
    ap.add_argument("--save", default=None, help="write the photographs to this folder, to look at")
    ap.add_argument("--verbose", action="store_true", help="print every wrong-and-accepted line")
    args = ap.parse_args(argv)
    from dippouch.mail.ocr_engines import ENGINES, available_engines, unavailable

    engines = [e for e in args.engines.split(",") if e] if args.engines else available_engines()
    for e in engines:
        why = unavailable(e) if e in ENGINES else f"unknown engine {e!r}"
        if why:
            print(f"{e}: not available ({why})")
    engines = [e for e in engines if e in ENGINES and unavailable(e) is None]
    t0 = time.perf_counter()
    made, missing = _made(args.seed, args.photos)
    print(f"{len(made)} photographs of W3K orders (seed {args.seed}) made in {time.perf_counter() - t0:.1f} s")
    if missing:
        print(f"fonts not installed, left out: {', '.join(Path(m).name for m in missing)}")
    if args.save:
        folder = Path(args.save)
        folder.mkdir(parents=True, exist_ok=True)
        for i, s in enumerate(made):
            (folder / f"{i:03d}-{s.font_class}-{s.font}.jpg").write_bytes(s.photo)
    print(
        f"{'engine':<10} {'fonts':<12} {'photos':>6} {'lines':>6} {'exact':>7} {'flagged':>8} {'wrong':>6} {'CPU s/photo':>11} {'max':>5}"
    )
    for engine in engines:
        tallies: dict[str, Tally] = {}
        for s in made:
            evaluate(s, engine, tallies.setdefault(s.font_class, Tally()))
        for cls, t in sorted(tallies.items(), key=lambda kv: kv[0] != "typed"):
            pct = 100 * t.exact / max(t.lines, 1)
            print(
                f"{engine:<10} {cls:<12} {t.photos:>6} {t.lines:>6} {t.exact:>4} {pct:>3.0f}% {t.flagged:>8} {t.wrong:>6} "
                f"{t.seconds / max(t.photos, 1):>11.2f} {t.slowest:>5.1f}"
            )
            if args.verbose:
                for w in t.wrongs:
                    print(f"    wrong: {w}")
    return 0


def _made(seed: int, count: int) -> tuple[list[Sheet], list[str]]:
    made, missing = sheets(seed, count)
    return made, missing


if __name__ == "__main__":
    sys.exit(main())
