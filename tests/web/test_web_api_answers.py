"""The JSON API documents every answer: each route declares the shape of what it answers in the OpenAPI
document (what /api/docs and any client generator read), and what it answers has that shape. Every answer
the web tests receive through :class:`websupport.Site` is checked against its route's model as it arrives;
here each route of the API is called at least once, coordinator, player and visitor alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dippouch.web.views.answers.games import GameListing
from dippouch.web.views.answers.play import VoteAnswer
from websupport import Site, check_answer, declared_answer, json_routes, page_routes

NOT_JSON_ROUTES = {"/api/docs"}
"""API-prefixed addresses that are pages, not calls (the documentation page itself)."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _schema_names_a_shape(schema: dict[str, Any]) -> bool:
    if "$ref" in schema:
        return True
    if schema.get("type") == "array":
        return "$ref" in schema.get("items", {})
    return False


def test_every_json_route_of_the_api_declares_its_answer_in_openapi(site: Site) -> None:
    spec = site.browser().get("/api/openapi.json").json()
    calls = json_routes()
    assert len(calls) >= 60  # the reading of the routes finds them (else the checks below pass vacuously)
    # The pages' router answers nothing else under /api/ (a JSON call there would be undocumented).
    assert {r.path for r in page_routes() if r.path.startswith("/api/")} <= NOT_JSON_ROUTES
    assert all(r.path.startswith("/api/") for r in calls)
    undeclared = []
    for route in calls:
        assert route.include_in_schema, f"{route.path} is left out of the OpenAPI document"
        for method in route.methods or ():
            op = spec["paths"][route.path][method.lower()]
            ok = op["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
            error = op["responses"].get("400", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if not (_schema_names_a_shape(ok) and _schema_names_a_shape(error)):
                undeclared.append(f"{method} {route.path}")
    assert undeclared == []
    # The shapes are described field by field, not as any object.
    game = spec["components"]["schemas"]["GameView"]
    assert {"phase", "deadline", "powers", "history"} <= set(game["properties"])
    assert spec["components"]["schemas"]["ErrorAnswer"]["required"] == ["error", "status", "code", "params"]


def test_the_check_of_answers_fails_on_an_undeclared_or_changed_field() -> None:
    """The check every web test runs on the API's answers can fail: a field the model does not name, a
    missing one, or a value read as something else."""
    listing = {
        "name": "g",
        "variant": "standard",
        "state": "active",
        "phase": "Spring 1901 Movement",
        "deadline": None,
        "listed": True,
        "mine": False,
    }
    check_answer(list[GameListing], [listing])
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        check_answer(list[GameListing], [{**listing, "secret": "x"}])  # the model refuses a field it does not name
    with pytest.raises(ValidationError):
        check_answer(list[GameListing], [{k: v for k, v in listing.items() if k != "mine"}])
    with pytest.raises(AssertionError, match="changes"):
        check_answer(list[GameListing], [{**listing, "listed": "yes"}])  # read as True: not what was sent
    with pytest.raises(ValidationError):
        check_answer(VoteAnswer, {"ending": 1})
    assert declared_answer("GET", "/games", 200) is None  # a page: nothing matched


def test_every_api_call_answers_its_declared_shape(site: Site) -> None:
    """One game through the API, every route called; each answer is checked as it arrives (websupport)."""
    co = site.coordinator
    got: dict[str, Any] = {}

    def call(method: str, url: str, body: Any = None, client: Any = co, status: int = 200) -> Any:
        r = site.api(client, url, body) if method == "POST" else client.get(url)
        assert r.status_code == status, (url, r.status_code, r.text[:300])
        got[url] = r
        return r.json()

    assert call("POST", "/api/games", {"name": "g", "variant": "standard", "movement": "1d"}) == {"name": "g"}
    seat = call("POST", "/api/games/g/players", {"power": "France", "player": "Fay", "email": "fay@example.org"})
    france = site.browser(seat["key"])
    call("POST", "/api/games/g/players/France/email", {"email": "fay@new.example"})
    call("POST", "/api/games/g/keys", {"role": "coordinator", "label": "Co"})
    call("POST", "/api/games/g/deadlines", {"movement": "2d"})
    call("GET", "/api/games")
    call("GET", "/api/games/g", client=site.browser())
    checked = call("POST", "/api/games/g/powers/France/check", {"text": "A par - bur\nA mar - spaa"}, france)
    assert [ln["error"] is None for ln in checked["lines"]] == [True, False]
    call("POST", "/api/games/g/powers/France/orders", {"text": "A par - bur\nF bre - mao"}, france)
    call("POST", "/api/games/g/powers/France/vote", {"draw": True}, france)
    pv = call("GET", "/api/games/g/powers/France", client=france)
    assert pv["open"] and pv["legal"] and pv["versions"]
    desk = call("GET", "/api/games/g/coordinate")
    assert desk["sealed"] and "text" not in desk["submissions"][0]
    pid = desk["game"]["phase_id"]
    call("GET", f"/api/games/g/phases/{pid}")
    call("GET", "/api/games/g/export")
    call("GET", "/api/games/g/export", client=site.browser())
    call("POST", "/api/games/g/actions", {"action": "process"})
    desk = call("GET", "/api/games/g/coordinate")
    ph = call("GET", f"/api/games/g/phases/{pid}")
    assert ph["orders"] and ph["results"] and ph["submissions"]["submissions"]
    call("GET", f"/api/games/g/phases/{pid}", client=site.browser())
    call("POST", f"/api/games/g/keys/{desk['keys'][-1]['id']}/revoke")
    exported = call("GET", "/api/games/g/export")
    call("POST", "/api/games/import?name=copy", exported)
    call("GET", "/api/variants", client=site.browser())
    call("GET", "/api/variants/w3k", client=site.browser())
    call("GET", "/api/variants/standard/moves?q=stp", client=site.browser())
    call("GET", "/api/variants/standard/moves?q=Burgandy", client=site.browser())
    call("GET", "/api/variants/standard/search?q=par", client=site.browser())
    req = '{"variant": "standard", "orders": {"France": ["A par - bur"]}}'
    assert "results" in site.browser().post("/api/adjudicate", content=req.encode()).json()
    # Refusals have their declared shape too.
    call("GET", "/api/games/nosuch", client=site.browser(), status=404)
    call("POST", "/api/games/g/powers/France/orders", {"text": "A par - bur"}, site.browser(), status=401)
    assert "error" in site.browser().post("/api/adjudicate", content=b'{"variant": "nosuch"}').json()
    assert declared_answer("GET", "/api/games", 200) == list[GameListing]


def test_the_api_docs_page_shows_what_each_call_answers(site: Site) -> None:
    page = site.browser().get("/api/docs")
    assert page.status_code == 200
    assert page.text.count("Answers: <code>") == len(json_routes())
    assert "Answers: <code>[GameListing]</code>" in page.text and "Answers: <code>PlayerView</code>" in page.text
    assert "<code>marker</code>" in page.text  # the fields, one by one


def test_lines_a_game_file_left_short_are_answered_as_stored(site: Site) -> None:
    """A game file's lines may leave out their empty verdict fields (the import checks their types only): the
    API answers them as stored, rather than refusing its own data."""
    co = site.coordinator
    site.api(co, "/api/games", {"name": "g", "variant": "standard"})
    france = site.browser(site.api(co, "/api/games/g/players", {"power": "France", "player": "Fay"}).json()["key"])
    site.api(france, "/api/games/g/powers/France/orders", {"text": "A par - bur"})
    assert site.api(co, "/api/games/g/actions", {"action": "process"}).status_code == 200
    data = co.get("/api/games/g/export").json()
    done = next(ph for ph in data["phases"] if ph["status"] == "processed")
    for sub in done["submissions"]:
        sub["lines"] = [{k: v for k, v in ln.items() if v is not None} for ln in sub["lines"]]
    assert site.api(co, "/api/games/import?name=copy", data).json() == {"name": "copy"}
    pid = next(ph["id"] for ph in co.get("/api/games/copy/export").json()["phases"] if ph["status"] == "processed")
    r = co.get(f"/api/games/copy/phases/{pid}")
    assert r.status_code == 200, r.text[:300]
    assert r.json()["submissions"]["submissions"][0]["lines"] == [
        {"line": 1, "text": "A par - bur", "order": "A par - bur"}
    ]


def test_the_api_docs_page_shows_a_yes_or_no_default_as_json_writes_it(site: Site) -> None:
    """A field's default of false reads as a JSON body sets it, not as Python spells it."""
    page = site.browser().get("/api/docs").text
    assert "default false" in page or "default true" in page
    assert "default False" not in page and "default True" not in page
