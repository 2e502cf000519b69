"""Bad input everywhere: every answer is a clear refusal (4xx with a message), never a 500 or a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from websupport import Site

NAMES = ["g", "nosuch", "x" * 5000, "%00", "..%2F..%2Fetc", "☃", "%F0%9F%92%A9", "%ED%A0%80", "a b", "g%2Fcoordinate"]
POWERS = ["France", "france", "F", "Nowhere", "x" * 3000, "%ED%A0%80", "", "Germany%00"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    s = Site(f"sqlite:///{tmp_path_factory.mktemp('bad') / 'web.db'}", limits={})
    s.new_game("g")
    s.france = s.player("g", "France")  # type: ignore[attr-defined]
    return s


def _clean(r: Any, what: str) -> None:
    assert r.status_code < 500, (what, r.status_code, r.text[:300])
    assert "Traceback" not in r.text, what
    if r.status_code >= 400:
        text = r.json()["error"] if r.headers.get("content-type", "").startswith("application/json") else r.text
        assert text and len(text) > 5, what


def test_bad_addresses(site: Site) -> None:
    c = site.france  # type: ignore[attr-defined]
    for n in NAMES:
        for url in (
            f"/games/{n}",
            f"/games/{n}/coordinate",
            f"/games/{n}/calendar.ics",
            f"/games/{n}/export.json",
            f"/games/{n}/map.svg",
            f"/games/{n}/phases/1",
            f"/games/{n}/phases/x",
            f"/games/{n}/phases/99999999999999999999999",
            f"/games/{n}/phases/-1",
            f"/api/games/{n}",
            f"/api/games/{n}/phases/1",
            f"/variants/{n}",
            f"/variants/{n}/moves?q=par",
            f"/variants/{n}/powers.css",
            f"/api/variants/{n}/moves?q=par",
            f"/k/{n}",
        ):
            _clean(c.get(url), url)
        for p in POWERS:
            _clean(c.get(f"/games/{n}/play/{p}"), f"play {n} {p}")
            _clean(c.get(f"/api/games/{n}/powers/{p}"), f"api {n} {p}")
    for q in ["", "x" * 5000, "%ED%A0%80", "'\"<script>", "St Petersburg/xx", "stp/zz", "%00"]:
        for v in ("standard", "w3k", "1000ad"):
            _clean(c.get(f"/variants/{v}/moves?q={q}"), q)
            _clean(c.get(f"/api/variants/{v}/moves?q={q}"), q)
            _clean(c.get(f"/api/variants/{v}/search?q={q}"), q)
    _clean(c.get("/nope"), "404")
    _clean(c.delete("/games/g"), "405")


BODIES: list[Any] = [
    None,
    "",
    "[]",
    "{",
    "{}",
    '{"text": 5}',
    '{"text": null}',
    '{"text": ["A par H"]}',
    '{"text": "' + "A par H\\n" * 5000 + '"}',
    '{"text": "\\ud800"}',
    '{"text": "A par H", "ready": "perhaps"}',
    '{"draw": "maybe"}',
    '{"action": "explode"}',
    '{"action": "extend", "arg": "forever"}',
    '{"action": "extend", "arg": "0d"}',
    '{"action": "extend", "arg": "99999999999999999999w"}',
    '{"action": "rollback", "arg": "Summer 1492"}',
    '{"action": "visibility", "arg": "secret"}',
    '{"power": "Nowhere", "player": "x"}',
    '{"power": "France", "player": ""}',
    '{"name": "", "variant": "standard"}',
    '{"name": "n", "variant": "../../etc/passwd"}',
    '{"name": "n", "variant": "standard", "movement": "0s"}',
    '{"name": "n", "variant": "standard", "timezone": "Mars/Olympus"}',
    '{"name": "n", "variant": "standard", "missed": "-1"}',
    '{"name": "n", "variant": "standard", "time_of_day": "25:99"}',
    '{"name": "n", "variant": "hundred", "option_english_channel": "sideways", "option_nosuch": "1"}',
    '{"format": "dippouch-game", "game": 5, "phases": 5}',
    '{"format": "dippouch-game", "version": "x"}',
    '{"variant": "standard", "units": [{"power": "France", "unit": "A ' + "[" * 50 + '"}]}',
    '{"variant": "standard", "phase": "' + "9" * 5000 + '"}',
    '{"variant": "' + "x" * 10000 + '"}',
    '{"variant": "/etc/hosts.toml"}',
    "\xff\xfe",
]
POSTS = [
    "/api/games/g/powers/France/check",
    "/api/games/g/powers/France/orders",
    "/api/games/g/powers/France/vote",
    "/api/games/g/actions",
    "/api/games/g/players",
    "/api/games",
    "/api/games/import",
    "/api/adjudicate",
    "/api/games/g/keys/999/revoke",
    "/api/games/g/keys/x/revoke",
]


def test_bad_json_bodies(site: Site) -> None:
    for who in (site.france, site.coordinator):  # type: ignore[attr-defined]
        for url in POSTS:
            for body in BODIES:
                data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else b""
                r = who.post(
                    url, content=data, headers={"X-CSRF-Token": site.csrf(who), "Content-Type": "application/json"}
                )
                _clean(r, f"{url} {str(body)[:60]}")


FORM_POSTS: dict[str, list[dict[str, str]]] = {
    "/signin": [{"key": "x" * 10000}, {"key": ""}, {}],
    "/games/g/play/France/orders": [
        {"orders": "x" * 30000},
        {"orders": "\x00"},
        {"ready": "maybe"},
        {"pick:par": "A par - xyz"},
        {},
    ],
    "/games/g/play/France/vote": [{"draw": "maybe"}, {}],
    "/coordinate/new": [
        {"name": "", "variant": "standard"},
        {"name": "a/b", "variant": "standard"},
        {"name": "n", "variant": "nosuch"},
        {"name": "n", "variant": "standard", "movement": "twelve days"},
        {"name": "n", "variant": "standard", "missed": "lots"},
        {"name": "n", "variant": "standard", "timezone": "Nowhere/None"},
        {"name": "n", "variant": "standard", "visibility": "everyone"},
        {"name": "g", "variant": "standard"},
    ],
    "/coordinate/import": [{"name": "x"}, {}],
    "/games/g/coordinate/extend": [{"by": "soon"}, {"by": ""}, {"by": "-1d"}, {"by": "999999999w"}],
    "/games/g/coordinate/rollback": [{"phase": "Summer 1901"}, {"phase": ""}],
    "/games/g/coordinate/visibility": [{"visibility": "all"}],
    "/games/g/coordinate/revoke": [{"key": "abc"}, {"key": "99999"}, {"key": "9" * 50}],
    "/games/g/coordinate/assign": [
        {"power": "Nowhere", "player": "x"},
        {"power": "France", "player": ""},
        {"power": "France", "player": "x" * 300},
        {"power": "Italy", "player": "Ines", "email": "@@"},
    ],
    "/games/g/coordinate/deadlines": [{"movement": "0m"}, {"retreats": "zz"}],
    "/games/g/coordinate/email": [
        {"power": "Nowhere", "email": "a@example.org"},
        {"power": "Austria", "email": "a@example.org"},
        {"power": "France", "email": "not an address"},
        {"power": "France", "email": "a@" + "x" * 400 + ".org"},
        {"power": "France", "email": "a\x00@example.org"},
    ],
    "/games/g/coordinate/nonsense": [{}],
}


def test_bad_forms(site: Site) -> None:
    for url, forms in FORM_POSTS.items():
        for form in forms:
            who = site.coordinator if "coordinat" in url else site.france  # type: ignore[attr-defined]
            _clean(site.post_form(who, url, form), f"{url} {str(form)[:60]}")
    c = site.coordinator
    r = site.post_form(
        c, "/coordinate/import", {}, files={"file": ("x.json", b"\xff\xfe not json", "application/json")}
    )
    _clean(r, "import binary")
    r = site.post_form(
        c,
        "/coordinate/import",
        {},
        files={"file": ("x.json", b'{"format": "dippouch-game", "game": {}}', "application/json")},
    )
    _clean(r, "import incomplete")
    r = c.post(
        "/games/g/coordinate/process",
        content=b"--x\r\nbroken",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    _clean(r, "broken multipart")
    r = c.post(
        "/api/games/g/powers/France/check", content=b"x" * 3_000_000, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(max_size=300)
    | st.lists(
        st.sampled_from(["A", "F", "par", "-", "S", "C", "bur", "\n", "stp/nc", "Build", "via", "H"]), max_size=30
    ).map(" ".join)
)
def test_order_text_fuzz(site: Site, text: str) -> None:
    c = site.france  # type: ignore[attr-defined]
    r = c.post(
        "/api/games/g/powers/France/check",
        content=json.dumps({"text": text}),
        headers={"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"},
    )
    _clean(r, repr(text))


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "text",
                    "ready",
                    "draw",
                    "action",
                    "arg",
                    "power",
                    "player",
                    "name",
                    "variant",
                    "orders",
                    "units",
                    "phase",
                ]
            ),
            kids,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=JSONISH, url=st.sampled_from(POSTS))
def test_json_fuzz(site: Site, body: Any, url: str) -> None:
    c = site.coordinator
    r = c.post(
        url, content=json.dumps(body), headers={"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"}
    )
    _clean(r, f"{url} {body!r}"[:200])


def test_adjudicate_echoing_a_lone_surrogate(site: Site) -> None:
    """The contract echoes the caller's text; a lone surrogate must still come back as JSON, not a 500."""
    body = b'{"variant": "standard", "orders": {"France": ["A par - \\ud800"]}}'
    r = site.browser().post("/api/adjudicate", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert any(x["input"] == "A par - \ud800" for x in json.loads(r.content.decode("ascii"))["results"])


def test_bodies_sent_without_a_length_are_limited_too(site: Site) -> None:
    """A chunked body has no Content-Length to refuse up front: it is counted as it arrives and refused at
    the same 2 MB, on the JSON API and on forms alike, and nothing is recorded."""

    def chunks() -> Any:
        for _ in range(40):
            yield b"x" * 100_000

    c = site.france  # type: ignore[attr-defined]
    before = c.get("/api/games/g/powers/France").json()["versions"]
    headers = {"X-CSRF-Token": site.csrf(c), "Content-Type": "application/json"}
    for url in ("/api/adjudicate", "/api/games/g/powers/France/orders", "/api/games/g/powers/France/check"):
        r = c.post(url, content=chunks(), headers=headers)
        assert r.status_code == 413, (url, r.status_code, r.text[:200])
        assert "too large" in r.json()["error"]
    r = c.post(
        "/games/g/play/France/orders",
        content=chunks(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert r.status_code == 413 and "too large" in r.text
    assert c.get("/api/games/g/powers/France").json()["versions"] == before


def test_order_texts_over_the_limit_are_refused_with_the_reason(site: Site) -> None:
    c = site.france  # type: ignore[attr-defined]
    before = c.get("/api/games/g/powers/France").json()["versions"]
    text = "A par H\n" * 3000  # 24,000 characters
    r = site.post_form(c, "/games/g/play/France/orders", {"orders": text})
    assert r.status_code == 400 and "at most 20,000" in r.text
    r = site.api(c, "/api/games/g/powers/France/orders", {"text": text})
    assert r.status_code == 422 and "20000" in r.json()["error"]
    assert c.get("/api/games/g/powers/France").json()["versions"] == before
