"""A game's replay as one animated picture (GIF or WebP): the maps of its phases, rasterised with cairosvg and
joined by Pillow (which cairosvg itself depends on), each frame captioned in a band under the map.

A replay's frames must stay countable (one per picture of the replay page): the caption, drawn here rather than
in the SVG, tells apart two frames whose maps show the same position (the board after a phase and the next
phase's board), and the GIF is written frame by frame here (:func:`_gif`), never joining identical frames as
Pillow's own GIF writer does, and never holding a long game's frames all at once."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dippouch.render.output import svg_to_image
from dippouch.render.svg import PAPER, layers

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["FORMATS", "AnimationFrame", "animate", "frame_picture"]

FORMATS = {"gif": "image/gif", "webp": "image/webp"}
"""The formats an animation is written in, with their content types."""

WIDTH = 800
"""Pixels across a frame: a phone shows it whole, a desktop without scaling up; a W3K map's names stay legible."""

CAPTION_PX = 40
"""Height of the caption band under each map."""


@dataclass(frozen=True)
class AnimationFrame:
    """One picture of the animation: a map as SVG (or what draws it when its turn comes: a long game's
    maps are then never all held at once), the words under it, and how long it is shown."""

    svg: str | Callable[[], str]
    caption: str
    duration_ms: int


def frame_picture(svg: str, caption: str, width: int = WIDTH) -> Image.Image:
    """The map ``width`` pixels wide with ``caption`` in a band beneath it, as an RGB picture."""
    return _captioned(_Painter(width)(svg), caption)


