"""A web site on a fresh database for the web tests: the app in-process, a movable clock, and browsers
(TestClients) signed in as a coordinator or a player, as a real visitor would be (through their link)."""

from __future__ import annotations

import re
import warnings
from datetime import UTC, datetime, timedelta
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from dippouch.web.app import create_app

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, at: datetime = START) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **kw: float) -> None:
        self.at += timedelta(**kw)


class Site:
    def __init__(self, db_url: str, limits: dict[str, tuple[int, float]] | None = None) -> None:
        self.clock = Clock()
        self.app = create_app(db_url, clock=self.clock, limits=limits)
        self.web = self.app.state.web
        _, self.coordinator_key = self.web.access.create_key("coordinator", label="test", now=self.clock())
        self.coordinator = self.browser(self.coordinator_key)

    def browser(self, key: str | None = None) -> TestClient:
        """A new browser (its own cookies); signed in with ``key`` if given."""
        c = TestClient(self.app, raise_server_exceptions=False)
        if key is not None:
            # Opened as from a mail program: browsers say so (Sec-Fetch-Site: none), and the link signs in.
            r = c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
            assert r.status_code == 303, r.text
        c.get("/")  # picks up the CSRF cookie
        return c

    @staticmethod
    def csrf(c: TestClient) -> str:
        token = c.cookies.get("dp_csrf")
        assert token
        return str(token)

    def post_form(self, c: TestClient, url: str, data: dict[str, Any] | None = None, **kw: Any) -> Any:
        return c.post(url, data={"csrf": self.csrf(c), **(data or {})}, follow_redirects=False, **kw)

    def api(self, c: TestClient, url: str, body: Any = None) -> Any:
        return c.post(url, json=body, headers={"X-CSRF-Token": self.csrf(c)})

    def new_game(self, name: str = "demo", variant: str = "standard", **form: str) -> str:
        r = self.post_form(self.coordinator, "/coordinate/new", {"name": name, "variant": variant, **form})
        assert r.status_code == 303, r.text
        return name

    def seat(self, game: str, power: str, player: str) -> str:
        """Seat a player and return their secret key, read off the page the coordinator sees."""
        r = self.post_form(self.coordinator, f"/games/{game}/coordinate/assign", {"power": power, "player": player})
        assert r.status_code == 200, r.text
        m = re.search(r"/k/(dp_[A-Za-z0-9_-]+)", r.text)
        assert m, r.text
        return m.group(1)

    def player(self, game: str, power: str, name: str = "Player") -> TestClient:
        return self.browser(self.seat(game, power, name))
