"""`dippouch serve` alone (the embedded default: no worker) sends its mail: a sign-in link asked for on the site
arrives at the mail server set up for it, points at the site's address, and signs the person in. The server,
the SMTP server and the browser's requests are real; the scheduler is the server's own."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from mailservers import SmtpServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _csrf(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m, page[:500]
    return m.group(1)


def test_a_server_alone_mails_the_sign_in_link_and_the_link_works(tmp_path: Path, smtp: SmtpServer) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "DIPPOUCH_DATABASE_URL": f"sqlite:///{tmp_path / 's.db'}",
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "games@dippouch.example",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from dippouch.cli import main; main()",
            "serve",
            "--port",
            str(port),
            "--interval",
            "0.5",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )
    try:
        base = f"http://localhost:{port}"
        with httpx.Client(base_url=base, timeout=5) as browser:
            deadline = time.monotonic() + 30
            while True:
                try:
                    page = browser.get("/signin")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "the server did not answer within 30 s"
                    time.sleep(0.2)
            r = browser.post("/signin/mail", data={"csrf": _csrf(page.text), "email": "ann@example.org"})
            assert r.status_code == 200, r.text
            deadline = time.monotonic() + 30
            while not smtp.to("ann@example.org"):
                assert time.monotonic() < deadline, "no mail arrived within 30 s"
                time.sleep(0.2)
            body = smtp.to("ann@example.org")[-1].get_body(preferencelist=("plain",))
            assert body is not None
            link = re.search(rf"{re.escape(base)}(/signin/link/dl_[\w-]+)", body.get_content())
            assert link, body.get_content()
            page = browser.get(link.group(1))
            assert page.status_code == 200
            r = browser.post(link.group(1), data={"csrf": _csrf(page.text), "name": "Ann"}, follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == "/me", r.text
            assert browser.get("/api/me").json()["name"] == "Ann"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=30)
