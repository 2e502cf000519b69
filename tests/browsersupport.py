"""The browser tests' shared setup: the app served on a port of this machine on a fresh database, Debian's
Chromium driven by Playwright (through its executable path; no browser is ever downloaded), and pages signed
in as a person (the session cookie a mailed sign-in link leaves behind) or as a player (through their key's
link, as opened from a mail program), at desktop or phone size.

Loaded as a plugin by conftest.py: any test may name the fixtures ``chromium`` (one browser per test process,
its contexts closed after each test file) and ``live_site`` (a fresh app and database per test)."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dbsupport import migrated_sqlite

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SERVICE_WORKERS = "block"
"""What a test's new browser context does with the site's service worker, unless the test says otherwise: a
worker installed afresh in every context (each test's pages start with none) fetched the offline page and the
static files again and cost 80 to 200 ms of CPU a context, for pages that work the same without it. The tests of
the worker itself (tests/web/test_installable.py, tests/notify/test_notify_browser.py) and the walks of whole
workflows, which open pages as people's browsers do, allow it."""
DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str:
    """Debian's Chromium: its headless shell where installed (scripts/chromium exports its path), else the full
    browser. The shell is the same Blink without the full browser's windowing and compositing: the browser
    tests' CPU, Chromium's and the app's together, went from 194 to 114 s in three walk files (the seven-player
    walk, the map viewer, the votes)."""
    return _found(("DIPPOUCH_HEADLESS_SHELL", "chromium-headless-shell"), ("DIPPOUCH_CHROMIUM", "chromium"))


def full_chromium_path() -> str:
    """Debian's full Chromium, never the headless shell (:func:`full_chromium`)."""
    return _found(("DIPPOUCH_CHROMIUM", "chromium"))


def _found(*where: tuple[str, str]) -> str:
    """The first browser found, by each (environment variable, command) in turn. CI must run the browser
    tests; elsewhere a machine without the browser skips them."""
    path = next((p for variable, command in where if (p := os.environ.get(variable) or shutil.which(command))), "")
    if not path:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("Chromium is not installed: CI must run the browser tests (source scripts/chromium)")
        pytest.skip("Debian's chromium is not installed (scripts/test installs it)")
    return path


def is_phone(size: dict[str, int]) -> bool:
    return size["width"] < 500


def wider_than_window(page: Any) -> int:
    """How many CSS pixels the page is wider than its window (0 or less: it fits). Measured against the window's
    size as set: a phone's context (``is_mobile``) lays out a page that is too wide in a wider viewport, zoomed
    out, so the page's ``innerWidth`` and ``clientWidth`` grow with it and a page 153 px too wide measured 0."""
    return int(page.evaluate("document.documentElement.scrollWidth")) - int(page.viewport_size["width"])


def watch_errors(page: Any, into: list[str] | None = None) -> list[str]:
    """The page's script errors and console errors, as they happen (the list returned, or ``into``)."""
    found: list[str] = [] if into is None else into
    page.on("console", lambda m: found.append(f"{m.text} ({_where(m)})") if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


def _where(message: Any) -> str:
    """The address a console message came from (for a failed load: the resource's), to tell which it was."""
    location = message.location or {}
    return str(location.get("url", "")) or "no address"


SCREENSHOTS = os.environ.get("DIPPOUCH_SCREENSHOTS", "") not in ("", "0")
"""Whether the browser tests save their screenshots (``DIPPOUCH_SCREENSHOTS=1``): pictures for a person to
open, which no test reads back, so a run that nobody looks at (CI's clean clone, thrown away) takes none: the 54
test files that take them spent 543 core-seconds with them on this machine and 517 without."""


def picture(target: Any, path: Path, **options: Any) -> Path | None:
    """A screenshot of ``target`` (a page, or a locator for one part of it) saved at ``path`` when
    :data:`SCREENSHOTS` asks for them (``options`` as Playwright's ``screenshot`` takes them); ``path`` then,
    else None. A test that reads the picture's pixels takes its own screenshot, always."""
    if not SCREENSHOTS:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(path), **options)
    return path


def shoot(page: Any, folder: str, name: str, *, full_page: bool = True) -> Path | None:
    """A screenshot (of the full page, or of what is in view) into the artifacts' ``folder``
    (test-artifacts/<folder>/<name>.png), when :data:`SCREENSHOTS` asks for them."""
    return picture(page, ARTIFACTS / folder / f"{name}.png", full_page=full_page)


@contextmanager
def served(app: Any) -> Iterator[int]:
    """``app`` served by uvicorn in a thread on a free port of 127.0.0.1 (the port), until the block ends.

    A page's live press stream stays open until its page goes: the server gives open connections 2 s to end
    when it stops (the teardowns waited up to 10 s for them)."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    srv = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=2)
    )
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    # Its start compiles every page's template in three languages: 2 s of a core, and 20 s lapsed on a machine
    # loaded five times over.
    until = time.monotonic() + 60
    while not srv.started:
        # A start-up that failed ends the server's thread (uvicorn logs why): no use waiting the minute out.
        assert thread.is_alive(), "the server's start-up failed (its error is in the log above)"
        assert time.monotonic() < until, "server did not start"
        time.sleep(0.05)
    site = getattr(app.state, "site", None)
    if site is not None and not site.configured:
        # The app was made before its port was known: its links name the port it was given.
        from dippouch.settings import Site

        app.state.site = Site.at(f"http://127.0.0.1:{port}", configured=False)
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


class LiveSite:
    """A running app, its store, and a way to open browser contexts on it.

    ``base`` names the host ``localhost``, not 127.0.0.1: a passkey's relying party is a domain name, never an
    address, and one name for every test keeps cookies and links alike."""

    def __init__(self, app: Any, port: int, db_url: str, chromium: Any | None) -> None:
        self.app = app
        self.web = app.state.web
        self.store = self.web.store
        self.db_url = db_url
        self.base = f"http://localhost:{port}"
        self.chromium = chromium
        self._coordinator_key: str | None = None
        self.service_workers = SERVICE_WORKERS
        """What this site's new contexts do with the service worker: a walk of a whole workflow sets "allow" once."""

    @property
    def coordinator_key(self) -> str:
        """A coordinator's key (made the first time it is asked for)."""
        if self._coordinator_key is None:
            _, self._coordinator_key = self.web.access.create_key("coordinator", label="browser", now=self.now())
        return self._coordinator_key

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC)

    def player_key(self, game: str, power: str) -> str:
        """A player's key for ``power`` in ``game`` (the power already seated)."""
        _, key = self.web.access.create_key("player", game=game, power=power, now=self.now())
        return str(key)

    def context(self, size: dict[str, int] = DESKTOP, **options: Any) -> Any:
        """A new browser context (its own cookies) at ``size``; a phone's size gets touch and the mobile
        viewport too. Its pages register the service worker as :attr:`service_workers` says, unless ``options``
        say otherwise."""
        assert self.chromium is not None, "the test names the chromium fixture"
        phone = is_phone(size)
        settings: dict[str, Any] = {
            "viewport": size,
            "is_mobile": phone,
            "has_touch": phone,
            "locale": "en-GB",
            "service_workers": self.service_workers,
        }
        ctx = self.chromium.new_context(**(settings | options))
        ctx.set_default_timeout(30_000)
        return ctx

    def person(self, pid: int, size: dict[str, int] = DESKTOP, **options: Any) -> Any:
        """A context signed in as person ``pid``: the session cookie their mailed sign-in link leaves."""
        ctx = self.context(size, **options)
        token = self.web.access.start_session([], now=self.now(), person_id=pid)
        ctx.add_cookies([{"name": "dp_session", "value": token, "url": self.base}])
        return ctx

    def key_page(self, key: str, size: dict[str, int] = DESKTOP, **options: Any) -> Any:
        """A page of a new context that opened ``key``'s link, as from a mail program (a coordinator's or a
        player's key)."""
        page = self.context(size, **options).new_page()
        page.goto(f"{self.base}/k/{key}")
        return page

    def player(self, game: str, power: str, size: dict[str, int] = DESKTOP, **options: Any) -> Any:
        """A page on the power's play page, its context holding a new key for ``power`` of ``game`` in its
        session: what opening the key's link leaves (tests of the link itself use :meth:`key_page`), with one
        page load where following the link and coming back to the play page took two."""
        key_id, _ = self.web.access.create_key("player", game=game, power=power, now=self.now())
        ctx = self.context(size, **options)
        token = self.web.access.start_session([key_id], now=self.now())
        ctx.add_cookies([{"name": "dp_session", "value": token, "url": self.base}])
        page = ctx.new_page()
        page.goto(f"{self.base}/games/{game}/play/{power}")
        return page


