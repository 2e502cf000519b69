"""Signing up and in by a link mailed through the outbox to a real SMTP server: the link read out of the
delivered mail signs the browser in as the person, once, for a while; the page that asks says the same
whatever the address."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from accounts_support import ask_link, deliver, link_in, sign_in_by_mail

from dippouch import settings
from dippouch.store.people.persons import person_by_email
from mailservers import SmtpServer
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_sign_up_by_a_mailed_link_makes_the_person_and_signs_the_browser_in(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "Ann@Example.org", name="Ann Lee")
    me = c.get("/me")
    assert me.status_code == 200 and "Ann Lee" in me.text and "ann@example.org" in me.text
    p = person_by_email(site.web.store, "ann@example.org")
    assert p is not None and p.name == "Ann Lee"
    mail = smtp.to("ann@example.org")[0]
    assert mail["Subject"] == "Sign up to dippouch" and mail["Message-ID"]
    assert c.get("/api/me").json()["name"] == "Ann Lee"


def test_a_known_address_gets_a_sign_in_link_and_the_same_person(site: Site, smtp: SmtpServer) -> None:
    sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    again = sign_in_by_mail(site, smtp, "ANN@example.org")
    assert smtp.to("ann@example.org")[-1]["Subject"] == "Your dippouch sign-in link"
    assert again.get("/api/me").json()["name"] == "Ann"
    with site.web.store.engine.connect() as conn:  # closed at once: it holds SQLite's write lock while open
        assert conn.exec_driver_sql("select count(*) from people").scalar() == 1


def test_a_new_address_without_a_name_is_asked_for_one_when_the_link_is_used(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    ask_link(site, c, "bo@example.org")
    deliver(site, smtp)
    path = link_in(smtp, "bo@example.org")
    page = c.get(path)
    assert 'name="name"' in page.text and "Make your account" in page.text
    r = site.post_form(c, path, {})
    assert r.status_code == 400 and "give the name" in r.text
    r = site.post_form(c, path, {"name": "Bo"})  # the link was not spent by the refusal
    assert r.status_code == 303
    assert c.get("/api/me").json()["name"] == "Bo"


def test_a_link_works_once(site: Site, smtp: SmtpServer) -> None:
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    path = link_in(smtp, "ann@example.org")
    other = site.browser()
    assert other.get(path).status_code == 404
    r = site.post_form(other, path, {})
    assert r.status_code == 404 and "used already" in r.text
    assert other.get("/api/me").status_code == 401
    assert c.get("/api/me").status_code == 200


def test_a_link_expires_after_twenty_minutes(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    ask_link(site, c, "ann@example.org", "Ann")
    deliver(site, smtp)
    path = link_in(smtp, "ann@example.org")
    site.clock.advance(minutes=20, seconds=1)
    r = site.post_form(c, path, {})
    assert r.status_code == 404 and "expired" in r.text and "20 minutes" in r.text
    assert person_by_email(site.web.store, "ann@example.org") is None


def test_the_link_is_stored_only_as_a_hash_and_its_mail_forgets_it_once_used(site: Site, smtp: SmtpServer) -> None:
    """The links table keeps the SHA-256 only; the queued mail holds the token until it is sent, and loses it
    when the link is used."""
    c = site.browser()
    ask_link(site, c, "ann@example.org", "Ann")
    deliver(site, smtp)
    path = link_in(smtp, "ann@example.org")
    token = path.rsplit("/", 1)[1]
    with site.web.store.engine.connect() as conn:
        links = conn.exec_driver_sql("select * from signin_links").all()
        assert links and all(token not in str(row) for row in links)
        assert hashlib.sha256(token.encode()).hexdigest() in str(links)
    assert site.post_form(c, path, {}).status_code == 303
    site.web.store.engine.dispose()
    raw = Path(site.web.store.engine.url.database or "").read_bytes()
    assert token.encode() not in raw


def test_opening_the_link_does_not_sign_in_only_the_button_does(site: Site, smtp: SmtpServer) -> None:
    """A mail scanner fetching the link spends nothing and signs nobody in."""
    c = site.browser()
    ask_link(site, c, "ann@example.org", "Ann")
    deliver(site, smtp)
    path = link_in(smtp, "ann@example.org")
    scanner = site.browser()
    assert scanner.get(path).status_code == 200
    assert scanner.get(path).status_code == 200
    assert scanner.get("/api/me").status_code == 401
    assert site.post_form(c, path, {}).status_code == 303


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address(
    site: Site, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The site's mail is set up (else the page says the link waits in the outbox: tests/web/test_outbox_page.py).
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", smtp.host)
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@dippouch.example")
    settings.reread()
    sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    c = site.browser()
    known = ask_link(site, c, "ann@example.org")
    unknown = ask_link(site, c, "nobody@example.org")
    assert known.status_code == unknown.status_code == 200
    assert _same_but_csrf(known.text, unknown.text)
    assert "a link to sign in (or, for a new address, to sign up)" in known.text
    deliver(site, smtp)
    assert len(smtp.to("nobody@example.org")) == 1  # the unknown address gets a sign-up mail, not silence


def _same_but_csrf(a: str, b: str) -> bool:
    import re

    def norm(t: str) -> str:
        t = re.sub(r'value="m\.[^"]+"', "", t)
        t = re.sub(r'content="m\.[^"]+"', "", t)
        return t.replace("ann@example.org", "X").replace("nobody@example.org", "X")

    return norm(a) == norm(b)


def test_a_bad_address_is_refused_with_an_example(site: Site) -> None:
    r = ask_link(site, site.browser(), "not an address")
    assert r.status_code == 400 and "is not an e-mail address" in r.text and "example.org" in r.text


def test_signing_in_by_link_keeps_the_keys_the_browser_held(site: Site, smtp: SmtpServer) -> None:
    site.new_game("demo")
    france = site.player("demo", "France", "Ann")
    c = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann", browser=france)
    me = c.get("/api/me").json()
    assert [(k["game"], k["power"]) for k in me["keys_to_add"]] == [("demo", "France")]
    assert c.get("/games/demo/play/France").status_code == 200


def test_links_asked_for_one_address_are_limited(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    for _ in range(5):
        assert ask_link(site, c, "ann@example.org", "Ann").status_code == 200
    r = ask_link(site, site.browser(), "ANN@example.org", "Ann")
    assert r.status_code == 429 and "this address" in r.text and r.headers["Retry-After"]
    assert ask_link(site, c, "bo@example.org", "Bo").status_code == 200  # another address is not held up
    deliver(site, smtp)
    assert len(smtp.to("ann@example.org")) == 5


def test_links_asked_for_from_one_client_are_limited(site: Site) -> None:
    c = site.browser()
    for n in range(20):
        assert ask_link(site, c, f"p{n}@example.org", "P").status_code == 200
    r = ask_link(site, c, "one-more@example.org", "P")
    assert r.status_code == 429 and "sign-in links asked for from you" in r.text


def test_a_refused_name_does_not_spend_the_link(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    ask_link(site, c, "bo@example.org")
    deliver(site, smtp)
    path = link_in(smtp, "bo@example.org")
    r = site.post_form(c, path, {"name": "x" * 201})
    assert r.status_code == 400 and "at most 200 characters" in r.text
    assert site.post_form(c, path, {"name": "Bo"}).status_code == 303


def test_sign_up_sign_in_and_delete_on_either_database(db_url: str, smtp: SmtpServer) -> None:
    """The whole round on SQLite and PostgreSQL alike: sign up, sign in again elsewhere, the link spent, delete."""
    site = Site(db_url)
    first = sign_in_by_mail(site, smtp, "ann@example.org", name="Ann")
    used = link_in(smtp, "ann@example.org")
    second = sign_in_by_mail(site, smtp, "ann@example.org")
    assert second.get("/api/me").json()["name"] == "Ann"
    assert site.post_form(site.browser(), used, {}).status_code == 404
    assert site.post_form(first, "/me/delete", {"confirm": "delete"}).status_code == 303
    assert second.get("/api/me").status_code == 401
    site.web.store.close()
