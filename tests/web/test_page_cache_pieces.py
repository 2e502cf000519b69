"""A kept page's pieces deflated once, by whoever made it (dippouch.web.http.encoded.Pieces): every other web
process serves the page gzipped from them without compressing it again. Any choice of pieces that keeps the last
must decompress to exactly the text it stands for (the deadline box's form shown, the reader's CSRF field in each
gap), a packed value that does not fit the text is refused rather than served, and a page kept without pieces is
still served."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from dippouch.store.models_pages import SharedPageRow
from dippouch.web.app import create_app
from dippouch.web.http.deps import CSRF_PLACEHOLDER
from dippouch.web.http.encoded import Pieces
from dippouch.web.views import page_cache
from websupport import TEST_SITE, TwoProcesses, raw_answer, without_token

GAP = "<gap>"
MARKS = (GAP, "<a>", "<b>")

_texts = st.text(alphabet="xyz <>/ab\u00b7\u2192\U0001f600", max_size=40)
"""Texts with characters of one, two, three and four bytes in UTF-8: a page is cut in its bytes, where its marks
begin elsewhere than in its characters."""


@given(st.lists(st.tuples(_texts, st.sampled_from([GAP, "<a>", "<b>"])), max_size=8), _texts, st.data())
def test_any_choice_of_pieces_keeping_the_last_decompresses_to_its_text(
    cut: list[tuple[str, str]], last: str, data: st.DataObject
) -> None:
    text = "".join(piece + mark for piece, mark in cut) + last
    pieces = Pieces.of(text, MARKS)
    assert "".join(t.decode() + m for t, m in zip(pieces.texts, (*pieces.marks, ""), strict=True)) == text
    shown = [data.draw(st.booleans()) for _ in pieces.texts[:-1]] + [True]
    fill = data.draw(st.sampled_from([b"", b"m.token", b"x" * 70_000]))
    expected: list[bytes] = []
    for i, piece in enumerate(pieces.texts):
        if shown[i]:
            expected.append(piece)
            if i < len(pieces.marks) and pieces.marks[i] == GAP:
                expected.append(fill)
    page = pieces.gapped(shown, GAP)
    assert page.plain(fill) == b"".join(expected)
    assert gzip.decompress(page.gzip(fill)) == b"".join(expected)
    raw = text.encode()
    assert Pieces.unpacked(raw, MARKS, pieces.packed()) == pieces
    assert Pieces.unpacked(raw, MARKS, pieces.packed(MARKS)) == pieces  # cut where the marks were kept
    assert all(raw.startswith(m.encode(), at) for at, m in zip(pieces.cuts, pieces.marks, strict=True))


def test_the_last_piece_is_always_shown() -> None:
    with pytest.raises(ValueError, match="last piece"):
        Pieces.of("a<a>b", MARKS).gapped([True, False], GAP)


def test_packed_pieces_that_do_not_fit_the_text_are_refused() -> None:
    text = b"one<gap>two<a>three"
    packed = Pieces.of(text.decode(), MARKS).packed()
    assert Pieces.unpacked(text, MARKS, packed) is not None
    assert Pieces.unpacked(b"one<gap>two", MARKS, packed) is None  # another text, fewer pieces
    assert Pieces.unpacked(text, MARKS, packed[:-1]) is None  # cut short
    assert Pieces.unpacked(text, MARKS, packed + b"\0") is None  # something after
    assert Pieces.unpacked(text, MARKS, b"") is None and Pieces.unpacked(text, MARKS, b"\xff" * 4) is None


def test_pieces_kept_with_their_marks_are_cut_there_and_refused_where_the_text_differs() -> None:
    text = "one\u2192<gap>two<a>three"
    data = text.encode()
    packed = Pieces.of(text, MARKS).packed(MARKS)
    assert len(packed) > len(Pieces.of(text, MARKS).packed())  # the marks' places kept after the pieces
    got = Pieces.unpacked(data, MARKS, packed)
    assert got is not None and got.texts == ("one\u2192".encode(), b"two", b"three") and got.marks == (GAP, "<a>")
    assert got.cuts == (6, 14)  # in bytes: the arrow is three
    assert Pieces.unpacked("one\u2192<a>two<gap>three".encode(), MARKS, packed) is None  # another mark there
    assert Pieces.unpacked("onex\u2192<gap>two<a>three".encode(), MARKS, packed) is None  # the marks moved
    assert Pieces.unpacked(data, MARKS, packed[:-2]) is None and Pieces.unpacked(data, MARKS, packed + b"\0") is None


@pytest.mark.parametrize("boxes", [1, 2])
@pytest.mark.parametrize("waits", [None, "processing", "review"])
def test_the_pieces_shown_are_the_deadline_box_s_form(waits: str | None, boxes: int) -> None:
    box = page_cache.deadline_forms(f"before {CSRF_PLACEHOLDER}", "processing", f"review {CSRF_PLACEHOLDER}!")
    html = f"<head>{CSRF_PLACEHOLDER}</head>" + ("<p>board</p>" * 50 + box) * boxes + f"<form>{CSRF_PLACEHOLDER}</form>"
    shown = page_cache.deadline_shown(html, waits)
    for form, when in (("before", None), ("processing", "processing"), ("review", "review")):
        assert shown.count(form) == (boxes if when == waits else 0)
    assert "<!--" not in shown
    pieces = Pieces.of(html, page_cache.MARKS)
    page = pieces.gapped(page_cache.shown_pieces(pieces.marks, waits), CSRF_PLACEHOLDER)
    expected = page_cache.deadline_shown(html, waits).replace(CSRF_PLACEHOLDER, "m.tok").encode()
    assert page.plain(b"m.tok") == expected
    assert gzip.decompress(page.gzip(b"m.tok")) == expected


class Pair(TwoProcesses):
    """The first process makes the page, the second and a third started later only read it back."""

    def b(self) -> TestClient:
        return self.signed_in(self.b_app, None)

    def c(self) -> TestClient:
        """A browser of a third process, started now."""
        return self.signed_in(create_app(self.url, clock=self.a.clock, limits={}, site=TEST_SITE), None)

    def deflated(self, value: bytes | None) -> None:
        with self.other.engine.begin() as c:
            c.execute(sa.update(SharedPageRow).values(deflated=value))

    def kept(self) -> list[bytes | None]:
        with self.other.engine.connect() as c:
            return [row[0] for row in c.execute(sa.select(SharedPageRow.deflated))]


@pytest.fixture
def pair(db_url: str) -> Iterator[Pair]:
    p = Pair(db_url)
    yield p
    p.close()


def _gzipped(c: TestClient) -> bytes:
    headers, body = raw_answer(c, "/games/g", "gzip")
    assert headers["content-encoding"] == "gzip"
    return without_token(gzip.decompress(body))


def _no_compression(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> None:
        raise AssertionError("compressed again")

    monkeypatch.setattr(zlib, "compressobj", refused)


def test_a_page_made_by_one_process_is_served_gzipped_by_another_without_compressing_it(
    pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = _gzipped(pair.a.browser())
    assert b">Spring 1901 Movement<" in made
    [packed] = pair.kept()
    assert packed is not None and len(packed) < len(made) // 2
    _no_compression(monkeypatch)
    assert _gzipped(pair.b()) == made
    # Past its deadline (the page kept across it), the same pieces with the box's other form.
    pair.a.clock.advance(days=3)
    past = _gzipped(pair.c())
    assert past != made and b">Spring 1901 Movement<" in past and b"deadline" in past.lower()


@pytest.mark.parametrize("kept", [None, b"\x01\x00\x00\x00\x05\x00\x00\x00nope!"])
def test_a_page_kept_without_fitting_pieces_is_compressed_by_its_reader(pair: Pair, kept: bytes | None) -> None:
    made = _gzipped(pair.a.browser())
    pair.deflated(kept)
    assert _gzipped(pair.b()) == made
