"""The account routes from an attacker's side: forged, used, expired and foreign links, guessing, CSRF on every
POST, another person's data, a deleted person's old session, telling known addresses from unknown ones; and
the player and coordinator keys working as before."""

from __future__ import annotations

import base64
import re
import secrets
from pathlib import Path
from typing import Any

import pytest
from accounts_support import ask_link, deliver, link_in, sign_in_by_mail

from mailservers import SmtpServer
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


POSTS = [
    "/signin/mail",
    "/signin/link/dl_" + "x" * 43,
    "/me/calendar",
    "/me/seats/add",
    "/me/delete",
    "/me/passkeys/1/remove",
]
API_POSTS = ["/api/me/passkeys/options", "/api/me/passkeys", "/api/signin/passkey/options", "/api/signin/passkey"]


def _count(site: Site, table: str) -> int:
    with site.web.store.engine.connect() as conn:
        return int(conn.exec_driver_sql(f"select count(*) from {table}").scalar() or 0)


@pytest.mark.parametrize("url", POSTS)
def test_every_form_refuses_a_post_without_its_csrf_token_or_from_another_site(
    site: Site, smtp: SmtpServer, url: str
) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    form = {"email": "bo@example.org", "name": "Bo", "action": "renew", "confirm": "delete", "key_id": "1"}
    r = c.post(url, data=form, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    r = c.post(url, data={**form, "csrf": site.csrf(c)}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and "another site" in r.text
    assert c.get("/api/me").status_code == 200  # not deleted, still signed in
    assert _count(site, "signin_links") == 1 and _count(site, "person_calendars") == 0


@pytest.mark.parametrize("url", API_POSTS)
def test_every_json_call_refuses_a_post_without_its_csrf_header(site: Site, smtp: SmtpServer, url: str) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    r = c.post(url, json={})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    assert _count(site, "passkey_challenges") == 0


def test_my_page_and_data_need_a_person_not_a_key(site: Site, smtp: SmtpServer) -> None:
    anonymous = site.browser()
    for url in ("/me", "/api/me", "/me/data.json", "/me/delete"):
        r = anonymous.get(url)
        assert r.status_code == 401 and "sign in first" in r.text
    key = site.seat("demo", "France", "Ann")
    by_key = site.browser()
    r = by_key.get("/api/me", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 401  # a bearer key is a seat, not a person
    assert site.player("demo", "England", "Bo").get("/api/me").status_code == 401


def test_one_person_sees_only_their_own_data(site: Site, smtp: SmtpServer) -> None:
    ann = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=site.player("demo", "France", "Ann"))
    site.post_form(ann, "/me/seats/add", {"key_id": str(ann.get("/api/me").json()["keys_to_add"][0]["key_id"])})
    bo = sign_in_by_mail(site, smtp, "bo@example.org", name="Bo")
    mine = bo.get("/api/me").json()
    assert mine["name"] == "Bo" and mine["seats"] == [] and mine["keys_to_add"] == []
    data = bo.get("/me/data.json").text
    assert "ann@example.org" not in data and "France" not in data
    assert bo.get("/games/demo/play/France").status_code in (401, 403)
    r = site.post_form(bo, "/me/passkeys/1/remove", {})
    assert r.status_code == 400 and "no passkey 1 of yours" in r.text


@pytest.mark.parametrize(
    "token",
    [
        "dl_" + "Q" * 43,  # forged, well-formed
        "dp_" + "Q" * 43,  # an access key's shape
        "dl_short",
        "x" * 300,
        "dl_%00%0a",
    ],
)
def test_a_forged_link_signs_nobody_in(site: Site, token: str) -> None:
    c = site.browser()
    assert c.get(f"/signin/link/{token}").status_code == 404
    r = site.post_form(c, f"/signin/link/{token}", {"name": "Mallory"})
    assert r.status_code == 404 and "sign-in link" in r.text
    assert c.get("/api/me").status_code == 401 and _count(site, "people") == 0


def test_guessing_links_is_stopped_by_the_sign_in_limit(site: Site) -> None:
    c = site.browser()
    codes = [c.get(f"/signin/link/dl_{secrets.token_urlsafe(32)}").status_code for _ in range(12)]
    assert codes[:10] == [404] * 10 and codes[10:] == [429, 429]


def test_a_link_from_another_installation_is_unknown_here(site: Site, smtp: SmtpServer, tmp_path: Path) -> None:
    elsewhere = Site(f"sqlite:///{tmp_path / 'elsewhere.db'}")
    ask_link(elsewhere, elsewhere.browser(), "ann@example.org", "Ann")
    deliver(elsewhere, smtp)
    path = link_in(smtp, "ann@example.org")
    c = site.browser()
    r = site.post_form(c, path, {})
    assert r.status_code == 404 and "unknown here" in r.text
    assert _count(site, "people") == 0


def test_a_used_or_expired_link_is_refused_in_words_that_say_so(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    used = link_in(smtp, "ann@example.org")
    assert "used already" in site.post_form(site.browser(), used, {}).text
    ask_link(site, c, "ann@example.org")
    deliver(site, smtp)
    late = link_in(smtp, "ann@example.org")
    site.clock.advance(minutes=21)
    assert "expired" in site.post_form(site.browser(), late, {}).text


def test_asking_does_the_same_work_for_a_known_and_an_unknown_address(site: Site, smtp: SmtpServer) -> None:
    """Not a timing measurement (speed is benchmarked, not asserted): the same rows are written either way,
    one link and one queued message, so the answer's time has nothing to tell."""
    sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    c = site.browser()
    before = (_count(site, "signin_links"), _count(site, "mail_outbox"), _count(site, "people"))
    ask_link(site, c, "ann@example.org")
    known = (_count(site, "signin_links"), _count(site, "mail_outbox"), _count(site, "people"))
    ask_link(site, c, "nobody@example.org", "Nobody")
    unknown = (_count(site, "signin_links"), _count(site, "mail_outbox"), _count(site, "people"))
    assert [b - a for a, b in zip(before, known, strict=True)] == [1, 1, 0]
    assert [b - a for a, b in zip(known, unknown, strict=True)] == [1, 1, 0]  # nobody is made until the link is used


def test_a_session_planted_before_the_link_is_not_the_one_signed_in(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    planted = site.web.access.start_session([], now=site.clock())
    c.cookies.set("dp_session", planted, domain="testserver.local")
    c.get("/signin")  # the planted session's CSRF token, as a page would hand it out
    sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=c)
    assert site.web.access.session_person(planted, now=site.clock()) is None
    assert c.cookies.get("dp_session") != planted
    assert c.get("/api/me").json()["name"] == "Ann"


def test_a_deleted_persons_old_session_and_calendar_are_dead(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    old = c.cookies.get("dp_session")
    assert old
    page = site.post_form(c, "/me/calendar", {"action": "renew"})
    feed = re.search(r"http://testserver(/me/calendar/[^\"<]+\.ics)", page.text).group(1)  # type: ignore[union-attr]
    assert site.browser().get(feed).status_code == 200
    site.post_form(c, "/me/delete", {"confirm": "delete"})
    replay = site.browser()
    replay.cookies.set("dp_session", old)
    assert replay.get("/api/me").status_code == 401
    assert site.browser().get(feed).status_code == 404


def test_player_and_coordinator_keys_work_as_before(site: Site, smtp: SmtpServer) -> None:
    key = site.seat("demo", "France", "Ann")
    france = site.browser(key)
    r = site.post_form(france, "/games/demo/play/France/orders", {"orders": "A par - bur"})
    assert r.status_code == 303
    bearer: Any = site.browser()
    assert bearer.get("/api/games/demo/powers/France", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    assert site.coordinator.get("/games/demo/coordinate").status_code == 200
    # ... and after the key's holder signs in as a person on that browser.
    sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=france)
    assert france.get("/games/demo/play/France").status_code == 200
    assert site.browser().get("/games/demo/play/France").status_code in (401, 403)


def test_passkey_calls_refuse_strangers_forgeries_and_unknown_keys(site: Site, smtp: SmtpServer) -> None:
    anonymous = site.browser()
    r = site.api(anonymous, "/api/me/passkeys/options", {})
    assert r.status_code == 401 and "sign in first" in r.json()["error"]
    r = site.api(anonymous, "/api/me/passkeys", {"response": {"clientDataJSON": "e30"}})
    assert r.status_code == 401
    forged = '{"type":"webauthn.create","challenge":"' + "A" * 43 + '","origin":"http://testserver"}'
    client_data = base64.urlsafe_b64encode(forged.encode()).rstrip(b"=").decode()
    r = site.api(anonymous, "/api/signin/passkey", {"id": "nope", "response": {"clientDataJSON": client_data}})
    assert r.status_code == 403 and "not registered here" in r.json()["error"]
    r = site.api(anonymous, "/api/signin/passkey", {"id": "nope"})
    assert r.status_code == 400 and "clientDataJSON" in r.json()["error"]
    options = site.api(anonymous, "/api/signin/passkey/options", {}).json()["options"]
    assert (options["challenge"] and options["rpId"] == "testserver" and "allowCredentials" not in options) or not (
        options.get("allowCredentials")
    )
    # A registration answer with a challenge the server never gave is refused before any checking.
    ann = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    r = site.api(ann, "/api/me/passkeys", {"id": "x", "response": {"clientDataJSON": client_data}})
    assert r.status_code == 400 and "challenge is unknown" in r.json()["error"]
    assert _count(site, "passkeys") == 0