class _Painter:
    """Rasterises one replay's maps ``width`` pixels wide, each drawn in its three layers
    (:func:`dippouch.render.svg.layers`), and draws a layer again only when it differs from the last map's.

    Rasterising is most of a frame's cost (Cairo took about 0.4 s for a W3K map). A game's names, coasts and
    centre markers never change, so they are drawn once; the board's colours change only where a phase ended,
    so the board after a phase is drawn once for it and for the next phase's orders; and only the orders,
    units and legend are drawn for every frame."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._kept: dict[str, tuple[str, Image.Image]] = {}
        self._under: tuple[str, str, Image.Image] | None = None  # the first two layers laid together

    def __call__(self, svg: str) -> Image.Image:
        from PIL import Image

        cut = layers(svg)
        if cut is None:  # not one of our drawings: drawn whole
            return svg_to_image(svg, width=self.width).convert("RGB")
        if self._under is None or self._under[:2] != (cut.under, cut.names):
            laid = Image.alpha_composite(self._layer("under", cut.under), self._layer("names", cut.names))
            self._under = (cut.under, cut.names, laid)
        over = self._layer("over", cut.over)
        whole = Image.new("RGBA", over.size, PAPER)
        whole.paste(self._under[2], (0, 0))
        return Image.alpha_composite(whole, over).convert("RGB")

    def _layer(self, name: str, svg: str) -> Image.Image:
        kept = self._kept.get(name)
        if kept is None or kept[0] != svg:
            kept = self._kept[name] = (svg, svg_to_image(svg, width=self.width))
        return kept[1]


def _captioned(drawn: Image.Image, caption: str) -> Image.Image:
    from PIL import Image, ImageDraw, ImageFont

    pic = Image.new("RGB", (drawn.width, drawn.height + CAPTION_PX), "white")
    pic.paste(drawn, (0, 0))
    draw = ImageDraw.Draw(pic)
    font = ImageFont.load_default(size=CAPTION_PX * 11 // 20)
    text = caption
    while text and draw.textlength(text, font=font) > drawn.width - 16:
        text = text[:-2] + "…"  # a caption longer than the band is cut, never drawn off the picture
    draw.text((8, drawn.height + CAPTION_PX // 2), text, fill="black", font=font, anchor="lm")
    return pic


def animate(frames: Sequence[AnimationFrame], fmt: str, width: int = WIDTH) -> bytes:
    """The frames as an animated ``fmt`` (:data:`FORMATS`), looping, each shown for its own duration.

    Every frame is rasterised at ``width``, on a canvas as tall as the tallest map (a phase's notes make its
    legend taller than the board after it): a map is never scaled to fit, so the board and the captions stay
    in place from frame to frame. A map of another width (none in one game) is fitted onto the first frame's
    canvas, since both formats need one size for all frames."""
    if fmt not in FORMATS:
        raise ValueError(f"no animation format {fmt!r}; formats: {', '.join(FORMATS)}")
    if not frames:
        raise ValueError("an animation needs at least one frame")
    # A map is drawn again only when it differs from the frame before's: the board after a phase in which
    # nobody ordered is the next phase's picture of its orders, and a finished game's final board is the
    # board after its last phase (two of a finished W3K game's five frames were so drawn twice).
    paint = _Painter(width)
    # Each map's height is read from its drawing, one at a time (a long game's maps are never all held): drawing
    # them twice costs a few per cent of rasterising them once.
    tallest = max(_height(_svg(f), width) or 0 for f in frames)

    def framed(drawn: Image.Image, caption: str) -> Image.Image:
        if drawn.width == width and drawn.height < tallest:
            drawn = _padded(drawn, tallest)
        return _captioned(drawn, caption)

    last_svg = _svg(frames[0])
    last_drawn = paint(last_svg)
    first = framed(last_drawn, frames[0].caption)
    size = first.size

    def rest() -> Iterator[Image.Image]:
        nonlocal last_svg, last_drawn
        # Drawn one at a time as the writer asks for them: a long game's frames are never all held as RGB.
        for f in frames[1:]:
            svg = _svg(f)
            if svg != last_svg:
                last_svg, last_drawn = svg, paint(svg)
            pic = framed(last_drawn, f.caption)
            yield pic if pic.size == size else _fitted(pic, size)

    durations = [max(20, int(f.duration_ms)) for f in frames]
    pictures = itertools.chain([first], rest())
    return _gif(pictures, durations) if fmt == "gif" else _webp(pictures, durations, size)


def _gif(pictures: Iterator[Image.Image], durations: Sequence[int]) -> bytes:
    """The pictures as a looping GIF, written as they come: each frame is the part of the picture that differs
    from the last picture (a map's turn changes a few provinces and the caption), at its place, with a
    palette of its own chosen from its own colours.

    Written here rather than by Pillow's ``save(save_all=True)``, which keeps every frame until the end to
    compare and merge them: the process making a 40-year W3K game's 329 frames so had grown past 900 MB before
    the file was written (benchmarks/README.md). Here two pictures are held at a time. The frames stay
    countable: a frame identical to the last is still written (as one pixel), never merged into it."""
    from PIL import GifImagePlugin, ImageChops
    from PIL import Image as PILImage

    def paletted(pic: PILImage.Image) -> PILImage.Image:
        return pic.quantize(colors=255, method=PILImage.Quantize.MEDIANCUT, dither=PILImage.Dither.NONE)

    out = io.BytesIO()
    last: PILImage.Image | None = None  # the last frame's picture (what the viewer sees is its paletted self)
    for pic, ms in zip(pictures, durations, strict=True):
        if last is None:
            part, offset, own_palette = paletted(pic), (0, 0), False
            header, _ = GifImagePlugin.getheader(part, info={"loop": 0, "duration": ms})
            out.write(b"".join(header))  # the first frame's palette is the global one
        else:
            # Only the changed part is given colours (a palette costs Pillow about as much as a W3K frame's
            # orders take Cairo to draw): what did not change is shown as it was.
            box = ImageChops.difference(last, pic).getbbox() or (0, 0, 1, 1)
            part, offset, own_palette = paletted(pic.crop(box)), (box[0], box[1]), True
        out.write(b"".join(GifImagePlugin.getdata(part, offset, duration=ms, include_color_table=own_palette)))
        last = pic
    out.write(b";")  # the GIF trailer
    return out.getvalue()


def _webp(pictures: Iterator[Image.Image], durations: Sequence[int], size: tuple[int, int]) -> bytes:
    """The pictures as a looping animated WebP, written as they come: each frame is the part of the picture
    that differs from the last (from an even corner, as the format places frames), encoded alone by Pillow as
    a still WebP (lossy, quality 80) and put in the animation's container (RIFF: VP8X, ANIM, then an ANMF
    chunk a frame; Google's WebP container specification).

    Written here rather than by Pillow's ``save(save_all=True)``, which first makes a list of every frame to
    add: a 40-year W3K game's 329 frames took the process to 1.5 GB (benchmarks/README.md). Here two pictures
    are held at a time."""
    import struct

    from PIL import ImageChops

    def chunk(tag: bytes, body: bytes) -> bytes:
        return tag + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")

    def u24(n: int) -> bytes:
        return struct.pack("<I", n)[:3]

    frames: list[bytes] = []  # encoded, a few KB each
    last: Image.Image | None = None
    for pic, ms in zip(pictures, durations, strict=True):
        box = (0, 0, *size) if last is None else ImageChops.difference(last, pic).getbbox() or (0, 0, 2, 2)
        x, y = box[0] - box[0] % 2, box[1] - box[1] % 2
        part = pic.crop((x, y, max(box[2], x + 2), max(box[3], y + 2)))
        still = io.BytesIO()
        part.save(still, format="WEBP", quality=80, method=4)
        data = still.getvalue()
        kept, at = b"", 12  # the still's own chunks after its RIFF header: its picture (and alpha) only
        while at + 8 <= len(data):
            tag, length = data[at : at + 4], struct.unpack("<I", data[at + 4 : at + 8])[0]
            if tag in (b"VP8 ", b"VP8L", b"ALPH"):
                kept += data[at : at + 8 + length + length % 2]
            at += 8 + length + length % 2
        # Placed at (x, y), shown ms, drawn over what is there without blending, left in place after.
        head = u24(x // 2) + u24(y // 2) + u24(part.width - 1) + u24(part.height - 1) + u24(ms) + b"\x02"
        frames.append(chunk(b"ANMF", head + kept))
        last = pic
    vp8x = chunk(b"VP8X", b"\x02\0\0\0" + u24(size[0] - 1) + u24(size[1] - 1))  # animated, no alpha
    anim = chunk(b"ANIM", b"\xff\xff\xff\xff" + struct.pack("<H", 0))  # a white background, looping
    body = b"WEBP" + vp8x + anim + b"".join(frames)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _svg(frame: AnimationFrame) -> str:
    return frame.svg if isinstance(frame.svg, str) else frame.svg()


def _height(svg: str, width: int) -> int | None:
    """How many pixels tall the map is drawn ``width`` pixels wide, from its own size as Cairo reads it (its
    ``width`` and ``height``, else its ``viewBox``) and rounded as Cairo's surface is; ``None`` when it is not
    given in plain numbers."""
    root = svg[: svg.find(">") + 1]
    given = dict(re.findall(r'\s(width|height|viewBox)="([^"]*)"', root))
    w, h = given.get("width"), given.get("height")
    if (w is None or h is None) and len(box := given.get("viewBox", "").split()) == 4:
        w, h = box[2], box[3]
    try:
        across, down = float(w or ""), float(h or "")
    except ValueError:
        return None
    return round(down * (width / across)) if across > 0 else None


def _padded(pic: Image.Image, height: int) -> Image.Image:
    """``pic`` at the top of a canvas ``height`` tall, the rest in the colour of its bottom edge (the map's
    paper): the legend of a shorter map ends in paper, not in a band of another colour."""
    from PIL import Image as PILImage

    canvas = PILImage.new("RGB", (pic.width, height), pic.getpixel((0, pic.height - 1)))
    canvas.paste(pic, (0, 0))
    return canvas


def _fitted(pic: Image.Image, size: tuple[int, int]) -> Image.Image:
    from PIL import Image as PILImage

    canvas = PILImage.new("RGB", size, "white")
    copy = pic.copy()
    copy.thumbnail(size)
    canvas.paste(copy, (0, 0))
    return canvas
