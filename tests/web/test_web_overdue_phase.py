"""A phase whose deadline has passed but which is not processed yet, as players and followers see it.

With the automation on, a W3K phase with photographed revisions waits at its deadline for the coordinator's
review (docs/mail.md, section 7), for as long as the coordinator takes. A player who came back then saw the
old phase's order form as before, a countdown saying only "deadline passed" and nothing about why nothing
happened (found walking a season with a real worker: tests/web/test_season_walk_worker_browser.py). The
pages and the API now say what the phase waits for, and the order form that orders sent now are late.
"""

from __future__ import annotations

import email.utils
import time
from email.message import EmailMessage
from urllib.parse import unquote

import pytest
from prometheus_client import REGISTRY

from dippouch.mail.intake import take_in
from dippouch.web.http.service import PAGE_TTL
from photosupport import photo
from websupport import Site, check_api_answer

FRANCE = "france@example.org"


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proof of the sender is tested in test_mail_proof.py; here the registered address is enough."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


def _photo_mail() -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = FRANCE, "orders@dip.example", "g - France - Spring 1901 Movement - v2"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content("")
    m.add_attachment(photo(["A par - bur"]), maintype="image", subtype="jpeg", filename="orders.jpg")
    return m.as_bytes()


@pytest.fixture
def site(db_url: str) -> Site:
    s = Site(db_url)
    s.new_game("g")
    r = s.api(s.coordinator, "/api/games/g/players", {"power": "France", "player": "Fran", "email": FRANCE})
    assert r.status_code == 200, r.text
    return s


def _api_overdue(site: Site) -> object:
    r = site.browser().get("/api/games/g")
    assert r.status_code == 200
    check_api_answer(r)
    return r.json().get("overdue")


def test_a_phase_awaiting_review_says_so_to_players_and_followers(site: Site) -> None:
    italy = site.player("g", "Italy", "Ines")
    assert take_in(site.web.store, _photo_mail(), now=site.clock()).status == "photo"
    before = italy.get("/games/g/play/Italy").text
    assert "Deadline passed" not in before and 'id="late-note"' not in before
    assert _api_overdue(site) is None

    site.clock.advance(days=13)
    game = site.browser().get("/games/g").text
    assert "Deadline passed" in game
    assert "Awaiting the coordinator's review of the orders mailed for Spring 1901 Movement" in game
    page = italy.get("/games/g/play/Italy").text
    assert 'id="late-note"' in page
    assert "awaits the coordinator's review of mailed orders" in page
    assert "count only if the coordinator extends the deadline" in page
    assert _api_overdue(site) == "review"
    # What the note says is what happens: orders sent now are recorded as late.
    r = site.post_form(italy, "/games/g/play/Italy/orders", {"orders": "A ven H", "phase": "Spring 1901 Movement"})
    assert r.status_code == 303
    assert "arrived after the deadline and does not count" in unquote(r.headers.get("set-cookie", ""))


def test_a_phase_past_its_deadline_waiting_for_the_worker_says_so(site: Site) -> None:
    italy = site.player("g", "Italy", "Ines")
    site.clock.advance(days=13)
    game = site.browser().get("/games/g").text
    assert "Deadline passed" in game and "Spring 1901 Movement is waiting to be processed" in game
    assert "review" not in game.split('id="overdue"', 1)[1].split("</p>", 1)[0]
    page = italy.get("/games/g/play/Italy").text
    assert 'id="late-note"' in page and "awaits the coordinator" not in page
    assert _api_overdue(site) == "processing"
    # Processed: the next phase has a deadline of its own again.
    r = site.post_form(site.coordinator, "/games/g/coordinate/process", {"confirm": "yes"})
    assert r.status_code in (200, 303), r.text
    assert _api_overdue(site) is None
    assert 'id="late-note"' not in italy.get("/games/g/play/Italy").text


def _made() -> float:
    """Visitors' pages made in this process so far (``dippouch_shared_pages_total``, as /metrics says it)."""
    return REGISTRY.get_sample_value("dippouch_shared_pages_total", {"kind": "page", "source": "made"}) or 0.0


def test_a_visitors_page_is_kept_across_its_deadline_and_shows_the_box_the_moment_calls_for(site: Site) -> None:
    """The page is made once for its phase: past the deadline it is not made again (the phase is processed a
    second later, and its page made again then anyway); the box says what the phase waits for as it is served:
    the coordinator's review (game g, a photograph mailed) or processing (game h)."""
    site.new_game("h")
    assert take_in(site.web.store, _photo_mail(), now=site.clock()).status == "photo"
    visitor = site.browser()
    before = {g: visitor.get(f"/games/{g}") for g in ("g", "h")}
    for page in before.values():
        assert "Deadline passed" not in page.text and 'class="countdown"' in page.text
        assert "<!--dp:" not in page.text  # the other forms are never sent
    made = _made()

    site.clock.advance(days=13)
    time.sleep(PAGE_TTL + 0.1)  # past the second a process serves a visitor's page from memory unasked
    due = {g: visitor.get(f"/games/{g}") for g in ("g", "h")}
    assert _made() == made, "made again when its deadline passed"
    for g, page in due.items():
        assert page.headers["ETag"] != before[g].headers["ETag"]  # a browser's copy from before is not confirmed
        assert "<!--dp:" not in page.text and 'class="countdown"' not in page.text
        assert page.text.count('class="deadline') == 1
    review = due["g"].text.split('id="overdue"', 1)[1].split("</p>", 1)[0]
    assert "Awaiting the coordinator's review of the orders mailed for Spring 1901 Movement" in review
    processing = due["h"].text.split('id="overdue"', 1)[1].split("</p>", 1)[0]
    assert "Spring 1901 Movement is waiting to be processed" in processing and "review" not in processing
