"""A form refused for what it said goes back to the page it was on, says why there, and comes back filled as
it was typed (the players' trial: a duplicate wish, a webhook refusal and others landed on a bare "That did not
work" page that dropped the form). From the attacker's side: nothing secret is carried back, another site's
page is never where a refusal sends a browser, the cookie a browser sends back is read as untrusted, and a
post refused for its CSRF token is refused as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

import pytest

from dippouch.store.people.persons import create_person
from websupport import Site

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

PAGE = "http://testserver/notifications"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def signed_in(site: Site, name: str) -> TestClient:
    pid = create_person(site.web.store, name, now=site.clock(), email=f"{name.lower()}@example.org")
    token = site.web.access.start_session([], now=site.clock(), person_id=pid)
    c = site.browser()
    c.cookies.set("dp_session", token)
    c.get("/")
    return c


def typed_cookie(r: object) -> dict[str, object]:
    cookies = r.headers.get_list("set-cookie")  # type: ignore[attr-defined]
    got = [c for c in cookies if c.startswith("dp_typed=")]
    assert got, cookies
    return dict(json.loads(unquote(got[0].split(";")[0].removeprefix("dp_typed="))))


WEBHOOK = {"kind": "slack", "url": "http://hooks.example/abc", "room": "", "token": "sekrit-token", "label": "Our room"}


def test_a_refused_webhook_goes_back_to_its_page_filled_in(site: Site) -> None:
    c = signed_in(site, "Ann")
    r = site.post_form(c, "/notifications/webhooks", WEBHOOK, headers={"Referer": PAGE})
    assert r.status_code == 303
    assert r.headers["location"] == "/notifications"
    carried = typed_cookie(r)
    assert carried["action"] == "/notifications/webhooks"
    fields = carried["fields"]
    assert isinstance(fields, dict)
    assert fields["url"] == ["http://hooks.example/abc"] and fields["label"] == ["Our room"]
    assert "token" not in fields and "csrf" not in fields  # nothing secret goes into a cookie
    page = c.get("/notifications")
    assert "must start with https://" in page.text  # said on the same page
    assert 'id="dp-typed"' in page.text and "hooks.example/abc" in page.text and "sekrit" not in page.text
    assert "refill.js" in page.text
    again = c.get("/notifications")  # shown once
    assert 'id="dp-typed"' not in again.text


def test_without_a_page_of_ours_before_it_the_refusal_is_answered_where_it_is(site: Site) -> None:
    c = signed_in(site, "Ann")
    for referer in (None, "https://evil.example/notifications", "http://testserver.evil/x", "http://testserver//x"):
        headers = {"Referer": referer} if referer else {}
        r = site.post_form(c, "/notifications/webhooks", WEBHOOK, headers=headers)
        assert r.status_code == 400, referer
        assert "must start with https://" in r.text
        assert not any(h.startswith("dp_typed=") for h in r.headers.get_list("set-cookie"))


def test_a_forged_post_is_refused_as_before_not_sent_back(site: Site) -> None:
    c = signed_in(site, "Ann")
    r = c.post(
        "/notifications/webhooks",
        data={"csrf": "forged", **WEBHOOK},
        headers={"Referer": PAGE},
        follow_redirects=False,
    )
    assert r.status_code == 403
    assert not any(h.startswith("dp_typed=") for h in r.headers.get_list("set-cookie"))


def test_a_long_field_is_left_out_rather_than_the_refusal(site: Site) -> None:
    c = signed_in(site, "Ann")
    r = site.post_form(c, "/notifications/webhooks", {**WEBHOOK, "label": "x" * 5000}, headers={"Referer": PAGE})
    assert r.status_code == 303
    fields = typed_cookie(r)["fields"]
    assert isinstance(fields, dict) and "label" not in fields and fields["url"] == ["http://hooks.example/abc"]


@pytest.mark.parametrize(
    "cookie",
    ["not json", quote("[1,2]"), quote('{"action": 5, "fields": {}}'), quote('{"action": "/x", "fields": []}')],
)
def test_a_cookie_of_any_shape_gives_the_page_without_filling(site: Site, cookie: str) -> None:
    c = signed_in(site, "Ann")
    c.cookies.set("dp_typed", cookie)
    page = c.get("/notifications")
    assert page.status_code == 200
    assert 'id="dp-typed"' not in page.text


def test_the_typed_text_cannot_close_the_script_it_rides_in(site: Site) -> None:
    c = signed_in(site, "Ann")
    hostile = "</script><script>alert(1)</script>"
    r = site.post_form(c, "/notifications/webhooks", {**WEBHOOK, "label": hostile}, headers={"Referer": PAGE})
    assert r.status_code == 303
    page = c.get("/notifications")
    assert hostile not in page.text
    assert "\\u003c/script\\u003e" in page.text
