"""A mailed link opened where the person is not signed in (the players' trial: "Not allowed - you are not signed in
as Germany in evening7: open the link to your seat", a dead end on a phone): the page offers to sign in there, and
signing in, by a mailed link or a passkey, lands on the page the link named. From the attacker's side: the page
to come back to is only ever a page of this site."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from dippouch.store.people import accounts as store_accounts
from dippouch.store.people.persons import create_person
from dippouch.web.http.deps import local_page
from websupport import Site

PLAY = "/games/evening7/play/Germany"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("evening7")
    pid = create_person(s.web.store, "Gerda", now=s.clock(), email="gerda@example.org")
    key = s.seat("evening7", "Germany", "Gerda")
    store_accounts.claim_seat(s.web.store, "evening7", "Germany", pid, now=s.clock())
    assert key
    return s


def _mailed_link(site: Site) -> str:
    """The sign-in link the site mails Gerda (its token), asked for as a person does on the sign-in page."""
    tokens: list[str] = []

    def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
        tokens.append(token)
        return "sign in", token

    store_accounts.create_signin_link(site.web.store, "gerda@example.org", now=site.clock(), compose=compose)
    return tokens[0]


def test_a_mailed_link_on_another_device_offers_to_sign_in_and_lands_on_its_page(site: Site) -> None:
    phone = site.browser()
    r = phone.get(PLAY)
    assert r.status_code == 403
    go_on = f'href="/signin?next={PLAY}"'
    assert go_on in r.text and "Sign in to go on" in r.text
    r = phone.get(f"/signin?next={quote(PLAY, safe='')}")
    assert r.status_code == 200
    token = _mailed_link(site)
    page = phone.get(f"/signin/link/{token}")
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = phone.post(f"/signin/link/{token}", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == PLAY, r.headers
    assert phone.get(PLAY).status_code == 200  # the seat's page, signed in on the phone
    # Once: a later sign-in goes to the account page as before.
    phone.cookies.clear()
    token = _mailed_link(site)
    page = phone.get(f"/signin/link/{token}")
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = phone.post(f"/signin/link/{token}", data={"csrf": csrf}, follow_redirects=False)
    assert r.headers["location"] == "/me"


def test_a_signed_in_person_is_not_offered_to_sign_in_again(site: Site) -> None:
    other = create_person(site.web.store, "Otto", now=site.clock(), email="otto@example.org")
    c = site.browser()
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=other))
    r = c.get(PLAY)
    assert r.status_code == 403 and "Sign in to go on" not in r.text


def test_the_visitor_of_a_page_for_people_is_asked_to_sign_in(site: Site) -> None:
    r = site.browser().get("/new-game")
    assert r.status_code == 401 and 'href="/signin?next=/new-game"' in r.text and "Sign in first" in r.text


@pytest.mark.parametrize(
    "elsewhere", ["//evil.example/x", "https://evil.example/", "/\\evil.example", "me", "/a\nb", "/" + "x" * 2001]
)
def test_only_a_page_of_this_site_is_where_signing_in_ends(site: Site, elsewhere: str) -> None:
    assert local_page(elsewhere) is None
    phone = site.browser()
    phone.get(f"/signin?next={quote(elsewhere, safe='')}")
    token = _mailed_link(site)
    page = phone.get(f"/signin/link/{token}")
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = phone.post(f"/signin/link/{token}", data={"csrf": csrf}, follow_redirects=False)
    assert r.headers["location"] == "/me"
    phone.cookies.set("dp_next", quote(elsewhere, safe=""))  # a cookie is the browser's to send: read as untrusted
    token = _mailed_link(site)
    page = phone.get(f"/signin/link/{token}")
    csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    r = phone.post(f"/signin/link/{token}", data={"csrf": csrf}, follow_redirects=False)
    assert r.headers["location"] == "/me"
