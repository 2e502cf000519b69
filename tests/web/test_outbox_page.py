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
