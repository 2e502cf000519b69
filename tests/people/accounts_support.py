"""What the account tests share: a site, its mail sent to the tests' real SMTP server, and a browser signed
in by the link read out of the delivered mail, as a person would."""

from __future__ import annotations

import re
from typing import Any

from dippouch.mail.outbox import send_due
from dippouch.mail.settings import ServerSettings
from mailservers import SmtpServer
from websupport import Site

LINK = re.compile(r"http://testserver(/signin/link/dl_[A-Za-z0-9_-]+)")


def smtp_settings(server: SmtpServer) -> ServerSettings:
    return ServerSettings(
        "smtp", host=server.host, port=server.port, security="none", sender="games@dippouch.example", timeout=5
    )


def deliver(site: Site, server: SmtpServer) -> None:
    """Send what the outbox holds, as the worker does on its timer."""
    report = send_due(site.web.store, site.clock(), smtp_settings(server))
    assert report.failed == [] and report.server_down is None, report


def link_in(server: SmtpServer, address: str) -> str:
    """The path of the newest sign-in link mailed to ``address``."""
    mails = server.to(address)
    assert mails, f"no mail to {address}: {[str(m['To']) for m in server.messages]}"
    body = mails[-1].get_body(preferencelist=("plain",))
    assert body is not None
    m = LINK.search(body.get_content())
    assert m, body.get_content()
    return m.group(1)


def ask_link(site: Site, browser: Any, email: str, name: str = "") -> Any:
    return site.post_form(browser, "/signin/mail", {"email": email, "name": name})


def sign_in_by_mail(site: Site, server: SmtpServer, email: str, name: str = "", browser: Any = None) -> Any:
    """A browser signed in (or signed up) by a link mailed to ``email``."""
    c = browser or site.browser()
    r = ask_link(site, c, email, name)
    assert r.status_code == 200, r.text
    deliver(site, server)
    path = link_in(server, email)
    page = c.get(path)
    assert page.status_code == 200, page.text
    r = site.post_form(c, path, {"name": name} if name else {})
    assert r.status_code == 303 and r.headers["location"] == "/me", r.text
    return c
