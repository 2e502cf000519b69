"""What is made once is compressed once (dippouch.web.http.encoded): a visitor's game page is gzipped from parts
deflated when the page was made, with the visitor's own CSRF field stored between them, and a phase's map is kept
as plain, zstd, brotli and gzip bytes. Each form must decompress to exactly the plain bytes, each request must get the
form its Accept-Encoding takes, and the compression layer must not compress an answer again."""

from __future__ import annotations

import gzip
import json
import re
import zlib
from typing import Any

import brotli
import pytest
import zstandard

from dippouch.store import processing as store_processing
from dippouch.web.http.encoded import Gapped, accepted, chosen, compressed
from dippouch.web.http.security import Viewer
from dippouch.web.views import games, page_cache
from websupport import CSRF_TOKEN, Site, raw_answer, without_token

GAP = "__gap__"


@pytest.mark.parametrize("fill", [b"", b"m.Zm9vYmFy", b"x" * 70_000])
def test_a_gapped_text_gzipped_is_its_plain_bytes(fill: bytes) -> None:
    text = "<html>" + "the board " * 400 + GAP + "<p>between</p>" * 50 + GAP + "</html>"
    page = Gapped.of(text, GAP)
    plain = page.plain(fill)
    assert plain == text.replace(GAP, fill.decode()).encode()
    got = page.gzip(fill)
    assert gzip.decompress(got) == plain
    # One gzip member, nothing after it: a browser that stops at the first member's end still has it all.
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    assert member.decompress(got) == plain and member.eof and member.unused_data == b""
    # The text's parts compressed, the two fills stored as they are.
    assert len(got) < (len(plain) - 2 * len(fill)) // 3 + 2 * len(fill) + 64


def test_a_text_without_gaps_is_one_deflated_part() -> None:
    page = Gapped.of("no gap here " * 100, GAP)
    assert len(page.deflated) == 1
    assert gzip.decompress(page.gzip(b"unused")) == ("no gap here " * 100).encode()


def test_bytes_compressed_once_decompress_to_the_plain_bytes() -> None:
    data = ("<svg>" + "<path d='M 1 2 L 3 4'/>" * 2000 + "</svg>").encode()
    assert gzip.decompress(compressed(data, "gzip")) == data
    assert brotli.decompress(compressed(data, "br")) == data
    assert zstandard.ZstdDecompressor().decompress(compressed(data, "zstd")) == data
    with pytest.raises(ValueError, match="no such coding"):
        compressed(data, "deflate")


def test_the_coding_a_request_takes() -> None:
    browser = "gzip, deflate, br, zstd"
    assert chosen(browser, ("br", "gzip")) == "br"
    assert chosen(browser, ("gzip",)) == "gzip"
    assert chosen("gzip;q=0.5, br;q=0", ("br", "gzip")) == "gzip"
    assert chosen("*", ("br", "gzip")) == "br"
    assert chosen("*, br;q=0", ("br", "gzip")) == "gzip"
    assert chosen("identity", ("br", "gzip")) is None
    assert chosen(None, ("gzip",)) is None and chosen("", ("gzip",)) is None
    assert chosen("GZip", ("gzip",)) == "gzip"
    assert not accepted("gzip;q=0", "gzip") and not accepted("gzip;q=nonsense", "gzip")


@pytest.fixture
def site(db_url: str) -> Site:
    s = Site(db_url, limits={})
    s.new_game("g", movement="2d")
    return s


def test_a_visitor_s_page_is_gzipped_once_and_reads_as_the_plain_one(site: Site) -> None:
    c = site.browser()
    plain_headers, plain = raw_answer(c, "/games/g", None)
    assert "content-encoding" not in plain_headers
    assert "Accept-Encoding" in plain_headers["vary"]
    gz_headers, gz = raw_answer(c, "/games/g", "gzip, deflate, br, zstd")
    # gzip, chosen by the page over the layer's zstd and brotli, and not compressed again by the layer.
    assert gz_headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in gz_headers["vary"]
    page = gzip.decompress(gz)
    assert b">Spring 1901 Movement<" in page
    assert without_token(page) == without_token(plain)
    # Each answer carries a token masked afresh, in every form of the page.
    tokens = CSRF_TOKEN.findall(page)
    assert len(tokens) >= 2 and len(set(tokens)) == 1
    assert set(tokens).isdisjoint(CSRF_TOKEN.findall(plain))
    assert int(gz_headers["content-length"]) == len(gz) < len(plain) // 2
    again = c.get("/games/g", headers={"If-None-Match": gz_headers["etag"], "Accept-Encoding": "gzip"})
    assert again.status_code == 304 and "Accept-Encoding" in again.headers["vary"]


