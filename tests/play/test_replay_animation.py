"""The animated replay's GIF and WebP as written frame by frame (dippouch.render.animation): read back with
Pillow, every frame is the picture drawn for it (the GIF exactly, in its own palette's colours; the lossy WebP
within a few levels of each colour), shown for its own time, none merged with the one before, even when
nothing changed; a picture of another size is fitted onto the first's canvas."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageStat

from dippouch.render.animation import CAPTION_PX, AnimationFrame, animate, frame_picture

WIDTH = 240


def _svg(x: int, colour: str, width: int = 200, height: int = 100) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
        f'<rect width="{width}" height="{height}" fill="#e8e4d8"/>'
        f'<rect x="{x}" y="20" width="40" height="40" fill="{colour}"/>'
        f'<circle cx="150" cy="70" r="{10 + x // 10}" fill="#204080"/></svg>'
    )


def _seen(svg: str, caption: str) -> list[tuple[int, ...]]:
    """The picture as the GIF shows it: drawn, then reduced to its own palette."""
    pic = frame_picture(svg, caption, WIDTH)
    paletted = pic.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    return list(paletted.convert("RGB").get_flattened_data())  # type: ignore[arg-type]


FRAMES = [
    AnimationFrame(_svg(10, "#c03020"), "Spring 1901 Movement: orders and results", 1200),
    AnimationFrame(lambda: _svg(40, "#c03020"), "After Spring 1901 Movement", 1200),
    AnimationFrame(_svg(40, "#30a040"), "Fall 1901 Movement: orders and results", 800),
    # The same map and words as the frame before: still a frame of its own (a replay's frames are counted).
    AnimationFrame(_svg(40, "#30a040"), "Fall 1901 Movement: orders and results", 500),
    AnimationFrame(_svg(71, "#8040a0"), "The final board, after Fall 1901 Movement", 4000),
]


def test_every_gif_frame_reads_back_as_drawn_with_its_own_time() -> None:
    frames = FRAMES
    gif = Image.open(io.BytesIO(animate(frames, "gif", WIDTH)))
    assert gif.format == "GIF" and getattr(gif, "n_frames", 1) == len(frames)
    assert gif.info.get("loop") == 0
    for i, f in enumerate(frames):
        gif.seek(i)
        gif.load()
        assert gif.info["duration"] == f.duration_ms, i
        svg = f.svg if isinstance(f.svg, str) else f.svg()
        assert list(gif.convert("RGB").get_flattened_data()) == _seen(svg, f.caption), i


def test_every_webp_frame_reads_back_as_drawn_with_its_own_time() -> None:
    webp = Image.open(io.BytesIO(animate(FRAMES, "webp", WIDTH)))
    assert webp.format == "WEBP" and getattr(webp, "n_frames", 1) == len(FRAMES)
    assert webp.info.get("loop") == 0
    for i, f in enumerate(FRAMES):
        webp.seek(i)
        webp.load()
        assert webp.info["duration"] == f.duration_ms, i
        svg = f.svg if isinstance(f.svg, str) else f.svg()
        drawn = frame_picture(svg, f.caption, WIDTH)
        assert webp.size == drawn.size
        off = ImageStat.Stat(ImageChops.difference(webp.convert("RGB"), drawn)).mean
        assert max(off) < 4, (i, off)  # lossy at quality 80: near every colour, never another picture


def test_every_frame_has_the_tallest_pictures_canvas() -> None:
    frames = [
        AnimationFrame(_svg(10, "#c03020"), "first", 1000),
        AnimationFrame(_svg(10, "#c03020", width=100, height=200), "taller", 1000),
    ]
    taller = frame_picture(frames[1].svg, "taller", WIDTH)  # type: ignore[arg-type]
    for fmt in ("gif", "webp"):
        pic = Image.open(io.BytesIO(animate(frames, fmt, WIDTH)))
        assert getattr(pic, "n_frames", 1) == 2 and pic.size == taller.size == (WIDTH, 2 * WIDTH + CAPTION_PX), fmt


def test_no_frames_or_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        animate([], "gif")
    with pytest.raises(ValueError, match="formats: gif, webp"):
        animate([AnimationFrame(_svg(0, "#000000"), "x", 100)], "png")
