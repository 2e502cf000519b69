"""Every router's HTML forms are read under one policy (dippouch.web.http.forms): a file posted where a form takes
text is refused with a 400 naming the field, never dropped in silence nor failing as a 500; a body over the
bound is a 413 on every form; and the one form that takes a file still does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dippouch.store.people.persons import create_person
from dippouch.web.http.middleware import MAX_BODY, MAX_IMPORT
from websupport import Site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """A game ``g`` and, besides its coordinator, two browsers: France's player, and a person signed in
    (the notification forms are a person's)."""
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('forms') / 'web.db'}", limits={})
    s.new_game("g")
    pid = create_person(s.web.store, "Ann", now=s.clock(), email="ann@example.org")
    person = s.browser()
    person.cookies.set("dp_session", s.web.access.start_session([], now=s.clock(), person_id=pid))
    person.get("/")  # the session's CSRF token
    s.browsers = {"france": s.player("g", "France"), "person": person, "coordinator": s.coordinator}  # type: ignore[attr-defined]
    return s


def _who(site: Site, who: str) -> TestClient:
    return site.browsers[who]  # type: ignore[attr-defined,no-any-return]


# (router, who posts, url, a text field of that form, sent as a file); the rest of each form is sent as text.
FORMS = [
    ("pages", "france", "/games/g/play/France/orders", "pick:par"),
    ("pages", "coordinator", "/coordinate/new", "variant"),
    ("accounts", "person", "/signin/mail", "email"),
    ("notify", "person", "/notifications/preferences", "deadline_hours"),
    ("press", "france", "/games/g/play/France/press", "text"),
    ("review", "coordinator", "/games/g/review-release", "note"),
    ("roster", "coordinator", "/games/g/roster/settings", "roster_visibility"),
    ("openings", "coordinator", "/games/g/opening/open", "press"),
]


@pytest.mark.parametrize(("router", "who", "url", "field"), FORMS, ids=[f"{f[0]}:{f[2]}" for f in FORMS])
def test_a_file_where_a_form_takes_text_is_refused_by_the_fields_name(
    site: Site, router: str, who: str, url: str, field: str
) -> None:
    c = _who(site, who)
    r = site.post_form(c, url, {"orders": "A par H"}, files={field: ("x.txt", b"A par - bur", "text/plain")})
    assert r.status_code == 400, (router, r.status_code, r.text[:300])
    assert f"field &#39;{field}&#39; must be text" in r.text or f"field '{field}' must be text" in r.text, r.text[:800]


def test_the_orders_form_refuses_a_file_pick_instead_of_recording_without_it(site: Site) -> None:
    """The pick lists' file was dropped before, and the orders recorded without it: now nothing is recorded
    until the form is sent as text."""
    france = _who(site, "france")
    before = france.get("/api/games/g/powers/France").json()["versions"]
    r = site.post_form(
        france, "/games/g/play/France/orders", {"orders": "A par H"}, files={"pick:mar": ("m", b"A mar H")}
    )
    assert r.status_code == 400 and "pick:mar" in r.text
    assert france.get("/api/games/g/powers/France").json()["versions"] == before
    r = site.post_form(france, "/games/g/play/France/orders", {"orders": "A par H", "pick:mar": "A mar H"})
    assert r.status_code == 303, r.text[:300]


def test_the_import_form_takes_its_file_and_refuses_one_anywhere_else(site: Site) -> None:
    game = site.post_form(site.coordinator, "/games/g/export.json", {"reason": "moving the game"}).json()
    body = json.dumps(game).encode()
    c = site.coordinator
    r = site.post_form(
        c,
        "/coordinate/import",
        {"name": "g2"},
        files=[("file", ("g.json", body, "application/json")), ("note", ("n.txt", b"hello", "text/plain"))],
    )
    assert r.status_code == 400 and "note" in r.text and "must be text" in r.text, r.text[:500]
    assert site.browser().get("/api/games/g2").status_code == 404  # nothing imported
    r = site.post_form(c, "/coordinate/import", {"name": "g2"}, files={"file": ("g.json", body, "application/json")})
    assert r.status_code == 303, r.text[:500]
    assert site.browser().get("/api/games/g2").status_code == 200


