"""The OCR benchmark makes photographs, reads them with every engine installed and prints a row per engine and
font class (a smoke test at a tiny size: no figure asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from photosupport import need_tesseract

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_ocr.py"


def test_bench_ocr_prints_a_row_per_engine_and_font_class(tmp_path: Path) -> None:
    need_tesseract()
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--photos", "2", "--engines", "tesseract", "--save", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    rows = [ln.split() for ln in out.splitlines() if ln.startswith("tesseract ")]
    assert [r[1] for r in rows] == ["typed", "handwriting"], out
    for r in rows:
        photos, lines, exact, flagged, wrong = int(r[2]), int(r[3]), int(r[4]), int(r[6]), int(r[7])
        assert photos == 1 and lines > 0 and exact + flagged + wrong >= lines, out
    assert len(list(tmp_path.glob("*.jpg"))) == 2
