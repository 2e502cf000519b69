"""The replay page in a real browser (Debian's Chromium through Playwright) at 1366x900 and 390x844: it plays by
itself unless the system asks for reduced motion, space pauses and plays, the arrows and Home/End step and the
picture, caption, counter, slider, phase link and address follow; on a phone nothing scrolls sideways and every
control is at least 44 px square. Screenshots go to test-artifacts/replay/."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_axe_pages import _violations
from test_replay import finished_w3k

from browsersupport import PHONE, LiveSite, running_site, shoot, watch_errors
from dbsupport import migrated_sqlite
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions

WIDE = {"width": 1366, "height": 900}
SIZES = [pytest.param(WIDE, id="desktop"), pytest.param(PHONE, id="phone")]
T0 = datetime.now(UTC)
ORDERS = {
    "Spring 1901 Movement": {"France": "A par - bur\nF bre - mao", "Germany": "A mun - ruh", "Russia": "A war - gal"},
    "Fall 1901 Movement": {"France": "F mao - spa/sc", "Germany": "A ruh - bel", "Russia": "A gal - vie"},
}
FRAMES = 2 * len(ORDERS) + 1
FRAME_MS = 1200
"""How long replay.js shows a frame while it plays."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[LiveSite]:
    """A standard game played two movement phases with a few moves (and the winter's builds left undone), and
    a W3K game finished by a draw between kingdoms."""
    db = tmp_path_factory.mktemp("replay") / "site.db"
    with running_site(migrated_sqlite(db), chromium) as s:
        store_games.create_game(s.store, "g", "standard", now=T0)
        for phase, orders in ORDERS.items():
            for power, text in orders.items():
                store_submissions.submit(s.store, "g", power, text, now=T0, phase=phase)
            assert store_processing.process(s.store, "g", now=T0, force=True) == [phase]
        finished_w3k(s.store, "w3k", T0)
        yield s


def _open(
    site: LiveSite, size: dict[str, int], url: str = "/games/g/replay", *, clock: bool = False, **options: Any
) -> Any:
    """The replay page, ready; with ``clock``, on a clock of the test's (Playwright's): its timers fire when the
    test moves the clock on, so a check that nothing plays, or that playing steps, takes no real seconds."""
    page = site.context(size, **options).new_page()
    page.errors = watch_errors(page)
    if clock:
        page.clock.install()
    page.goto(site.base + url)
    page.locator("[data-replay][data-ready]").wait_for()
    return page


def _at(page: Any) -> int:
    return int(page.locator("[data-replay]").get_attribute("data-at"))


