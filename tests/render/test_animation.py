"""The animated replay's writer: every frame kept (even two of the same map), each shown for its own duration,
read back with Pillow from the GIF and the WebP it writes."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from dippouch.render.animation import CAPTION_PX, FORMATS, AnimationFrame, animate, frame_picture


def _svg(colour: str, width: int = 200, height: int = 100) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f'<rect width="{width}" height="{height}" fill="{colour}"/></svg>'
    )


def _read_back(data: bytes) -> tuple[Image.Image, list[int]]:
    im = Image.open(io.BytesIO(data))
    durations = []
    for i in range(_frame_count(im)):
        im.seek(i)
        im.load()  # the WebP reader sets a frame's duration as it decodes it
        durations.append(int(im.info["duration"]))
    return im, durations


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_frame_is_written_with_its_duration(fmt: str) -> None:
    """Two frames of the same map stay two frames (their captions differ): Pillow's GIF writer would join
    identical frames into one, and a replay's frames are counted."""
    frames = [
        AnimationFrame(_svg("#c33"), "Spring 1901 Movement: orders and results", 1200),
        AnimationFrame(_svg("#3c3"), "After Spring 1901 Movement", 1200),
        AnimationFrame(lambda: _svg("#3c3"), "Fall 1901 Movement: the board now", 4000),  # drawn when its turn comes
    ]
    im, durations = _read_back(animate(frames, fmt, width=300))
    assert im.format == fmt.upper()
    assert _frame_count(im) == 3
    assert durations == [1200, 1200, 4000]
    assert im.size == (300, 150 + CAPTION_PX)  # the map at the width asked for, its caption beneath
    assert im.info.get("loop") == 0


def test_a_map_like_the_frame_befores_is_not_rasterised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board after a phase nobody ordered in is the next phase's picture, and a finished game's final board
    the one after its last phase: drawn once each, and each frame still has its own caption."""
    from dippouch.render.output import svg_to_png

    drawn: list[str] = []

    def counted(svg: str, **kw: Any) -> bytes:
        drawn.append(svg)
        return svg_to_png(svg, **kw)

    monkeypatch.setattr("dippouch.render.animation.svg_to_png", counted)
    same, other = _svg("#3c3"), _svg("#c33")
    frames = [AnimationFrame(same, "one", 500), AnimationFrame(same, "two", 500), AnimationFrame(other, "three", 500)]
    frames.append(AnimationFrame(same, "four", 500))  # not the frame before's map: drawn again
    im, _ = _read_back(animate(frames, "gif", width=200))
    assert drawn == [same, other, same]
    assert _frame_count(im) == 4
    im.seek(1)
    band = im.convert("RGB").crop((0, 100, 200, 100 + CAPTION_PX)).convert("L")
    assert _low(band) < 100  # the second frame's own caption is there


def test_the_caption_is_drawn_under_the_map() -> None:
    pic = frame_picture(_svg("#fff"), "After Spring 1901 Movement", width=200)
    band = pic.crop((0, 100, 200, 100 + CAPTION_PX))
    assert _low(band.convert("L")) < 100  # dark ink in the band
    assert pic.crop((0, 0, 200, 100)).convert("L").getextrema() == (255, 255)  # the white map, untouched


def test_a_caption_longer_than_the_picture_is_cut_not_drawn_off_it() -> None:
    pic = frame_picture(_svg("#fff", 100, 50), "word " * 200, width=100)
    right_edge = pic.crop((96, 50, 100, 50 + CAPTION_PX)).convert("L")
    assert _low(right_edge) > 200, "ink at the very edge: the caption ran off the picture"


def test_a_frame_of_another_size_is_fitted_to_the_first() -> None:
    frames = [AnimationFrame(_svg("#c33"), "a", 500), AnimationFrame(_svg("#33c", 200, 300), "b", 500)]
    im, _ = _read_back(animate(frames, "gif", width=200))
    assert _frame_count(im) == 2 and im.size == (200, 100 + CAPTION_PX)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="formats: gif, webp"):
        animate([AnimationFrame(_svg("#000"), "x", 100)], "png")
    with pytest.raises(ValueError, match="at least one frame"):
        animate([], "gif")


def _frame_count(pic: Image.Image) -> int:
    """How many frames an animated picture holds (1 for a still one)."""
    return int(getattr(pic, "n_frames", 1))


def _low(grey: Image.Image) -> int:
    """The darkest value of a one-band picture."""
    low, _high = grey.getextrema()
    assert isinstance(low, int)
    return low
