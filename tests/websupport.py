"""A web site on a fresh database for the web tests: the app in-process, a movable clock, and browsers
(TestClients) signed in as a coordinator or a player, as a real visitor would be (through their link)."""

from __future__ import annotations

import re
import time
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter
from starlette.routing import Match

from dbsupport import migrated_sqlite
from dippouch.settings import Site as InstallationSite
from dippouch.web.app import create_app
from dippouch.web.views.answers.base import ErrorAnswer

TEST_SITE = InstallationSite.at("http://testserver", configured=False)
"""The public address of the sites tests make: the test client's own host (a served site names its port instead)."""

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

ACCEPT = {"en": "en-GB,en;q=0.9", "de": "de-DE,de;q=0.9,en;q=0.5", "fr": "fr-FR,fr;q=0.9,en;q=0.5"}
"""An Accept-Language header that asks for each of the site's languages first, English after it."""


class Clock:
    def __init__(self, at: datetime = START) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **kw: float) -> None:
        self.at += timedelta(**kw)


def json_routes() -> list[APIRoute]:
    """The JSON API's routes, read off every feature's router in the order they are matched: the routes in the
    OpenAPI document."""
    from dippouch.web.app import feature_routers

    return [r for router in feature_routers() for r in router.routes if isinstance(r, APIRoute) and r.include_in_schema]


def page_routes() -> list[APIRoute]:
    """The routes left out of the OpenAPI document: pages, forms, pictures and files."""
    from dippouch.web.app import feature_routers

    return [
        r for router in feature_routers() for r in router.routes if isinstance(r, APIRoute) and not r.include_in_schema
    ]


def _route(method: str, path: str) -> Any:
    """The JSON API's route that answers ``method path`` (None for any other address)."""
    scope = {"type": "http", "method": method, "path": path, "root_path": "", "query_string": b"", "headers": []}
    for route in json_routes():
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return route
    return None


def declared_answer(method: str, path: str, status: int) -> Any:
    """The model the API's route for ``method path`` declares for an answer of ``status`` (None: not an API
    route). Refusals of any address under /api/ have the error's shape."""
    route = _route(method, path)
    if route is None:
        return ErrorAnswer if status >= 400 and path.startswith("/api/") else None
    declared = route.responses or {}
    if status in declared and "model" in declared[status]:
        return declared[status]["model"]
    if 200 <= status < 300:
        return route.response_model or declared.get(200, {}).get("model")
    return ErrorAnswer


def unnamed_fields(value: Any, where: str = "") -> list[str]:
    """Fields of an answer that its model does not name (kept by ``extra="allow"``, but undocumented)."""
    if isinstance(value, BaseModel):
        out = [f"{where or type(value).__name__}.{k}" for k in value.model_extra or {}]
        for k in type(value).model_fields:
            out += unnamed_fields(getattr(value, k), f"{where or type(value).__name__}.{k}")
        return out
    if isinstance(value, list | tuple):
        return [x for i, item in enumerate(value) for x in unnamed_fields(item, f"{where}[{i}]")]
    if isinstance(value, dict):
        return [x for k, item in value.items() for x in unnamed_fields(item, f"{where}[{k!r}]")]
    return []


def check_answer(model: Any, data: Any) -> None:
    """``data`` has the shape ``model`` declares: it validates, every field is named, and it is the same data
    once validated (nothing coerced, nothing added)."""
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    got = adapter.validate_python(data, strict=False)
    assert unnamed_fields(got) == [], f"fields the answer's model ({model}) does not name: {unnamed_fields(got)}"
    again = adapter.dump_python(got, mode="json", exclude_unset=True)
    assert again == data, f"the answer changes when read as {model}"


def check_api_answer(response: Any) -> None:
    """An answer of the JSON API, as a test client receives it, checked against its route's declared model."""
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    request = response.request
    model = declared_answer(request.method, request.url.path, response.status_code)
    if model is None:
        return
    response.read()
    check_answer(model, response.json())


class Site:
    def __init__(self, db_url: str, limits: dict[str, tuple[int, float]] | None = None) -> None:
        """A site on ``db_url``; a SQLite file not there yet starts as a copy of one at the newest schema."""
        path = Path(db_url.removeprefix("sqlite:///"))
        if db_url.startswith("sqlite:///") and not path.exists():
            migrated_sqlite(path)
        self.clock = Clock()
        self.app = create_app(db_url, clock=self.clock, limits=limits, site=TEST_SITE)
        self.web = self.app.state.web
        _, self.coordinator_key = self.web.access.create_key("coordinator", label="test", now=self.clock())
        self.coordinator = self.browser(self.coordinator_key)

    def browser(self, key: str | None = None) -> TestClient:
        """A new browser (its own cookies); signed in with ``key`` if given."""
        c = TestClient(self.app, raise_server_exceptions=False)
        # Every answer of the JSON API, in every test that uses this site, is checked against its declared shape.
        c.event_hooks = {"request": [], "response": [check_api_answer]}
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


POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def drawn_game(store: Any, people: tuple[int, ...], now: datetime, scoring: str = "centres") -> None:
    """Game "g" of standard Diplomacy with ``people`` in its first seats, drawn by everyone's vote in its first
    phase and scored under ``scoring``."""
    from dippouch.play.records import choose_scoring
    from dippouch.store import games as store_games
    from dippouch.store import status as store_status
    from dippouch.store import votes as store_votes
    from dippouch.store.people.persons import seat_person

    store_games.create_game(store, "g", "standard", now=now)
    for power, person in zip(POWERS, people, strict=False):
        store_games.assign(store, "g", power, power, now=now)
        seat_person(store, "g", power, person, now=now)
    for power in POWERS:
        if store_status.status(store, "g", now=now).state != "finished":
            store_votes.vote(store, "g", power, True, now=now)
    choose_scoring(store, "g", scoring, now=now)


def page_words(html: str) -> str:
    """A page's words without the links round people's names (each name links to its person's page), for
    tests that read a sentence with a name in it."""
    return re.sub(r'<a class="person" href="/people/\d+">([^<]*)</a>', r"\1", html)


def page_text(html: str) -> str:
    """A page's visible words: its tags dropped with their attributes, so that a random CSRF token or key that
    happens to spell a name ("...pktgAnngL...") never reads as the name on the page."""
    return re.sub(r"<[^>]*>", " ", html)


class TwoProcesses:
    """Two web processes on one database (two apps, each with its own memory), with game ``g`` made by the first,
    and a third store standing for a worker or the command line: what a page kept by one process is read back by."""

    def __init__(self, url: str) -> None:
        from dippouch.store import GameStore

        self.url = url
        self.a = Site(url, limits={})
        self.a.new_game("g", movement="2d")
        self.b_app = create_app(url, clock=self.a.clock, limits={}, site=TEST_SITE)
        self.other = GameStore(url)

    def signed_in(self, app: Any, key: str | None) -> TestClient:
        """A browser of ``app`` (signed in with ``key`` if given)."""
        c = TestClient(app, raise_server_exceptions=False)
        if key is not None:
            r = c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
            assert r.status_code == 303, r.text
        return c

    def past_deadline(self) -> None:
        """The clock set a minute past the deadline of game g's open phase: mail held then still holds it."""
        import sqlalchemy as sa

        from dippouch.store.models import GameRow, PhaseRow

        with self.other.engine.connect() as conn:
            deadline = conn.execute(
                sa.select(PhaseRow.deadline)
                .join(GameRow, GameRow.id == PhaseRow.game_id)
                .where(GameRow.name == "g", PhaseRow.status == "open")
            ).scalar_one()
        assert deadline is not None
        self.a.clock.at = deadline.replace(tzinfo=self.a.clock.at.tzinfo) + timedelta(minutes=1)

    def held_mail(self) -> int:
        """A message for game g's open phase held for the coordinator, taken in by another process (the phase, past
        its deadline, then waits for the coordinator's review). Its id."""
        import sqlalchemy as sa

        from dippouch.store.mail.models import MailMessageRow
        from dippouch.store.models import GameRow, PhaseRow

        with self.other.engine.begin() as conn:
            gid, pid = conn.execute(
                sa.select(GameRow.id, PhaseRow.id)
                .join(PhaseRow, PhaseRow.game_id == GameRow.id)
                .where(GameRow.name == "g", PhaseRow.status == "open")
            ).one()
            now = self.a.clock()
            row = {
                "digest": f"{time.time_ns():064x}",
                "origin": "imap",
                "sender": "fay@example.org",
                "subject": "g France",
                "received_at": now,
                "fetched_at": now,
                "game_id": gid,
                "phase_id": pid,
                "power": "France",
                "status": "held",
                "reason": "held for the coordinator",
                "reading": {},
                "raw": b"x",
            }
            return int(conn.execute(sa.insert(MailMessageRow).values(row).returning(MailMessageRow.id)).scalar_one())

    def close(self) -> None:
        self.other.close()


def raw_answer(c: TestClient, url: str, accept: str | None) -> tuple[dict[str, str], bytes]:
    """The answer's headers and its bytes as sent (not decoded by the client), asked with ``accept`` as its
    Accept-Encoding (None: identity)."""
    headers = {"Accept-Encoding": accept} if accept is not None else {"Accept-Encoding": "identity"}
    with c.stream("GET", url, headers=headers) as r:
        assert r.status_code == 200, r.read()
        return dict(r.headers), b"".join(r.iter_raw())


CSRF_TOKEN = re.compile(rb'"(m\.[A-Za-z0-9_=-]+)"')
"""A masked CSRF token where a page carries it (its head's meta element, its forms' fields)."""


def without_token(page: bytes) -> bytes:
    """``page`` with its masked CSRF tokens blanked: two answers of one page made once then compare equal."""
    return CSRF_TOKEN.sub(b'""', page)
