"""benchmarks/bench_replay.py runs end to end in its quick mode (a W3K game of one year, played on SQLite, its
replay drawn as GIF and WebP and its book made): the figures in benchmarks/README.md come from a script that
works, and what it reports (frames, pages) is read back from what it made."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest

from benchsupport import bench_script
from dbsupport import migrated_sqlite
from dippouch.store import history as store_history


def _load() -> ModuleType:
    return bench_script("bench_replay")


@pytest.mark.slow
def test_the_quick_run_reports_every_figure_and_its_cache_is_read_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _load()
    cache = tmp_path / "game.db"
    assert bench.main(["--quick", "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "played and stored in" in out and cache.exists()
    processed = int(out.split(" phases processed")[0].rsplit(" ", 1)[-1])
    assert processed >= 4  # a W3K year: at least Summer, Autumn, Winter and Spring
    frames = 2 * processed + 1
    lines = {line.split("  ")[0].strip(): line for line in out.splitlines() if not line.startswith("#")}
    assert f"{frames} frames" in lines["replay frames listed (phases read, frames made), first"]
    assert f"{frames} frames (Pillow)" in lines["replay as GIF, first making"]
    assert f"{frames} frames (Pillow)" in lines["replay as WEBP, first making"]
    for kept in ("replay as GIF, kept (median of 3)", "replay as WEBP, kept (median of 3)"):
        assert kept in lines
    book = lines["game book PDF, first making"]
    if shutil.which("pdfinfo") and shutil.which("pdftotext"):
        pages = int(book.split(" pages")[0].rsplit(" ", 1)[-1])
        assert pages > processed and f"({pages} with text, pdftotext)" in book
    # A second run reads the same game back instead of playing it again, and may leave parts out.
    assert bench.main(["--quick", "--cache", str(cache), "--skip", "gif,webp,book"]) == 0
    again = capsys.readouterr().out
    assert "read back from the cache" in again and f"{processed} phases processed" in again
    assert "GIF" not in again and "game book" not in again


def test_random_orders_are_the_engines_legal_orders(tmp_path: Path) -> None:
    """Every line the benchmark's players send is accepted by the store's check, so the game is one the
    engine really plays (no refused line silently turning into a hold)."""
    from dippouch.store import GameStore

    bench = _load()
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    assert bench.play(store, "g", 1, 7) >= 4
    for phase in store_history.history(store, "g"):
        record = store_history.phase_record(store, "g", phase_id=phase.id, open_ok=True)
        for sub in record["submissions"]:
            refused = [line for line in sub["lines"] if line.get("error")]
            assert refused == [], (phase.name, sub["power"], refused)
    store.close()