class _SharedBrowser:
    """One Chromium for a test process, started by the first test that needs it and closed when the process
    ends: launching Playwright's driver and a browser took 2 to 4 s on a loaded machine, once for each of
    some forty test files.

    Playwright's sync API runs its event loop in a greenlet and leaves that loop marked as the thread's
    running loop for as long as the browser is open, where ``asyncio.run`` and the async tests of the same
    process refuse to start a loop of their own. So the mark is set only while a test that uses the browser
    runs (:func:`pytest_runtest_setup`) and cleared for every other test; Playwright's calls need it and
    the others must not see it."""

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None
        self.full_browser: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> Any:
        if self.browser is None:
            from playwright.sync_api import expect, sync_playwright

            exe = chromium_path()
            # What a page shows after a live message or a navigation, waited for as long as a loaded machine
            # needs (two cores for the whole suite: Playwright's 5 s lapsed once while a stream's message was
            # on its way).
            expect.set_options(timeout=15_000)
            self.playwright = sync_playwright().start()
            self.loop = asyncio.events._get_running_loop()
            self.browser = self.playwright.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        return self.browser

    def start_full(self) -> Any:
        """The full browser beside the headless shell, for what only it has (showing a service worker's
        notifications); launched by the first test that asks, on the same Playwright."""
        self.start()
        if self.full_browser is None:
            exe = full_chromium_path()
            self.full_browser = self.playwright.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        return self.full_browser

    def lend(self, to_browser_test: bool) -> None:
        """The Playwright loop marked running for a test that uses the browser, and for no other."""
        if self.loop is not None:
            asyncio.events._set_running_loop(self.loop if to_browser_test else None)

    def close(self) -> None:
        if self.browser is None:
            return
        self.lend(True)
        try:
            if self.full_browser is not None:
                self.full_browser.close()
            self.browser.close()
        finally:
            self.playwright.stop()
            self.browser = self.full_browser = self.playwright = self.loop = None


