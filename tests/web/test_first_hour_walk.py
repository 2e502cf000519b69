"""Issue 40's "Done when", walked in Debian's Chromium on the embedded default: a real ``dippouch serve`` (its own
scheduler sends the mail and tells people; nothing is written to its database by hand) with no mail server
configured, then a local SMTP server (aiosmtpd) set up through the desk's mail page. A newcomer sees why no
mail came, the coordinator sets mail up, the sign-in link arrives and works; a player starts a game from a
template, others find it with the filters and quick play (one of them on a phone), it starts by itself when
full and everyone is told on /me and by mail; after a phase each player's own page shows the last turn; a
player resigns, another claims the seat from the replacement pool, the replaced one is mailed; every link in
every mail answers 200. Screenshots of each step at desktop and phone sizes in test-artifacts/walk/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, shoot, watch_errors, wider_than_window
from mailservers import SmtpServer
from servesupport import Served, looks_after, serving

pytestmark = pytest.mark.slow

GAME = "evening"
ORDERS = {"Burgundy": "A dij H", "England": "A cal H", "France": "A par H"}
"""A hold for one unit of each power (the others hold too): enough for the phase to be processed."""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``dippouch serve`` as ``scripts/run`` starts it, without any mail setting in its environment."""
    with serving(tmp_path) as server:
        yield server


def _context(chromium: Any, size: dict[str, int]) -> Any:
    phone = size["width"] < 500
    ctx = chromium.new_context(viewport=size, is_mobile=phone, has_touch=phone, locale="en-GB")
    ctx.set_default_timeout(30_000)
    return ctx


def _wide(page: Any) -> int:
    return wider_than_window(page)


_OVER = """[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right >
document.documentElement.clientWidth + 0.5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""
"""The last elements reaching past the screen's right edge (the innermost come last)."""


def _both(page: Any, name: str) -> None:
    """The page as it stands, shot at its own size and at the other one (desktop and phone); at the phone's
    size it must be no wider than the screen."""
    own = page.viewport_size
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        shoot(page, "walk", f"{name}-{tag}")
        if tag == "phone":
            assert _wide(page) <= 0, f"{name}: {page.url} is wider than a phone: {page.evaluate(_OVER)}"
    page.set_viewport_size(own)


def _mail(smtp: SmtpServer, to: str, subject: str, after: int = 0) -> EmailMessage:
    """The first mail to ``to`` after the ``after`` first ones whose subject says ``subject``, as soon as the
    server's scheduler has sent it."""
    until = time.monotonic() + 60
    while True:
        for m in smtp.to(to)[after:]:
            if subject.lower() in str(m["Subject"]).lower():
                return m
        assert time.monotonic() < until, f"no mail to {to} saying {subject!r}: {[m['Subject'] for m in smtp.to(to)]}"
        time.sleep(0.1)


def _text(m: EmailMessage) -> str:
    body = m.get_body(preferencelist=("plain",))
    assert body is not None, m
    return str(body.get_content())


def _links(m: EmailMessage, base: str) -> list[str]:
    """Every address of this site a mail names: in its text and its List-Unsubscribe header."""
    found = re.findall(rf"{re.escape(base)}[^\s<>\"')]*", _text(m) + " " + str(m.get("List-Unsubscribe", "")))
    return [link.rstrip(".,;") for link in found]


def _sign_in(page: Any, smtp: SmtpServer, base: str, email: str, name: str) -> None:
    """The sign-in by mail as a newcomer does it: the address and a name asked, the link opened from the mail."""
    before = len(smtp.to(email))
    page.goto(f"{base}/signin")
    page.fill("#signin-mail input[name=email]", email)
    page.fill("#signin-mail input[name=name]", name)
    page.click("#signin-mail button")
    link = re.search(rf"{re.escape(base)}/signin/link/[\w-]+", _text(_mail(smtp, email, "", before)))
    assert link, "the sign-in mail has no link"
    opened = page.goto(link.group(0))
    assert opened is not None and opened.status == 200, f"the sign-in link answered {opened and opened.status}"
    page.locator("main button.primary, main button").first.click()
    page.wait_for_url(f"{base}/me")


