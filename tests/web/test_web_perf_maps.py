"""The game page carries its phase's picture inline, drawn over the game's board file (the browser keeps that
file, so a page costs its phase's units and colours, not the whole board); the picture also has an address of its
own (for links, the preview and the JSON API), kept by the browser for good. Cached pictures must never show a
viewer orders not yet revealed to them: a power's own standing orders are drawn on that power's page only, and
the pictures with orders of a phase exist only once it is processed.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from dippouch.catalog import load_variant
from dippouch.play.reports import stored_report
from dippouch.web.views.maps import map_available
from websupport import Site

ORDER_ID = re.compile(r'id="order-\d+(?:-\d+)?" data-power="(\w+)"')  # a processed phase's: its own ids
VIEWS = ("board", "orders", "after", "after-orders")


@pytest.fixture
def game(tmp_path: Path) -> Site:
    assert map_available(load_variant("standard")), "the standard variant's geometry is shipped: a map is drawn"
    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g", movement="2d")
    site.france = site.player("g", "France", "Bruno")  # type: ignore[attr-defined]
    site.germany = site.player("g", "Germany", "Carla")  # type: ignore[attr-defined]
    return site


def _map_url(client: Any) -> str:
    """The address of the picture the game page shows, as the JSON API names it."""
    url = client.get("/api/games/g").json()["map_url"]
    assert re.fullmatch(r"/games/g/phases/\d+/map-board\.svg", url), url
    return str(url)


def test_the_game_page_draws_over_the_board_file_and_the_map_is_kept_for_good(game: Site) -> None:
    anon = game.browser()
    page = anon.get("/games/g")
    assert page.status_code == 200 and page.text.count("<svg") == 1
    # Its provinces are references to the board file's shapes, each with the phase's colour; no shape inline.
    shapes = set(re.findall(r'<use href="/variants/standard/board-[0-9a-f]{16}\.svg#r-(\w+)" id="r-', page.text))
    assert shapes >= {p.abbr for p in load_variant("standard").map.provinces}, shapes
    assert '<path id="r-' not in page.text and 'id="unit-par"' in page.text
    assert len(page.text) < 70_000, len(page.text)  # the whole picture inline made it 230 KB
    url = _map_url(anon)
    r = anon.get(url)
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith(("<svg", "<?xml")) and 'id="r-par"' in r.text
    assert "immutable" in r.headers["cache-control"] and "private" in r.headers["cache-control"]
    again = anon.get(url, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    # The download link and the player's page draw the same board.
    assert anon.get("/games/g/map.svg").text == r.text


def test_cached_maps_never_show_unrevealed_orders(game: Site) -> None:
    f, de = game.france, game.germany  # type: ignore[attr-defined]
    game.post_form(f, "/games/g/play/France/orders", {"orders": "A par - bur\nA mar - spa"})
    game.post_form(de, "/games/g/play/Germany/orders", {"orders": "A mun - ruh"})
    # France's own page draws France's standing orders (that picture is cached under France's key)...
    assert set(ORDER_ID.findall(f.get("/games/g/play/France").text)) == {"France"}
    assert set(ORDER_ID.findall(de.get("/games/g/play/Germany").text)) == {"Germany"}
    url = _map_url(game.browser())
    phase_id = re.search(r"/phases/(\d+)/", url).group(1)  # type: ignore[union-attr]
    # ...and no other address answers it: not the board, and the views with orders do not exist yet,
    # for anybody (a player, the coordinator, a visitor), however often asked (cached or not).
    for who in (game.browser(), f, de, game.coordinator, game.browser()):
        board = who.get(url)
        assert board.status_code == 200 and not ORDER_ID.search(board.text)
        for view in VIEWS[1:]:
            r = who.get(f"/games/g/phases/{phase_id}/map-{view}.svg")
            assert r.status_code == 404 and "cache-control" not in r.headers, (view, r.status_code)
        assert not ORDER_ID.search(who.get("/games/g/map.svg").text)
    # Processed: everyone sees every power's orders on the picture with orders, which is then kept.
    r = game.post_form(game.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    assert r.status_code == 303
    shown = game.browser().get(f"/games/g/phases/{phase_id}/map-orders.svg")
    assert shown.status_code == 200 and set(ORDER_ID.findall(shown.text)) == {"France", "Germany"}
    assert "immutable" in shown.headers["cache-control"]
    assert game.browser().get(f"/games/g/phases/{phase_id}/map-after-orders.svg").status_code == 200
    new_url = _map_url(game.browser())
    assert new_url != url and not ORDER_ID.search(game.browser().get(new_url).text)


def test_private_games_maps_are_refused_to_visitors(game: Site) -> None:
    url = _map_url(game.browser())
    r = game.post_form(game.coordinator, "/games/g/coordinate/visibility", {"visibility": "private"})
    assert r.status_code == 303
    anon = game.browser()
    assert anon.get(url).status_code == 404
    assert anon.get(url, headers={"If-None-Match": '"anything"'}).status_code == 404
    assert game.france.get(url).status_code == 200  # type: ignore[attr-defined]


def test_the_pages_draw_over_the_variants_board_file_kept_for_good(game: Site) -> None:
    """The player's page and the game page draw the board's fixed parts by reference to the variant's board
    file, one for every game of the variant: its address names its content's hash, answered with a year's life
    (in shared caches too: it shows the variant's board, nothing of any game) and a 304 to the browser that has
    it, compressed as the browser takes it; an old hash is answered with the board as it is now, not to be
    kept. A private game's pages name it too. The pages themselves carry no shape."""
    page = game.france.get("/games/g/play/France").text  # type: ignore[attr-defined]
    found = set(re.findall(r'href="(/variants/standard/board-([0-9a-f]{16})\.svg)#r-par"', page))
    assert len(found) == 1, found
    url, digest = found.pop()
    assert '<path id="r-' not in page and '<text id="label-' not in page
    assert f'href="{url}#r-par"' in game.browser().get("/games/g").text
    game.new_game("other", movement="2d")
    assert f'href="{url}#r-par"' in game.browser().get("/games/other").text  # the same file for every game
    anon = game.browser()
    r = anon.get(url)
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert '<path id="r-par" d="M' in r.text and 'id="t-par"' in r.text and "<use" not in r.text
    assert anon.get(url, headers={"If-None-Match": r.headers["etag"]}).status_code == 304
    squeezed = anon.get(url, headers={"Accept-Encoding": "zstd"})
    assert squeezed.headers["content-encoding"] == "zstd" and squeezed.text == r.text
    old = anon.get(url.replace(digest, "0" * 16))
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache" and old.text == r.text
    assert anon.get(url.replace("/standard/", "/standrd/")).status_code == 404
    assert (
        game.post_form(game.coordinator, "/games/g/coordinate/visibility", {"visibility": "private"}).status_code == 303
    )
    assert f'href="{url}#r-par"' in game.france.get("/games/g/play/France").text  # type: ignore[attr-defined]
    assert game.browser().get(url).status_code == 200


def test_a_game_whose_copy_draws_another_board_names_a_file_of_its_own(game: Site) -> None:
    """A game whose stored copy of its variant draws another board than the variant's file does now (a name
    written on the board changed since it began) names a board file of its own: its own names, kept by shared caches unless the game
    is private, then by its players' browsers only."""
    from dippouch.core.variant import content_hash
    from dippouch.store import transfer

    data = transfer.export_game(game.web.store, "g")
    copy = data["game"]["variant_data"]
    copy["provinces"]["mos"]["name"] = "Moskva"  # a name the board writes out in full
    data["game"]["variant_hash"] = content_hash(copy)
    transfer.import_game(game.web.store, data, name="old")
    page = game.browser().get("/games/old").text
    found = set(re.findall(r'href="(/games/old/board-[0-9a-f]{16}\.svg)#r-par"', page))
    assert len(found) == 1 and "/variants/" not in page.split('class="dippouch-map"', 1)[1], found
    url = found.pop()
    r = game.browser().get(url)
    assert r.status_code == 200 and ">Moskva<" in r.text and ">Moscow<" not in r.text
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    variants = re.search(r'href="(/variants/standard/board-\w+\.svg)#', game.browser().get("/games/g").text)
    assert variants is not None and ">Moscow<" in game.browser().get(variants[1]).text
    assert (
        game.post_form(game.coordinator, "/games/old/coordinate/visibility", {"visibility": "private"}).status_code
        == 303
    )
    assert game.browser().get(url).status_code == 404


def test_bad_map_addresses_answer_a_clear_404(game: Site) -> None:
    anon = game.browser()
    url = _map_url(anon)
    for bad in (
        url.replace("map-board", "map-secret"),
        "/games/g/phases/999999/map-board.svg",
        "/games/nope/phases/1/map-board.svg",
    ):
        r = anon.get(bad)
        assert r.status_code == 404 and "no " in r.text, (bad, r.text[:300])


def test_the_pages_report_is_the_stores_report(game: Site) -> None:
    """The game page makes the last report from rows it has loaded (and keeps it while nothing it shows
    changes): the same text as ``stored_report``, also after the next deadline moves."""
    from dippouch.web.http.security import Viewer
    from dippouch.web.views.games import game_view

    game.post_form(game.france, "/games/g/play/France/orders", {"orders": "A par - bur"})  # type: ignore[attr-defined]
    assert game.post_form(game.coordinator, "/games/g/coordinate/process", {"confirm": "yes"}).status_code == 303
    web = game.web
    assert game_view(web, "g", Viewer())["last_report"] == stored_report(web.store, "g")
    assert game.post_form(game.coordinator, "/games/g/coordinate/extend", {"by": "1d"}).status_code == 303
    report = game_view(web, "g", Viewer())["last_report"]
    assert report == stored_report(web.store, "g") and "orders are due by" in report


def test_each_database_draws_its_own_games(tmp_path: Path) -> None:
    """Pictures are kept by the app that reads the database, not by the process: a game of the same name in
    another database, whose first phase has the same id, is drawn from its own position (a cache shared by
    the process served it the first database's picture)."""
    first = Site(f"sqlite:///{tmp_path / 'first.db'}")
    second = Site(f"sqlite:///{tmp_path / 'second.db'}")
    first.new_game("g", "standard")
    second.new_game("g", "hundred3")
    board = first.browser().get("/games/g/map.svg").text
    other = second.browser().get("/games/g/map.svg").text
    assert 'id="r-stp"' in board and 'id="r-stp"' not in other
    assert _map_url(first.browser()) == _map_url(second.browser())
    # Each page draws its own game's board: the same phase id, another variant's provinces.
    assert 'id="r-stp"' in first.browser().get("/games/g").text
    assert 'id="r-stp"' not in second.browser().get("/games/g").text


def test_a_dropped_app_frees_its_pictures(tmp_path: Path) -> None:
    """The pictures and PDFs go with the app that drew them (nothing is left in a module-level cache)."""
    import gc
    import weakref

    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("g")
    assert site.browser().get("/games/g/map.pdf").status_code == 200
    kept = weakref.ref(site.web.maps)
    assert kept() is not None and kept().cached_pdf(site.browser().get("/games/g/map.svg").text) is not None  # type: ignore[union-attr]
    site.web.store.engine.dispose()
    site.web.read.engine.dispose()
    del site
    # Another test in this process may have frozen what was alive then (a bot's settle, serve's collector:
    # gc.freeze), and a frozen object is never examined; a thread of the test client may still be letting go of
    # its last request (CI, once). Unfrozen and given five seconds, only a real reference keeps the cache.
    for _ in range(50):
        gc.unfreeze()
        gc.collect()
        if kept() is None:
            break
        time.sleep(0.1)
    assert kept() is None
