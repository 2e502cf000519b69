"""The coordinator's mail review in a real browser (Debian's Chromium through Playwright, a real server):
the desk names the powers whose only submission is a photograph; after the deadline the review page shows
each photograph beside its lines and verdicts; the coordinator corrects a line, sees it judged, confirms,
and what is recorded is what the page showed. At desktop (1366x768) and phone (390x844) sizes, with
screenshots in the artifacts folder.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from test_web_browser import ARTIFACTS, PHONE, _context, _errors, _shoot

import browsersupport
from dippouch.mail.intake import take_in
from dippouch.store import history as store_history
from dippouch.store.mail.review import review_state
from photosupport import need_tesseract, photo
from websupport import Site

DESKTOP = {"width": 1366, "height": 768}
ADDR = {"France": "france@example.org", "England": "england@example.org"}
SHEETS = {
    "France": ["A par - bur", "A mar - spa", "F bre - mao"],
    "England": ["F lon - nth", "F edi - nwg", "A lvp - yor"],
}


def _mail(power: str, image: bytes) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = ADDR[power], "orders@dip.example", f"g - {power} - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content("")
    m.add_attachment(image, maintype="image", subtype="jpeg", filename=f"{power.lower()}.jpg")
    return m.as_bytes()


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Site, str]]:
    need_tesseract()
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")  # proof of the sender: test_mail_proof.py
    site = Site(f"sqlite:///{tmp_path / 'review.db'}")
    site.new_game("g")
    for power, addr in ADDR.items():
        r = site.api(site.coordinator, "/api/games/g/players", {"power": power, "player": power[:3], "email": addr})
        assert r.status_code == 200, r.text
        assert take_in(site.web.store, _mail(power, photo(SHEETS[power])), now=site.clock()).status == "photo"
    with browsersupport.served(site.app) as port:
        yield site, f"http://127.0.0.1:{port}"


@pytest.fixture
def browser(chromium: Any) -> Any:
    """The test process's Chromium (browsersupport)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return chromium


def _recorded(site: Site, power: str) -> str:
    st = review_state(site.web.store, "g", now=site.clock())
    rec = store_history.phase_record(site.web.store, "g", phase_id=st.phase_id)
    subs = [s for s in rec["submissions"] if s["power"] == power]
    return str(subs[-1]["text"]) if subs else ""


def _shown_lines(page: Any, card: Any) -> list[str]:
    boxes = card.locator("input[name^='line:']")
    takes = card.locator("input[name^='take:']")
    return [boxes.nth(i).input_value() for i in range(boxes.count()) if takes.nth(i).is_checked()]


def _review_one(page: Any, site: Site, power: str, size: str) -> None:
    from playwright.sync_api import expect

    card = page.locator("section.review", has_text=f"{power}: photograph #")
    expect(card.locator("text=Waits for you")).to_be_visible()
    img = card.locator("img")
    img.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 100", arg=img.element_handle())
    _shoot(page, f"mail-review-{size}")
    # The coordinator writes the first line as the sheet has it, and takes nothing out.
    first = card.locator("input[name='line:0']")
    first.fill(SHEETS[power][0])
    card.locator("button[value=confirm]").click()
    page.wait_for_load_state()
    card = page.locator("section.review", has_text=f"{power}: photograph #")
    expect(page.locator(".flash")).to_contain_text("judged as they are now")
    assert _recorded(site, power) == "", "a changed line is shown with its verdict before anything is recorded"
    expect(card.locator("tr.verdict-ok").first).to_be_visible()
    _shoot(page, f"mail-review-checked-{size}")
    shown = _shown_lines(page, card)
    card.locator("button[value=confirm]").click()
    page.wait_for_load_state()
    expect(page.locator(".flash")).to_contain_text("exactly as shown")
    assert _recorded(site, power) == "\n".join(shown)
    assert _recorded(site, power).splitlines()[0] == SHEETS[power][0]


@pytest.mark.slow
def test_the_review_page_in_the_browser(served: tuple[Site, str], browser: Any) -> None:
    from playwright.sync_api import expect

    site, base = served
    desk = _context(browser, DESKTOP).new_page()
    errors = _errors(desk)
    desk.goto(f"{base}/k/{site.coordinator_key}")
    desk.goto(f"{base}/games/g/coordinate")
    expect(desk.locator("#mail-photos")).to_be_visible()
    expect(desk.locator("li", has_text="France").locator("text=photograph only")).to_be_visible()
    desk.locator("#mail-photos").scroll_into_view_if_needed()
    _shoot(desk, "mail-desk-desktop")
    desk.goto(f"{base}/games/g/review")
    expect(desk.locator("text=Sealed until the deadline")).to_be_visible()
    assert desk.locator("img[src*='/review/photo/']").count() == 0

    site.clock.advance(days=13)
    desk.goto(f"{base}/games/g/review")
    expect(desk.locator("text=Awaiting review")).to_be_visible()
    _review_one(desk, site, "France", "desktop")

    phone_ctx = _context(browser, PHONE, phone=True)
    phone = phone_ctx.new_page()
    phone_errors = _errors(phone)
    phone.goto(f"{base}/k/{site.coordinator_key}")
    phone.goto(f"{base}/games/g/review")
    # One column on a phone: the photograph above its lines, nothing wider than the screen.
    card = phone.locator("section.review", has_text="England: photograph #")
    img_box = card.locator("img").bounding_box()
    table_box = card.locator("table").bounding_box()
    assert img_box and table_box and img_box["y"] + img_box["height"] <= table_box["y"] + 1
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    _review_one(phone, site, "England", "phone")
    expect(phone.locator("text=Nothing waits for you")).to_be_visible()
    _shoot(phone, "mail-review-done-phone")
    assert errors == [] and phone_errors == []
