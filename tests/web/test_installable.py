"""The site as an app a phone installs (issue 41): its manifest and icons, its one service worker at the root
scope, the offline page shown in Chromium once the network is gone, static files kept a year under addresses
that carry their content's hash while pages are asked for each time, and the page descriptions and link
previews a pasted game link shows."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from browsersupport import PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


class _Head(HTMLParser):
    """The page's <meta> (by name or property) and <link> (by rel) tags."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and (a.get("name") or a.get("property")):
            self.meta[a.get("name") or a["property"]] = a.get("content", "")
        elif tag == "link" and "rel" in a:
            self.links[a["rel"]] = a.get("href", "")
        elif tag == "script" and a.get("src"):
            self.scripts.append(a["src"])


def _head(html: str) -> _Head:
    h = _Head()
    h.feed(html)
    return h


def test_the_manifest_names_the_app_its_icons_and_opens_on_the_persons_games(site: Site) -> None:
    from PIL import Image

    c = site.browser()
    page = _head(c.get("/").text)
    assert page.links["manifest"] == "/manifest.webmanifest"
    r = c.get("/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"] == "application/manifest+json"
    m = r.json()
    assert m["name"].startswith("dippouch") and m["short_name"] == "dippouch"
    assert (m["start_url"], m["scope"], m["display"]) == ("/me", "/", "standalone")
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"]) and re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    assert m["theme_color"] == page.meta["theme-color"]
    sizes = {}
    for icon in m["icons"]:
        got = c.get(icon["src"])
        assert got.status_code == 200, icon["src"]
        assert got.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            with Image.open(io.BytesIO(got.content)) as im:
                assert f"{im.width}x{im.height}" == icon["sizes"], icon  # measured, not as declared
                # our own artwork (favicon.svg): its accent red fills the corner's inside
                assert im.convert("RGB").getpixel((im.width // 2, im.height // 8)) == (0x8C, 0x2F, 0x1B)
                sizes[icon["sizes"]] = icon["purpose"]
    assert sizes == {"192x192": "any", "512x512": "any"}


def test_one_service_worker_for_the_site_push_offline_and_static_files(site: Site) -> None:
    c = site.browser()
    r = c.get("/sw.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert r.headers["cache-control"] == "no-cache"  # a new release's worker is seen on the next visit
    text = r.text
    assert "showNotification" in text and "notificationclick" in text  # the push the site already sends
    kept = re.search(r"var PRECACHED = (\[.*?\]);", text)
    assert kept is not None, "the server wrote in what the worker keeps"
    urls = re.findall(r'"([^"]+)"', kept.group(1))
    assert "/offline" in urls
    for url in urls:
        assert c.get(url).status_code == 200, url  # install fails as a whole if one is missing
    css = _head(c.get("/").text).links["stylesheet"]
    assert css in urls  # the very address pages name, hash and all
    assert "/sw.js" in c.get("/static/notify.js").text  # notifications subscribe through the same worker


def test_static_files_are_kept_a_year_under_their_hash_and_pages_are_asked_for_each_time(site: Site) -> None:
    c = site.browser()
    home = c.get("/")
    assert home.headers["cache-control"] == "no-cache"
    head = _head(home.text)
    named = [head.links["stylesheet"], head.links["icon"], *head.scripts]
    assert len(named) >= 4
    for url in named:
        assert re.fullmatch(r"/static/[\w.-]+\?v=[0-9a-f]{12}", url), url
        r = c.get(url)
        assert r.status_code == 200 and r.headers["cache-control"] == "public, max-age=31536000, immutable", url
    # Without its hash, or with an old one, the file is asked for again (an old page must not pin new content
    # under its old address for a year).
    plain = named[0].split("?")[0]
    assert c.get(plain).headers["cache-control"] == "no-cache"
    assert c.get(plain + "?v=000000000000").headers["cache-control"] == "no-cache"
    assert c.get("/static/no-such-file.css?v=000000000000").status_code == 404


def test_a_game_page_describes_the_game_for_a_pasted_link(site: Site) -> None:
    site.new_game("autumn", "standard")
    r = site.browser().get("/games/autumn")
    head = _head(r.text)
    assert head.meta["og:title"] == "autumn" == head.meta["twitter:title"]
    description = head.meta["description"]
    assert description == head.meta["og:description"] == head.meta["twitter:description"]
    assert "autumn" in description and "Standard" in description and "Spring 1901" in description, description
    assert head.meta["og:url"].endswith("/games/autumn")
    assert head.meta["og:image"].startswith("http") and head.meta["twitter:card"]
    # Every page has a description (Lighthouse's one SEO failure), the site's own where it has none of its own.
    signin = _head(site.browser().get("/signin").text)
    assert signin.meta["description"] and signin.meta["og:title"] == "Sign in"
    assert signin.meta["color-scheme"] == "light dark"


@pytest.mark.slow
def test_the_offline_page_is_shown_once_the_network_is_gone(live_site: LiveSite) -> None:
    site = live_site
    store_games.create_game(site.store, "autumn", "standard", now=site.now())
    ctx = site.context(PHONE, service_workers="allow")
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{site.base}/games/autumn")
    # The worker installs (keeping the offline page and its files) and takes the page over.
    # (Asked by a promise, not polled: polling evaluates a string, which the site's CSP refuses.)
    controlled = page.evaluate(
        """() => Promise.race([
          new Promise(done => setTimeout(() => done(false), 30000)),
          navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller ? true : new Promise(done =>
            navigator.serviceWorker.addEventListener("controllerchange", () => done(true)))),
        ])"""
    )
    assert controlled, "no service worker took the page over"
    scope = page.evaluate("navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == f"{site.base}/"
    ctx.set_offline(True)
    answer: Any = page.goto(f"{site.base}/games/autumn/press")  # never visited: only the offline page can come
    assert answer is not None and answer.from_service_worker
    assert page.locator("#offline h1").inner_text() == "You are offline"
    # Its stylesheet came from the worker's cache: the page is styled, not bare.
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgba(0, 0, 0, 0)"
    shoot(page, "web", "offline-phone", full_page=False)
    ctx.set_offline(False)
    page.goto(f"{site.base}/games/autumn")
    assert page.locator("h1").first.inner_text() == "autumn"
    assert not [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e], errors
    ctx.close()


def test_the_offline_page_offers_no_sign_in_to_anyone(site: Site) -> None:
    """The offline page is kept once by the service worker and shown to whoever is offline: a signed-in person
    offered "Sign in" there read it as signed out (the players' trial, issue 55), so its header holds neither
    "Sign in" nor "Sign out"; the site's links stay."""
    from dippouch.store.people.persons import create_person

    pid = create_person(site.web.store, "Ann", now=site.clock(), email="ann@example.org")
    signed = site.browser()
    signed.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    for c in (site.browser(), signed):
        page = c.get("/offline").text
        account = re.search(r'<div class="account">(.*?)</div>', page, re.S)
        assert account is not None and account.group(1).strip() == "", account
        assert 'href="/variants"' in page
    assert 'href="/signin"' in site.browser().get("/").text  # other pages keep it
