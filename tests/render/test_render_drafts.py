"""An order drawn as it is typed (``draft_order_svg``, the player's page draws the line check's answer): the
same marks as the order once sent, told apart by a white casing, in a group naming its provinces, never
counted as a sent order; nothing for a line that does not read or has no mark."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from dippouch.catalog import load_variant
from dippouch.render import draft_order_svg, render_svg
from dippouch.render.svg import CASING, DRAFT_CASING


def _root(fragment: str) -> ET.Element:
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{fragment}</svg>')[0]


@pytest.mark.parametrize(
    ("variant", "power", "text", "cls", "unit", "target", "dest"),
    [
        ("w3k", "Crown", "A glo - wil", "draft move", "glo", "", "wil"),
        ("w3k", "Crown", "A glo H", "draft hold", "glo", "", ""),
        ("w3k", "Crown", "A wil S A glo - hfd", "draft support support-move", "wil", "glo", "hfd"),
        ("standard", "England", "F lon C A yor - bel", "draft convoy", "lon", "yor", "bel"),
    ],
)
def test_a_draft_names_its_kind_and_provinces(
    variant: str, power: str, text: str, cls: str, unit: str, target: str, dest: str
) -> None:
    v = load_variant(variant)
    frag = draft_order_svg(v, v.start, power, text)
    assert frag is not None
    g = _root(frag)
    assert g.get("class") == cls, frag[:200]
    assert (g.get("data-unit"), g.get("data-target"), g.get("data-dest")) == (unit, target, dest)
    assert g.get("data-order") == text and g.get("data-power") == power


def test_a_draft_is_the_sent_orders_drawing_with_a_white_casing_and_no_sent_orders_names() -> None:
    v = load_variant("w3k")
    frag = draft_order_svg(v, v.start, "Crown", "A glo - wil")
    assert frag is not None
    sent = render_svg(v, v.start, {"Crown": ["A glo - wil"]})
    marks = re.search(r'<g id="order-0"[^>]*>(.*?)</g>', sent)
    assert marks is not None
    assert marks.group(1).replace(f'stroke="{CASING}"', f'stroke="{DRAFT_CASING}"') in frag
    assert f'stroke="{CASING}"' not in frag and f'stroke="{DRAFT_CASING}"' in frag
    assert 'id="' not in frag and 'class="order' not in frag and frag.count("data-order=") == 1


@pytest.mark.parametrize("text", ["A nowhere - x", "", "Send 1 supply to Argyll"])
def test_a_line_that_does_not_read_or_has_no_mark_draws_nothing(text: str) -> None:
    v = load_variant("w3k")
    assert draft_order_svg(v, v.start, "Crown", text) is None
