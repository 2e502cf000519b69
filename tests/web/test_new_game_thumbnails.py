"""Each variant's small map on /new-game (issue 55: "templates grouped by variant with the map"): the page names
each picture by a key and never draws one itself (it stays as fast as it was); the picture is drawn once, kept on
disk for the next process, and served with a key a browser may keep for good; every picture has alt text and a
fixed size, so the list does not jump as they load."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from dippouch import settings as site_settings
from dippouch.catalog import load_variant, variants_usable
from dippouch.render.thumbnail import THUMBNAIL_SIZE
from dippouch.store.people.persons import create_person
from dippouch.web.http.security import SESSION_COOKIE
from dippouch.web.views import new_games
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _signed_in(site: Site) -> Any:
    pid = create_person(site.web.store, "Ann", now=site.clock())
    c = site.browser()
    c.cookies.set(SESSION_COOKIE, site.web.access.start_session([], now=site.clock(), person_id=pid))
    return c


def _kept_files() -> list[Path]:
    folder = site_settings.current().cache_dir
    assert folder is not None
    return sorted((folder / "thumbnails").glob("*.png")) if (folder / "thumbnails").is_dir() else []


def test_every_variant_on_the_page_has_a_keyed_picture_with_alt_text_and_the_page_draws_none(site: Site) -> None:
    ann = _signed_in(site)
    before = _kept_files()
    started = time.perf_counter()
    page = ann.get("/new-game").text
    took = time.perf_counter() - started
    imgs = re.findall(r"<img class=\"variant-thumb\"[^>]*>", page)
    names = {v.name for v in variants_usable()[0]}
    shown = {
        m.group(1) for m in (re.search(r'src="/variants/([^/]+)/thumbnail\.png\?v=[0-9a-f]{16}"', i) for i in imgs) if m
    }
    assert shown == names, names - shown
    for img in imgs:
        assert 'width="120" height="90"' in img and 'loading="lazy"' in img
        alt = re.search(r'alt="([^"]+)"', img)
        assert alt and alt.group(1).startswith("Map of ") and "at the start" in alt.group(1), img
    assert _kept_files() == before  # the page names the pictures; drawing them is the pictures' requests
    assert took < 5, took


def test_a_picture_is_drawn_once_kept_on_disk_and_served_to_be_kept_for_good(site: Site) -> None:
    ann = _signed_in(site)
    page = ann.get("/new-game").text
    src = re.search(r'src="(/variants/hundred3/thumbnail\.png\?v=([0-9a-f]{16}))"', page)
    assert src
    url, key = src.group(1), src.group(2)
    r = ann.get(url)
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert r.headers["etag"] == f'"{key}"'
    pic = Image.open(io.BytesIO(r.content)).convert("RGB")
    assert pic.size == THUMBNAIL_SIZE
    # The picture is the variant's: its three powers' colours (tinted on the land they own) stand on it.
    colours: dict[tuple[int, int, int], int] = {}
    for n, rgb in pic.getcolors(maxcolors=1 << 16) or []:
        assert isinstance(rgb, tuple)
        colours[(int(rgb[0]), int(rgb[1]), int(rgb[2]))] = n
    for tint in ((216, 104, 118), (104, 138, 216), (173, 117, 173)):  # England, France, Burgundy
        near = sum(n for rgb, n in colours.items() if max(abs(a - b) for a, b in zip(rgb, tint, strict=True)) < 12)
        assert near > 200, (tint, near)
    kept = [p for p in _kept_files() if p.name == f"hundred3-{key}.png"]
    assert kept and kept[0].read_bytes() == r.content
    # A browser that has it is answered without the picture; without the key it keeps it an hour only.
    assert ann.get(url, headers={"If-None-Match": f'"{key}"'}).status_code == 304
    assert ann.get("/variants/hundred3/thumbnail.png").headers["cache-control"] == "public, max-age=3600"
    # The next process finds it on disk: a picture written there (here a marked one) is what it serves.
    load_variant("hundred3").derived.pop(new_games._THUMB, None)
    kept[0].write_bytes(r.content + b"kept")
    assert ann.get(url).content == r.content + b"kept"
    load_variant("hundred3").derived.pop(new_games._THUMB, None)
    kept[0].unlink()


def test_an_unknown_variant_has_no_picture_and_is_told_so(site: Site) -> None:
    r = site.browser().get("/variants/standrd/thumbnail.png")
    assert r.status_code == 404 and "did you mean &#39;standard&#39;" in r.text
