"""What makes the site an app a phone can install: its web app manifest, its one service worker (push
notifications, the static files kept, and a page to show when the network is gone), and that page.

The worker is served from the site's root, not from ``/static/``: a worker controls the pages under the folder
it is served from, and it must control every page to answer for them offline."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from dippouch.web.http.assets import STATIC, static_url
from dippouch.web.http.deps import render_html, words

__all__ = ["OFFLINE", "PRECACHED", "manifest", "router"]

router = APIRouter(include_in_schema=False)

I18N_DOMAIN = "site"

OFFLINE = "/offline"
PRECACHED = ("app.css", "app.js", "theme.js", "favicon.svg", "icon-192.png")
"""The static files the offline page needs, kept by the worker when it is installed."""

BACKGROUND = "#f4f1ea"  # the page's background (app.css --bg): the splash screen an installed app opens on
THEME = "#2b1d16"  # the header's (app.css --header-bg): the phone's bar above an installed app


def manifest(request: Request | None = None) -> dict[str, Any]:
    """The web app manifest: an installed app opens on the person's own games, in a window of its own; its
    name and description in the language of the browser that installs it (English without a request)."""
    gettext = words(request).gettext if request is not None else str
    return {
        "name": gettext("dippouch: Diplomacy variants"),
        "short_name": "dippouch",
        "description": gettext("Games of Diplomacy and its variants, played by web, e-mail and post."),
        "id": "/me",
        "start_url": "/me",
        "scope": "/",
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME,
        "icons": [
            {"src": static_url(f"icon-{n}.png"), "sizes": f"{n}x{n}", "type": "image/png", "purpose": "any"}
            for n in (192, 512)
        ]
        + [{"src": static_url("favicon.svg"), "sizes": "any", "type": "image/svg+xml"}],
    }


@router.get("/manifest.webmanifest")
def web_manifest(request: Request) -> Response:
    return Response(
        json.dumps(manifest(request), indent=1, ensure_ascii=False),
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/sw.js")
def service_worker() -> Response:
    """The worker's script, with the addresses it keeps written in: a release that changes a static file
    changes this script too, so the browser installs the new worker and it drops the old files."""
    urls = [OFFLINE, *(static_url(name) for name in PRECACHED)]
    text = (STATIC / "sw.js").read_text(encoding="utf-8").replace("/*PRECACHED*/[]", json.dumps(urls))
    # no-cache: the browser asks for the worker again on each visit (at least daily it would anyway).
    return Response(text, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get(OFFLINE, response_class=HTMLResponse)
def offline(request: Request) -> HTMLResponse:
    """The page the worker shows when a page cannot be fetched. It is kept in the browser, so it is the same
    for everyone: nobody's name, no form's token."""
    return HTMLResponse(render_html(request, "offline.html", {"csrf": ""}))