_shared = _SharedBrowser()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _shared.lend("chromium" in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="session")
def _chromium_process() -> Iterator[None]:
    """Closes the shared Chromium when the test process ends."""
    yield
    _shared.close()


@pytest.fixture(scope="module")
def chromium(_chromium_process: None) -> Iterator[Any]:
    """Debian's Chromium, one for the test process (each test opens its own contexts); what a test file
    leaves open in it is closed when the file's tests are done, so that no file sees another's pages."""
    browser = _shared.start()
    yield browser
    _close_contexts(browser)


@pytest.fixture(scope="module")
def full_chromium(chromium: Any) -> Iterator[Any]:
    """Debian's full Chromium, for the few tests of what the headless shell lacks (a service worker's
    notifications are never shown in it); one for the test process like :func:`chromium`, its contexts
    closed with the file's tests."""
    browser = _shared.start_full()
    yield browser
    _close_contexts(browser)


def _close_contexts(browser: Any, keep: set[Any] | frozenset[Any] = frozenset()) -> None:
    """What a test file (or a site) left open in ``browser``, closed when it is done; but those in ``keep``."""
    _shared.lend(True)
    for context in [c for c in browser.contexts if c not in keep]:
        context.close()


@contextmanager
def running_site(db_url: str, chromium: Any | None = None, **app_options: Any) -> Iterator[LiveSite]:
    """The app on ``db_url`` served on a port, for as long as the block runs."""
    from dippouch.settings import Site
    from dippouch.web.app import create_app

    app = create_app(db_url, **({"limits": {}} | app_options))
    before = set(chromium.contexts) if chromium is not None else set()
    with served(app) as port:
        if not app.state.site.configured:  # the name LiveSite's pages open: its links must name it too
            app.state.site = Site.at(f"http://localhost:{port}", configured=False)
        try:
            yield LiveSite(app, port, db_url, chromium)
        finally:
            if chromium is not None:
                # The pages opened while it ran, closed before it stops: each held its live stream open, and
                # the server waited its 2 s of grace for them at every test's end.
                _close_contexts(chromium, keep=before)


@pytest.fixture
def live_site(tmp_path: Path, chromium: Any) -> Iterator[LiveSite]:
    """The app on a fresh SQLite database (a copy of one migrated once: tests/dbsupport.py), served on a port,
    with the shared Chromium to open pages."""
    with running_site(migrated_sqlite(tmp_path / "site.db"), chromium) as site:
        yield site
