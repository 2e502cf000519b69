"""Colours of the map: tints of the power colours, text that stays readable on them, and a check that the
powers stay apart for colour-blind players.

The power colours come from the variant file (``colour = "#rrggbb"``). A province a power owns is drawn in a
light tint of its colour, so its units (drawn in the full colour) and the order lines stand out on it.
:func:`deuteranopia` simulates the most common colour-vision deficiency (Machado, Oliveira and Fernandes
2009, severity 1.0, applied in linear RGB), and :func:`delta_e` measures how far apart two colours look
(CIE76 in CIELAB); a test holds every pair of power colours of every variant apart under both.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "Rgb",
    "closest_pairs",
    "delta_e",
    "deuteranopia",
    "hex_colour",
    "ink_on",
    "mix",
    "parse_colour",
]

Rgb = tuple[float, float, float]
"""Red, green, blue in 0..1 (sRGB, gamma-encoded as written in files)."""

_HEX = re.compile(r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")

# Machado et al. 2009, deuteranomaly at severity 1.0 (deuteranopia), for linear RGB.
_DEUTAN = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)


def parse_colour(text: str, default: Rgb = (0.5, 0.5, 0.5)) -> Rgb:
    """``#rrggbb`` or ``#rgb``; anything else (a colour name, a typo) gives ``default``, never an error:
    a map with one grey power is better than no map."""
    m = _HEX.match(text.strip()) if isinstance(text, str) else None
    if not m:
        return default
    h = m.group(1)
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return (int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255)


def hex_colour(c: Rgb) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v * 255))):02x}" for v in c)


def mix(a: Rgb, b: Rgb, t: float) -> Rgb:
    """``a`` moved a fraction ``t`` of the way to ``b``."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def _linear(v: float) -> float:
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _gamma(v: float) -> float:
    v = max(0.0, min(1.0, v))
    return v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


def luminance(c: Rgb) -> float:
    r, g, b = (_linear(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ink_on(c: Rgb) -> str:
    """Black or white, whichever reads better on ``c`` (WCAG contrast)."""
    y = luminance(c)
    return "#000000" if (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) else "#ffffff"


def deuteranopia(c: Rgb) -> Rgb:
    lin = [_linear(v) for v in c]
    out = [sum(row[i] * lin[i] for i in range(3)) for row in _DEUTAN]
    r, g, b = (_gamma(v) for v in out)
    return (r, g, b)


def _lab(c: Rgb) -> tuple[float, float, float]:
    r, g, b = (_linear(v) for v in c)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(a: Rgb, b: Rgb) -> float:
    """CIE76 colour difference: about 2 is just noticeable, above 20 two colours are clearly different."""
    la, lb = _lab(a), _lab(b)
    return math.dist(la, lb)


def closest_pairs(colours: dict[str, str], *, simulate: bool = False) -> list[tuple[float, str, str]]:
    """Every pair of named colours with their difference, closest first (``simulate``: as a deuteranope
    sees them)."""
    rgb = {k: parse_colour(v) for k, v in colours.items()}
    if simulate:
        rgb = {k: deuteranopia(v) for k, v in rgb.items()}
    names = list(rgb)
    out = [(delta_e(rgb[a], rgb[b]), a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    return sorted(out)
