"""Links come from the installation's public address, never from a request's headers, and a request for
another host is refused (security review, finding 1: a sign-in link asked for with ``Host: evil.example``
was mailed to Bob pointing at evil.example, and its token signed the attacker in as Bob)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from accounts_support import ask_link, deliver, sign_in_by_mail

from dippouch.core.errors import DippouchError
from dippouch.settings import Site as InstallationSite
from mailservers import SmtpServer
from servesupport import TLS
from websupport import Site

PUBLIC = "https://dip.example.org"


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


@pytest.fixture
def public_site(site: Site) -> Site:
    """The same site configured at PUBLIC, also answering the test client's host (as a second name would)."""
    site.app.state.site = InstallationSite.at(PUBLIC, "testserver")
    return site


def _outbox(site: Site) -> list[str]:
    with site.web.store.engine.connect() as conn:
        return [str(r[0]) for r in conn.exec_driver_sql("select body from mail_outbox")]


def test_a_request_for_another_host_is_refused_and_nothing_is_mailed(site: Site, smtp: SmtpServer) -> None:
    sign_in_by_mail(site, smtp, "bob@example.org", name="Bob")
    attacker = site.browser()
    before = len(_outbox(site))
    evil = {"Host": "evil.example"}
    r = attacker.get("/signin", headers=evil)
    assert r.status_code == 400 and "does not answer for host 'evil.example'" in r.json()["error"]
    assert "http://testserver" in r.json()["error"]  # the closest valid: the site's own address
    r = attacker.post("/signin/mail", data={"csrf": site.csrf(attacker), "email": "bob@example.org"}, headers=evil)
    assert r.status_code == 400
    assert len(_outbox(site)) == before
    for bad in (b"evil.example:80", b"testserver.evil.example", b"[::1]", b"", b"testserver\xe9", b"testserver:evil"):
        assert attacker.get("/", headers={"Host": bad}).status_code == 400, bad
    # the site's own name in other spellings is the site
    for good in ("testserver", "TESTSERVER", "testserver.", "testserver:8000"):
        assert attacker.get("/", headers={"Host": good}).status_code == 200, good


def test_a_host_allowed_once_is_not_allowed_under_another_site(site: Site) -> None:
    """The host check keeps the ``Host`` values it allowed (web.http.middleware.Hosts): kept for the site that allowed
    them only, and never a refused one, however often it is asked."""
    c = site.browser()
    for _ in range(3):
        assert c.get("/", headers={"Host": "testserver"}).status_code == 200
        assert c.get("/", headers={"Host": "evil.example"}).status_code == 400
    for i in range(40):  # more names than are kept: each still decided by the site
        name = "testserver" if i % 2 else f"other{i}.example"
        assert c.get("/", headers={"Host": name}).status_code == (200 if i % 2 else 400), name
    site.app.state.site = InstallationSite.at(PUBLIC)  # the site moves: its old name is no longer its own
    assert c.get("/", headers={"Host": "testserver"}).status_code == 400
    assert c.get("/", headers={"Host": "dip.example.org"}).status_code == 200


def test_a_mailed_sign_in_link_names_the_public_address_whatever_the_headers(
    public_site: Site, smtp: SmtpServer
) -> None:
    site = public_site
    c = site.browser()
    forged = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http", "Forwarded": "host=evil.example"}
    r = site.post_form(c, "/signin/mail", {"email": "bob@example.org", "name": "Bob"}, headers=forged)
    assert r.status_code == 200, r.text
    deliver(site, smtp)
    body = smtp.to("bob@example.org")[-1].get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content()
    assert re.search(rf"{re.escape(PUBLIC)}/signin/link/dl_[\w-]+", text), text
    assert "evil" not in text and "testserver" not in text


def test_player_and_coordinator_links_name_the_public_address(public_site: Site) -> None:
    site = public_site
    r = site.post_form(site.coordinator, "/games/demo/coordinate/assign", {"power": "France", "player": "Fay"})
    assert r.status_code == 200, r.text
    assert f'value="{PUBLIC}/k/dp_' in r.text and "http://testserver/k/" not in r.text
    r = site.api(site.coordinator, "/api/games/demo/players", {"power": "England", "player": "Ed"})
    assert r.status_code in (200, 201), r.text
    assert r.json()["link"].startswith(f"{PUBLIC}/k/dp_")


