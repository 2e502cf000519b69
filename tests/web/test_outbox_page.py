"""A fresh install with no mail server: the sign-in pages say plainly that no mail leaves, the link waits in the
outbox, and the installation's coordinator reads it there (and nobody else can); with a mail server set up the
pages say nothing of it (issue 40: "Sent to alice@example.org" and no mail, no outbox, no sign of why)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from dippouch import settings
from websupport import Site


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    for name in ("DIPPOUCH_SMTP_HOST", "DIPPOUCH_MAIL_FROM", "DIPPOUCH_MAIL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    settings.reread()
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_a_newcomer_is_told_no_mail_leaves_and_the_coordinator_reads_the_link(site: Site) -> None:
    newcomer = site.browser()
    page = newcomer.get("/signin")
    assert 'id="mail-off"' in page.text and "cannot send mail yet" in page.text
    r = site.post_form(newcomer, "/signin/mail", {"email": "ann@example.org", "name": "Ann"})
    assert r.status_code == 200
    text = " ".join(html.unescape(r.text).split())
    assert "waits in the site's outbox" in text and "Sent to" not in text
    home = site.coordinator.get("/coordinate")
    assert 'href="/coordinate/outbox"' in home.text and 'id="mail-off"' in home.text
    box = site.coordinator.get("/coordinate/outbox")
    assert box.status_code == 200 and box.headers["cache-control"] == "no-store"
    assert 'id="mail-setup"' in box.text and "DIPPOUCH_SMTP_HOST" in box.text
    link = re.search(r"http://testserver(/signin/link/dl_[\w-]+)", box.text)
    assert link, box.text
    # The coordinator passes the link on; it signs the newcomer in.
    assert newcomer.get(link.group(1)).status_code == 200
    r = site.post_form(newcomer, link.group(1), {"name": "Ann"})
    assert r.status_code == 303 and r.headers["location"] == "/me"


def test_only_the_installations_coordinator_reads_the_outbox(site: Site) -> None:
    site.new_game("g")
    _, game_key = site.web.access.create_key("coordinator", game="g", label="g's", now=site.clock())
    player = site.player("g", "France", "Fay")
    site.post_form(site.browser(), "/signin/mail", {"email": "bob@example.org"})
    for who, c in (("visitor", site.browser()), ("player", player), ("game coordinator", site.browser(game_key))):
        r = c.get("/coordinate/outbox")
        assert r.status_code == 403 and "signin/link" not in r.text, who


def test_with_a_mail_server_set_up_the_pages_say_nothing_of_it(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@example.org")
    settings.reread()
    c = site.browser()
    assert 'id="mail-off"' not in c.get("/signin").text
    r = site.post_form(c, "/signin/mail", {"email": "ann@example.org"})
    assert "Sent to ann@example.org" in r.text
    assert 'id="mail-setup"' not in site.coordinator.get("/coordinate/outbox").text
    assert 'id="mail-off"' not in site.coordinator.get("/coordinate").text


def _bodies(page: str) -> list[str]:
    return [html.unescape(b) for b in re.findall(r'<pre class="mail-body"[^>]*>(.*?)</pre>', page, re.S)]


def test_a_link_to_an_existing_account_is_never_shown(site: Site) -> None:
    """Security review of issue 52, finding 10: anyone asks a sign-in link for Jon's address, the installation's
    coordinator reads it on the Outbox and is signed in as Jon, and so reads Jon's sealed orders without the
    unsealing record docs/security.md promises. Even before mail is set up, a link to an existing account is
    hidden; a newcomer's is shown, as the fresh install needs."""
    from dippouch.store.people.persons import create_person

    create_person(site.web.store, "Jon", now=site.clock(), email="jon@example.org")
    site.post_form(site.browser(), "/signin/mail", {"email": "jon@example.org"})
    site.post_form(site.browser(), "/signin/mail", {"email": "ann@example.org", "name": "Ann"})
    box = site.coordinator.get("/coordinate/outbox")
    text = " ".join(html.unescape(box.text).split())
    links = re.findall(r"/signin/link/dl_[\w-]+", box.text)
    assert len(links) == 1, links  # Ann's, the newcomer's
    assert "to ann@example.org" in text and "to jon@example.org" in text
    assert "its link signs in to an existing person's account, and would let whoever opens it act as them" in text
    # The one link shown is Ann's: it makes her account, not a way into Jon's.
    newcomer = site.browser()
    r = site.post_form(newcomer, links[0], {"name": "Ann"})
    assert r.status_code == 303
    assert "Ann" in newcomer.get("/me").text