def test_a_client_that_takes_only_brotli_gets_the_page_compressed_by_the_layer(site: Site) -> None:
    c = site.browser()
    headers, body = raw_answer(c, "/games/g", "br")
    assert headers["content-encoding"] == "br"
    assert b">Spring 1901 Movement<" in brotli.decompress(body)


def test_a_phase_s_map_is_kept_compressed_and_each_form_is_the_same_picture(site: Site) -> None:
    c = site.browser()
    url = re.fullmatch(r"/games/g/phases/\d+/map-board\.svg", c.get("/api/games/g").json()["map_url"])
    assert url, "the game has a map"
    plain_headers, plain = raw_answer(c, url.group(0), None)
    assert "content-encoding" not in plain_headers and b"<svg" in plain[:400]
    for accept, coding, decode in (
        ("gzip, deflate, br, zstd", "zstd", zstandard.ZstdDecompressor().decompress),
        ("gzip, deflate, br", "br", brotli.decompress),  # Safari's
        ("gzip", "gzip", gzip.decompress),
    ):
        headers, body = raw_answer(c, url.group(0), accept)
        assert headers["content-encoding"] == coding and headers["vary"] == "Accept-Encoding"
        assert decode(body) == plain
    # Kept: the second reader is served the very bytes the first one was.
    web = site.web
    phase_id = int(url.group(0).split("/")[4])
    first = games.phase_map_encoded(web, "g", phase_id, "board", Viewer(), "br")
    assert games.phase_map_encoded(web, "g", phase_id, "board", Viewer(), "br") is first
    assert brotli.decompress(first) == plain


def test_a_map_s_kept_bytes_change_when_the_phase_does(site: Site) -> None:
    c = site.browser()

    def shown() -> tuple[str, bytes]:
        url = c.get("/api/games/g").json()["map_url"]
        return url, gzip.decompress(raw_answer(c, url, "gzip")[1])

    before_url, before = shown()
    store_processing.process(site.web.store, "g", now=site.clock(), force=True)
    site.web.touched("g")
    after_url, after = shown()
    assert after_url != before_url
    assert after != before and b"<svg" in after[:400]
    # The phase processed keeps its own picture under its own address.
    assert gzip.decompress(raw_answer(c, before_url, "gzip")[1]) == before


def test_a_signed_in_reader_s_shared_part_is_read_from_its_json_once(site: Site) -> None:
    fay = site.browser(site.seat("g", "France", "Fay"))
    for _ in range(2):
        r = fay.get("/games/g")
        assert r.status_code == 200 and ">Spring 1901 Movement<" in r.text
    kept = site.web.kept("dippouch.web.views.page_cache.read_once", lambda: None)
    assert kept is not None and len(kept.parts) == 1
    text = next(iter(kept.parts))
    assert page_cache.read_once(site.web, text) is page_cache.read_once(site.web, text)
    assert json.loads(text) == page_cache.read_once(site.web, text)


def test_a_kept_page_is_served_without_deflating_or_searching_it(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """A visitor's page kept by whoever made it (another process, a worker) is served from the pieces it was
    kept with, deflated then, and cut where it was cut then: no reader deflates it or searches it for its marks
    (with its map inline a page is some 50 KB). Held in the process's memory, it is served from the parts it is
    held with."""
    from dippouch.web.http import encoded

    c = site.browser()
    first = gzip.decompress(raw_answer(c, "/games/g", "gzip")[1])
    site.web.pages.clear()  # as another process finds it: kept, not in its memory
    work: list[str] = []
    for owner, name in ((encoded.Pieces, "of"), (encoded.Gapped, "of"), (encoded, "cut")):
        real = getattr(owner, name)

        def counted(*args: Any, _real: Any = real, _name: str = name) -> Any:
            work.append(_name)
            return _real(*args)

        monkeypatch.setattr(owner, name, staticmethod(counted) if owner is not encoded else counted)
    kept = gzip.decompress(raw_answer(site.browser(), "/games/g", "gzip")[1])
    held = gzip.decompress(raw_answer(site.browser(), "/games/g", "gzip")[1])
    assert work == [] and without_token(kept) == without_token(first) == without_token(held)
