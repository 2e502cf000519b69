"""The map's lettering measured without a font library: names are placed (and checked) by these widths.

DejaVu Sans is the first font the SVG asks for and the one cairosvg finds on the servers; other fonts of
the list are close enough in width for placing names with a little air between them.
"""

from __future__ import annotations

__all__ = ["BASELINE", "LABEL_DOWN", "LABEL_UP", "text_width"]

# Advance widths of DejaVu Sans Bold and Book (the map's lettering) for the printable ASCII characters, in
# thousandths of an em (read from the fonts' metrics): names are placed and measured without a font library.
# fmt: off
_BOLD = (348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696,
    696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372,
    775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500,
    675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652,
    924, 645, 652, 582, 712, 365, 712, 838)
_REGULAR = (318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636,
    636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295,
    656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500,
    613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592,
    818, 592, 592, 525, 636, 337, 636, 838)
# fmt: on

LABEL_UP = 0.4
"""A name's box reaches this many font sizes above the middle of its text..."""
LABEL_DOWN = 0.55
"""...and this many below it (halo included); the middle is the baseline less 0.35 font sizes."""
BASELINE = 0.35


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width of ``text`` in DejaVu Sans (Bold) at ``size``; characters beyond ASCII count as wide."""
    table = _BOLD if bold else _REGULAR
    wide = 720 if bold else 640
    total = 0
    for c in text:
        i = ord(c) - 32
        total += table[i] if 0 <= i < len(table) else wide
    return total * size / 1000
