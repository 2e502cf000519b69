"""Numbers a press request brings (a form's channel, the live stream's Last-Event-ID and ``after``) that are not
numbers the site could have given: each is refused with a 4xx that says what was wrong, never a 500 or a stream
cut after its head (superscript digits pass ``str.isdigit`` and fail ``int``; a 30-digit id overflows the
database's integers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dippouch.web.routes import press as web_press
from websupport import Site

HUGE = "9" * 30
P = "/api/games/demo/powers/England/press"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    # A stream that is wrongly opened ends within a second, not five minutes: the test fails, it does not hang.
    monkeypatch.setattr(web_press, "STREAM_LIFE", 1.0)
    monkeypatch.setattr(web_press, "STREAM_POLL", 0.2)
    s = Site(f"sqlite:///{tmp_path / 'web.db'}")
    s.new_game("demo")
    return s


@pytest.mark.parametrize("channel", ["\u00b2", "9" * 5000, "-3", "1e3"])
def test_the_compose_forms_channel_must_be_a_channel_number(site: Site, channel: str) -> None:
    en = site.player("demo", "England", "Ann")
    r = site.post_form(en, "/games/demo/play/England/press", {"channel": channel, "text": "hello"})
    assert r.status_code == 400, r.text
    assert "channel must be a whole number from 1 to" in r.text or "channel must be from 1 to" in r.text


def test_a_reply_into_a_channel_by_the_form_still_lands_there(site: Site) -> None:
    en = site.player("demo", "England", "Ann")
    channel = site.api(en, P, {"to": ["France"], "text": "first"}).json()["channel"]
    r = site.post_form(en, "/games/demo/play/England/press", {"channel": f" {channel} ", "text": "second"})
    assert (
        r.status_code == 303 and r.headers["location"] == f"/games/demo/play/England?thread={channel}#thread-{channel}"
    )
    page = en.get(f"{P}/channels/{channel}").json()
    assert [m["text"] for m in page["messages"]] == ["first", "second"]


@pytest.mark.parametrize("last", [b"\xb2", HUGE.encode(), b"-1", b"12x"])
def test_the_live_streams_last_event_id_must_be_a_message_id(site: Site, last: bytes) -> None:
    en = site.player("demo", "England", "Ann")
    r = en.get("/games/demo/play/England/press-events", headers={"Last-Event-ID": last})
    assert r.status_code == 400, r.text
    assert "the Last-Event-ID header must be" in r.text


@pytest.mark.parametrize("after", [HUGE, "-" + HUGE])
def test_the_live_streams_after_must_fit_the_databases_integers(site: Site, after: str) -> None:
    """The stream reads after its head is sent: a number the database refuses is refused before it (elsewhere
    the app answers such an overflow with a 400 of its own)."""
    en = site.player("demo", "England", "Ann")
    r = en.get(f"/games/demo/play/England/press-events?after={after}")
    assert r.status_code == 422, r.text[:300]
    assert "less than or equal to 9223372036854775807" in r.text or "greater than or equal to" in r.text
