"""The game book's layout (:func:`dippouch.render.gamebook.book_pdf`), read back with poppler: a title page
with the contents and their page numbers, each phase's map pages and text pages (results, then its press),
the final board, the press after the end; a big board's phases each as their own atlas, every sheet showing
its own phase's drawing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dippouch.catalog import load_variant
from dippouch.render import atlas_pdf, render_svg, results_pdf
from dippouch.render.atlas import atlas_layout
from dippouch.render.gamebook import BookPhase, BookPress, book_pdf
from dippouch.render.sample import sample_phases

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
    other = svg.replace("Wars of the Three Kingdoms", "Another phase")
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


def words(pdf: bytes, tmp_path: Path, name: str) -> list[list[tuple[str, tuple[float, ...]]]]:
    """Each page's words with their boxes (pt), as poppler reads the PDF."""
    path = tmp_path / name
    path.write_bytes(pdf)
    html = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [
        [
            (word, tuple(float(v) for v in re.findall(r'"([-\d.]+)"', box)))
            for box, word in re.findall(r"<word ([^>]+)>([^<]+)</word>", page)
        ]
        for page in html.split("<page ")[1:]
    ]


def test_every_page_reads_as_the_same_page_printed_alone(tmp_path: Path) -> None:
    """The book is written phase by phase, each phase's map drawn once in layers that its overview and sheets
    show: read back, each of its pages has the words, at the same places (to 0.05 pt), of the same page as the
    printable results make it (one Cairo surface, the map drawn whole: :func:`atlas_pdf`, :func:`results_pdf`),
    and the title page lists the phases at the pages they start on."""
    w3k = load_variant("w3k")
    played = sample_phases(w3k, seed=3, phases=2)
    svgs = [render_svg(w3k, p.position, p.orders, p.results) for p in played]
    results = ["The Crown:\nA London - Middlesex (moved)", "Montrose:\nA Edinburgh holds"]
    book = book_pdf(
        "g",
        ["A game"],
        [BookPhase(f"Phase {i}", svg, text) for i, (svg, text) in enumerate(zip(svgs, results, strict=True))],
        final=("The final board", svgs[-1]),
        variant=w3k,
    )
    alone: list[bytes] = []
    for i, (svg, text) in enumerate(zip(svgs, results, strict=True)):
        alone += [atlas_pdf(w3k, svg, f"g: Phase {i}"), results_pdf(None, f"g: Phase {i}", text)]
    alone.append(atlas_pdf(w3k, svgs[-1], "g: The final board"))
    want = [page for n, pdf in enumerate(alone) for page in words(pdf, tmp_path, f"alone-{n}.pdf")]
    got = words(book, tmp_path, "book.pdf")
    assert len(got) == 1 + len(want)
    maps = len(words(alone[0], tmp_path, "maps.pdf"))
    listed = re.findall(r"(Phase 0|Phase 1|The final board) +(\d+)", pages_of(book, tmp_path)[0])
    assert listed == [("Phase 0", "2"), ("Phase 1", f"{2 + maps + 1}"), ("The final board", f"{2 + 2 * (maps + 1)}")]
    for n, (page, same) in enumerate(zip(got[1:], want, strict=True), start=2):
        assert sorted(w for w, _ in page) == sorted(w for w, _ in same), f"page {n}"
        assert len(page) > 5, f"page {n}"  # a map's names, or a text page's lines
        for word, box in page:
            moved = min(max(abs(a - b) for a, b in zip(box, other, strict=True)) for w, other in same if w == word)
            assert moved < 0.05, (n, word, moved)


_MEMORY = """
import resource, sys
from dippouch.catalog import load_variant
from dippouch.render import render_svg
from dippouch.render.gamebook import BookPhase, book_pdf

v = load_variant("standard")
svg = render_svg(v, v.start)

def peak_after(phases):
    book = [BookPhase(f"Phase {i}", svg.replace("Spring 1901", f"Phase {i}"), f"results {i}") for i in range(phases)]
    book_pdf("t", [], book, variant=v)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

peak_after(1)  # the fonts, the caches, the modules: what any book costs
print(peak_after(2), peak_after(12))
"""


