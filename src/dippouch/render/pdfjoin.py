"""One PDF written part by part: each part a whole PDF made by Cairo (a phase of a game book), its pages
copied into the output as soon as it is made, so what is held is one part, never the document.

Why not one Cairo surface for the whole document: Cairo (1.16, as Debian ships it) writes a drawing shown on
a page through a recording only when the document is finished, so every phase's drawings were kept to the end
(a 40-year W3K book took the process to 1.1 GB). A part's PDF is finished, and so complete, before it is
copied.

Copying renumbers each part's objects after those already written, inlines the streams' lengths, and leaves
out what no kept page reaches (the part's page tree and catalog, a page the caller drops). An object whose
bytes, once renumbered, equal one already written is not written again but pointed to: two phases' identical
layers of the map, or a font subset made alike in every part (see :mod:`dippouch.render.gamebook`), are
written once. Cairo names an object it draws by its number (``/x12 Do``), so those names are renamed with
the numbers, in the dictionaries and in the content streams, and equal drawings stay equal.

Only what Cairo writes is read: classic cross-reference tables, no object streams, no encryption.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import BinaryIO

__all__ = ["PdfJoin"]

_REF = re.compile(rb"(\d+) 0 R\b")
_LENGTH_REF = re.compile(rb"/Length (\d+) 0 R\b")
_ANY_REF = re.compile(rb"(?:/([A-Za-z]+)(\d+) )?(\d+) 0 R\b")
"""A reference, with the name before it where it is one Cairo gives after the object's number: ``/x12 12 0 R``
(groups, patterns, masks alike)."""
_NAME = re.compile(rb"/([A-Za-z]+)(\d+)(?=[\s/\[\]<>()]|$)")
_RESOURCES_REF = re.compile(rb"/Resources (\d+) 0 R\b")
_CONTENTS_REF = re.compile(rb"/Contents (\d+) 0 R\b")
_PARENT = re.compile(rb"/Parent \d+ 0 R\b")
_KIDS = re.compile(rb"/Kids\s*\[([^\]]*)\]")
_TYPE = re.compile(rb"/Type\s*/(\w+)")
_STREAM = re.compile(rb"stream\r?\n")


class _Part:
    """One finished PDF, read where its cross-reference table says its objects are."""

    def __init__(self, pdf: bytes) -> None:
        self.pdf = pdf
        at = pdf.rindex(b"startxref")
        xref = int(pdf[at + 9 :].split()[0])
        if not pdf.startswith(b"xref", xref):
            raise ValueError("only a PDF with a classic cross-reference table can be joined")
        self.offsets: dict[int, int] = {}
        pos = pdf.index(b"\n", xref) + 1
        while True:
            header = pdf[pos : pdf.index(b"\n", pos)].split()
            if len(header) != 2:
                break
            first, count = int(header[0]), int(header[1])
            pos = pdf.index(b"\n", pos) + 1
            for i in range(count):
                entry = pdf[pos + 20 * i : pos + 20 * i + 18]
                if entry.endswith(b"n"):
                    self.offsets[first + i] = int(entry[:10])
            pos += 20 * count
        trailer = pdf[pos:at]
        root = re.search(rb"/Root (\d+) 0 R", trailer)
        if root is None:
            raise ValueError("a PDF without a catalog")
        self.root = int(root.group(1))

    def read(self, num: int) -> tuple[bytes, bytes | None]:
        """Object ``num``: its dictionary (or value) and its stream's bytes, if it is a stream."""
        pdf = self.pdf
        start = pdf.index(b"obj", self.offsets[num]) + 3
        end = pdf.index(b"endobj", start)
        stream = _STREAM.search(pdf, start, end)
        if stream is None:
            return pdf[start:end].strip(), None
        head = pdf[start : stream.start()].strip()
        length = _LENGTH_REF.search(head)
        size = int(self.read(int(length.group(1)))[0]) if length else int(re.findall(rb"/Length (\d+)", head)[0])
        data = pdf[stream.end() : stream.end() + size]
        return head, data

    def pages(self) -> list[int]:
        """The part's pages, in order (the page tree walked from the catalog)."""
        head, _ = self.read(self.root)
        top = re.search(rb"/Pages (\d+) 0 R", head)
        if top is None:
            raise ValueError("a PDF without pages")
        out: list[int] = []

        def walk(num: int) -> None:
            node, _ = self.read(num)
            kind = _TYPE.search(node)
            if kind is not None and kind.group(1) == b"Pages":
                kids = _KIDS.search(node)
                for ref in _REF.findall(kids.group(1) if kids else b""):
                    walk(int(ref))
            else:
                out.append(num)

        walk(int(top.group(1)))
        return out


