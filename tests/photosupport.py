"""Photographs of typed order sheets for the OCR and review tests, drawn here (no picture is shipped), and
the check that an OCR engine is there. Shared by tests in several folders: a helper in a test file of one
folder is importable only when that folder happens to be collected too (tests/web's review tests could not
be run on their own)."""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import pytest

from conftest import in_ci


def need_tesseract() -> None:
    if shutil.which("tesseract") is None:
        if in_ci():
            pytest.fail("tesseract is not installed: CI must run the OCR tests (scripts/setup installs tesseract-ocr)")
        pytest.skip("tesseract is not installed (apt-get install tesseract-ocr; scripts/setup does it as root)")


def photo(lines: list[str], *, angle: float = 1.5, noise: int = 1500, seed: int = 7) -> bytes:
    """Typed lines on a sheet, turned a little and speckled, as a phone photograph of a typed page."""
    from PIL import Image, ImageDraw, ImageFont

    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    font = ImageFont.truetype(font_path, 40) if Path(font_path).exists() else ImageFont.load_default(size=40)
    img = Image.new("L", (1400, 120 + 70 * len(lines)), 245)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((80, 60 + 70 * i), line, fill=25, font=font)
    img = img.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=245)
    rnd = random.Random(seed)
    px = img.load()
    assert px is not None
    for _ in range(noise):
        x, y = rnd.randrange(img.width), rnd.randrange(img.height)
        px[x, y] = rnd.choice((0, 120, 255))
    out = io.BytesIO()
    img.convert("RGB").save(out, format="JPEG", quality=85)
    return out.getvalue()