def test_a_books_memory_does_not_grow_with_the_games_length() -> None:
    """A book is written phase by phase and keeps none of a phase once written (on one Cairo surface every
    phase's drawing was kept to the end, and Cairo 1.16 kept an unbounded recording's copy after that: a
    40-year W3K book took 1.1 GB). In a fresh process, a book of 12 phases of the standard map (each its
    atlas, 6 pages) needs hardly more at its peak than one of 2: the 10 phases more held 2.8 MB each
    before."""
    run = subprocess.run([sys.executable, "-c", _MEMORY], capture_output=True, text=True, check=True)
    short, long = (float(v) for v in run.stdout.split())
    assert long - short < 8, f"peak {short:.0f} MiB for 2 phases, {long:.0f} MiB for 12"


def test_a_layer_the_same_in_every_phase_is_written_once(tmp_path: Path) -> None:
    """The board's parts that do not change from phase to phase (seas, coasts, names and their halos) and
    the fonts are written once for the whole book: a phase whose map is the last one's but for its heading
    adds a tenth of what the first phase took, and every face is embedded once."""
    v = load_variant("standard")
    svg = render_svg(v, v.start)

    def book(phases: int) -> bytes:
        return book_pdf(
            "t", [], [BookPhase(f"P{i}", svg.replace("Spring 1901", f"P{i}"), "r") for i in range(phases)], variant=v
        )

    books = [book(n) for n in (1, 2, 3)]
    one, two, three = (len(b) for b in books)
    assert three - two == pytest.approx(two - one, rel=0.2) and two - one < one / 10, (one, two, three)
    path = tmp_path / "book.pdf"
    path.write_bytes(books[2])
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    faces = [line.split()[0].split("+")[-1] for line in fonts.splitlines()[2:]]
    assert faces and len(faces) == len(set(faces)), fonts


def test_a_phase_whose_board_changes_in_part_writes_only_that_part_again() -> None:
    """Only the board's changed parts are written again: a phase whose map differs from the last one's by an
    order adds a tenth of what the first phase took. The board is drawn as layers of its parts, cut between its
    elements (and the marks between them, comments: once, they stopped the cut, and every phase's whole board
    was written again, a 3-year W3K book 5.7 MiB where it is 2.1)."""
    v = load_variant("standard")
    orders: list[dict[str, list[str]] | None] = [None, {"France": ["A par - bur"]}, {"France": ["A par - pic"]}]
    svgs = [render_svg(v, v.start, o) for o in orders]
    assert all("<!--" in svg for svg in svgs)

    def book(phases: int) -> int:
        return len(book_pdf("t", [], [BookPhase(f"P{i}", svgs[i], "r") for i in range(phases)], variant=v))

    one, two, three = (book(n) for n in (1, 2, 3))
    assert three - two < one / 10 and two - one < one / 10, (one, two, three)


def test_a_layer_the_same_as_the_phase_befores_is_drawn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's parts that did not change since the phase before (the names, the seas, the centres) are not
    drawn again for the next phase's pages: its recording is shown again (a tenth of a W3K book's CPU)."""
    from dippouch.render import gamebook

    v = load_variant("standard")
    drawn: list[str] = []
    record = gamebook._recorded

    def counted(whole: str, box: object) -> object:
        drawn.append(whole)
        return record(whole, box)  # type: ignore[arg-type]

    monkeypatch.setattr(gamebook, "_recorded", counted)
    orders = [{"France": [f"A par - {to}"]} for to in ("bur", "pic", "gas")]
    phases = [BookPhase(f"P{i}", render_svg(v, v.start, o), "r") for i, o in enumerate(orders)]
    book_pdf("t", [], phases[:1], variant=v)
    names = sum('class="labels"' in layer for layer in drawn)
    drawn.clear()
    book_pdf("t", [], phases, variant=v)
    assert len(drawn) == len(set(drawn)), "a drawing recorded twice"
    assert sum('class="labels"' in layer for layer in drawn) == names > 0  # the names of one phase, once
    assert sum('class="orders"' in layer for layer in drawn) == 3  # what changed is drawn for each phase
