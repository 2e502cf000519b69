"""PDFs joined part by part (:class:`dippouch.render.pdfjoin.PdfJoin`), read back with poppler: the pages in
the order asked, a part's first pages left out when asked, and an object two parts share (a font, a drawing
shown through a form, with a group inside it) written once and shown by both."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from dippouch.render.pdfjoin import PdfJoin

cairo = pytest.importorskip("cairocffi")

pytestmark = pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
    reason="poppler-utils not installed (scripts/setup)",
)


def part(*pages: str, shared: str = "") -> bytes:
    """A PDF made by Cairo: a page for each of ``pages`` with its words, and with ``shared`` the same
    drawing on every page (a recording with words, a path and a half-transparent group in it)."""
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 300, 200)
    drawing = None
    if shared:
        drawing = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, (0, 0, 300, 200))
        ctx = cairo.Context(drawing)
        ctx.rectangle(10, 100, 80, 40)
        ctx.set_source_rgb(0.2, 0.4, 0.8)
        ctx.fill()
        ctx.push_group()
        ctx.set_source_rgb(0, 0, 0)
        ctx.move_to(10, 160)
        ctx.set_font_size(12)
        ctx.show_text(shared)
        ctx.pop_group_to_source()
        ctx.paint_with_alpha(0.8)
    for words in pages:
        ctx = cairo.Context(surface)
        ctx.move_to(10, 40)
        ctx.set_font_size(14)
        ctx.show_text(words)
        if drawing is not None:
            ctx.set_source_surface(drawing, 0, 0)
            ctx.paint()
        ctx.show_page()
    surface.finish()
    return out.getvalue()


def read(pdf: bytes, tmp_path: Path) -> list[str]:
    """Each page's words (pdftotext), the page count checked against pdfinfo's."""
    path = tmp_path / "joined.pdf"
    path.write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    assert "Syntax Error" not in info.stderr, info.stderr
    count = int(next(line.split()[-1] for line in info.stdout.splitlines() if line.startswith("Pages:")))
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True)
    assert "Error" not in text.stderr, text.stderr
    pages = [" ".join(page.split()) for page in text.stdout.split("\f")[:count]]
    assert len(pages) == count
    return pages


def test_parts_are_joined_in_the_order_asked(tmp_path: Path) -> None:
    out = io.BytesIO()
    join = PdfJoin(out)
    first = join.add(part("alpha one", "alpha two"))
    second = join.add(part("left out", "beta one"), skip=1)
    join.finish([*second, *first])
    assert read(out.getvalue(), tmp_path) == ["beta one", "alpha one", "alpha two"]


def test_an_object_two_parts_share_is_written_once_and_shown_by_both(tmp_path: Path) -> None:
    """The same drawing (a form holding a group, named by number in each part) and the same font (each part
    first uses the same letters in the same order, so Cairo makes the same subset) in two parts: written
    once, and each page still shows them (a name left as the part had it would show nothing)."""
    alone = io.BytesIO()
    join = PdfJoin(alone)
    join.add(part("gamma", shared="the shared map"))
    join.finish()
    both = io.BytesIO()
    join = PdfJoin(both)
    join.add(part("gamma", shared="the shared map"))
    join.add(part("gamma", "magma", shared="the shared map"))
    join.finish()
    assert read(both.getvalue(), tmp_path) == [
        "gamma the shared map",
        "gamma the shared map",
        "magma the shared map",
    ]
    # Two pages more, written with their own contents; the drawing, its group and the font are the first's.
    assert len(both.getvalue()) - len(alone.getvalue()) < 1500, (len(alone.getvalue()), len(both.getvalue()))


def test_the_page_order_names_every_page_once() -> None:
    join = PdfJoin(io.BytesIO())
    pages = join.add(part("one", "two"))
    with pytest.raises(ValueError, match="every page added, once"):
        join.finish([pages[0], pages[0]])


def test_two_drawings_alike_on_one_page_are_written_once(tmp_path: Path) -> None:
    """Two recordings with the same drawing shown on one page are two objects to Cairo and one once
    joined: the page names it once among its resources, and shows it twice."""
    out = io.BytesIO()
    surface = cairo.PDFSurface(out, 300, 200)
    ctx = cairo.Context(surface)
    for y in (0, 80):
        twin = cairo.RecordingSurface(cairo.CONTENT_COLOR_ALPHA, (0, 0, 300, 100))
        drawing = cairo.Context(twin)
        drawing.rectangle(10, 10, 30, 30)
        drawing.fill()
        drawing.move_to(60, 30)
        drawing.set_font_size(14)
        drawing.show_text("twin")
        ctx.set_source_surface(twin, 0, y)
        ctx.paint()
    ctx.show_page()
    surface.finish()
    assert out.getvalue().count(b"/Subtype /Form") == 2
    joined = io.BytesIO()
    join = PdfJoin(joined)
    join.add(out.getvalue())
    join.finish()
    assert read(joined.getvalue(), tmp_path) == ["twin twin"]
    assert joined.getvalue().count(b"/Subtype /Form") == 1
