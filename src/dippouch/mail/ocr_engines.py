"""Reading a photograph's lines of text: preparing the picture and the two OCR engines.

A phone photograph of a sheet is lit unevenly (the phone's own shadow, a lamp to one side) and held at an
angle. A fixed global threshold turns a soft shadow black and the letters in it with it, so the picture is
binarised against its *local* brightness (Sauvola's method: each pixel against the mean and spread of the
window around it), and turned upright first by the angle at which its rows of text line up best (the
projection profile is sharpest).

Two engines read it: tesseract (Debian's ``tesseract-ocr``, a separate program) and RapidOCR (PaddleOCR's
PP-OCRv4 models run by ONNX Runtime; the weights ship inside the ``rapidocr-onnxruntime`` wheel, so nothing
is downloaded at run time). benchmarks/bench_ocr.py measures both on generated photographs of W3K orders;
RapidOCR reads handwriting-like sheets far better (benchmarks/README.md), so it is used when installed.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dippouch.core.messages import msg, quantity
from dippouch.game import GameError
from dippouch.letters.message import sniff_image
from dippouch.settings import current

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["ENGINES", "available_engines", "default_engine", "prepare", "read_lines", "unavailable"]

I18N_DOMAIN = "rules"
"""The catalogue of the OCR engines' refusals, said in the reader's language where they are shown (dippouch.saying)."""

ENGINES = ("rapidocr", "tesseract")
"""The engines, best first (benchmarks/README.md)."""

_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"BM")
_HEIC_NEEDS = "reading it needs pillow-heif (pip install 'dippouch[ocr]')"


def _not_an_image(why: str = "") -> GameError:
    if why:
        return GameError(msg("the attachment is not an image OCR can read (%(why)s)", why=why))
    return GameError(msg("the attachment is not an image OCR can read"))


def unavailable(engine: str) -> str | None:
    """Why ``engine`` cannot run here, or None."""
    if engine == "tesseract":
        if shutil.which("tesseract") is None:
            return "tesseract is not installed (Debian: apt-get install tesseract-ocr)"
        try:
            import numpy
            from PIL import Image
        except ImportError:
            return "preparing photographs needs Pillow and numpy (pip install 'dippouch[ocr]')"
        return None
    if engine == "rapidocr":
        try:
            import numpy  # noqa: F401
            import rapidocr_onnxruntime  # noqa: F401
            from PIL import Image  # noqa: F401
        except ImportError:
            return "RapidOCR is not installed (pip install 'dippouch[ocr]')"
        return None
    return f"no OCR engine {engine!r}; the engines are {', '.join(ENGINES)}"


def available_engines() -> list[str]:
    return [e for e in ENGINES if unavailable(e) is None]


def default_engine() -> str | None:
    """The engine proposals are read with: ``DIPPOUCH_OCR_ENGINE`` if set, else the best one installed."""
    chosen = current().ocr_engine
    if chosen:
        return chosen
    found = available_engines()
    return found[0] if found else None


# --------------------------------------------------------------------------------------------------
# The picture


def _open(data: bytes) -> Image:
    """The photograph as an upright greyscale picture. Only an image is opened: given a file that is not one,
    tesseract reads it as a list of image files to open, so an attachment holding a path would have it read
    any picture on this machine."""
    from PIL import Image as PILImage
    from PIL import ImageOps

    heic = sniff_image(data) == "image/heic"
    if heic:
        try:
            import pillow_heif
        except ImportError:
            raise _not_an_image(f"a HEIC photograph; {_HEIC_NEEDS}") from None
        pillow_heif.register_heif_opener()
    elif not data.startswith(_IMAGE_MAGIC) and not (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        raise _not_an_image()
    try:
        opened = PILImage.open(io.BytesIO(data))
        opened.load()
        return ImageOps.exif_transpose(opened).convert("L")
    except (OSError, ValueError, PILImage.DecompressionBombError) as e:
        raise _not_an_image(type(e).__name__) from None


def _scaled(img: Image, width: int) -> Image:
    from PIL import Image as PILImage

    if abs(img.width - width) < width * 0.1:
        return img
    factor = width / img.width
    return img.resize((width, max(1, int(img.height * factor))), PILImage.Resampling.LANCZOS)


def sauvola(img: Image, *, window: int | None = None, k: float = 0.2) -> Image:
    """Black and white by each pixel's neighbourhood: black where darker than ``mean * (1 + k (sd/128 - 1))``
    of the window around it. A shadow lowers the mean and the threshold with it; a fixed threshold would
    blacken the shadow and the letters in it."""
    import numpy as np
    from PIL import Image as PILImage

    a = np.asarray(img, dtype=np.float64)
    h, w = a.shape
    win = window or max(15, (w // 40) | 1)
    r = win // 2
    pad = np.pad(a, r + 1, mode="edge")
    s1 = pad.cumsum(0).cumsum(1)
    s2 = (pad * pad).cumsum(0).cumsum(1)

    def box(s: Any) -> Any:
        return s[win:, win:][:h, :w] - s[:-win, win:][:h, :w] - s[win:, :-win][:h, :w] + s[:-win, :-win][:h, :w]

    n = win * win
    mean = box(s1) / n
    sd = np.sqrt(np.maximum(box(s2) / n - mean * mean, 0))
    threshold = mean * (1 + k * (sd / 128 - 1))
    out = np.where(a > threshold, 255, 0).astype(np.uint8)
    return PILImage.fromarray(out)


def skew_angle(binary: Image, *, limit: float = 8.0) -> float:
    """The angle (degrees, counter-clockwise) that lines the rows of text up with the picture's rows: where
    the ink's row profile is sharpest (the rows of text dark, the gaps between them white)."""
    import numpy as np
    from PIL import Image as PILImage
    from PIL import ImageOps

    small = ImageOps.invert(_scaled(binary, 600))

    def sharpness(angle: float) -> float:
        rows = np.asarray(small.rotate(angle, resample=PILImage.Resampling.NEAREST), dtype=np.float64).sum(1)
        return float(np.square(np.diff(rows)).sum())

    step, best = 1.0, 0.0
    candidates = [x * step for x in range(-int(limit), int(limit) + 1)]
    while True:
        best = max(candidates, key=sharpness)
        if step <= 0.2:
            return best
        step /= 4
        candidates = [best + i * step for i in range(-3, 4)]


