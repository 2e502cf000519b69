"""`dippouch serve` alone (the embedded default: no worker) sends its mail: a sign-in link asked for on the site
arrives at the mail server set up for it, points at the site's address, and signs the person in. The server,
the SMTP server and the browser's requests are real; the scheduler is the server's own."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx

from mailservers import SmtpServer
from servesupport import mail_env, serving


def _csrf(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m, page[:500]
    return m.group(1)


def test_a_server_alone_mails_the_sign_in_link_and_the_link_works(tmp_path: Path, smtp: SmtpServer) -> None:
    with serving(tmp_path, mail_env(smtp, "games@dippouch.example")) as served:
        base = served.base
        with httpx.Client(base_url=base, timeout=30) as browser:
            page = browser.get("/signin")
            r = browser.post("/signin/mail", data={"csrf": _csrf(page.text), "email": "ann@example.org"})
            assert r.status_code == 200, r.text
            deadline = time.monotonic() + 30
            while not smtp.to("ann@example.org"):
                assert time.monotonic() < deadline, "no mail arrived within 30 s"
                time.sleep(0.1)
            body = smtp.to("ann@example.org")[-1].get_body(preferencelist=("plain",))
            assert body is not None
            link = re.search(rf"{re.escape(base)}(/signin/link/dl_[\w-]+)", body.get_content())
            assert link, body.get_content()
            page = browser.get(link.group(1))
            assert page.status_code == 200
            r = browser.post(link.group(1), data={"csrf": _csrf(page.text), "name": "Ann"}, follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == "/me", r.text
            assert browser.get("/api/me").json()["name"] == "Ann"
