"""The game book's layout (:func:`dippouch.render.gamebook.book_pdf`), read back with poppler: a title page
with the contents and their page numbers, each phase's map pages and text pages (results, then its press),
the final board, the press after the end; a big board's phases each as their own atlas, every sheet showing
its own phase's drawing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.render import render_svg
from dippouch.render.atlas import atlas_layout
from dippouch.render.gamebook import BookPhase, BookPress, book_pdf

pytestmark = pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
    reason="poppler-utils not installed (scripts/setup)",
)


def pages_of(pdf: bytes, tmp_path: Path) -> list[str]:
    """Each page's text, as pdftotext reads it (its page count checked against pdfinfo's)."""
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    count = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True)
    pages = text.stdout.split("\f")[:count]
    assert len(pages) == count
    return pages


def test_a_small_book_a_map_and_a_text_page_per_phase(tmp_path: Path) -> None:
    v = load_variant("standard")
    svg = render_svg(v, v.start)
    phases = [
        BookPhase(
            "Spring 1901 Movement", svg, "Spring results\nParis -> Burgundy", [BookPress("England", "all", "Hello")]
        ),
        BookPhase("Fall 1901 Movement", svg, "Fall results"),
    ]
    pages = pages_of(
        book_pdf(
            "demo",
            ["Standard Diplomacy"],
            phases,
            final=("The final board", svg),
            after_end=[BookPress("France", "England", "Well played", "2026-01-01 00:00 UTC")],
        ),
        tmp_path,
    )
    # Without a variant each map is one page: the title, two phases of two pages, the final board, the press.
    assert len(pages) == 1 + 2 * 2 + 1 + 1
    contents = [line.split() for line in pages[0].splitlines() if line.strip().endswith(("2", "4", "6", "7"))]
    assert [c[-1] for c in contents] == ["2", "4", "6", "7"], pages[0]
    assert "demo: Spring 1901 Movement" in pages[1]
    assert "Spring 1901 Movement: results" in pages[2] and "Paris -> Burgundy" in pages[2]
    assert "Press" in pages[2] and "England to all:" in pages[2] and "Hello" in pages[2]
    assert "Press" not in pages[4]  # a phase without letters has no press heading
    assert "demo: The final board" in pages[5]
    assert "France to England (2026-01-01 00:00 UTC):" in pages[6] and "Well played" in pages[6]


def test_a_long_phase_runs_on_and_the_contents_follow(tmp_path: Path) -> None:
    long = "\n".join(f"line {i}" for i in range(300))  # two columns of 55 lines a page
    pages = pages_of(book_pdf("demo", [], [BookPhase("One", None, long), BookPhase("Two", None, "short")]), tmp_path)
    one = [i for i, p in enumerate(pages) if "One: results" in p]
    assert len(one) == 3 and one[0] == 1
    assert pages[-1].count("Two: results") == 1 and "line 299" in pages[3]
    assert pages[0].split("Two")[1].split()[0] == "5"


def test_a_big_boards_phases_print_as_their_atlas_each_sheet_its_own_phase(tmp_path: Path) -> None:
    """W3K: each phase's map is its overview and regional sheets, where names are legible; a sheet is a window
    onto its own phase's drawing (every sheet of the first phase was blank once a second phase's was drawn)."""
    w3k = load_variant("w3k")
    svg = render_svg(w3k, w3k.start)
    other = render_svg(w3k, w3k.start).replace("Wars of the Three Kingdoms", "Another phase")
    maps = len(atlas_layout(w3k, svg, "t"))
    assert maps > 3
    pages = pages_of(
        book_pdf("w3k", [], [BookPhase("First", svg, "a"), BookPhase("Second", other, "b")], variant=w3k), tmp_path
    )
    assert len(pages) == 1 + 2 * (maps + 1)
    for phase, start in (("First", 1), ("Second", 2 + maps)):
        sheets = pages[start : start + maps]
        assert ": overview" in sheets[0]
        for page in sheets:
            assert f"w3k: {phase}" in page
            assert len(page.split()) > 12, page  # the map's names, not the title alone
        assert f"{phase}: results" in pages[start + maps]
