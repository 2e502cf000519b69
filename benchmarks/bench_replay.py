"""A long game remembered (issue 42): the replay and the game book of a W3K game of 40 game years.

    .venv/bin/python benchmarks/bench_replay.py [--years 40] [--seed 1642] [--cache FILE] [--skip webp,book]
        [--book FILE]
    .venv/bin/python benchmarks/bench_replay.py --quick          # one game year, a minute or so

The game is played through the real engine and the real store on SQLite: from W3K's opening (Summer 1642),
every power that must act sends random legal orders (each unit one order drawn uniformly from the engine's own
``legal_orders``, builds and removals on randomly chosen places, seeded by ``--seed``), submitted and checked as
any player's are, and the phase processed, until ``--years`` game years have passed. Making the game is set-up,
not timed here (it is printed); with ``--cache FILE`` the database is kept in FILE (put it outside the
repository) and a later run with the same years and seed reads it back instead of playing it again.

Then what a visitor's requests cost, each through the functions the web's routes call, on a fresh web app (so
no picture drawn before is reused) where the figure is a first making:

- the replay's frames (:func:`dippouch.play.replays.replay_frames` over the phases read from the store), as the
  replay page and ``GET /api/games/{name}/replay`` list them;
- every frame's picture (the SVG map the page shows, ``/games/{name}/phases/{id}/map-{view}.svg``);
- the animated replay as GIF and as WebP (:func:`dippouch.play.replays.export_replay`, that is
  :mod:`dippouch.render.animation`): made the first time, then served from what was kept
  (:class:`~dippouch.play.replays.ReplayExports`, as ``/games/{name}/replay.gif`` keeps it); its size and its
  frames read back with Pillow;
- the game book as PDF (:func:`dippouch.play.gamebook.make_book`): made, then kept; its size and its pages read
  back with ``pdfinfo`` and ``pdftotext`` where poppler is installed.

Wall time and this process's CPU time; the machine is shared, so the CPU time is the steadier figure. Each row
also gives the process's peak resident size so far and, on Linux, the peak while the row ran (the peak reset
before it); the process's peak is printed at the end. Not a test (tests/benchmarks runs ``--quick`` so the script
cannot rot).
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import variant_copy as variant_copy

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
"""The game's clock starts here; each phase is processed an hour after the last (deterministic stamps)."""


@dataclass
class Row:
    """One line of the printed table: what was measured, its wall and CPU seconds, and what it made."""

    what: str
    wall: float
    cpu: float
    made: str = ""
    peak: float = 0.0
    """The process's peak resident size (MiB) once the row was measured: it only grows, so a row that
    raises it is one that held that much."""
    own: float = 0.0
    """The peak resident size (MiB) while the row ran, where Linux lets it be reset first (0: unknown): what
    the row itself held, whatever rows before it held."""


WIDTH = 56
"""The width of the table's first column."""


@contextmanager
def clock(what: str) -> Iterator[Row]:
    """Times the block (wall and this process's CPU) into a new row; the block may fill in ``made``, and the
    caller then :func:`show` s it."""
    row = Row(what, 0.0, 0.0)
    before = process_peak()  # read before the reset, which Linux's ru_maxrss follows too
    reset = _reset_peak()
    w0, c0 = time.perf_counter(), time.process_time()
    yield row
    row.wall, row.cpu = time.perf_counter() - w0, time.process_time() - c0
    row.own = _peak_since_reset() if reset else 0.0
    row.peak = max(before, process_peak(), row.own)
    _PEAK[0] = row.peak


_PEAK = [0.0]
"""The process's peak resident size (MiB) as far as the rows measured it, kept across their resets."""