def _shown(page: Any) -> dict[str, Any]:
    shown: dict[str, Any] = page.evaluate(
        """() => ({
          src: document.getElementById('replay-picture').getAttribute('src'),
          caption: document.getElementById('replay-caption').textContent,
          count: document.getElementById('replay-count').textContent,
          slider: document.getElementById('replay-at').value,
          phase: document.getElementById('replay-phase').getAttribute('href'),
          full: document.getElementById('replay-full').getAttribute('href'),
          address: location.search,
        })"""
    )
    return shown


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_the_keyboard_steps_through_the_replay(site: LiveSite, size: dict[str, int], tmp_path: Path) -> None:
    """With reduced motion nothing plays by itself; → steps forward, ← back, End and Home go to the ends, and
    everything on the page names the frame shown; space plays (the frame advances by itself) and pauses."""
    frames = site.web.access.phases("g")
    page = _open(site, size, reduced_motion="reduce", clock=True)
    page.clock.run_for(2 * FRAME_MS)
    assert _at(page) == 0, "played by itself although the system asks for reduced motion"
    assert page.locator("[data-play]").is_visible()
    page.keyboard.press("ArrowRight")
    shown = _shown(page)
    assert _at(page) == 1
    assert shown["src"] == f"/games/g/phases/{frames[0].id}/map-after.svg"
    assert shown["caption"] == "After Spring 1901 Movement"
    assert shown["count"] == f"2 of {FRAMES}" and shown["slider"] == "1" and shown["address"] == "?at=1"
    assert shown["phase"] == f"/games/g/phases/{frames[0].id}" and shown["full"] == shown["src"]
    page.keyboard.press("ArrowRight")
    assert _shown(page)["caption"] == "Fall 1901 Movement: orders and results"
    page.keyboard.press("ArrowLeft")
    assert _at(page) == 1
    page.keyboard.press("End")
    assert _at(page) == FRAMES - 1 and _shown(page)["caption"].endswith("the board now")
    page.keyboard.press("ArrowRight")  # nothing beyond the last
    assert _at(page) == FRAMES - 1
    page.keyboard.press("Home")
    assert _at(page) == 0
    # The picture shown arrives (and is the map, not a broken image); on a busy machine it takes a moment.
    page.wait_for_function(
        "() => { const i = document.getElementById('replay-picture'); return i.complete && i.naturalWidth > 0; }",
        timeout=15_000,
    )
    page.keyboard.press(" ")
    assert page.locator("[data-play]").get_attribute("aria-pressed") == "true"
    page.clock.run_for(FRAME_MS)
    page.wait_for_function("() => document.querySelector('[data-replay]').dataset.at !== '0'", timeout=15_000)
    page.keyboard.press(" ")
    assert page.locator("[data-play]").get_attribute("aria-pressed") == "false"
    paused = _at(page)
    page.clock.run_for(2 * FRAME_MS)
    assert _at(page) == paused, "still playing after space paused it"
    # The buttons step too, and the slider.
    page.locator("[data-step=last]").click()
    assert _at(page) == FRAMES - 1
    page.locator("#replay-at").fill("2")
    assert _at(page) == 2
    assert page.errors == [], page.errors
    name = "phone" if size["width"] < 500 else "desktop"
    shoot(page, "replay", f"replay-{name}", full_page=False)
    page.context.close()


@pytest.mark.slow
def test_it_plays_by_itself_and_stops_on_the_last_picture(site: LiveSite) -> None:
    page = _open(site, WIDE, clock=True)
    assert page.locator("[data-play]").get_attribute("aria-pressed") == "true"
    for step in range(1, FRAMES):
        # A frame's time passes (the page's clock runs on by itself too: a frame may pass unbidden); the next
        # is shown once its picture has arrived, a real load, waited for.
        page.clock.run_for(FRAME_MS)
        page.wait_for_function(f"() => Number(document.querySelector('[data-replay]').dataset.at) >= {step}")
    page.clock.run_for(2 * FRAME_MS)
    assert page.locator("[data-play]").get_attribute("aria-pressed") == "false"
    assert _at(page) == FRAMES - 1
    # A frame asked for in the address is where it opens, and it does not start playing over it.
    asked = _open(site, WIDE, "/games/g/replay?at=3", clock=True)
    asked.clock.run_for(2 * FRAME_MS)
    assert _at(asked) == 3 and asked.locator("[data-play]").get_attribute("aria-pressed") == "false"
    assert page.errors == [] and asked.errors == []


@pytest.mark.slow
def test_on_a_phone_nothing_scrolls_sideways_and_every_control_is_44_px(site: LiveSite) -> None:
    page = _open(site, PHONE, reduced_motion="reduce")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"
    sizes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.replay-controls > *, .replay-slider input'))
             .filter(e => e.offsetParent !== null)
             .map(e => { const b = e.getBoundingClientRect(); return [e.getAttribute('aria-label') || e.id, b.width, b.height, b.right]; })"""
    )
    assert len(sizes) == 6, sizes  # first, back, play, next, last and the slider
    small = [s for s in sizes if s[2] < 44 or (s[0] != "replay-at" and s[1] < 44)]
    assert small == [], small
    assert all(s[3] <= PHONE["width"] for s in sizes), sizes
    # The map fits the window's width.
    box = page.locator("#replay-picture").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    shoot(page, "replay", "replay-phone-controls", full_page=True)
    page.context.close()


@pytest.mark.slow
def test_the_page_works_without_javascript(site: LiveSite) -> None:
    """The step links and the slider's form move the replay, a page load each."""
    page = _open_plain(site)
    page.locator("[data-step=forward]").click()
    page.wait_for_url("**/replay?at=1")
    assert page.locator("#replay-count").text_content() == f"2 of {FRAMES}"
    page.locator("[data-step=last]").click()
    page.wait_for_url(f"**/replay?at={FRAMES - 1}")
    assert page.locator("[data-play]").is_hidden()  # nothing to play without the script
    page.locator("#replay-at").fill("1")
    page.locator("[data-go]").click()
    page.wait_for_url("**/replay?at=1")
    assert page.locator("#replay-caption").text_content() == "After Spring 1901 Movement"
    page.context.close()


