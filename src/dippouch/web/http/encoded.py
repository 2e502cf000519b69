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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import AnyStr, TypeVar

import brotli
import zstandard
from cachetools import LRUCache

__all__ = ["OFFERED", "Gapped", "Pieces", "accepted", "chosen", "compressed", "cut", "keep_within"]

_K = TypeVar("_K")
_V = TypeVar("_V")

GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""A gzip member's header (RFC 1952): deflate, no name, no time (the bytes are the same whenever made), OS
unknown."""

LEVEL = 4
"""gzip's level for a page's parts, deflated once a page by whoever makes it (most by the worker that processed
the phase). A standard game's page with its picture inline, 53 KB (this two-CPU machine, 2026-11-30): level 4
0.70 ms to 8.9 KB, level 6 1.14 ms to 8.5 KB, level 1 0.41 ms to 9.7 KB."""

PICTURE_LEVEL = 4
QUALITY = 2
ZSTD_LEVEL = 1
"""gzip's level, brotli's quality and zstd's level for a picture compressed once. On a standard map's 221 KB
(this two-CPU machine, 2026-11-30): zstd 1 0.9 ms to 67.4 KB, brotli 2 2.4 ms to 66.9 KB (its 4, 3.9 ms to
65.9 KB), gzip 4 4.5 ms to 68.7 KB. A thousand games turning every 30 s ask some thirty new maps a second: at
brotli 4 their compression took a quarter of a busy web process's samples (py-spy, bench_web_workers.py)."""


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


OFFERED = ("zstd", "br", "gzip")
"""The codings a picture compressed once is offered in, best first: zstd compresses a map in a fraction of
brotli's time to about its size (every current browser but Safari takes it); brotli makes a map smaller than
gzip."""


def compressed(data: bytes, coding: str) -> bytes:
    """``data`` in ``coding`` (one of :data:`OFFERED`), once, for every reader after, at the levels of
    :data:`ZSTD_LEVEL` (gzip's usual 6 took five times its level 4's time on a map's repetitive paths for 8 per
    cent less)."""
    if coding == "zstd":
        return bytes(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data))
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

    parts: tuple[tuple[bytes, ...], ...]
    """Each part as the run of pieces it is made of, joined only into an answer: made of :class:`Pieces`, they
    are the pieces' own bytes, so a page held beside its pieces (to be shown another way later) is held once."""
    deflated: tuple[tuple[bytes, ...], ...]

    @classmethod
    def of(cls, text: str, gap: str) -> Gapped:
        pieces = Pieces.of(text, (gap,))
        return pieces.gapped([True] * len(pieces.texts), gap)

    @property
    def size(self) -> int:
        return sum(len(b) for run in self.parts for b in run) + sum(len(b) for run in self.deflated for b in run)

    def plain(self, fill: bytes) -> bytes:
        """The text with ``fill`` in every gap."""
        return b"".join(_between(self.parts, fill))

    def gzip(self, fill: bytes) -> bytes:
        """:meth:`plain`, gzipped: the parts' deflated bytes with ``fill`` stored between them."""
        plain = self.plain(fill)
        body = b"".join(_between(self.deflated, _stored(fill) if len(self.parts) > 1 else b""))
        return GZIP_HEADER + body + struct.pack("<II", zlib.crc32(plain), len(plain) & 0xFFFFFFFF)


def _between(runs: tuple[tuple[bytes, ...], ...], fill: bytes) -> list[bytes]:
    """The runs' bytes in order with ``fill`` between one run and the next, to be joined once."""
    out = list(runs[0])
    for run in runs[1:]:
        out.append(fill)
        out.extend(run)
    return out


def cut(text: AnyStr, marks: Sequence[AnyStr]) -> tuple[list[AnyStr], list[AnyStr], list[int]]:
    """``text`` cut at every one of ``marks`` (texts that never overlap in it): the pieces, the mark between
    each piece and the next, and where each of those marks begins (in characters, or bytes for bytes)."""
    # find, not a pattern of alternatives: a regular expression tries each at every character (40 us a 10 KB
    # page, a third of the compression Pieces saves).
    found: list[tuple[int, AnyStr]] = []
    for mark in marks:
        at = text.find(mark)
        while at >= 0:
            found.append((at, mark))
            at = text.find(mark, at + len(mark))
    found.sort()
    pieces: list[AnyStr] = []
    between: list[AnyStr] = []
    start = 0
    for at, mark in found:
        pieces.append(text[start:at])
        between.append(mark)
        start = at + len(mark)
    pieces.append(text[start:])
    return pieces, between, [at for at, _ in found]


