"""What a web process keeps (map pictures compressed, PDFs, link previews, a sandbox's answers) is bounded by its
size: the least recently used goes first, reading one keeps it, and one bigger than the whole bound is served
without being kept, never refused with an error."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import brotli
import pytest
from cachetools import LRUCache

from dippouch.web.http.encoded import Gapped, keep_within
from dippouch.web.routes import sandbox
from dippouch.web.views.maps import MapCache


def test_the_least_recently_used_goes_first_and_a_read_keeps_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MapCache, "PDF_BYTES", 30)
    maps = MapCache()
    for name in "abc":
        maps.keep_pdf(name, name.encode() * 10)
    assert maps.cached_pdf("a") == b"a" * 10  # read: now the most recently used
    maps.keep_pdf("d", b"d" * 10)
    assert maps.cached_pdf("b") is None
    assert [maps.cached_pdf(n) for n in "acd"] == [b"a" * 10, b"c" * 10, b"d" * 10]


def test_one_bigger_than_the_whole_bound_is_served_and_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MapCache, "ENCODED_BYTES", 100)
    monkeypatch.setattr(MapCache, "PREVIEW_BYTES", 10)
    maps = MapCache()
    drawn: list[str] = []
    noise = secrets.token_hex(2500)  # 5,000 characters brotli cannot make smaller than the bound

    def draw(text: str) -> Callable[[], str]:
        def drawing() -> str:
            drawn.append(text[:1])
            return text

        return drawing

    for _ in range(2):
        assert brotli.decompress(maps.encoded(("g", 1), "br", draw("x" * 5000))) == b"x" * 5000
        assert brotli.decompress(maps.encoded(("g", 2), "br", draw(noise))) == noise.encode()
    assert drawn.count("x") == 1 and drawn.count(noise[:1]) == 2  # the small one kept, the big one made again
    assert maps.keep_preview("svg", b"p" * 11) == b"p" * 11
    assert maps.cached_preview("svg") is None


def test_a_sandbox_answer_counts_its_compressed_parts() -> None:
    answers = sandbox._answers()
    page = Gapped.of("<form>" + "x" * 1000 + "GAP</form>", "GAP")
    keep_within(answers, "look", b"y" * 10)
    keep_within(answers, "page", page)
    assert answers.currsize == 10 + page.size and page.size > 1000


def test_keep_within_leaves_out_only_what_is_too_big() -> None:
    cache: LRUCache[str, bytes] = LRUCache(8, getsizeof=len)
    keep_within(cache, "a", b"12345678")
    keep_within(cache, "b", b"123456789")
    assert list(cache) == ["a"]
