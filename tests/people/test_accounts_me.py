"""My games (/me): every seat a person plays with what it waits for, their calendar feed at a secret address,
and adding a seat their browser holds by its player link to their account."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from accounts_support import sign_in_by_mail

from mailservers import SmtpServer
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo", movement="2d")
    return s


def _ann_playing_france(site: Site, smtp: SmtpServer) -> Any:
    france = site.player("demo", "France", "Ann")
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=france)
    key_id = c.get("/api/me").json()["keys_to_add"][0]["key_id"]
    r = site.post_form(c, "/me/seats/add", {"key_id": str(key_id)})
    assert r.status_code == 303, r.text
    return c


def test_a_held_seat_is_added_to_the_account_and_shows_what_it_waits_for(site: Site, smtp: SmtpServer) -> None:
    c = _ann_playing_france(site, smtp)
    me = c.get("/api/me").json()
    assert me["keys_to_add"] == []
    [seat] = me["seats"]
    assert (seat["game"], seat["power"], seat["phase"], seat["orders"]) == (
        "demo",
        "France",
        "Spring 1901 Movement",
        "missing",
    )
    assert seat["deadline"] and seat["url"] == "/games/demo/play/France"
    page = c.get("/me").text
    assert 'href="/games/demo/play/France"' in page and "<strong>missing</strong>" in page
    assert f'data-local="{seat["deadline"]}"' in page  # shown in the viewer's own time zone by app.js
    site.post_form(c, "/games/demo/play/France/orders", {"orders": "A par - bur\nA mar - spa\nF bre - mao"})
    assert c.get("/api/me").json()["seats"][0]["orders"] == "in"


def test_a_seat_on_the_account_opens_its_page_in_a_browser_that_never_held_its_key(
    site: Site, smtp: SmtpServer
) -> None:
    _ann_playing_france(site, smtp)
    phone = sign_in_by_mail(site, smtp, "ann@example.org")
    assert phone.get("/games/demo/play/France").status_code == 200
    assert phone.get("/api/me").json()["seats"][0]["power"] == "France"


def test_a_seat_on_another_persons_account_is_not_taken_by_its_old_link(site: Site, smtp: SmtpServer) -> None:
    key = site.seat("demo", "France", "Ann")
    ann = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=site.browser(key))
    site.post_form(ann, "/me/seats/add", {"key_id": str(ann.get("/api/me").json()["keys_to_add"][0]["key_id"])})
    bo = sign_in_by_mail(site, smtp, "bo@example.org", name="Bo", browser=site.browser(key))
    key_id = bo.get("/api/me").json()["keys_to_add"][0]["key_id"]
    r = site.post_form(bo, "/me/seats/add", {"key_id": str(key_id)})
    assert r.status_code == 400 and "on another person" in r.text
    assert bo.get("/api/me").json()["seats"] == []


def test_a_key_the_browser_does_not_hold_cannot_be_added(site: Site, smtp: SmtpServer) -> None:
    site.seat("demo", "England", "Someone")
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    for key_id in ("1", "2", "0", "-1", "x"):
        r = site.post_form(c, "/me/seats/add", {"key_id": key_id})
        assert r.status_code in (400, 403), (key_id, r.text)
    assert c.get("/api/me").json()["seats"] == []


def test_a_key_number_is_read_in_ascii_digits_only(site: Site, smtp: SmtpServer) -> None:
    """The key's number is read by the project's number reader (issue 52): ``int()`` read the Arabic-Indic
    digits of a held key's number as that number, and '0_7' as 7."""
    france = site.player("demo", "France", "Ann")
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=france)
    key_id = c.get("/api/me").json()["keys_to_add"][0]["key_id"]
    arabic = str(key_id).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    for typed in (arabic, f" {arabic} ", f"0_{key_id}"):
        r = site.post_form(c, "/me/seats/add", {"key_id": typed})
        assert r.status_code == 400 and "key_id must be the number of a key this browser holds" in r.text, typed
    assert c.get("/api/me").json()["seats"] == []


def test_the_coordinator_key_still_coordinates_and_is_listed(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "co@example.org", name="Co", browser=site.coordinator)
    assert c.get("/api/me").json()["coordinates"] == [""]
    assert c.get("/games/demo/coordinate").status_code == 200


def test_the_calendar_feed_lists_every_deadline_and_its_address_can_be_renewed_and_revoked(
    site: Site, smtp: SmtpServer
) -> None:
    site.new_game("other", movement="3d")
    c = _ann_playing_france(site, smtp)
    key = site.seat("other", "Turkey", "Ann")
    c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"})
    kid = next(k for k in c.get("/api/me").json()["keys_to_add"] if k["game"] == "other")["key_id"]
    site.post_form(c, "/me/seats/add", {"key_id": str(kid)})
    page = site.post_form(c, "/me/calendar", {"action": "renew"})
    m = re.search(r"http://testserver(/me/calendar/dc_[A-Za-z0-9_-]+\.ics)", page.text)
    assert m, page.text
    anyone = site.browser()
    feed = anyone.get(m.group(1))
    assert feed.status_code == 200 and feed.headers["content-type"].startswith("text/calendar")
    text = feed.text.replace("\r\n ", "")
    assert "France: " in text and "Turkey: " in text and text.count("BEGIN:VEVENT") >= 4
    assert "Spring 1901 Movement" in text
    again = site.post_form(c, "/me/calendar", {"action": "renew"})
    m2 = re.search(r"http://testserver(/me/calendar/dc_[A-Za-z0-9_-]+\.ics)", again.text)
    assert m2 and m2.group(1) != m.group(1)
    assert anyone.get(m.group(1)).status_code == 404
    assert anyone.get(m2.group(1)).status_code == 200
    site.post_form(c, "/me/calendar", {"action": "revoke"})
    assert anyone.get(m2.group(1)).status_code == 404
    r = site.post_form(c, "/me/calendar", {"action": "explode"})
    assert r.status_code == 400 and "use &#39;renew&#39;" in r.text


def test_the_coordinator_seats_a_person_by_their_address(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    r = site.post_form(
        site.coordinator,
        "/games/demo/coordinate/assign",
        {"power": "Italy", "player": "Ann", "email": "ANN@example.org"},
    )
    assert r.status_code == 200, r.text
    assert [s["power"] for s in c.get("/api/me").json()["seats"]] == ["Italy"]
    assert c.get("/games/demo/play/Italy").status_code == 200


def test_a_signed_in_person_opening_a_player_link_is_offered_the_seat(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    key = site.seat("demo", "Russia", "Ann")
    r = c.get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/me#add-seats"
    page = c.get("/me").text
    assert "Add this seat to my account" in page and "Russia in demo" in page
    # Without a person, the link goes to the power's page as before.
    r = site.browser().get(f"/k/{key}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.headers["location"] == "/games/demo/play/Russia"
