"""The map's own words in the reader's language (issue 41): the heading's phase, the legend's counts and the key's
labels in German and French when the options say so; provinces and powers as the variant gives them, and the
English map the same as before."""

from __future__ import annotations

import re

import pytest

from dippouch.catalog import load_variant
from dippouch.render.svg import RenderOptions, render_svg

STD = load_variant("standard")
ORDERS = {"France": ["A par - bur", "A mar S A par - bur", "F bre H"]}

WORDS = {
    "en": ("Spring 1901 Movement", "3 centres, 3 units", ["move", "support", "hold", "failed", "dislodged"]),
    "de": ("Frühjahr 1901 Bewegung", "3 Zentren, 3 Einheiten", ["Zug", "Unterstützung", "Halten", "gescheitert"]),
    "fr": ("Printemps 1901 Mouvements", "3 centres, 3 unités", ["mouvement", "soutien", "tenir", "échec", "délogée"]),
}


def _texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg) + re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_the_legend_and_the_key_in_the_maps_language(lang: str) -> None:
    try:
        svg = render_svg(STD, STD.start, ORDERS, options=RenderOptions(lang=lang))
    except FileNotFoundError:
        pytest.skip("the standard map's geometry is not built here")
    phase, counts, labels = WORDS[lang]
    texts = _texts(svg)
    assert f"</tspan> · {phase}</text>" in svg
    assert counts in texts
    for label in labels:
        assert label in texts, label
    assert "France" in texts and "Austria" in texts  # the powers as the variant names them
    if lang != "en":
        assert "Spring 1901 Movement" not in svg
        for english in ("3 centres, 3 units", "support", "hold"):
            assert english not in texts, english


def test_the_english_map_is_the_one_drawn_without_a_language() -> None:
    try:
        plain = render_svg(STD, STD.start, ORDERS)
    except FileNotFoundError:
        pytest.skip("the standard map's geometry is not built here")
    assert render_svg(STD, STD.start, ORDERS, options=RenderOptions(lang="en")) == plain


@pytest.mark.parametrize(("lang", "said"), [("en", "in sight: 3 centres, 3 units"), ("de", "in Sicht: 3 Zentren")])
def test_a_fog_readers_legend_counts_what_is_in_sight(lang: str, said: str) -> None:
    """Under fog of war a power out of sight has no centre and no unit on the reader's map: its legend line
    says so of the sight, not of the power (it read "Austria: 0 centres, 0 units", as if Austria were out)."""
    seen = frozenset({"par", "bre", "mar", "pic", "bur", "gas", "spa", "mao"})
    svg = render_svg(STD, STD.start, None, options=RenderOptions(lang=lang, seen=seen))
    assert said in svg
    plain = render_svg(STD, STD.start, None, options=RenderOptions(lang=lang))
    assert "in sight" not in plain and "in Sicht" not in plain
