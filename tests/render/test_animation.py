"""The animated replay's writer: every frame kept (even two of the same map), each shown for its own duration,
read back with Pillow from the GIF and the WebP it writes."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image, ImageChops

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
    from dippouch.render.output import svg_to_image

    drawn: list[str] = []

    def counted(svg: str, **kw: Any) -> Image.Image:
        drawn.append(svg)
        return svg_to_image(svg, **kw)

    monkeypatch.setattr("dippouch.render.animation.svg_to_image", counted)
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


def test_a_taller_map_makes_every_frame_taller_and_none_is_scaled() -> None:
    """A phase's notes make its legend taller than the board after it: the canvas is the tallest map's, the
    shorter map drawn at its own size at the top (once shrunk to fit, the board jumped between frames)."""
    frames = [AnimationFrame(_svg("#c33"), "a", 500), AnimationFrame(_svg("#33c", 200, 300), "b", 500)]
    im, _ = _read_back(animate(frames, "gif", width=200))
    assert _frame_count(im) == 2 and im.size == (200, 300 + CAPTION_PX)
    im.seek(0)
    first = im.convert("RGB")
    assert first.getpixel((100, 99)) == first.getpixel((100, 299)) == (0xCC, 0x33, 0x33)  # padded in its paper
    assert _low(first.crop((0, 300, 200, 300 + CAPTION_PX)).convert("L")) < 100  # its caption under the canvas
    im.seek(1)
    second = im.convert("RGB")
    assert second.getpixel((100, 5)) == second.getpixel((100, 295)) == (0x33, 0x33, 0xCC)  # whole, not shrunk


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


def _w3k_frames(phases: int, **options: Any) -> list[str]:
    """A replay's pictures of W3K's busy sample phases: each phase with its orders, then the board after it."""
    from dippouch.catalog import load_variant
    from dippouch.render.sample import sample_phases
    from dippouch.render.svg import RenderOptions, render_svg

    w3k = load_variant("w3k")
    svgs = []
    for ph in sample_phases(w3k, seed=3, phases=phases):
        svgs.append(render_svg(w3k, ph.position, ph.orders, ph.results, RenderOptions(**options)))
        svgs.append(render_svg(w3k, ph.position, options=RenderOptions(**options)))
    return svgs


def test_a_replay_draws_its_names_once_and_each_boards_colours_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cairo spends most of a W3K frame on the names and the provinces' colours: the names are the same in every
    frame of a game and the colours the same for a phase's orders and the board after it, so they are drawn
    once (each frame's orders, units and legend are drawn for it)."""
    from dippouch.render.output import svg_to_image

    drawn: list[str] = []

    def counted(svg: str, **kw: Any) -> Image.Image:
        drawn.append("names" if "<!--layer:names-->" in svg else "under" if 'class="regions"' in svg else "over")
        return svg_to_image(svg, **kw)

    monkeypatch.setattr("dippouch.render.animation.svg_to_image", counted)
    svgs = _w3k_frames(3)
    im, _ = _read_back(animate([AnimationFrame(s, str(i), 500) for i, s in enumerate(svgs)], "gif", width=300))
    assert _frame_count(im) == 6
    assert drawn.count("names") == 1 and drawn.count("under") == 3 and drawn.count("over") == 6, drawn
    heights = {svg_to_image(s, width=300).height for s in svgs}
    assert len(heights) > 1 and im.size == (300, max(heights) + CAPTION_PX)  # the orders' notes lengthen a legend


@pytest.mark.parametrize(
    ("variant", "options"),
    [("w3k", {}), ("standard", {}), ("1000ad", {}), ("standard", {"seen": {"par", "bur", "mar"}})],
)
def test_a_map_drawn_in_layers_is_the_map_drawn_whole(variant: str, options: dict[str, Any]) -> None:
    """Laid one over the other, the layers give the picture Cairo draws from the whole SVG (within rounding), with
    orders, a legend as tall as a phase's notes make it, and fog of war."""
    from dippouch.catalog import load_variant
    from dippouch.render.animation import _Painter
    from dippouch.render.output import svg_to_image
    from dippouch.render.sample import sample_phases
    from dippouch.render.svg import RenderOptions, layers, render_svg

    v = load_variant(variant)
    opts = RenderOptions(seen=frozenset(options["seen"])) if "seen" in options else RenderOptions()
    paint = _Painter(400)
    for ph in sample_phases(v, seed=2, phases=2):
        for svg in (render_svg(v, ph.position, ph.orders, ph.results, opts), render_svg(v, ph.position, options=opts)):
            assert layers(svg) is not None
            laid, whole = paint(svg), svg_to_image(svg, width=400).convert("RGB")
            assert laid.size == whole.size
            # Cairo's text at a few pixels' size shifts with the float noise of the picture's height (W3K's names
            # of 7 units at a third of their size): a few pixels of a few names differ, never a part of the map.
            apart = ImageChops.difference(laid, whole).convert("L").point(lambda d: 255 if d > 16 else 0)
            assert apart.histogram()[255] <= laid.width * laid.height // 2000, (variant, apart.getbbox())


def test_a_picture_not_drawn_here_is_not_cut() -> None:
    from dippouch.render.svg import layers

    assert layers(_svg("#3c3")) is None
    assert layers(_w3k_frames(1)[0].replace("<!--layer:over-->", "")) is None
