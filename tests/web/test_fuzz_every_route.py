"""Every route of the app, fuzzed: no answer is a 5xx, none carries a traceback, and the server logs no error
(security review, issue 52: "the full fuzz of every route gives no 5xx"), on SQLite and on PostgreSQL (whose
integer columns and text refuse values SQLite takes).

The routes are read off the app's own table, so a route added tomorrow is fuzzed with the others. The site has
a running game with press, a finished game, an open game with a sign-up, a game a person coordinates, a
practice game, a sandbox and a tournament, so the addresses hold real ids; six browsers ask (an anonymous
visitor, a signed-in person, a player's key, a game's coordinator, the installation's coordinator and the
practice game's player), each with a valid CSRF token, so a request reaches its handler rather than the
token's refusal.

First every page each browser can reach is crawled from the routes' own addresses, gathering the links (real
ids: phases, channels, messages, addresses, board digests...) and the forms with their fields and values. Then
each route is asked, its choices drawn from :data:`SEED` (the ids the site makes at random aside):

- at a real address of its own for every browser: a page with hostile query values (and ``Last-Event-ID``);
  a form as the page had it, then with one field hostile (a value of :data:`FIELD_VALUES`, or the page's own
  value with its number made a typed one) and another left out, or junk; a JSON body made from its OpenAPI
  model, then with one field hostile, or a junk body;
- with each path parameter replaced by each hostile value of :data:`PATH_VALUES` (typed numbers such as
  ``'²'``, ``'٣'``, numbers past the database's integers, a lone surrogate, ``'..%2F'``, 5,000 characters) and
  a real id with its number made a typed one (``'².press.SIGNATURE'``), by a browser drawn by the seed.

About 6,500 requests on SQLite and 5,000 on PostgreSQL, where the path parameters are only those whose fate can
differ by database (:data:`DATABASE_PATH_VALUES`).
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import random
import re
import time
import warnings
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx
import pytest
from fastapi.routing import APIRoute
from starlette.routing import Match

import dippouch.web
from dippouch.mail.outbox import unsubscribe_token
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store import votes as store_votes
from dippouch.store.people.persons import create_person
from dippouch.store.press import messages as store_press
from dippouch.web.http.security import CSRF_COOKIE, SESSION_COOKIE, csrf_for_session
from dippouch.web.routes import press as web_press
from websupport import Site

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.slow

SEED = 52
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]

PATH_VALUES = [
    "²",
    "¹²³",
    "٣",
    "-1",
    "99999999999999999999",
    "2147483648",
    "0x10",
    "1e3",
    "%201",
    "%00",
    "x" * 5000,
    "%ED%A0%80",
    "..%2F..%2Fetc",
    "☃",
]
"""Hostile path parameters, written as they stand in an address (percent escapes included)."""

DATABASE_PATH_VALUES = ["²", "-1", "99999999999999999999", "2147483648", "%00", "x" * 5000, "%ED%A0%80"]
"""The hostile path parameters whose fate can differ by database (integers past a column's, a NUL and a lone
surrogate PostgreSQL's text refuses, a long text): all a second database is asked, the others being answered
before a handler reads the database, the same on both (some 1,500 requests fewer on PostgreSQL)."""

FIELD_VALUES: list[Any] = [
    "",
    "²",
    "¹²³",
    "٣",
    "-1",
    "99999999999999999999",
    "2147483648",
    "0x10",
    "1e3",
    " 1",
    "\x00",
    "\ud800",
    "x" * 5000,
    "../../etc/passwd",
    "☃",
    "\u200b",
    "'\"<script>",
    "Europe",
    "1900-02-30",
    "A par - bur\n" * 300,
]
"""Hostile text for query strings, form fields and JSON strings (a lone surrogate is sent as its UTF-8 bytes)."""

IN_IDS = ["²", "٣", "99999999999999999999", "2147483648"]
"""Numbers put in the place of the digits inside a real id (a token's person, a file's digest)."""

JSON_VALUES: list[Any] = [None, -1, 99999999999999999999, 2**31, 1e308, True, [], {}, "²", "\ud800", "x" * 5000]
"""Hostile JSON values put in the place of one field of a body."""

JUNK_BODIES = [b"", b"{", b"[]", b"null", b'"x"', b"\xff\xfe", b'{"a":' * 200 + b"1" + b"}" * 200, b"9" * 5000]

REACHED = 0.7
"""The share of routes the fuzz must get an answer below 400 from at least once: past the doors (a sign-in, the
CSRF token), into the handler. A fuzz whose browsers lost their sessions or tokens would still "pass"."""


@dataclass
class Actor:
    """One browser: how its session is made afresh (the fuzz may sign it out) and the cookies it sends."""

    name: str
    keys: list[int] = field(default_factory=list)
    """The keys its session holds (a player's, a coordinator's)."""
    person: int | None = None
    """The person signed in, if any."""
    cookie: str | None = None
    """A session the site made itself (the practice game's visitor), kept as it is."""
    session: str | None = None

    def renew(self, site: Site) -> None:
        """A session as this browser's, afresh: a request that signed it out does not sign out the next."""
        if self.cookie is not None:
            self.session = self.cookie
        elif self.keys or self.person is not None:
            self.session = site.web.access.start_session(self.keys, now=site.clock(), person_id=self.person)
        else:
            self.session = None

    def headers(self) -> dict[str, str]:
        if self.session is None:
            return {"Cookie": f"{CSRF_COOKIE}=fuzz-visitor-token"}
        return {"Cookie": f"{SESSION_COOKIE}={self.session}"}

    def csrf(self) -> str:
        return "fuzz-visitor-token" if self.session is None else csrf_for_session(self.session)


class World:
    """The site and what is on it; each id the fuzz needs is made through the site's own doors."""

    def __init__(self, db_url: str) -> None:
        self.site = site = Site(db_url, limits={})
        self.path_values = PATH_VALUES if db_url.startswith("sqlite") else DATABASE_PATH_VALUES
        store, now = site.web.store, site.clock()
        self.practice_power = ""
        # A running game with letters and a second phase.
        site.new_game("g")
        for p in POWERS:
            store_games.assign(store, "g", p, f"{p} Player", now=now)
        store_press.send(store, "g", "France", ["England"], "Between us", now=now)
        store_press.send(store, "g", "England", POWERS, "To everyone", now=now)
        store_submissions.submit(store, "g", "France", "A par - bur", now=now)
        store_processing.process(store, "g", now=now, force=True)
        store_press.send(store, "g", "England", ["France"], "Still here?", now=now)
        # A finished game (drawn in its third phase).
        site.new_game("ended")
        for p in POWERS:
            store_games.assign(store, "ended", p, f"{p} Player", now=now)
        for _ in range(2):
            store_processing.process(store, "ended", now=now, force=True)
        for p in POWERS:
            store_votes.vote(store, "ended", p, True, now=now)
        site.web.touched("ended")
        # An open game with a person signed up; a game a person coordinates.
        self.ann = create_person(store, "Ann", now=now, email="ann@example.org")
        self.gina = create_person(store, "Gina", now=now, email="gina@example.org")
        site.new_game("open1")
        coordinator = Actor("coordinator", keys=[site.web.access.create_key("coordinator", now=now)[0]])
        coordinator.renew(site)
        self._post(coordinator, "/api/games/open1/opening", {"mode": "preferences"})
        site.new_game("mine")
        mine = site.web.access.create_key("coordinator", game="mine", now=now, label="Gina")[0]
        france = site.web.access.create_key("player", game="g", power="France", now=now)[0]
        self.secret = site.web.access.create_key("player", game="g", power="Germany", now=now)[1]
        """A player's link (/k/SECRET): opening it signs that browser in as Germany."""
        self.actors = [
            Actor("visitor"),
            Actor("person", person=self.ann),
            Actor("player", keys=[france]),
            Actor("game coordinator", keys=[mine], person=self.gina),
            coordinator,
        ]
        for a in self.actors:
            a.renew(site)
        ann = self.actors[1]
        self._post(ann, "/api/games/open1/signup", {"preferences": ["France"]})
        self._post(ann, "/api/me/addresses", {"address": "1 Rue de la Paix\n75002 Paris"})
        self._post(ann, "/api/me/absences", {"first_day": "2027-01-02", "last_day": "2027-01-09"})
        self._form(ann, "/me/calendar", {"action": "renew"})
        self._form(coordinator, "/tournaments", {"name": "Cup", "system": "sos", "variant": ""})
        self._form(coordinator, "/tournaments/Cup/games", {"game": "ended", "round": "1"})
        # A practice game: its visitor's own session is the sixth browser.
        practice = TestClient(site.app, raise_server_exceptions=False)
        practice.get("/")
        r = practice.post("/practice", data={"csrf": practice.cookies["dp_csrf"]}, follow_redirects=False)
        assert r.status_code == 303, r.text
        self.practice_game, self.practice_power = r.headers["location"].split("/")[2::2]
        self.actors.append(Actor("practice player", cookie=practice.cookies[SESSION_COOKIE]))
        # A sandbox, and the people's unsubscribe and sign-in links.
        r = self._post(self.actors[0], "/api/sandbox", {"variant": "standard"})
        self.sandbox = r.json()["edit"].rsplit("/", 1)[1]
        self.sandbox_share = r.json()["share"].rsplit("/", 1)[1]
        self.unsubscribe = unsubscribe_token(store, self.ann, "press")
        self._form(self.actors[0], "/signin/mail", {"email": "ann@example.org"})

    def _client(self) -> TestClient:
        return TestClient(self.site.app, raise_server_exceptions=False)

    def _post(self, actor: Actor, url: str, body: Any) -> Any:
        r = self._client().post(url, json=body, headers={**actor.headers(), "X-CSRF-Token": actor.csrf()})
        assert r.status_code == 200, (url, r.text)
        return r

    def _form(self, actor: Actor, url: str, form: dict[str, str]) -> None:
        r = self._client().post(
            url, data={"csrf": actor.csrf(), **form}, headers=actor.headers(), follow_redirects=False
        )
        assert r.status_code in (200, 303), (url, r.text)

    def seeds(self, route: APIRoute) -> list[dict[str, str]]:
        """Real values for the route's path parameters, one set a place they can stand for."""
        path = route.path
        games = ["g", "ended", "open1", "mine", self.practice_game]
        if path.startswith(("/variants/", "/api/variants/")):
            names = ["standard", "w3k"]
        elif path.startswith(("/tournaments/", "/api/tournaments/")):
            names = ["Cup"]
        else:
            names = games
        tokens = [self.sandbox, self.sandbox_share] if "sandbox" in path else [self.unsubscribe]
        return [
            {
                "name": name,
                "power": self.practice_power if name == self.practice_game else "France",
                "game": "ended",
                "token": token,
                "secret": self.secret,
            }
            for name in names
            for token in tokens
        ]


class Links(HTMLParser):
    """The links and forms of a page: each ``<a href>`` and ``src``, and each form's action, method and fields
    (with the values the page gave them, a select's options each)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[tuple[str, str, list[tuple[str, str]]]] = []
        self._form: list[tuple[str, str]] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag in ("a", "link") and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img", "object", "source") and (a.get("src") or a.get("data")):
            self.links.append(a.get("src") or a.get("data", ""))
        if tag == "form":
            self._form = []
            self.forms.append((a.get("action", ""), a.get("method", "get").lower(), self._form))
        if self._form is None or (not a.get("name") and tag != "option"):
            return
        if (tag == "input" and a.get("type") not in ("file", "submit")) or tag == "textarea":
            self._form.append((a["name"], a.get("value", "")))
        elif tag in ("button", "input") and a.get("value"):  # a submit button that names what it does
            self._form.append((a["name"], a["value"]))
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select is not None:
            self._form.append((self._select, a.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        if tag == "select":
            self._select = None


@dataclass
class Found:
    """What the crawl found: pages each browser reached, and forms by where they post."""

    pages: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    """(browser, route) -> the addresses of the route it was answered at (below 400)."""
    params: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    """Browser -> the path parameters of the pages it alone was answered (a player's game and power)."""
    forms: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = field(default_factory=dict)
    """Action address -> (browser, page it was on, fields)."""


class Fuzz:
    """The crawl and the fuzz, seeded: the same requests in the same order each run (:data:`SEED`)."""

    def __init__(self, world: World, client: httpx.AsyncClient) -> None:
        self.world = world
        self.site = world.site
        self.client = client
        self.rng = random.Random(SEED)
        self.routes = [r for r in self.site.app.router.routes if isinstance(r, APIRoute)]
        self.failures: list[str] = []
        self.asked: dict[str, int] = {}
        self.reached: dict[str, int] = {}
        """Answers below 400 a route gave: the fuzz got past the doors."""
        self.count = 0
        self.crawled = 0
        """Requests the crawl made (the rest are the fuzz's)."""
        self._routed: dict[tuple[str, str], APIRoute | None] = {}
        wild = [r for r in self.routes if "{" in _head(r.path_format)]
        self._by_head = {
            h: [r for r in self.routes if _head(r.path_format) == h or r in wild]
            for h in {_head(r.path_format) for r in self.routes} - {_head(r.path_format) for r in wild}
        }
        """An address's first segment -> the routes that can match it, in the app's order (a route whose first
        segment has a parameter in every list): each hostile address is new, and trying every route on each was
        much of the fuzz's own time. An address whose first segment no route names can match only those."""
        self._wild = wild
        self.openapi = self.site.app.openapi()
        self.found = Found()
        self.values: dict[str, set[str]] = {}
        """Field name -> the values the pages' forms gave it."""
        self.query_names, self.form_names = _names_read_in_the_source()

    # -- asking ------------------------------------------------------------------------------------------

    async def ask(
        self,
        actor: Actor,
        method: str,
        url: str,
        *,
        body: bytes | None = None,
        kind: str = "",
        headers: dict[str, str | bytes] | None = None,
    ) -> httpx.Response:
        """Ask as ``actor`` (its session and its CSRF token), and note a 5xx or a traceback."""
        sent: dict[str, str | bytes] = {**actor.headers(), **(headers or {})}
        if method != "GET":
            sent["X-CSRF-Token"] = actor.csrf()
        if kind:
            sent["Content-Type"] = kind
        self.count += 1
        route = self._route(method, url)
        key = f"{method} {route.path}" if route else f"{method} (no route)"
        self.asked[key] = self.asked.get(key, 0) + 1
        raw = [(k.encode(), v if isinstance(v, bytes) else v.encode()) for k, v in sent.items()]
        r = await self.client.request(method, url, content=body, headers=raw, follow_redirects=False)
        if r.status_code < 400:
            self.reached[key] = self.reached.get(key, 0) + 1
        what = f"{actor.name}: {method} {url[:150]} {(body or b'')[:150]!r}"
        if r.status_code >= 500:
            self.failures.append(f"{r.status_code} {what} -> {r.text[:200]}")
        elif "Traceback" in r.text:
            self.failures.append(f"traceback in {what}")
        if any(c.startswith(f"{SESSION_COOKIE}=") for c in r.headers.get_list("set-cookie")):
            actor.renew(self.site)  # signed out (or in afresh): the next request is as this browser again
        return r

    def _route(self, method: str, url: str) -> APIRoute | None:
        path = urlsplit(url).path
        if (method, path) in self._routed:
            return self._routed[method, path]
        self._routed[method, path] = None
        scope = {"type": "http", "method": method, "path": path, "root_path": "", "query_string": b"", "headers": []}
        for route in self._by_head.get(_head(path), self._wild):
            match, _ = route.matches(scope)
            if match == Match.FULL:
                self._routed[method, path] = route
                break
        return self._routed[method, path]

    # -- crawling ----------------------------------------------------------------------------------------

    async def crawl(self, limit: int = 2) -> None:
        """Each browser's reachable pages, from every GET route's seeded addresses, at most ``limit`` addresses
        a route (the tenth phase's page adds nothing the second's did not)."""
        for actor in self.world.actors:
            actor.renew(self.site)
            seen: set[str] = set()
            per_route: dict[str, int] = {}
            todo = deque(
                _fill(route, values)
                for route in self.routes
                if "GET" in (route.methods or ()) and not route.path.startswith("/k/")
                for values in self.world.seeds(route)
            )
            while todo:
                url = todo.popleft()
                route = self._route("GET", url)
                if url in seen or route is None or route.path.startswith("/k/"):
                    continue
                if per_route.get(route.path, 0) >= limit:
                    continue
                per_route[route.path] = per_route.get(route.path, 0) + 1
                seen.add(url)
                r = await self.ask(actor, "GET", url)
                if r.status_code < 400:
                    self.found.pages.setdefault((actor.name, route.path), set()).add(urlsplit(url).path)
                kind = r.headers.get("content-type", "")
                if kind.startswith("application/json"):
                    todo += [u for u in _strings(json.loads(r.content or b"null")) if u.startswith("/")]
                if not kind.startswith("text/html"):
                    continue
                page = Links()
                page.feed(r.text)
                # Addresses shown as text too (a link to keep, the outbox's mails): the site's own, in full.
                for link in [*page.links, *re.findall(r"http://testserver(/[^\s\"'<>]*)", r.text)]:
                    parts = urlsplit(link)
                    if parts.netloc in ("", "testserver") and parts.path.startswith("/") and parts.path != url:
                        todo.append(parts.path + (f"?{parts.query}" if parts.query else ""))
                for action, method, fields in page.forms:
                    target = urlsplit(action).path or urlsplit(url).path
                    if method == "post":
                        self.found.forms.setdefault(target, []).append((actor.name, url, fields))
                    elif method == "get":
                        todo.append(target + "?" + urlencode([(k, v) for k, v in fields if k != "csrf"]))
                    for k, v in fields:
                        self.values.setdefault(k, set()).add(v)

    # -- the fuzz ----------------------------------------------------------------------------------------

    def address(self, route: APIRoute, method: str, actor: Actor) -> str:
        """A real address of the route for this browser: a page it reached or a form's action it was shown;
        else, of the route's addresses anyone found and its seeded ones, one whose ids this browser's own pages
        had (the player's game and power, the game coordinator's game)."""
        mine = sorted(self.found.pages.get((actor.name, route.path), set()))
        if method != "GET":
            mine = sorted(
                a
                for a, forms in self.found.forms.items()
                if self._route(method, a) is route and any(who == actor.name for who, _, _ in forms)
            )
        if mine:
            return self.rng.choice(mine)
        candidates = {_fill(route, values) for values in self.world.seeds(route)}
        candidates |= {a for a in self.found.forms if self._route(method, a) is route}
        for (_, path), urls in self.found.pages.items():
            candidates |= urls if path == route.path else set()
        known = self._own_ids(actor)
        scored = sorted((-len(set(self._params(route, c).items()) & known), c) for c in candidates)
        best = [c for score, c in scored if score == scored[0][0]]
        return self.rng.choice(best)

    def _own_ids(self, actor: Actor) -> set[tuple[str, str]]:
        """The path parameters of the pages this browser was answered and the anonymous visitor was not (a
        player's game and power, a game coordinator's game), which its calls of the API need too."""
        if actor.name not in self.found.params:
            visitor = self.world.actors[0].name
            own = {
                item
                for (who, path), urls in self.found.pages.items()
                if who == actor.name
                for url in urls - self.found.pages.get((visitor, path), set())
                for item in self._params(self._route("GET", url) or self.routes[0], url).items()
            }
            self.found.params[actor.name] = own
        return self.found.params[actor.name]

    async def run(self) -> None:
        for route in self.routes:
            for method in sorted(route.methods or ()):
                for i, actor in enumerate(self.world.actors):
                    url = self.address(route, method, actor)
                    await self.one(route, method, actor, url, kind=0)
                    if method != "GET":  # a page's queries are hostile already
                        await self.one(route, method, actor, url, kind=1 + (i + len(self.asked)) % 2)
                base = self._params(route, self.address(route, method, self.world.actors[-2]))
                for name in route.param_convertors:
                    values = list(self.world.path_values)
                    if re.search(r"\d", base.get(name, "")):  # a number inside an id: '3.press.SIG' as '².press.SIG'
                        values += [re.sub(r"\d+", n, quote(base[name], safe=""), count=1) for n in IN_IDS]
                    for value in values:
                        actor = self.rng.choice(self.world.actors)
                        await self.one(route, method, actor, _fill(route, base, raw={name: value}), kind=1)

    def _params(self, route: APIRoute, url: str) -> dict[str, str]:
        scope = {"type": "http", "method": "GET", "path": urlsplit(url).path, "root_path": "", "query_string": b""}
        _, child = route.matches({**scope, "headers": []})
        return {k: str(v) for k, v in child.get("path_params", {}).items()}

    async def one(self, route: APIRoute, method: str, actor: Actor, url: str, *, kind: int) -> None:
        """One request: ``kind`` 0 sends what a page or the API's model would, 1 that with a field hostile, 2
        junk (a page, which the crawl asked as it is, is always asked with hostile queries)."""
        if method == "GET":
            query = self._query(route)
            last: dict[str, str | bytes] = {"Last-Event-ID": self.rng.choice(["²", "9" * 30, "-1", "1"]).encode()}
            await self.ask(actor, "GET", url + ("?" + query if query else ""), headers=last)
        elif method == "DELETE":
            await self.ask(actor, method, url)
        elif route.include_in_schema:
            await self.ask(actor, method, url, body=self._json_body(route, kind), kind="application/json")
        else:
            form, referer = self._form(url, actor, kind)
            page: dict[str, str | bytes] = {"Referer": "http://testserver" + referer} if referer else {}
            await self.ask(actor, method, url, body=form, kind="application/x-www-form-urlencoded", headers=page)

    def _query(self, route: APIRoute) -> str:
        names = sorted({p.alias for p in _query_params(route)})
        names += self.rng.sample(self.query_names, 2)
        return "&".join(f"{quote(n)}={_escaped(self.rng.choice(FIELD_VALUES))}" for n in names)

    def _json_body(self, route: APIRoute, kind: int) -> bytes:
        schema = self._body_schema(route)
        if kind == 2 or (schema is None and kind == 1):
            return self.rng.choice(JUNK_BODIES)
        valid = self._example(schema, "") if schema is not None else {}
        if kind == 1 and isinstance(valid, dict) and valid:
            key = self.rng.choice(sorted(valid))
            valid[key] = self.rng.choice([*JSON_VALUES, self._hostile(key)])
            if len(valid) > 1:
                valid.pop(self.rng.choice(sorted(valid)))
        return json.dumps(valid).encode("utf-8", "surrogatepass")

    def _body_schema(self, route: APIRoute) -> Any:
        operation = self.openapi["paths"].get(route.path_format, {}).get(next(iter(route.methods or ())).lower(), {})
        content = operation.get("requestBody", {}).get("content", {})
        return content.get("application/json", {}).get("schema")

    def _example(self, schema: Any, name: str, depth: int = 0) -> Any:
        """A value the schema takes, from the real values the crawl saw in a field of that name if any."""
        if "$ref" in schema:
            schema = self.openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        for key in ("anyOf", "oneOf", "allOf"):
            if key in schema:
                options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
                return self._example(options[0], name, depth)
        if "enum" in schema:
            return self.rng.choice(schema["enum"])
        if "const" in schema:
            return schema["const"]
        kind = schema.get("type")
        if kind == "object":
            props = schema.get("properties", {})
            return {k: self._example(v, k, depth + 1) for k, v in props.items() if depth < 4}
        if kind == "array":
            return [self._example(schema.get("items", {}), name, depth + 1)] if depth < 4 else []
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.5
        if kind == "boolean":
            return True
        seen = sorted(self.values.get(name, set()) - {""})
        return self.rng.choice(seen) if seen else _PLAIN.get(name, "x")

    def _hostile(self, name: str) -> str:
        """A hostile value for the field ``name``: one of :data:`FIELD_VALUES`, or one of the values the pages
        gave the field with a number in it made a typed one, cut at its '/' (a folder of time zones), or with an
        invisible character after it."""
        real = sorted(self.values.get(name, set()) - {""})
        mutated = [
            m
            for v in real[:20]
            for m in (
                re.sub(r"\d+", self.rng.choice(IN_IDS), v, count=1) if re.search(r"\d", v) else None,
                v.split("/", 1)[0] if "/" in v.strip("/") else None,
                v + "\u200b",
            )
            if m is not None
        ]
        return str(self.rng.choice([*FIELD_VALUES, *mutated]))

    def _form(self, url: str, actor: Actor, kind: int) -> tuple[bytes, str]:
        """A form to post to ``url`` and the page it is on: the page's own (as found, or with a field hostile and
        another left out), else fields the source reads, hostile."""
        rng = self.rng
        found = [(page, fields) for who, page, fields in self.found.forms.get(url, []) if who == actor.name]
        found = found or [(page, fields) for _, page, fields in self.found.forms.get(url, [])]
        if found and kind < 2:
            page, fields = rng.choice(found)
            fields = _one_each(fields, rng)
            if kind == 1 and fields:
                i = rng.randrange(len(fields))
                fields[i] = (fields[i][0], self._hostile(fields[i][0]))
                if len(fields) > 1:
                    fields.pop(rng.randrange(len(fields)))
            return _form_body([("csrf", actor.csrf()), *fields]), page
        names = rng.sample(self.form_names, 4)
        return _form_body([("csrf", actor.csrf()), *((n, rng.choice(FIELD_VALUES)) for n in names)]), ""


_PLAIN = {
    "power": "France",
    "variant": "standard",
    "game": "g",
    "name": "fuzzed",
    "text": "A par - bur",
    "orders": "A par - bur",
    "email": "someone@example.org",
    "address": "1 High Street",
    "first_day": "2027-03-01",
    "last_day": "2027-03-02",
}
"""Plain values for JSON fields no page's form shows a value for."""


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON answer (the addresses it names among them)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def _one_each(fields: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """A form as a browser posts it: a select's one option (the page lists them all), other fields as they are."""
    by_name: dict[str, list[str]] = {}
    for k, v in fields:
        if k != "csrf":
            by_name.setdefault(k, []).append(v)
    return [(k, rng.choice(vs)) for k, vs in by_name.items()]


def _form_body(fields: list[tuple[str, Any]]) -> bytes:
    return "&".join(f"{quote(str(k))}={_escaped(v)}" for k, v in fields).encode("ascii")


def _escaped(value: Any) -> str:
    """A value as a query or form carries it; a lone surrogate as the UTF-8 bytes a client would send."""
    return quote(str(value).encode("utf-8", "surrogatepass"), safe="")


def _fill(route: APIRoute, values: dict[str, str], raw: dict[str, str] | None = None) -> str:
    """The route's address with its parameters filled: ``values`` escaped, ``raw`` as written."""
    path = route.path_format
    for name in route.param_convertors:
        value = (raw or {}).get(name)
        path = path.replace("{" + name + "}", value if value is not None else quote(values.get(name, "1"), safe=""))
    return path


def _head(path: str) -> str:
    """An address's first segment (``games`` of ``/games/g/play``; a route's may hold a parameter)."""
    return path.split("/", 2)[1] if path.startswith("/") else path


def _query_params(route: APIRoute) -> list[Any]:
    """The query parameters a route declares, its dependencies' included."""
    out: list[Any] = []
    todo = [route.dependant]
    while todo:
        d = todo.pop()
        out += d.query_params
        todo += d.dependencies
    return out


def _names_read_in_the_source() -> tuple[list[str], list[str]]:
    """The query parameters and form fields the web's modules read by name (``query_params.get("x")``,
    ``form.get("x")``, ``form["x"]``): the vocabulary of the junk the fuzz sends where no page shows a form."""
    queries: set[str] = set()
    forms: set[str] = set()
    for path in Path(dippouch.web.__file__).resolve().parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                arg = node.args[0]
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    continue
                owner = ast.unparse(node.func.value)
                if node.func.attr == "get" and owner.endswith("query_params"):
                    queries.add(arg.value)
                elif node.func.attr in ("get", "all") and owner.endswith("form"):
                    forms.add(arg.value)
            if (
                isinstance(node, ast.Subscript)
                and ast.unparse(node.value).endswith("form")
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                forms.add(node.slice.value)
    return sorted(queries), sorted(forms)


async def _fuzz(world: World) -> Fuzz:
    """The crawl, then the fuzz, on one event loop (a test client's portal to its own loop costs each request
    a third more)."""
    transport = httpx.ASGITransport(app=world.site.app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        fuzz = Fuzz(world, client)
        await fuzz.crawl()
        fuzz.crawled = fuzz.count
        await fuzz.run()
    return fuzz


class Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_no_route_answers_any_browser_with_a_server_error(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The press stream lives five minutes; here it ends at once, after its head (what the fuzz checks).
    monkeypatch.setattr(web_press, "STREAM_LIFE", 0.0)
    errors = Errors()
    logger = logging.getLogger("dippouch")
    logger.addHandler(errors)
    try:
        started = time.monotonic()
        fuzz = asyncio.run(_fuzz(World(db_url)))
    finally:
        logger.removeHandler(errors)
    every = {f"{m} {r.path}" for r in fuzz.routes for m in r.methods or ()}
    print(
        f"{fuzz.count:,} requests ({fuzz.crawled:,} of them the crawl) on {len(every)} routes in "
        f"{time.monotonic() - started:.1f} s; {len(fuzz.reached)} routes answered below 400"
    )
    assert sorted(every - set(fuzz.asked)) == [], "routes the fuzz never asked"
    assert fuzz.failures == [], f"{len(fuzz.failures)} of {fuzz.count:,}:\n" + "\n".join(fuzz.failures[:60])
    assert [f"{r.name}: {r.getMessage()}" for r in errors.records] == [], "errors in the server's log"
    assert len(fuzz.reached) >= REACHED * len(every), sorted(every - set(fuzz.reached))