def test_calendar_and_passkey_bind_to_the_public_address(public_site: Site, smtp: SmtpServer) -> None:
    site = public_site
    # sign in through the test client's own name; the link in the mail is the public address's
    c = site.browser()
    assert ask_link(site, c, "ann@example.org", "Ann").status_code == 200
    deliver(site, smtp)
    body = smtp.to("ann@example.org")[-1].get_body(preferencelist=("plain",))
    assert body is not None
    m = re.search(rf"{re.escape(PUBLIC)}(/signin/link/dl_[\w-]+)", body.get_content())
    assert m, body.get_content()
    assert c.get(m.group(1)).status_code == 200
    r = site.post_form(c, m.group(1), {"name": "Ann"})
    assert r.status_code == 303, r.text
    page = site.post_form(c, "/me/calendar", {"action": "renew"})
    assert re.search(rf'value="{re.escape(PUBLIC)}/me/calendar/dc_[\w-]+\.ics"', page.text), page.text
    options = site.api(c, "/api/me/passkeys/options", {}).json()["options"]
    assert options["rp"]["id"] == "dip.example.org"


@pytest.mark.parametrize(
    ("url", "hosts", "words"),
    [
        ("dip.example.org", None, "not a web address"),
        ("ftp://dip.example.org", None, "not a web address"),
        ("https://dip.example.org/?next=evil", None, "query"),
        ("https://user@dip.example.org", None, "user name"),
        ("https://dip.example.org:http", None, "port"),
        ("https://dip.example.org", "*", "may not be '*'"),
        ("https://example.org/diplomacy", None, "has a path (/diplomacy)"),
        ("https://example.org:8443/dip/", None, "give https://example.org:8443, or a host of its own"),
    ],
)
def test_a_bad_public_address_setting_says_what_is_wrong(url: str, hosts: str | None, words: str) -> None:
    with pytest.raises(DippouchError, match=re.escape(words)):
        InstallationSite.at(url, hosts)


def test_which_hosts_a_site_answers() -> None:
    s = InstallationSite.at("https://dip.example.org/", "www.dip.example.org, *.games.example.org")
    assert s.public_url == "https://dip.example.org" and s.link("/k/x") == "https://dip.example.org/k/x"
    assert s.origin == "https://dip.example.org" and s.host == "dip.example.org" and s.https
    for ok in (
        "dip.example.org",
        "DIP.example.org.",
        "dip.example.org:443",
        "www.dip.example.org",
        "a.games.example.org",
    ):
        assert s.allows(ok), ok
    for bad in ("evil.example", "dip.example.org.evil.example", "localhost", "127.0.0.1", "games.example.org", ""):
        assert not s.allows(bad), bad
    local = InstallationSite.at("http://localhost:8000")
    for ok in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "localhost"):
        assert local.allows(ok), ok
    assert not local.allows("evil.example:8000")
    # Nothing but a port's digits after the host (RFC 9110 7.2): the rest of a header is attacker input too.
    for bad in ("localhost:evil", "localhost:80x", "localhost: 8000", "[::1]junk", "[::1:8000", "localhost:８０"):
        assert not local.allows(bad), bad
    assert local.allows("localhost:") and local.allows("[::1]")  # an empty port is allowed by the grammar


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from dippouch.cli import main; main()", "serve", "--port", str(port)],
        env={**os.environ, "DIPPOUCH_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}", **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )
    return proc, port


def _wait(port: int, headers: dict[str, str]) -> Any:
    deadline = time.monotonic() + 30
    while True:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/", headers=headers, timeout=2, verify=TLS)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the server did not answer within 30 s"
            time.sleep(0.2)


def test_serve_makes_its_links_from_the_configured_address_and_refuses_other_hosts(tmp_path: Path) -> None:
    proc, port = _serve(tmp_path, {"DIPPOUCH_PUBLIC_URL": PUBLIC + "/"})
    try:
        assert _wait(port, {"Host": "dip.example.org"}).status_code == 200
        assert _wait(port, {"Host": "evil.example"}).status_code == 400
        assert _wait(port, {"Host": f"127.0.0.1:{port}"}).status_code == 400  # not a name of this site
        link = (tmp_path / "dippouch-coordinator-link.txt").read_text()
        assert link.startswith(f"{PUBLIC}/k/dp_"), link
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert f"at {PUBLIC}/" in out, out


def test_serve_refuses_a_public_address_that_is_not_one(tmp_path: Path) -> None:
    proc, _ = _serve(tmp_path, {"DIPPOUCH_PUBLIC_URL": "dip.example.org"})
    out = proc.communicate(timeout=60)[0]
    assert proc.returncode != 0
    assert "DIPPOUCH_PUBLIC_URL 'dip.example.org' is not a web address" in out and "Traceback" not in out