@dataclass(frozen=True)
class Pieces:
    """A text cut at its marks (the gaps of :class:`Gapped`, and marks around alternatives that only some answers
    show), each piece deflated on its own once, the last one closing the stream. Any choice of pieces that keeps
    the last is then one valid deflate stream, so a page kept with its pieces deflated (by the process or worker
    that made it) is served gzipped by every other process without compressing it again: they cost some 0.14 ms
    of CPU a 10 KB page to deflate, as much as the query that reads the page back."""

    texts: tuple[bytes, ...]
    marks: tuple[str, ...]
    """The mark between piece ``i`` and ``i + 1``."""
    deflated: tuple[bytes, ...]
    cuts: tuple[int, ...] = ()
    """Where each mark begins in the text's UTF-8 bytes, as :meth:`packed` keeps them: a page read back is cut
    there rather than searched for its marks again (a page with its map inline is some 50 KB, searched once for
    each of its kinds of mark)."""

    @staticmethod
    def _cut(data: bytes, marks: Sequence[str]) -> tuple[tuple[bytes, ...], tuple[str, ...], tuple[int, ...]]:
        by_bytes = {m.encode(): m for m in marks}
        texts, found, at = cut(data, list(by_bytes))
        return tuple(texts), tuple(by_bytes[m] for m in found), tuple(at)

    @classmethod
    def of(cls, text: str, marks: Sequence[str]) -> Pieces:
        """``text`` cut at every one of ``marks`` (texts that never overlap in it), each piece deflated."""
        texts, found, at = cls._cut(text.encode(), marks)
        deflated = []
        for i, piece in enumerate(texts):
            deflate = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            last = i == len(texts) - 1
            deflated.append(deflate.compress(piece) + deflate.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH))
        return cls(texts, found, tuple(deflated), at)

    def packed(self, marks: Sequence[str] = ()) -> bytes:
        """The deflated pieces as one value to keep beside the text (:meth:`unpacked` reads it back); with the
        ``marks`` the text was cut at, where each mark is too (by its place in ``marks``)."""
        out = [struct.pack("<I", len(self.deflated)), *(struct.pack("<I", len(d)) + d for d in self.deflated)]
        if marks and self.cuts:
            out.append(struct.pack("<I", len(self.cuts)))
            out.extend(struct.pack("<IB", at, marks.index(m)) for at, m in zip(self.cuts, self.marks, strict=True))
        return b"".join(out)

    @classmethod
    def unpacked(cls, data: bytes, marks: Sequence[str], packed: bytes) -> Pieces | None:
        """The pieces of the text whose UTF-8 bytes are ``data`` with the deflated ones :meth:`packed` made of it;
        None when they do not fit (made of another text, or cut at other marks by another release): the caller
        deflates it again. Bytes, as the database sends a kept page (:mod:`dippouch.store.page_cache`): a page
        read back as text was decoded, cut and encoded again, some 0.15 ms of a 50 KB page with a character
        beyond Latin-1 in it (an arrow, a dash: Python then keeps the text at two bytes a character)."""
        deflated: list[bytes] = []
        try:
            (count,) = struct.unpack_from("<I", packed)
            at = 4
            for _ in range(count):
                (size,) = struct.unpack_from("<I", packed, at)
                deflated.append(packed[at + 4 : at + 4 + size])
                at += 4 + size
            kept = cls._kept_cuts(data, marks, packed, at)
        except (struct.error, IndexError):
            return None
        if kept is None:
            texts, found, cuts = cls._cut(data, marks)
        else:
            texts, found, cuts = kept
        if count != len(texts) or any(len(d) < 2 for d in deflated):
            return None
        return cls(texts, found, tuple(deflated), cuts)

    @staticmethod
    def _kept_cuts(
        data: bytes, marks: Sequence[str], packed: bytes, at: int
    ) -> tuple[tuple[bytes, ...], tuple[str, ...], tuple[int, ...]] | None:
        """The text's bytes cut where :meth:`packed` kept its marks (after the pieces, from ``at``); None where it
        kept none (then the bytes are searched for them). Raises IndexError or struct.error where what it kept
        does not fit the text."""
        if at == len(packed):
            return None
        (n,) = struct.unpack_from("<I", packed, at)
        at += 4
        encoded = [m.encode() for m in marks]
        texts: list[bytes] = []
        found: list[str] = []
        cuts: list[int] = []
        start = 0
        for _ in range(n):
            where, which = struct.unpack_from("<IB", packed, at)
            at += 5
            mark = encoded[which]
            if where < start or not data.startswith(mark, where):
                raise IndexError("a mark kept where the text has none")
            texts.append(data[start:where])
            found.append(marks[which])
            cuts.append(where)
            start = where + len(mark)
        if at != len(packed):
            raise IndexError("more kept than the marks")
        texts.append(data[start:])
        return tuple(texts), tuple(found), tuple(cuts)

    def gapped(self, shown: Sequence[bool], gap: str) -> Gapped:
        """The pieces ``shown`` (one flag a piece; the last must be) as a :class:`Gapped`, the marks that are
        ``gap`` within them its gaps and every other mark left out."""
        if not shown[-1]:
            raise ValueError("the last piece closes the stream: it is always shown")
        parts: list[tuple[bytes, ...]] = []
        deflated: list[tuple[bytes, ...]] = []
        text: list[bytes] = []
        deflate: list[bytes] = []
        for i, piece in enumerate(self.texts):
            if not shown[i]:
                continue
            text.append(piece)
            deflate.append(self.deflated[i])
            if i < len(self.marks) and self.marks[i] == gap:
                parts.append(tuple(text))
                deflated.append(tuple(deflate))
                text, deflate = [], []
        parts.append(tuple(text))
        deflated.append(tuple(deflate))
        return Gapped(tuple(parts), tuple(deflated))

    @property
    def size(self) -> int:
        """The bytes held: every piece plain and deflated (a :class:`Gapped` made of them adds none)."""
        return sum(map(len, self.texts)) + sum(map(len, self.deflated))


def keep_within(cache: LRUCache[_K, _V], key: _K, value: _V) -> None:
    """``value`` kept in ``cache`` (bounded by the size of what it keeps, the least recently used dropped first)
    unless it alone is bigger than the whole bound, which the cache would refuse with an error: such a value is
    served once and made again when asked again."""
    if cache.getsizeof(value) <= cache.maxsize:
        cache[key] = value
