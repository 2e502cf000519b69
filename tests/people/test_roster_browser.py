"""The player list in a real browser (Debian's Chromium through Playwright, a real server): a person signed
in types their addresses and a holiday into the forms, a co-player of the W3K game opens the roster with the
address in force and the change ahead, and prints it as PDF; a visitor's game page shows the days away only.
Screenshots at desktop and phone sizes go to test-artifacts/web/ (roster-*.png)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dippouch.game import Settings
from dippouch.store.people import create_person, seat_person

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("DIPPOUCH_ARTIFACTS", ROOT / "test-artifacts")) / "web"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def _chromium() -> str:
    path = os.environ.get("DIPPOUCH_CHROMIUM") or shutil.which("chromium") or ""
    if not path:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("Chromium is not installed: CI must run the browser tests (source scripts/chromium)")
        pytest.skip("Debian's chromium is not installed (scripts/test installs it)")
    return path


def _context(browser: Any, size: dict[str, int], phone: bool = False) -> Any:
    ctx = browser.new_context(viewport=size, device_scale_factor=1, is_mobile=phone, has_touch=phone, locale="en-GB")
    ctx.set_default_timeout(30_000)
    return ctx


def _shoot(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _errors(page: Any) -> list[str]:
    found: list[str] = []
    page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: found.append(str(e)))
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    import uvicorn

    from dippouch.web.app import create_app

    db = tmp_path_factory.mktemp("roster") / "roster.db"
    app = create_app(f"sqlite:///{db}", limits={})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield {"base": f"http://127.0.0.1:{port}", "web": app.state.web}
    srv.should_exit = True
    thread.join(timeout=10)


def _signed_in(browser: Any, server: dict[str, Any], pid: int, size: dict[str, int], phone: bool = False) -> Any:
    ctx = _context(browser, size, phone)
    token = server["web"].access.start_session([], now=datetime.now(UTC), person_id=pid)
    ctx.add_cookies([{"name": "dp_session", "value": token, "url": server["base"]}])
    return ctx


def test_a_person_fills_in_the_player_list_and_a_co_player_prints_it(server: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    web, base = server["web"], server["base"]
    now = datetime.now(UTC)
    web.store.create_game("powick", "w3k", now=now, settings=Settings(deadlines={"movement": "7d"}))
    people = {}
    for power, name in (("Crown", "Ann Lee"), ("Cumberland", "Bo Diddley")):
        web.store.assign("powick", power, name, now=now)
        people[power] = create_person(web.store, name, now=now, email=f"{name.split()[0].lower()}@example.org")
        seat_person(web.store, "powick", power, people[power], now=now)
    trip_from, trip_to = date.today() + timedelta(days=10), date.today() + timedelta(days=20)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        ann = _signed_in(browser, server, people["Crown"], DESKTOP).new_page()
        errors = _errors(ann)
        ann.goto(base + "/me/addresses")
        ann.fill("#add-address textarea[name=address]", "1 Powick Lane\nWorcester WR2 4QR")
        ann.click("#add-address button")
        ann.fill("#add-address textarea[name=address]", "Hotel du Port\nBrest")
        ann.fill("#add-address input[name=from]", trip_to.isoformat())
        ann.fill("#add-address input[name=to]", trip_from.isoformat())
        ann.click("#add-address button")
        assert "did you mean from" in ann.inner_text("#address-error")
        assert ann.input_value("#add-address textarea[name=address]") == "Hotel du Port\nBrest"  # kept
        _shoot(ann, "roster-address-refused-desktop")
        assert [e for e in errors if "status of 400" not in e] == []  # the refusal answers 400, as it should
        errors.clear()
        ann.fill("#add-address input[name=from]", trip_from.isoformat())
        ann.fill("#add-address input[name=to]", trip_to.isoformat())
        ann.click("#add-address button")
        assert "Address added." in ann.inner_text(".flash")
        _shoot(ann, "roster-addresses-desktop")
        ann.goto(base + "/me/absences")
        ann.fill("#add-absence input[name=from]", trip_from.isoformat())
        ann.fill("#add-absence input[name=to]", trip_to.isoformat())
        ann.fill("#add-absence input[name=reason]", "a wedding in Brest")
        ann.click("#add-absence button")
        assert "recorded for all your games" in ann.inner_text(".flash")
        _shoot(ann, "roster-absences-desktop")
        assert errors == []

        for size, phone, tag in ((DESKTOP, False, "desktop"), (PHONE, True, "phone")):
            bo = _signed_in(browser, server, people["Cumberland"], size, phone).new_page()
            errors = _errors(bo)
            bo.goto(base + "/games/powick")
            bo.click("text=Players and addresses")
            table = bo.inner_text(".roster-table")
            assert "1 Powick Lane" in table and "ann@example.org" in table
            assert re.search(rf"from {trip_from.isoformat()}: Hotel du Port, Brest", table)
            _shoot(bo, f"roster-game-{tag}")
            wide = bo.evaluate("document.documentElement.scrollWidth")
            assert wide <= size["width"], f"the roster is {wide} px wide on a {size['width']} px screen"
            with bo.expect_download() as got:
                bo.click("text=PDF")
            pdf = got.value.path().read_bytes()
            assert pdf.startswith(b"%PDF") and len(pdf) > 1000
            assert errors == []

        visitor = _context(browser, DESKTOP).new_page()
        visitor.goto(base + "/games/powick")
        away = visitor.inner_text("#absences")
        assert "Crown (Ann Lee): away" in away and "wedding" not in visitor.content()
        assert "Powick Lane" not in visitor.content() and "Players and addresses" not in visitor.content()
        _shoot(visitor, "roster-game-page-away-desktop")
        browser.close()