class PdfJoin:
    """Writes one PDF to ``out`` from finished PDFs added one after another (:meth:`add`), then its page
    tree in the order the caller asks (:meth:`finish`): a book's contents page, made last, comes first.

    Held between parts: where each written object starts (8 bytes an object) and the pages' numbers; and
    the digests of up to ``remembered`` written objects, the most recently met first, to find an object
    written before (the layers and fonts every part repeats are met in every part, so they stay)."""

    def __init__(self, out: BinaryIO, *, remembered: int = 4096) -> None:
        self._out = out
        self._at = 0
        self._offsets = array("Q", [0])
        self._written: OrderedDict[bytes, int] = OrderedDict()
        self._remembered = remembered
        self._write(b"%PDF-1.5\n%\xb5\xed\xae\xfb\n")
        self._tree = self._number()
        self._info: bytes | None = None
        self.pages: list[int] = []
        """Every page added, in the order added (object numbers in the output)."""

    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._at += len(data)

    def _number(self) -> int:
        self._offsets.append(0)
        return len(self._offsets) - 1

    def add(self, pdf: bytes, *, skip: int = 0) -> list[int]:
        """Copies the pages of ``pdf`` (a finished PDF as Cairo writes it), but its first ``skip``, and
        what they draw; returns the pages' numbers in the output."""
        part = _Part(pdf)
        if self._info is None:
            info = re.search(rb"/Info (\d+) 0 R", pdf[pdf.rindex(b"trailer") :])
            self._info = part.read(int(info.group(1)))[0] if info else None
        copy = _Copy(self, part)
        added = [copy.page(num) for num in part.pages()[skip:]]
        self.pages += added
        return added

    def _put(self, head: bytes, data: bytes | None, *, unique: bool = False) -> int:
        """The number of an object with ``head`` and stream ``data``: one written before with the same
        bytes, or this one, written now (``unique``: always written, never pointed to again)."""
        key = b""
        if not unique:
            digest = hashlib.blake2b(head, digest_size=20)
            if data is not None:
                digest.update(b"\0stream\0")
                digest.update(data)
            key = digest.digest()
            got = self._written.get(key)
            if got is not None:
                self._written.move_to_end(key)
                return got
        num = self._number()
        self._offsets[num] = self._at
        if data is None:
            self._write(b"%d 0 obj\n%s\nendobj\n" % (num, head))
        else:
            self._write(b"%d 0 obj\n%s\nstream\n%s\nendstream\nendobj\n" % (num, head, data))
        if not unique:
            self._written[key] = num
            if len(self._written) > self._remembered:
                self._written.popitem(last=False)
        return num

    def finish(self, order: Sequence[int] | None = None) -> int:
        """Writes the page tree (``order``: the pages' numbers as :meth:`add` gave them, each once; by
        default as added), the catalog and the cross-reference table; returns the bytes written."""
        kids = list(self.pages if order is None else order)
        if sorted(kids) != sorted(self.pages) or not kids:
            raise ValueError("the page order must name every page added, once")
        self._offsets[self._tree] = self._at
        listed = b" ".join(b"%d 0 R" % k for k in kids)
        self._write(
            b"%d 0 obj\n<< /Type /Pages\n   /Kids [ %s ]\n   /Count %d\n>>\nendobj\n" % (self._tree, listed, len(kids))
        )
        catalog = self._put(b"<< /Type /Catalog\n   /Pages %d 0 R\n>>" % self._tree, None, unique=True)
        info = self._put(self._info, None, unique=True) if self._info is not None else None
        xref = self._at
        rows = [b"xref\n0 %d\n0000000000 65535 f \n" % len(self._offsets)]
        rows += [b"%010d 00000 n \n" % offset for offset in self._offsets[1:]]
        self._write(b"".join(rows))
        trailer = b"<< /Size %d\n   /Root %d 0 R\n" % (len(self._offsets), catalog)
        if info is not None:
            trailer += b"   /Info %d 0 R\n" % info
        self._write(b"trailer\n%s>>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref))
        return self._at


class _Copy:
    """One part's objects copied into the output: each object once, after every object it refers to (so
    its bytes are final when it is compared with those already written)."""

    def __init__(self, join: PdfJoin, part: _Part) -> None:
        self.join = join
        self.part = part
        self.done: dict[int, int] = {}
        self.names: dict[int, dict[bytes, bytes]] = {}
        """For a part's resource dictionary: Cairo's names of objects in it (``x12``) as renamed."""
        self.copying: set[int] = set()

    def page(self, num: int) -> int:
        """Copies page ``num`` (its resources before its contents, which use their names) under the
        output's page tree; pages are never shared."""
        head, _ = self.part.read(num)
        names: dict[bytes, bytes] = {}
        resources = _RESOURCES_REF.search(head)
        if resources is not None:
            self.copy(int(resources.group(1)))
            names = self.names.get(int(resources.group(1)), {})
        contents = _CONTENTS_REF.search(head)
        if contents is not None:
            self.copy(int(contents.group(1)), drawn=names)
        head = _PARENT.sub(b"/Parent TREE", head)
        for ref in _REF.findall(head):
            self.copy(int(ref))
        head = self._renumbered(head, {}).replace(b"/Parent TREE", b"/Parent %d 0 R" % self.join._tree)
        return self.join._put(head, None, unique=True)

    def copy(self, num: int, *, drawn: dict[bytes, bytes] | None = None) -> int:
        """The output's number of the part's object ``num``, copied now if it was not yet; ``drawn``: it is
        a page's content stream, drawn with those names."""
        got = self.done.get(num)
        if got is not None:
            return got
        if num in self.copying:
            raise ValueError(f"object {num} refers back to itself: not a PDF Cairo writes")
        self.copying.add(num)
        original, data = self.part.read(num)
        head = _LENGTH_REF.sub(b"/Length 0", original) if data is not None else original  # written inline below
        for ref in _REF.findall(head):
            self.copy(int(ref))
        names: dict[bytes, bytes] = {}
        head = self._renumbered(head, names)
        if names:
            self.names[num] = names
        if data is not None:
            resources = _RESOURCES_REF.search(original)
            if resources is not None:  # a form's or a pattern's drawing: its names are its resources'
                drawn = {**self.names.get(int(resources.group(1)), {}), **names}
            elif b"/Resources" in head:
                drawn = names
            if drawn:
                data = _renamed(data, head, drawn)
            head = re.sub(rb"/Length \d+", b"/Length %d" % len(data), head, count=1)
        out = self.join._put(head, data)
        self.copying.discard(num)
        self.done[num] = out
        return out

    def _renumbered(self, head: bytes, names: dict[bytes, bytes]) -> bytes:
        """``head`` with every reference renumbered as in the output, and each name Cairo gave after an
        object's number (``/x12 12 0 R``) renamed after its new one (into ``names``). Two such names of one
        dictionary whose objects were the same once written become one entry."""

        def one(m: re.Match[bytes]) -> bytes:
            new = self.done[int(m.group(3))]
            kind, name = m.group(1), m.group(2)
            if kind is None:
                return b"%d 0 R" % new
            if int(name) != int(m.group(3)):
                return b"/%s%s %d 0 R" % (kind, name, new)
            renamed = kind + b"%d" % new
            if renamed in names.values():
                names[kind + name] = renamed
                return b""
            names[kind + name] = renamed
            return b"/%s %d 0 R" % (renamed, new)

        return _ANY_REF.sub(one, head)


def _renamed(data: bytes, head: bytes, names: dict[bytes, bytes]) -> bytes:
    """A content stream with the names of ``names`` renamed (deflated again if it was)."""
    flate = b"/FlateDecode" in head
    if flate and b"/Filter [" in head:
        return data  # more than one filter: not what Cairo writes for a drawing
    text = zlib.decompress(data) if flate else data
    new = _NAME.sub(lambda m: b"/" + names.get(m.group(1) + m.group(2), m.group(1) + m.group(2)), text)
    if new == text:
        return data
    return zlib.compress(new) if flate else new