def test_once_mail_can_be_sent_no_link_is_shown(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@example.org")
    settings.reread()
    site.post_form(site.browser(), "/signin/mail", {"email": "ann@example.org", "name": "Ann"})
    box = site.coordinator.get("/coordinate/outbox")
    assert "to ann@example.org" in html.unescape(box.text)
    assert "/signin/link/" not in box.text and _bodies(box.text) == []
    assert "mail takes it to them alone now that the site can send mail" in html.unescape(box.text)


def test_orders_press_and_notifications_stay_their_addressees_results_are_shown(site: Site) -> None:
    """A receipt holds a player's orders and token, a press copy and a notification a message's words: sealed, or
    another's to read. Results, reminders and notices say nothing a coordinator may not read."""
    from dippouch.store.mail.outbox import queue_in

    mails = {
        "receipt": "France, version 1:\n  accepted  A Paris - Burgundy\nyour token for France is dp-abcdefghjk",
        "reply": "held: confirm 1234abcd",
        "press": "England to France: let us share Belgium",
        "notify": "England wrote in demo: let us share Belgium",
        "results": "Spring 1901 Movement: A Paris - Burgundy succeeds",
        "reminder": "No orders have been received for France yet.",
        "notice": "demo is paused.",
    }
    store = site.web.store
    with store.session() as s, s.begin():
        for kind, body in mails.items():
            queue_in(s, key=f"t:{kind}", to="fay@example.org", subject=kind, body=body, kind=kind, now=site.clock())
    box = site.coordinator.get("/coordinate/outbox").text
    assert sorted(_bodies(box)) == sorted(mails[k] for k in ("results", "reminder", "notice"))
    for secret in ("A Paris - Burgundy\nyour token", "dp-abcdefghjk", "confirm 1234abcd", "share Belgium"):
        assert secret not in html.unescape(box)
    assert html.unescape(box).count("for the addressee alone.") == 4 + 1  # four hidden, and the page's own note


def test_a_returning_persons_link_is_read_only_on_purpose_and_they_see_it_was(site: Site) -> None:
    """Without mail, the Outbox is the only way a returning person's link reaches them (one without a passkey
    could never sign in again): the coordinator may read it, one link at a time, and the reading is recorded on
    the link and shown on the person's account page, as an unsealing is shown to players."""
    from dippouch.store.people.persons import create_person

    create_person(site.web.store, "Jon", now=site.clock(), email="jon@example.org")
    site.post_form(site.browser(), "/signin/mail", {"email": "jon@example.org"})
    box = site.coordinator.get("/coordinate/outbox").text
    assert "/signin/link/" not in box
    show = re.search(r'action="(/coordinate/outbox/(\d+)/show)"', box)
    assert show, box
    r = site.post_form(site.coordinator, show.group(1))
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    links = re.findall(r"/signin/link/dl_[\w-]+", r.text)
    assert len(links) == 1
    # The page shows it only to the one who asked: a later look hides it again.
    assert "/signin/link/" not in site.coordinator.get("/coordinate/outbox").text
    jon = site.browser()
    assert site.post_form(jon, links[0]).status_code == 303
    me = jon.get("/me")
    assert 'id="links-read"' in me.text and "read a sign-in link to your address" in html.unescape(me.text)
    assert len(jon.get("/api/me").json()["links_read"]) == 1


def test_reading_a_link_is_refused_once_mail_can_be_sent_and_for_anything_but_a_link(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dippouch.store.mail.outbox import queue_in
    from dippouch.store.mail.queues import recent_mail
    from dippouch.store.people.persons import create_person

    store = site.web.store
    create_person(store, "Jon", now=site.clock(), email="jon@example.org")
    site.post_form(site.browser(), "/signin/mail", {"email": "jon@example.org"})
    with store.session() as s, s.begin():
        queue_in(
            s,
            key="t:receipt",
            to="jon@example.org",
            subject="r",
            body="your token dp-x",
            kind="receipt",
            now=site.clock(),
        )
    by_kind = {m.kind: m.id for m in recent_mail(store)}
    for bad in (str(by_kind["receipt"]), "999999", "²", "-1", "x" * 300):
        r = site.post_form(site.coordinator, f"/coordinate/outbox/{bad}/show")
        assert r.status_code == 400 and "dp-x" not in r.text, bad
        assert "no sign-in link's mail" in html.unescape(r.text), bad
    link = f"/coordinate/outbox/{by_kind['signin']}/show"
    site.new_game("g0")
    for who, c in (("visitor", site.browser()), ("player", site.player("g0", "France", "Fay"))):
        r = site.post_form(c, link)
        assert r.status_code == 403 and "/signin/link/" not in r.text, who
    r = site.coordinator.post(link, data={"csrf": "m.forged"})
    assert r.status_code == 403 and "/signin/link/" not in r.text
    monkeypatch.setenv("DIPPOUCH_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("DIPPOUCH_MAIL_FROM", "games@example.org")
    settings.reread()
    r = site.post_form(site.coordinator, link)
    assert r.status_code == 400 and "/signin/link/" not in r.text
    assert "This site sends mail now" in html.unescape(r.text)
