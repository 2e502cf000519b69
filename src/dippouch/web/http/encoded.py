"""Answers compressed once and served many times: a game's shared page and a phase's map are the same bytes for
every reader until the game changes, so compressing them again for every request (the compression layer's way)
costs more CPU than the rest of the request. What is made once is compressed once, beside its plain bytes, and
each request picks the form its Accept-Encoding takes; the compression layer leaves an answer that already has a
Content-Encoding alone.

A page is the same for every reader but for a few bytes (the CSRF field its forms carry, masked afresh for each
answer, against BREACH): :class:`Gapped` keeps the parts between those gaps deflated each on its own, and an
answer is those parts with the reader's bytes put in as a stored (uncompressed) block, in one gzip member: a
few bytes of header and a checksum a request, no compression.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import brotli
from cachetools import LRUCache

__all__ = ["OFFERED", "Gapped", "accepted", "chosen", "compressed", "keep_within"]

_K = TypeVar("_K")
_V = TypeVar("_V")

GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""A gzip member's header (RFC 1952): deflate, no name, no time (the bytes are the same whenever made), OS
unknown."""

LEVEL = 6
"""gzip's level for a page's parts, deflated once a page (some 10 KB of text: well under a millisecond)."""

PICTURE_LEVEL = 4
QUALITY = 4
"""gzip's level and brotli's quality for a picture compressed once (the compression layer's own, per request)."""


@lru_cache(maxsize=256)
def _weighed(header: str) -> tuple[frozenset[str], frozenset[str]]:
    """The codings an Accept-Encoding header names with a weight above 0 (or none), and those it refuses
    (``q=0``), in lower case. A client sends the same header with every request: the few seen are read once."""
    taken: set[str] = set()
    refused: set[str] = set()
    for item in header.split(","):
        coding, _, params = item.partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        (taken if weight > 0 else refused).add(coding)
    return frozenset(taken - refused), frozenset(refused)


def accepted(header: str, coding: str) -> bool:
    """Whether an Accept-Encoding ``header`` takes ``coding``: named with a weight above 0, or not named and
    ``*`` taken."""
    taken, refused = _weighed(header)
    return coding in taken or ("*" in taken and coding not in refused)


def chosen(header: str | None, offered: tuple[str, ...]) -> str | None:
    """The first coding of ``offered`` (the server's order of preference) that ``header`` (a request's
    Accept-Encoding, None without one) takes; None: the plain bytes."""
    if not header:
        return None
    return next((coding for coding in offered if accepted(header, coding)), None)


OFFERED = ("br", "gzip")
"""The codings a picture compressed once is offered in, best first: brotli makes a map about a tenth smaller
than gzip."""


def compressed(data: bytes, coding: str) -> bytes:
    """``data`` in ``coding`` (one of :data:`OFFERED`), once, for every reader after: brotli's quality and gzip's
    level 4, where a map's 220 KB take some 3.5 ms each (gzip's usual 6 took five times as long on a map's
    repetitive paths for 8 per cent less)."""
    if coding == "br":
        return bytes(brotli.compress(data, quality=QUALITY))
    if coding == "gzip":
        deflate = zlib.compressobj(PICTURE_LEVEL, zlib.DEFLATED, -15)
        body = deflate.compress(data) + deflate.flush()
        return GZIP_HEADER + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    raise ValueError(f"no such coding offered: {coding!r}")


def _stored(data: bytes) -> bytes:
    """``data`` as deflate stored blocks (RFC 1951 3.2.4), none of them the last: what a reader's own bytes
    cost to put in between parts deflated once (they are random: compressing them would gain nothing)."""
    out = []
    for i in range(0, len(data), 0xFFFF):
        chunk = data[i : i + 0xFFFF]
        out.append(b"\x00" + struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF) + chunk)
    return b"".join(out) if out else b"\x00\x00\x00\xff\xff"


@dataclass(frozen=True)
class Gapped:
    """A text made once with gaps where each answer puts its own bytes (``gap``, the same bytes in every gap),
    kept as its parts between the gaps, plain and deflated. Each part is deflated on its own and ends on a byte
    boundary (a full flush; the last one closes the stream), so an answer is the parts with the reader's bytes
    between them as stored blocks: one valid gzip member, whose checksum is the only thing computed over the
    whole (a few microseconds for a page)."""

    parts: tuple[bytes, ...]
    deflated: tuple[bytes, ...]

    @classmethod
    def of(cls, text: str, gap: str) -> Gapped:
        parts = tuple(p.encode() for p in text.split(gap))
        deflated = []
        for i, part in enumerate(parts):
            deflate = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            last = i == len(parts) - 1
            deflated.append(deflate.compress(part) + deflate.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH))
        return cls(parts, tuple(deflated))

    @property
    def size(self) -> int:
        return sum(map(len, self.parts)) + sum(map(len, self.deflated))

    def plain(self, fill: bytes) -> bytes:
        """The text with ``fill`` in every gap."""
        return fill.join(self.parts)

    def gzip(self, fill: bytes) -> bytes:
        """:meth:`plain`, gzipped: the parts' deflated bytes with ``fill`` stored between them."""
        plain = self.plain(fill)
        body = _stored(fill).join(self.deflated) if len(self.parts) > 1 else self.deflated[0]
        return GZIP_HEADER + body + struct.pack("<II", zlib.crc32(plain), len(plain) & 0xFFFFFFFF)


def keep_within(cache: LRUCache[_K, _V], key: _K, value: _V) -> None:
    """``value`` kept in ``cache`` (bounded by the size of what it keeps, the least recently used dropped first)
    unless it alone is bigger than the whole bound, which the cache would refuse with an error: such a value is
    served once and made again when asked again."""
    if cache.getsizeof(value) <= cache.maxsize:
        cache[key] = value