def process_peak() -> float:
    """The process's peak resident size (MiB) so far. Resetting the peak (:func:`_reset_peak`) resets what
    ``getrusage`` says too (Linux's ``ru_maxrss`` is the memory's high-water mark), so the rows' own peaks are
    kept (``_PEAK``) and the larger taken."""
    return max(_PEAK[0], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _reset_peak() -> bool:
    """Resets the process's peak resident size (Linux: ``/proc/self/clear_refs``); False where it cannot."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_since_reset() -> float:
    """The peak resident size (MiB) since :func:`_reset_peak` (``VmHWM`` of ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def show(rows: list[Row], row: Row) -> None:
    """Keeps ``row`` and prints it at once: a long run's first figures are read while it goes on."""
    rows.append(row)
    peak = f"{row.peak:.0f}" if row.peak else ""
    own = f"{row.own:.0f}" if row.own else ""
    print(f"{row.what:<{WIDTH}}  {row.wall:>8.3f}  {row.cpu:>8.3f}  {peak:>8}  {own:>8}  {row.made}", flush=True)


def median_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``repeat`` runs of a cheap ``fn``, and the last run's result."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), out


def game_name(years: int, seed: int) -> str:
    """The game's name says what it is, so a cache file made for other years or another seed is not reused."""
    return f"w3k-{years}y-s{seed}"


def random_orders(variant: Any, position: Any, power: str, rng: random.Random) -> str:
    """Random legal orders for ``power`` as text: each unit one of its legal orders; in adjustments as many
    builds or removals as the power is due, on randomly chosen places (as benchmarks/bench_workers.py)."""
    from dippouch.core.calendar import PhaseKind
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order

    kind = variant.calendar.kind(position.phase)
    legal = legal_orders(variant, position, power)
    places = sorted(legal)
    if kind == PhaseKind.ADJUSTMENTS:
        need = abs(len(position.centres_of(power)) - len(position.units_of(power)))
        rng.shuffle(places)
        places = places[:need]
    chosen = [rng.choice(legal[loc]) for loc in places if legal[loc]]
    return "\n".join(format_order(variant, o, phase_kind=kind) for o in chosen)


def play(store: Any, name: str, years: int, seed: int) -> int:
    """Creates ``name`` (W3K) and plays it for ``years`` game years with random legal orders; returns the
    number of phases processed. Stops early only if the game ends (a victory), which random play never
    reached in our runs."""
    from dippouch.game import position_from_data, powers_to_act

    store_games.create_game(store, name, "w3k", now=T0)
    variant = variant_copy.variant_of(store, name)
    rng = random.Random(seed)
    end = _after(variant, years)
    now, processed = T0, 0
    while True:
        current = next((h for h in store_history.history(store, name) if h.status == "open"), None)
        if current is None:
            return processed
        position = position_from_data(variant, current.position)
        if (position.phase.year, position.phase.step) >= end:
            return processed
        if position.phase.step == end[1] and (position.phase.year - end[0]) % 5 == 0:
            print(f"# ... {position.phase.year}: {processed} phases processed", file=sys.stderr, flush=True)
        for power in powers_to_act(variant, position):
            text = random_orders(variant, position, power, rng)
            if text:
                store_submissions.submit(store, name, power, text, now=now)
        now += timedelta(hours=1)
        processed += len(store_processing.process(store, name, now=now, force=True))


def _after(variant: Any, years: int) -> tuple[int, int]:
    """(year, step) of the phase ``years`` game years after the variant's opening."""
    first = variant.start.phase
    return first.year + years, first.step


def the_game(years: int, seed: int, cache: Path | None) -> tuple[Any, str, float, bool]:
    """The store holding the game (made now, or read back from ``cache``), its name, the seconds it took to
    make (0 when read back) and whether it was read back. A game is played into a file of its own and moved
    to ``cache`` only once complete, so an interrupted run leaves no half game to be read back."""
    from dippouch.game import position_from_data
    from dippouch.store import GameStore

    name = game_name(years, seed)
    if cache is not None and cache.exists():
        store = GameStore(f"sqlite:///{cache}")
        if name in {g[0] for g in store_games.games(store)}:
            variant = variant_copy.variant_of(store, name)
            last = store_history.history(store, name)[-1]
            phase = position_from_data(variant, last.position).phase
            if (phase.year, phase.step) == _after(variant, years) or last.status != "open":
                return store, name, 0.0, True
        store.close()
        raise SystemExit(f"{cache} holds no complete game {name}: remove it or name another --cache file")
    path = Path(tempfile.mkdtemp(prefix="bench-replay-")) / "replay.db"
    store = GameStore(f"sqlite:///{path}")
    t0 = time.perf_counter()
    play(store, name, years, seed)
    took = time.perf_counter() - t0
    if cache is None:
        return store, name, took, False
    store.close()
    cache.parent.mkdir(parents=True, exist_ok=True)
    for part in path.parent.glob(path.name + "*"):  # the database and whatever SQLite left beside it
        shutil.move(part, cache.parent / (cache.name + part.name[len(path.name) :]))
    return GameStore(f"sqlite:///{cache}"), name, took, False


def frame_count(data: bytes) -> int:
    """How many frames an animated picture holds, read back with Pillow."""
    from PIL import Image

    return int(getattr(Image.open(io.BytesIO(data)), "n_frames", 1))


def pdf_pages(data: bytes) -> tuple[int | None, int | None]:
    """The PDF's page count (``pdfinfo``) and how many pages ``pdftotext`` reads text from; (None, None)
    without poppler."""
    if shutil.which("pdfinfo") is None or shutil.which("pdftotext") is None:
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "book.pdf"
        path.write_bytes(data)
        info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
        pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return pages, sum(1 for page in text.split("\f")[:pages] if page.strip())


def measure(store: Any, name: str, skip: set[str], book_file: Path | None = None) -> tuple[list[Row], dict[str, Any]]:
    """Times the replay and the book of ``name`` as the web's routes make them; returns the rows and what
    was made (sizes and counts) for the caller to check; the book is also written to ``book_file`` if given
    (to look at its pages)."""
    from dippouch.play.gamebook import book_key, book_plan, make_book, published_press
    from dippouch.play.replays import ReplayExports, export_replay, replay_frames
    from dippouch.saying import say
    from dippouch.web.http.security import Viewer
    from dippouch.web.http.service import Web
    from dippouch.web.views import games

    anyone = Viewer()  # a visitor without a seat: the game is public, so the replay is theirs to see
    rows: list[Row] = []
    got: dict[str, Any] = {}

    web = Web(store)
    with clock("replay frames listed (phases read, frames made), first") as row:
        frames = replay_frames(web.access.phases(name))
        row.made = f"{len(frames)} frames"
    show(rows, row)
    wall, cpu, _ = median_of(lambda: replay_frames(web.access.phases(name)))
    show(rows, Row("replay frames listed again (median of 3)", wall, cpu))
    processed = sum(1 for h in web.access.phases(name) if h.status == "processed")
    got.update(frames=len(frames), processed=processed)

    with clock("every frame's picture (SVG) drawn, first") as row:
        sizes = [len(games.phase_map(web, name, f.phase_id, f.view, anyone)) for f in frames]
        row.made = f"{sum(sizes) / 2**20:.1f} MiB, {statistics.median(sizes) / 1024:.0f} KiB a frame (median)"
    row.made += f"; {row.cpu / len(frames) * 1000:.0f} ms CPU a frame"
    show(rows, row)

    for fmt in ("gif", "webp"):
        if fmt in skip:
            continue
        web = Web(store)  # a fresh app: no map drawn before
        exports = web.kept("bench-replay", ReplayExports)

        def request(web: Web = web, exports: ReplayExports = exports, fmt: str = fmt) -> bytes:
            # As GET /games/{name}/replay.{fmt}: the frames read, the key, then kept or made.
            frames = replay_frames(web.access.phases(name))
            captions = [say(f.caption, "en") for f in frames]
            return exports.made(
                ReplayExports.key(name, frames, fmt, captions),
                lambda: export_replay(
                    frames, lambda f: games.phase_map(web, name, f.phase_id, f.view, anyone), fmt, captions
                ),
            )

        with clock(f"replay as {fmt.upper()}, first making") as row:
            data = request()
        n = frame_count(data)
        row.made = f"{len(data) / 2**20:.1f} MiB, {n} frames (Pillow), {row.cpu / n * 1000:.0f} ms CPU a frame"
        show(rows, row)
        wall, cpu, again = median_of(request)
        assert again is data or again == data
        show(rows, Row(f"replay as {fmt.upper()}, kept (median of 3)", wall, cpu))
        got[fmt] = (len(data), n)

    if "book" not in skip:
        web = Web(store)
        books = web.kept("bench-book", ReplayExports)

        def book() -> bytes:
            # As GET /games/{name}/book.pdf: the plan and the published press read, then kept or made.
            plan = book_plan(web.access.phases(name))
            press = published_press(web.read, name)
            return books.made(
                book_key(name, plan, press),
                lambda: make_book(
                    web.read, name, plan, press, lambda p: games.phase_map(web, name, p.phase_id, p.view, anyone)
                ),
            )

        with clock("game book PDF, first making") as row:
            data = book()
        if book_file is not None:
            book_file.write_bytes(data)
        pages, with_text = pdf_pages(data)
        row.made = f"{len(data) / 2**20:.1f} MiB" + (
            f", {pages} pages ({with_text} with text, pdftotext)"
            if pages is not None
            else " (no poppler to count pages)"
        )
        show(rows, row)
        wall, cpu, _ = median_of(book)
        show(rows, Row("game book PDF, kept (median of 3)", wall, cpu))
        got["book"] = (len(data), pages, with_text)
    return rows, got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--years", type=int, default=40, help="game years played (default 40)")
    ap.add_argument("--seed", type=int, default=1642)
    ap.add_argument("--cache", type=Path, help="keep the game's SQLite database here and read it back next time")
    ap.add_argument("--skip", default="", help="comma-separated parts not measured: gif, webp, book")
    ap.add_argument("--quick", action="store_true", help="a short run: one game year")
    ap.add_argument("--book", type=Path, help="write the game book made to this file, to look at its pages")
    opts = ap.parse_args(argv)
    years = 1 if opts.quick else opts.years
    skip = {s.strip() for s in opts.skip.split(",") if s.strip()}
    print(f"# CPython {sys.version.split()[0]}; load average before: {' '.join(f'{x:.1f}' for x in _load())}")
    store, name, made_in, cached = the_game(years, opts.seed, opts.cache)
    phases = store_history.history(store, name)
    processed = sum(1 for h in phases if h.status == "processed")
    how = "read back from the cache" if cached else f"played and stored in {made_in:.0f} s"
    print(f"# game {name}: W3K, {years} game years, {processed} phases processed, {len(phases)} in all; {how}")
    print(f"{'what':<{WIDTH}}  {'wall s':>8}  {'CPU s':>8}  {'peak MiB':>8}  {'row peak':>8}  made")
    _, got = measure(store, name, skip, opts.book)
    peak = process_peak()
    print(f"# peak resident size {peak:.0f} MiB; load average after: {' '.join(f'{x:.1f}' for x in _load())}")
    ok = got["frames"] == 2 * got["processed"] + 1 and all(
        got[f][1] == got["frames"] for f in ("gif", "webp") if f in got
    )
    if not ok:
        print("# MISMATCH: an export's frames differ from the replay's", file=sys.stderr)
    return 0 if ok else 1


def _load() -> tuple[float, float, float]:
    import os

    return os.getloadavg()


if __name__ == "__main__":
    sys.exit(main())
