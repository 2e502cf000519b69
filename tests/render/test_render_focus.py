"""The move browser's map: the board alone, its view the territory and every place it goes, on the board.

The walk's defect: ``/variants/standard/moves?q=stp`` showed a strip of the map's heading above the board (the
end of "Movement"), and ``/variants/1000ad/moves?q=and`` the board in part of its frame beside empty space, its
legend cut at "Polotjans and Dregov": the whole opening map (heading and legend) was drawn, and the viewer's
view about the places ran past the picture's edge. tests/web/test_move_browser_map_browser.py looks at the pages.
"""

from __future__ import annotations

import re

import pytest

from dippouch.catalog import load_variant, variant_names
from dippouch.render.focus import LEAST, places_box, places_svg
from dippouch.render.geometry import load_geometry, path_rings
from dippouch.render.svg import FRAME_ASPECT
from dippouch.web.views.variant_pages import moves


def _places(name: str, query: str) -> list[str]:
    mv = moves(name, query)
    return [mv["province"]["abbr"], *(d["abbr"] for u in mv["units"] for d in u["moves"])]


def _shapes_box(name: str, places: list[str]) -> tuple[float, float, float, float]:
    geo = load_geometry(load_variant(name))
    pts = [p for a in places for ring in path_rings(geo.provinces[a.split("/")[0]].d) for p in ring]
    return min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts)


@pytest.mark.parametrize("name", variant_names())
def test_the_view_holds_the_places_and_lies_on_the_board(name: str) -> None:
    """For each province of each variant that has a map: the box holds the province and where it goes, lies
    on the board, and its middle is the places' own (the viewer's view about them is then the box)."""
    v = load_variant(name)
    try:
        geo = load_geometry(v)
    except FileNotFoundError:
        pytest.skip(f"{name} has no built map")
    for p in v.map.provinces[:: max(1, len(v.map.provinces) // 12)]:
        places = _places(name, p.abbr)
        if p.abbr not in geo.provinces:
            continue
        box = places_box(v, places)
        if box is None:  # a place drawn without a shape (imperial's lakes, impassable): the whole board
            assert places == [p.abbr] and not path_rings(geo.provinces[p.abbr].d), p.abbr
            continue
        x, y, w, h = box
        assert x >= -0.01 and x + w <= geo.width + 0.01 and y >= -0.01 and y + h <= geo.height + 0.01, (p.abbr, box)
        x0, y0, x1, y1 = _shapes_box(name, [a for a in places if a.split("/")[0] in geo.provinces])
        assert x <= x0 + 0.01 and x1 <= x + w + 0.01 and y <= y0 + 0.01 and y1 <= y + h + 0.01, (p.abbr, box)
        assert (x + w / 2, y + h / 2) == pytest.approx(((x0 + x1) / 2, (y0 + y1) / 2), abs=0.02)


def test_st_petersburg_is_framed_at_the_boards_top_and_andalusia_at_its_foot() -> None:
    """The two places of the walk: their boxes reach the board's edge and stop there."""
    std = places_box(load_variant("standard"), _places("standard", "stp"))
    assert std is not None and std[1] == 0.0 and std[2] >= 1200 * LEAST
    geo = load_geometry(load_variant("1000ad"))
    ad = places_box(load_variant("1000ad"), _places("1000ad", "and"))
    assert ad is not None and ad[0] == 0.0 and ad[1] + ad[3] == pytest.approx(geo.height, abs=0.02)
    # Away from the edges, shaped like the page's frame.
    mid = places_box(load_variant("standard"), _places("standard", "boh"))
    assert mid is not None and mid[2] / mid[3] == pytest.approx(FRAME_ASPECT, abs=0.01)


def test_the_picture_is_the_board_alone_with_its_view_on_the_places() -> None:
    v = load_variant("1000ad")
    places = _places("1000ad", "and")
    svg = places_svg(v, v.start, places)
    x, y, w, h = places_box(v, places) or (0, 0, 0, 0)
    assert svg.startswith(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x:g} {y:g} {w:g} {h:g}" width="{w:g}"')
    assert 'class="heading"' not in svg and 'class="legend-power"' not in svg
    assert re.search(r'data-board="0 0 1200 ', svg)
    assert 'id="r-and"' in svg  # the move browser's script finds the territory by its plain id
    assert places_svg(v, v.start, ["nowhere"]).count('viewBox="0 0 1200 ') == 1
