"""The printed atlas and the map page: what a W3K player waits for on paper and on screen.

    source scripts/chromium && .venv/bin/python benchmarks/bench_map_page.py [--repeat 5] [--no-atlas]

- atlas PDF: the Winter results' map printed as the atlas (overview and regional sheets, render/atlas.py)
  on A4 and on A3, from the SVG of W3K's busiest sample phase: time, pages, bytes;
- the page, server side: one `dippouch serve`-like app (uvicorn in a thread, SQLite) with a new W3K game;
  GET of a player's page (the map inline, drawn for that player) and of the public game page (the map as a
  picture) and of that picture's SVG, first (drawn) and warm (cached), with the bytes sent;
- the page in Chromium at 1366x768 (when DIPPOUCH_CHROMIUM names a browser): from navigation to the map
  viewer ready (the player's page opens on the player's units, once the board's file it draws over is in;
  the public page fetches its SVG and puts it in place of the picture), in a new browser and again on a
  second visit (what the browser kept is not fetched again), and one wheel zoom (viewBox change, names
  re-sized, next frame painted).

Medians of wall-clock time (fastest, slowest) of --repeat runs, with this process's CPU time where the work
is in this process. The machine is shared: the wall clock moves with other work. Not a test.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dippouch.store import games as store_games


def timed(fn: Callable[[], Any], repeat: int) -> tuple[list[float], list[float], Any]:
    wall: list[float] = []
    cpu: list[float] = []
    out = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu, out


def line(label: str, wall: list[float], cpu: list[float] | None = None, extra: str = "") -> str:
    text = (
        f"{label:<34} {statistics.median(wall) * 1000:8.1f} ms  (fastest {min(wall) * 1000:.1f}, "
        f"slowest {max(wall) * 1000:.1f}"
    )
    if cpu is not None:
        text += f"; CPU {statistics.median(cpu) * 1000:.1f} ms"
    return text + ")" + (f"  {extra}" if extra else "")


def atlas(repeat: int) -> None:
    from dippouch.catalog import load_variant
    from dippouch.render import RenderOptions, atlas_pdf, render_svg
    from dippouch.render.atlas import sheets_for
    from dippouch.render.shots import busiest_phase

    v = load_variant("w3k")
    ph = busiest_phase(v)
    svg = render_svg(v, ph.position, ph.orders, ph.results, RenderOptions(title="benchmark"))
    pages = 1 + len(sheets_for(v, svg))
    for paper in ("a4", "a3"):

        def atlas(paper: str = paper) -> bytes:
            return atlas_pdf(v, svg, "benchmark", paper=paper)

        wall, cpu, pdf = timed(atlas, repeat)
        print(line(f"atlas PDF, {paper.upper()}, {pages} pages", wall, cpu, f"{len(pdf):,} bytes"))


def serve() -> tuple[str, Any, Callable[[], None]]:
    import uvicorn

    from dippouch.web.app import create_app

    db = Path(tempfile.mkdtemp(prefix="bench-map-page-")) / "bench.db"
    app = create_app(f"sqlite:///{db}", limits={})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.05)

    def stop() -> None:
        srv.should_exit = True
        thread.join(timeout=10)

    return f"http://127.0.0.1:{port}", app.state.web, stop


# Keeps the player's session cookie (a key address signs the player in and redirects to the page).
_OPENER = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def get(url: str) -> bytes:
    # Sec-Fetch-Site "none": opened by the user, so a key address signs in at once (as from a mail program).
    req = urllib.request.Request(url, headers={"Sec-Fetch-Site": "none"})
    with _OPENER.open(req, timeout=120) as r:  # our own server on 127.0.0.1
        return bytes(r.read())


def pages(repeat: int) -> None:
    base, web, stop = serve()
    try:
        now = datetime.now(UTC)
        store_games.create_game(web.store, "bench-w3k", "w3k", now=now)
        keys = {
            p: web.access.create_key("player", game="bench-w3k", power=p, now=now)[1] for p in ("Crown", "Protectorate")
        }
        player = f"{base}/k/{keys['Crown']}"
        public = f"{base}/games/bench-w3k"
        for label, url in (("player's page (map inline)", player), ("public game page (picture)", public)):

            def fetch(url: str = url) -> bytes:
                return get(url)

            wall, _, body = timed(fetch, 1)
            print(line(f"{label}, first", wall, extra=f"{len(body):,} bytes"))
            wall, _, body = timed(fetch, repeat)
            print(line(f"{label}, warm", wall, extra=f"{len(body):,} bytes"))
        html = get(public).decode()
        img = html[html.index("<img", html.index("data-map")) :]
        start = img.index('src="') + len('src="')
        svg_url = base + img[start : img.index('"', start)]
        wall, _, body = timed(lambda: get(svg_url), repeat)
        print(line("the public page's SVG, cached", wall, extra=f"{len(body):,} bytes"))
        exe = os.environ.get("DIPPOUCH_CHROMIUM")
        if not exe:
            print("(no DIPPOUCH_CHROMIUM: browser timings left out; `source scripts/chromium` first)")
            return
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=["--no-sandbox"])
            for label, url in (
                ("Crown's page: viewer ready", player),
                ("Protectorate's page: viewer ready", f"{base}/k/{keys['Protectorate']}"),
                ("public page: SVG in, viewer ready", public),
            ):
                open_ms: list[float] = []
                again_ms: list[float] = []
                zoom_ms: list[float] = []
                for _ in range(repeat):
                    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, device_scale_factor=1)
                    page = ctx.new_page()
                    t0 = time.perf_counter()
                    page.goto(url)
                    page.locator("[data-map][data-viewer-ready]").wait_for(timeout=60_000)
                    open_ms.append(time.perf_counter() - t0)
                    # The same page again in the same browser, as a player comes back to it: what the browser
                    # kept (the static files, the board's file, the public page's picture) is not fetched.
                    shown = page.url
                    page.goto(f"{base}/variants")
                    t0 = time.perf_counter()
                    page.goto(shown)
                    page.locator("[data-map][data-viewer-ready]").wait_for(timeout=60_000)
                    again_ms.append(time.perf_counter() - t0)
                    zoom_ms.append(
                        page.evaluate(
                            """() => new Promise(done => {
                              const vp = document.querySelector('[data-map] .map-viewport'), b = vp.getBoundingClientRect();
                              const t0 = performance.now();
                              vp.dispatchEvent(new WheelEvent('wheel', {deltaY: -300, clientX: b.left + b.width / 2,
                                clientY: b.top + b.height / 2, bubbles: true, cancelable: true}));
                              requestAnimationFrame(() => requestAnimationFrame(() => done((performance.now() - t0) / 1000)));
                            })"""
                        )
                    )
                    ctx.close()
                print(line(label, open_ms))
                print(line("  the second visit: viewer ready", again_ms))
                print(line("  one wheel zoom, painted", zoom_ms))
            browser.close()
    finally:
        stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-atlas", action="store_true", help="Leave out the atlas PDF (the page and browser only).")
    args = ap.parse_args()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.repeat} runs"
    )
    if not args.no_atlas:
        atlas(max(1, args.repeat // 2))
    pages(args.repeat)


if __name__ == "__main__":
    main()
