"""A game's replay as one animated picture (GIF or WebP): the maps of its phases, rasterised with cairosvg and
joined by Pillow (which cairosvg itself depends on), each frame captioned in a band under the map.

The caption is drawn here, not in the SVG, so that two frames whose maps are the same position (the board
after a phase and the next phase's board) stay two frames: Pillow's GIF writer joins identical frames into one,
and a replay's frames must stay countable (one per picture of the replay page)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dippouch.render.output import svg_to_png

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
    from PIL import Image, ImageDraw, ImageFont

    # Cairo draws; an uncompressed PNG is the cheapest way to hand the pixels over to Pillow.
    drawn = Image.open(io.BytesIO(svg_to_png(svg, width=width, compress=0))).convert("RGB")
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

    Every frame is rasterised at ``width``; a map of another size (none in one game) is fitted onto the
    first frame's canvas, since both formats need one size for all frames."""
    if fmt not in FORMATS:
        raise ValueError(f"no animation format {fmt!r}; formats: {', '.join(FORMATS)}")
    if not frames:
        raise ValueError("an animation needs at least one frame")
    from PIL import Image

    first = frame_picture(_svg(frames[0]), frames[0].caption, width)
    size = first.size

    def rest() -> Iterator[Image.Image]:
        # Drawn one at a time as the writer asks for them: a long game's frames are never all held as RGB.
        for f in frames[1:]:
            pic = frame_picture(_svg(f), f.caption, width)
            yield pic if pic.size == size else _fitted(pic, size)

    durations = [max(20, int(f.duration_ms)) for f in frames]
    out = io.BytesIO()
    if fmt == "gif":
        # One palette per frame, chosen from its own colours (a shared palette would need every frame drawn
        # before the first is written).
        def paletted(pic: Image.Image) -> Image.Image:
            return pic.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)

        paletted(first).save(
            out,
            format="GIF",
            save_all=True,
            append_images=(paletted(p) for p in rest()),
            duration=durations,
            loop=0,
            optimize=False,
        )
    else:
        first.save(
            out,
            format="WEBP",
            save_all=True,
            append_images=rest(),
            duration=durations,
            loop=0,
            quality=80,
            method=4,
        )
    return out.getvalue()


def _svg(frame: AnimationFrame) -> str:
    return frame.svg if isinstance(frame.svg, str) else frame.svg()


def _fitted(pic: Image.Image, size: tuple[int, int]) -> Image.Image:
    from PIL import Image as PILImage

    canvas = PILImage.new("RGB", size, "white")
    copy = pic.copy()
    copy.thumbnail(size)
    canvas.paste(copy, (0, 0))
    return canvas