def test_a_first_hour_on_the_embedded_default(served: Served, smtp: SmtpServer, chromium: Any) -> None:
    from playwright.sync_api import expect

    base = served.base
    errors: list[str] = []

    def page_at(size: dict[str, int]) -> Any:
        page = _context(chromium, size).new_page()
        watch_errors(page, errors)
        return page

    # A newcomer arrives: the sign-in page says mail cannot leave yet, and where the link waits.
    ann = page_at(DESKTOP)
    ann.goto(f"{base}/signin")
    expect(ann.locator("#mail-off")).to_contain_text("This site cannot send mail yet")
    _both(ann, "01-signin-mail-off")
    ann.fill("#signin-mail input[name=email]", "ann@example.org")
    ann.fill("#signin-mail input[name=name]", "Ann")
    ann.click("#signin-mail button")
    expect(ann.locator("main")).to_contain_text("ann@example.org")
    _both(ann, "02-signin-sent-mail-off")
    said = " ".join(ann.locator("main").inner_text().split())
    assert "This site cannot send mail yet, so the link for ann@example.org waits in the site's outbox" in said
    assert "read it on their Outbox page" in said and "or set mail up" in said, said
    assert "Why: no SMTP server is configured" in said, said
    assert smtp.messages == []

    # The installation's coordinator: the link `serve` left beside the database (its output is no terminal).
    link = (served.folder / "dippouch-coordinator-link.txt").read_text().strip()
    assert link.startswith(f"{base}/k/"), link
    coord = page_at(DESKTOP)
    coord.goto(link)
    coord.goto(f"{base}/coordinate/outbox")
    expect(coord.locator("main")).to_contain_text("ann@example.org")
    _both(coord, "03-outbox-waiting")
    coord.goto(f"{base}/coordinate/mail")
    expect(coord.locator("#mail-off")).to_be_visible()
    coord.fill("input[name=host]", smtp.host)
    coord.select_option("select[name=security]", "none")
    coord.fill("input[name=port]", str(smtp.port))
    coord.fill("input[name=from]", "games@example.org")
    coord.fill("input[name=to]", "coord@example.org")
    _both(coord, "04-mail-setup-filled")
    coord.click("#mail-test")
    expect(coord.locator("#flash")).to_contain_text("The test mail to coord@example.org was taken by")
    _both(coord, "05-mail-setup-done")
    test_mail = _mail(smtp, "coord@example.org", "test mail")
    assert test_mail["From"] == "games@example.org"

    # The newcomer asks again; the link arrives at the mail server and signs her in.
    ann.goto(f"{base}/signin")
    expect(ann.locator("#mail-off")).to_have_count(0)
    _sign_in(ann, smtp, base, "ann@example.org", "Ann")
    _both(ann, "06-me-signed-in")
    assert "Ann" in ann.locator("main").inner_text()

    # Ann starts a game from a template.
    ann.goto(f"{base}/new-game")
    ann.check("input[name=template][value=variant-hundred3]")
    ann.fill("input[name=name]", GAME)
    _both(ann, "07-new-game")
    ann.click("text=Start the game")
    expect(ann.locator(".flash")).to_contain_text(f"Created {GAME}")
    _both(ann, "08-new-game-created")

    # Bo, on a phone, finds it with the filters and signs up on its page; Ann signs up too.
    bo = page_at(PHONE)
    _sign_in(bo, smtp, base, "bo@example.org", "Bo")
    bo.goto(f"{base}/open")
    bo.select_option("select[name=variant]", "hundred3")
    bo.select_option("select[name=length]", "2d")
    bo.click("text=Filter")
    row = bo.locator(f"#open-games tr[data-game={GAME}]")
    expect(row).to_be_visible()
    _both(bo, "09-open-filtered")
    row.locator(f"a[href='/games/{GAME}/opening']").first.click()
    bo.get_by_role("button", name="Sign up", exact=True).click()
    expect(bo.locator("#signed-up")).to_be_visible()
    _both(bo, "10-signed-up")
    ann.goto(f"{base}/games/{GAME}/opening")
    ann.get_by_role("button", name="Sign up", exact=True).click()
    expect(ann.locator("#signed-up")).to_be_visible()

    # Cy takes quick play with the same settings: the last seat, and the game starts by itself.
    cy = page_at(DESKTOP)
    _sign_in(cy, smtp, base, "cy@example.org", "Cy")
    cy.goto(f"{base}/open?variant=hundred3")
    _both(cy, "11-quick-play")
    cy.click("#quick-play button")
    expect(cy.locator(".flash")).to_be_visible()
    _both(cy, "12-quick-play-joined")
    people = {"ann@example.org": ann, "bo@example.org": bo, "cy@example.org": cy}
    played: dict[str, str] = {}
    for email, page in people.items():
        page.goto(f"{base}/me")
        starting = page.locator(f".game-starting[data-game={GAME}]")
        expect(starting).to_be_visible()
        played[email] = re.sub(r".*/play/", "", str(starting.locator("a").last.get_attribute("href")))
        _mail(smtp, email, "start")
    assert sorted(played.values()) == sorted(ORDERS), played
    _both(bo, "13-me-starting")

    # Each plays the first phase from their own page: an order, ready; the last ready processes it.
    for email, page in people.items():
        power = played[email]
        page.goto(f"{base}/games/{GAME}/play/{power}")
        page.fill("#orders", ORDERS[power])
        page.check("#orders-form input[name=ready]")
        page.click("#send")
        expect(page.locator(".flash")).to_be_visible()
    for email, page in people.items():
        page.goto(f"{base}/games/{GAME}/play/{played[email]}")
        expect(page.locator("#last-turn")).to_contain_text("Last turn")
        expect(page.locator("#last-turn-results")).to_contain_text(
            ORDERS[played[email]].split()[1].lower(), ignore_case=True
        )
    _both(ann, "14-last-turn")
    _both(bo, "15-last-turn-phone")

    # Bo leaves the game under way; Di claims the seat from the replacement pool; Bo is mailed.
    bo_power = played["bo@example.org"]
    bo_mails = len(smtp.to("bo@example.org"))
    bo.goto(f"{base}/games/{GAME}/opening")
    _both(bo, "16-leave")
    bo.check("#leave input[name=confirm]")
    bo.click("#leave button")
    bo.wait_for_url(f"{base}/me")
    _both(bo, "17-resigned")
    di = page_at(PHONE)
    _sign_in(di, smtp, base, "di@example.org", "Di")
    di.goto(f"{base}/games/{GAME}/opening")
    _both(di, "18-replacement-wanted")
    di.click(f"text=Claim {bo_power}")
    di.wait_for_url(re.compile(rf"/games/{GAME}/play/"))
    _both(di, "19-claimed")
    lost = _mail(smtp, "bo@example.org", GAME, bo_mails)
    assert bo_power in _text(lost), _text(lost)

    # Every link in every mail the server sent opens in its reader's browser. A sign-in link works once (the
    # walk opened each while fresh, above) and asking again spends the older ones: opened again, it says so.
    looks_after(served)  # what the claim told is sent by the scheduler's next whole looks
    readers = {**people, "di@example.org": di, "coord@example.org": coord}
    opened: list[tuple[str, str, int]] = []
    spent: list[str] = []
    for m in list(smtp.messages):
        for to in str(m["To"]).split(","):
            for url in _links(m, base):
                page = readers[to.strip()]
                answer = page.goto(url)
                status = answer.status if answer else 0
                if "/signin/link/" in url and status == 404:
                    expect(page.locator("main")).to_contain_text(
                        "was used already (each works once); ask for a new one"
                    )
                    spent.append(url)
                    continue
                opened.append((str(m["Subject"]), url, status))
    for subject, url, status in opened:
        print(status, subject, "->", url[len(base) :])
    assert len(opened) >= 10, opened
    bad = [o for o in opened if o[2] != 200]
    assert bad == [], "\n".join(map(str, bad))
    assert [e for e in errors if not any(url in e for url in spent)] == []  # a refusal's 404 is logged too
