"""Sign-in links from the attacker's side, the smaller points of the security review (finding 12 and the note
under finding 1): one address in two spellings, an older link after a newer one was used, and a stranger's
words in the sign-up mail."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from accounts_support import LINK, ask_link, deliver, link_in, sign_in_by_mail

from mailservers import SmtpServer
from websupport import Site


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def test_a_trailing_dot_is_the_same_address_for_the_limit_and_the_account(site: Site, smtp: SmtpServer) -> None:
    c = site.browser()
    for spelling in ("ann@example.org", "ann@example.org.", "ann@EXAMPLE.org.", "ann@example.org", "ann@example.org"):
        assert ask_link(site, c, spelling, "Ann").status_code == 200
    r = ask_link(site, site.browser(), "ann@example.org.", "Ann")
    assert r.status_code == 429 and "this address" in r.text
    deliver(site, smtp)
    assert len(smtp.to("ann@example.org")) == 5 and smtp.to("ann@example.org.") == []
    for bad in ("ann@example..org", "ann@.example.org", "ann@example.org.."):
        r = ask_link(site, site.browser(), bad, "Ann")
        assert r.status_code == 400 and "is not an e-mail address" in r.text, bad


def test_using_a_newer_link_ends_the_older_ones(site: Site, smtp: SmtpServer) -> None:
    sign_in_by_mail(site, smtp, "bob@example.org", name="Bob")
    c = site.browser()
    assert ask_link(site, c, "bob@example.org").status_code == 200
    deliver(site, smtp)
    older = link_in(smtp, "bob@example.org")
    assert ask_link(site, c, "bob@example.org").status_code == 200
    deliver(site, smtp)
    newer = link_in(smtp, "bob@example.org")
    assert older != newer
    assert site.post_form(c, newer, {}).status_code == 303
    thief = site.browser()
    r = site.post_form(thief, older, {})
    assert r.status_code == 404 and "used already" in r.text
    assert thief.get("/api/me").status_code != 200


def test_the_sign_up_mail_does_not_carry_the_askers_words(site: Site, smtp: SmtpServer) -> None:
    lure = "URGENT your account is suspended call +1 555 0100 or visit evil dot example"
    assert ask_link(site, site.browser(), "carol@example.org", lure).status_code == 200
    deliver(site, smtp)
    body = smtp.to("carol@example.org")[-1].get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    assert LINK.search(text) and "URGENT" not in text and "555" not in text
    assert re.search(r"^Hello,\r?$", text, re.M)
