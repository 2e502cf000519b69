"""The live press stream (server-sent events) outlives the request that opened it: it must stop soon after its
grant is gone (a key revoked, a session signed out), and send nothing that arrived after that."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dippouch.web.routes import press as web_press
from websupport import Site

FRANCE = "/api/games/demo/powers/France/press"
STREAM = "/games/demo/play/England/press-events"
ENDS_WITHIN = 30.0
"""Seconds the test waits for the stream to end: far above the few seconds it takes, far below its life."""


@pytest.fixture
def site(tmp_path: Path) -> Site:
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


class Listener:
    """A stream read in its own thread (the test client answers when the stream ends)."""

    def __init__(self, get: Any) -> None:
        self.body = ""
        self.status = 0
        self.done = threading.Event()
        self._get = get
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        r = self._get()
        self.status, self.body = r.status_code, r.text
        self.done.set()


def _wait_for(cond: Any, what: str, within: float = ENDS_WITHIN) -> None:
    end = time.monotonic() + within
    while not cond():
        assert time.monotonic() < end, what
        time.sleep(0.1)


def _england_hears(site: Site, fr: Any, text: str) -> None:
    r = site.api(fr, FRANCE, {"to": ["England"], "text": text})
    assert r.status_code == 200, r.text


def test_a_revoked_key_ends_its_stream_and_nothing_after_the_revocation_is_sent(site: Site) -> None:
    assert web_press.STREAM_LIFE > 2 * ENDS_WITHIN  # else the stream's own end would pass the test
    secret = site.seat("demo", "England", "Eve")
    fr = site.player("demo", "France")
    bot = site.browser()
    auth = {"Authorization": f"Bearer {secret}"}
    _england_hears(site, fr, "before")
    listener = Listener(lambda: bot.get(STREAM, headers=auth))
    key_id = next(k.id for k in site.web.access.keys("demo") if k.power == "England")
    # The stream is running: the message sent before reaches the bot; then the key is revoked.
    time.sleep(2 * web_press.STREAM_POLL)
    assert not listener.done.is_set()
    site.web.access.revoke_key(key_id, now=site.clock(), game="demo")
    _england_hears(site, fr, "after the revocation")
    _wait_for(listener.done.is_set, "the stream of a revoked key kept running")
    assert listener.status == 200
    assert '"text": "before"' in listener.body
    assert "after the revocation" not in listener.body
    assert listener.body.rstrip().endswith("event: denied\ndata: {}")
    # The browser's reconnect is refused.
    assert bot.get(STREAM, headers=auth).status_code == 403


def test_signing_out_ends_the_sessions_stream(site: Site) -> None:
    en = site.player("demo", "England")
    fr = site.player("demo", "France")
    listener = Listener(lambda: en.get(STREAM))
    time.sleep(2 * web_press.STREAM_POLL)
    assert not listener.done.is_set()
    # Signed out from another tab of the same browser (its cookies).
    other = site.browser()
    other.cookies.update(en.cookies)
    r = site.post_form(other, "/signout")
    assert r.status_code == 303
    _england_hears(site, fr, "after signing out")
    _wait_for(listener.done.is_set, "the stream of a signed-out session kept running")
    assert "after signing out" not in listener.body
    assert "event: denied" in listener.body
    assert en.get(STREAM).status_code in (401, 403)
