"""A game's link shows the board where people paste it (Discord, Slack, a mail program): the game page names a
1200x630 PNG of the position as its Open Graph and Twitter card picture, made once per picture, for the people
who may see the game only."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from dippouch.store import history as store_history
from websupport import TEST_SITE, Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


def _meta(html: str, key: str) -> str | None:
    m = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', html)
    return m.group(1) if m else None


def _drawn_box(png: bytes) -> tuple[int, int, int, int]:
    """Where the picture differs from the colour of its corner (the paper the board is centred on)."""
    pic = Image.open(io.BytesIO(png)).convert("RGB")
    paper = Image.new("RGB", pic.size, pic.getpixel((0, 0)))
    box = ImageChops.difference(pic, paper).getbbox()
    assert box is not None, "the preview is blank"
    return box


def test_the_game_page_names_the_board_as_its_preview(site: Site) -> None:
    page = site.browser().get("/games/demo")
    image = _meta(page.text, "og:image")
    assert image is not None and image.startswith(TEST_SITE.public_url.rstrip("/") + "/games/demo/phases/")
    assert image.endswith("/preview-board.png")
    assert _meta(page.text, "twitter:card") == "summary_large_image"
    assert _meta(page.text, "og:image:width") == "1200" and _meta(page.text, "og:image:height") == "630"
    assert "demo" in (_meta(page.text, "og:image:alt") or "")
    got = site.browser().get(image.removeprefix(TEST_SITE.public_url.rstrip("/")))
    assert got.status_code == 200 and got.headers["content-type"] == "image/png"
    pic = Image.open(io.BytesIO(got.content))
    assert pic.size == (1200, 630)
    left, top, right, bottom = _drawn_box(got.content)
    assert right - left > 1000 or bottom - top > 580, "the board fills its box one way"
    # Made once: the picture is kept by its SVG's text.
    svg = site.browser().get(
        image.removeprefix(TEST_SITE.public_url.rstrip("/")).replace("preview-board.png", "map-board.svg")
    )
    assert site.web.maps.cached_preview(svg.text) == got.content
    again = site.browser().get(
        image.removeprefix(TEST_SITE.public_url.rstrip("/")), headers={"If-None-Match": got.headers["etag"]}
    )
    assert again.status_code == 304


def test_a_portrait_board_is_shown_whole(tmp_path: Path) -> None:
    site = Site(f"sqlite:///{tmp_path / 'w.db'}")
    site.new_game("kingdoms", "w3k")
    image = _meta(site.browser().get("/games/kingdoms").text, "og:image")
    assert image is not None
    got = site.browser().get(image.removeprefix(TEST_SITE.public_url.rstrip("/")))
    left, top, right, bottom = _drawn_box(got.content)
    assert bottom - top > 580, "the whole height of the board is drawn"
    assert right - left < 900, "a portrait board is not stretched across the box"


def test_a_private_games_preview_is_no_strangers_business(site: Site) -> None:
    site.new_game("hidden", visibility="private")
    page = site.coordinator.get("/games/hidden")
    image = _meta(page.text, "og:image")
    assert image is not None
    path = image.removeprefix(TEST_SITE.public_url.rstrip("/"))
    assert site.coordinator.get(path).status_code == 200
    assert site.browser().get(path).status_code == 404
    assert site.browser().get("/games/demo/phases/1/preview-nosuch.png").status_code == 404


def test_a_processed_phase_page_shows_its_orders_as_its_preview(site: Site) -> None:
    site.post_form(site.coordinator, "/games/demo/coordinate/process", {"confirm": "yes"})
    first = store_history.phase_record(site.web.store, "demo", "Spring 1901 Movement")["id"]
    page = site.browser().get(f"/games/demo/phases/{first}")
    image = _meta(page.text, "og:image")
    assert image is not None and image.endswith(f"/phases/{first}/preview-orders.png")
    got = site.browser().get(image.removeprefix(TEST_SITE.public_url.rstrip("/")))
    assert got.status_code == 200 and Image.open(io.BytesIO(got.content)).size == (1200, 630)