@pytest.mark.parametrize(("router", "who", "url", "field"), FORMS, ids=[f"{f[0]}:{f[2]}" for f in FORMS])
def test_a_form_body_over_the_bound_is_413_on_every_router(
    site: Site, router: str, who: str, url: str, field: str
) -> None:
    """Counted as it arrives (no Content-Length): "too large", not "the form could not be read"."""

    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"x" * 100_000

    c = _who(site, who)
    headers: dict[str, Any] = {"Content-Type": "application/x-www-form-urlencoded"}
    r = c.post(url, content=chunks(), headers=headers, follow_redirects=False)
    assert r.status_code == 413 and "too large" in r.text, (router, r.status_code, r.text[:300])


def test_a_body_whose_length_is_over_the_bound_is_refused_in_the_reader_s_words_none_of_it_read(site: Site) -> None:
    """Said up front by Content-Length (a browser's upload always says it): a browser gets the error page in its
    language, the API its JSON refusal in the language asked; before, both got English JSON from the layer that
    counts bodies."""
    c = site.coordinator
    big = b"x" * (MAX_IMPORT + 100_000)
    r = site.post_form(
        c, "/coordinate/import", {"name": "g3"}, files={"file": ("g.json", big, "application/json")},
        headers={"Accept": "text/html", "Accept-Language": "de"},
    )  # fmt: skip
    assert r.status_code == 413, r.text[:300]
    assert r.headers["content-type"].startswith("text/html") and '<html lang="de"' in r.text
    assert "Der Inhalt der Anfrage ist zu groß (höchstens 16.000.000 Bytes)" in r.text
    r = c.post(  # the API speaks English unless asked (?lang=)
        "/api/adjudicate?lang=fr",
        content=b"x" * (MAX_BODY + 100_000),
        headers={"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["code"] == "request body too large (at most %(most)s bytes)"
    assert r.json()["error"].startswith("le corps de la requête est trop volumineux (au plus 2")
    assert site.browser().get("/api/games/g3").status_code == 404  # nothing imported


def test_a_game_file_past_the_pages_bound_imports_by_the_form_and_by_the_api(site: Site) -> None:
    """A long game's export is past every other form's bound (a W3K game's was 4.4 MB after 20 game years):
    both import doors take it, where the desk refused a file over 2 MB and the API any body."""
    game = site.post_form(site.coordinator, "/games/g/export.json", {"reason": "moving the game"}).json()
    body = json.dumps(game).encode() + b" " * MAX_BODY  # JSON's own whitespace: a game file past the bound
    c = site.coordinator
    r = site.post_form(c, "/coordinate/import", {"name": "long"}, files={"file": ("g.json", body, "application/json")})
    assert r.status_code == 303, r.text[:500]
    r = c.post(
        "/api/games/import?name=long2",
        content=body,
        headers={"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"},
    )
    assert r.status_code == 200 and r.json() == {"name": "long2"}, r.text[:500]
    for name in ("long", "long2"):
        assert site.browser().get(f"/api/games/{name}").status_code == 200


@pytest.mark.parametrize("url", ["/coordinate/import", "/api/games/import"])
@pytest.mark.parametrize("who", ["nobody", "france", "person"])
def test_an_import_s_larger_body_is_read_for_a_coordinator_alone(site: Site, url: str, who: str) -> None:
    """The import paths take bodies of up to MAX_IMPORT: who is asking is known before any of it is read, so
    a stranger, a player or a person who coordinates nothing has none of it read (the test client hands the
    app the body when it reads it first)."""
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for _ in range(30):
            sent.append(1)
            yield b" " * 100_000

    c = site.browser() if who == "nobody" else _who(site, who)
    kind = "application/json" if url.startswith("/api/") else "application/x-www-form-urlencoded"
    headers = {"Content-Length": "3000000", "Content-Type": kind}
    if who != "nobody":
        headers["X-CSRF-Token"] = site.csrf(c)
    r = c.post(url, content=chunks(), headers=headers, follow_redirects=False)
    assert r.status_code in (401, 403), (r.status_code, r.text[:300])
    assert not sent, "the body was read before the caller was known"