def _open_plain(site: LiveSite) -> Any:
    page = site.context(WIDE, java_script_enabled=False).new_page()
    page.goto(site.base + "/games/g/replay")
    return page


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_a_finished_w3k_game_replayed_on_a_phone_and_a_desktop(site: LiveSite, size: dict[str, int]) -> None:
    """W3K's tall board: every picture arrives whole, End shows the board the game ended on, the map fits the
    window's width and nothing scrolls sideways; axe finds nothing serious, in light and dark colours."""
    page = _open(site, size, "/games/w3k/replay", reduced_motion="reduce")
    n = page.locator("[data-frames] li").count()
    assert n == 5
    for i in range(n):
        page.wait_for_function(
            "() => { const i = document.getElementById('replay-picture'); return i.complete && i.naturalWidth > 0; }"
        )
        if i < n - 1:
            page.keyboard.press("ArrowRight")
    assert _shown(page)["caption"] == "Spring 1643 Movement: the final board"
    box = page.locator("#replay-picture").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], box
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths
    assert page.errors == [], page.errors
    phone = size["width"] < 500
    assert _violations(page, "replay", phone) == []  # axe: nothing serious or critical (target sizes on a phone)
    dark = _open(site, size, "/games/w3k/replay?at=1", color_scheme="dark")
    assert _violations(dark, "replay (dark)", phone) == []
    dark.context.close()
    name = "phone" if phone else "desktop"
    shoot(page, "replay", f"replay-w3k-{name}", full_page=False)
    page.context.close()


@pytest.mark.slow
def test_a_finished_w3k_game_exported_from_its_replay_page(site: LiveSite, tmp_path: Path) -> None:
    """The replay page's own links, followed in the browser: the GIF (a download) holds a frame per picture
    of the page, that is two for each phase played (its orders, then the board they led to) and the final
    board; the WebP decodes; the game book's pages read back with pdftotext name every phase, the one the
    draw closed too."""
    import io
    import shutil
    import subprocess

    from PIL import Image

    page = _open(site, WIDE, "/games/w3k/replay", reduced_motion="reduce")
    frames = page.locator("[data-frames] li").count()
    played = [h for h in site.web.access.phases("w3k") if h.status == "processed"]
    assert len(played) == 3 and played[-1].next_position is None  # two played, then the draw closed the third
    assert frames == 2 * 2 + 1
    with page.expect_download(timeout=120_000) as got:
        page.locator('a[href="/games/w3k/replay.gif"]').click()
    gif = Image.open(io.BytesIO(Path(got.value.path()).read_bytes()))
    assert gif.format == "GIF" and getattr(gif, "n_frames", 1) == frames
    # The WebP (written frame by frame by dippouch itself) is a picture Chromium decodes, at the GIF's size.
    webp = page.evaluate(
        """() => new Promise((done, failed) => {
             const i = new Image();
             i.onload = () => done([i.naturalWidth, i.naturalHeight]);
             i.onerror = () => failed('the WebP did not decode');
             i.src = '/games/w3k/replay.webp';
           })"""
    )
    assert tuple(webp) == gif.size
    book = page.locator('a[href="/games/w3k/book.pdf"]')
    r = page.context.request.get(site.base + str(book.get_attribute("href")), timeout=180_000)
    assert r.ok and r.headers["content-type"] == "application/pdf"
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler-utils not installed (scripts/setup): the book's pages cannot be read back")
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(r.body())
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = [p for p in text.split("\f") if p.strip()]
    assert len(pages) > 3 * 3  # a title, then each phase's atlas and its results
    for phase in played:
        assert any(f"w3k: {phase.name}: results" in p for p in pages), phase.name
    assert "London" in text and "Middlesex" in text  # the Crown's order, as reported
    assert page.errors == [], page.errors
    page.context.close()