def prepare(data: bytes, *, width: int = 1800) -> tuple[Image, Image]:
    """The photograph upright and deskewed: (greyscale, binarised)."""
    from PIL import Image as PILImage
    from PIL import ImageFilter

    grey = _scaled(_open(data), width).filter(ImageFilter.MedianFilter(3))
    binary = sauvola(grey)
    angle = skew_angle(binary)
    if abs(angle) >= 0.2:
        grey = grey.rotate(angle, resample=PILImage.Resampling.BICUBIC, expand=True, fillcolor=255)
        binary = sauvola(grey)
    return grey, binary


# --------------------------------------------------------------------------------------------------
# The engines


def _ascii(text: str) -> str:
    """Letters the sheet can hold: accents off, anything else that is not ASCII (the PP-OCR model also reads
    Chinese) dropped."""
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return "".join(c for c in text if c.isascii()).strip()


def _tesseract(grey: Image, binary: Image, timeout: float) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="dippouch-ocr-") as d:
        path = Path(d) / "page.png"
        binary.save(path)
        try:
            done = subprocess.run(
                ["tesseract", str(path), "stdout", "--psm", "6", "-l", "eng"],
                capture_output=True,
                timeout=timeout,
                check=False,
                # One thread: tesseract's OpenMP threads spin while they wait, and on this project's two-core
                # machine a photograph took 1.0 s of CPU (0.99 s wall) with them and 0.36 s (0.37 s) without,
                # the text the same (tesseract's own advice for a program running it: OMP_THREAD_LIMIT=1).
                env={**current().environ, "OMP_THREAD_LIMIT": "1"},
            )
        except subprocess.TimeoutExpired:
            raise GameError(
                msg("tesseract took longer than %(seconds)s s on this image", seconds=quantity(timeout, 0))
            ) from None
    if done.returncode != 0:
        raise GameError(
            msg(
                "tesseract could not read the image: %(why)s",
                why=done.stderr.decode("utf-8", "replace").strip(),
            )
        )
    text = done.stdout.decode("utf-8", "replace").replace("\x0c", "")
    return [_ascii(ln) for ln in text.splitlines() if _ascii(ln)]


_RAPID: list[Any] = []
_RAPID_LOCK = threading.Lock()


def _rapid_engine() -> Any:
    with _RAPID_LOCK:
        if not _RAPID:
            from rapidocr_onnxruntime import RapidOCR

            # Two threads: the machines this runs on are small and shared.
            _RAPID.append(RapidOCR(intra_op_num_threads=2, inter_op_num_threads=1))
        return _RAPID[0]


def _rapidocr(grey: Image, binary: Image, timeout: float) -> list[str]:
    import numpy as np

    # The binarised picture at 1,000 pixels across: read as well as the greyscale one at 1,800 (the shadow is
    # gone), in a third of the time (benchmarks/bench_ocr.py).
    rgb = np.asarray(_scaled(binary, 1000).convert("RGB"))
    result, _ = _rapid_engine()(rgb)
    boxes = []
    for box, text, _score in result or []:
        ys = [p[1] for p in box]
        xs = [p[0] for p in box]
        boxes.append((min(ys), max(ys), min(xs), _ascii(str(text))))
    return _lines_of(boxes)


def _lines_of(boxes: Sequence[tuple[float, float, float, str]]) -> list[str]:
    """Text boxes (top, bottom, left, text) joined into lines: boxes whose vertical spans mostly overlap are
    one line, read left to right."""
    lines: list[list[tuple[float, float, float, str]]] = []
    for b in sorted(boxes, key=lambda b: (b[0] + b[1]) / 2):
        mid = (b[0] + b[1]) / 2
        if lines:
            top = sum(x[0] for x in lines[-1]) / len(lines[-1])
            bottom = sum(x[1] for x in lines[-1]) / len(lines[-1])
            if top <= mid <= bottom:
                lines[-1].append(b)
                continue
        lines.append([b])
    return [t for t in (" ".join(x[3] for x in sorted(ln, key=lambda x: x[2]) if x[3]) for ln in lines) if t]


_READERS: dict[str, Callable[[Image, Image, float], list[str]]] = {"tesseract": _tesseract, "rapidocr": _rapidocr}


def read_lines(data: bytes, *, engine: str | None = None, timeout: float = 120) -> list[str]:
    """The lines of text in a photograph, top to bottom, as ``engine`` (default: :func:`default_engine`)
    reads them after preparing the picture."""
    engine = engine or default_engine()
    if engine is None:
        raise GameError(
            msg(
                "no OCR engine is installed (%(rapidocr)s; %(tesseract)s)",
                rapidocr=str(unavailable("rapidocr")),
                tesseract=str(unavailable("tesseract")),
            )
        )
    why = unavailable(engine)
    if why:
        raise GameError(why)
    grey, binary = prepare(data)
    return _READERS[engine](grey, binary, timeout)
