"""Issue 55's "Done when", walked in Debian's Chromium: a real ``dippouch serve`` on the embedded default (SQLite,
its own scheduler processing, telling people and sending mail), its mail pointed at a local SMTP server by the
environment as the README says, and seven people in their own browsers (three on phones) playing a standard
game with 1-hour phases: one made from a template, six finding it, a refusal drawn in the error style (its
computed colours read), the game starting by itself, two phases played to "ready", a draw voted.

Mail counted from the SMTP server: the start once, then after each processing one mail a player in the seconds
that follow (a reminder sent with the results, before anyone could act, would be a second), which carries that
player's results; the end once to everyone, with the scores and the links to the replay, its GIF and the game
book. Every link in every mail is then opened in a fresh browser that is not signed in: the first of each
player's offers to sign in, the mailed sign-in link brings them back to the page it named, and every other one
reaches its page. Screenshots at 1280x800 and 390x844 in test-artifacts/seven-walk/."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from browsersupport import shoot, watch_errors, wider_than_window
from mailservers import SmtpServer
from servesupport import Served, looks_after, mail_env, serving

pytestmark = pytest.mark.slow

GAME = "evening7"
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PEOPLE = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace")
ON_PHONES = ("Bob", "Dave", "Erin")
HOLDS = {
    "Austria": "A vie H",
    "England": "F lon H",
    "France": "A par H",
    "Germany": "A ber H",
    "Italy": "A rom H",
    "Russia": "A mos H",
    "Turkey": "A con H",
}
"""One hold of each power (the others hold too): a phase to process with results to report."""


@pytest.fixture
def served(tmp_path: Path, smtp: SmtpServer) -> Iterator[Served]:
    """``dippouch serve`` as ``scripts/run`` starts it, its mail set up by the README's environment variables;
    its scans for a game's end every 2 s, not every minute (the walk waited for the minute)."""
    env = mail_env(smtp, "games@example.org") | {"DIPPOUCH_NOTIFY_SCAN_SECONDS": "2"}
    with serving(tmp_path, env) as server:
        yield server


def _address(name: str) -> str:
    return f"{name.lower()}@example.org"


def _text(m: EmailMessage) -> str:
    body = m.get_body(preferencelist=("plain",))
    assert body is not None, m
    return str(body.get_content())


def _links(m: EmailMessage, base: str) -> list[str]:
    """Every address of this site a mail names, in its text and its List-Unsubscribe header."""
    found = re.findall(rf"{re.escape(base)}[^\s<>\"')]*", _text(m) + " " + str(m.get("List-Unsubscribe", "")))
    return [link.rstrip(".,;:") for link in found]


def _until(what: Callable[[], bool], why: Callable[[], str], seconds: float = 30) -> None:
    until = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < until, why()
        time.sleep(0.1)


class Walk:
    def __init__(self, served: Served, smtp: SmtpServer, chromium: Any) -> None:
        self.served, self.base, self.smtp, self.chromium = served, served.base, smtp, chromium
        self.errors: list[str] = []
        self.pages: dict[str, Any] = {}
        self.offered: list[str] = []
        """Links opened before signing in, which answered 403 with the offer to sign in (the browser logs it)."""

    def page(self, size: dict[str, int]) -> Any:
        phone = size["width"] < 500
        ctx = self.chromium.new_context(viewport=size, is_mobile=phone, has_touch=phone, locale="en-GB")
        ctx.set_default_timeout(30_000)
        page = ctx.new_page()
        watch_errors(page, self.errors)
        return page

    def mails(self, name: str) -> list[EmailMessage]:
        return self.smtp.to(_address(name))

    def mail(self, name: str, subject: str, after: int = 0, seconds: float = 30) -> EmailMessage:
        """The first mail to ``name`` after their ``after`` first whose subject says ``subject``."""
        got: list[EmailMessage] = []

        def arrived() -> bool:
            got[:] = [m for m in self.mails(name)[after:] if subject.lower() in str(m["Subject"]).lower()]
            return bool(got)

        _until(
            arrived,
            lambda: f"no mail to {name} saying {subject!r}: {[m['Subject'] for m in self.mails(name)]}",
            seconds,
        )
        return got[0]

    def sign_in(self, page: Any, name: str, *, arrive: str) -> None:
        """Signed in by a link mailed to ``name``, then on ``arrive`` (the page they asked for, or /me)."""
        before = len(self.mails(name))
        page.fill("#signin-mail input[name=email]", _address(name))
        if page.locator("#signin-mail input[name=name]").count():
            page.fill("#signin-mail input[name=name]", name)
        page.click("#signin-mail button")
        link = re.search(rf"{re.escape(self.base)}/signin/link/[\w-]+", _text(self.mail(name, "sign", before)))
        assert link, "the sign-in mail has no link"
        opened = page.goto(link.group(0))
        assert opened is not None and opened.status == 200, f"the sign-in link answered {opened and opened.status}"
        page.locator("main button.primary, main button").first.click()
        page.wait_for_url(arrive)

    def shoot(self, page: Any, name: str) -> None:
        """The page at both sizes (no wider than the phone at the phone's)."""
        own = page.viewport_size
        for size, tag in ((WIDE, "1280x800"), (PHONE, "390x844")):
            page.set_viewport_size(size)
            shoot(page, "seven-walk", f"{name}-{tag}", full_page=False)
            if size is PHONE:
                wide = wider_than_window(page)
                assert wide <= 0, f"{name}: {page.url} is {wide} px wider than a phone"
        page.set_viewport_size(own)

    def play(self, name: str) -> tuple[str, Any]:
        page = self.pages[name]
        page.goto(f"{self.base}/me")
        starting = page.locator(f".game-starting[data-game={GAME}] a").last
        power = re.sub(r".*/play/", "", str(starting.get_attribute("href")))
        return power, page

    def open_links(self, page: Any, name: str, done: set[str], shot: str = "") -> list[tuple[str, int]]:
        """Every link mailed to ``name`` not opened yet, in ``page``'s browser: where it is not signed in yet, the
        first offers to sign in, and the mailed sign-in link comes back to it."""
        links = [u for m in self.mails(name) for u in _links(m, self.base) if "/signin/link/" not in u]
        links = list(dict.fromkeys(u for u in links if u not in done))
        out = []
        for url in links:
            if url.endswith((".gif", ".pdf")):  # a file the browser would save, not show: fetched as it would be
                r = page.request.get(url, timeout=120_000)
                if r.status == 429:  # the GIF then the book within a minute: as the page would, asked again
                    time.sleep(float(r.headers.get("retry-after", "10")) + 0.5)
                    r = page.request.get(url, timeout=120_000)
                kind = "image/gif" if url.endswith(".gif") else "application/pdf"
                out.append((url, r.status if r.headers.get("content-type", "").startswith(kind) else -r.status))
                done.add(url)
                continue
            got = page.goto(url)
            status = got.status if got else 0
            if status in (401, 403) and page.get_by_role("link", name="Sign in to go on").count():
                self.offered.append(url)
                if shot:
                    self.shoot(page, shot)
                page.get_by_role("link", name="Sign in to go on").click()
                self.sign_in(page, name, arrive=url)
                status = 200
            if status == 429:  # the GIF then the book: the page asks again by itself once the wait is over
                page.wait_for_url(url, timeout=70_000)
                status = 200
            out.append((url, status))
            done.add(url)
        return out

    def processed(self, counts_before: dict[str, int], phase: str) -> dict[str, EmailMessage]:
        """After a processing: each player's one mail, and no second in the scheduler's next two looks (a reminder
        queued with the results would be sent in the look that sent them, or the next)."""
        for name in PEOPLE:
            self.mail(name, f"{phase} processed", counts_before[name])
        looks_after(self.served)
        got = {}
        for name in PEOPLE:
            new = self.mails(name)[counts_before[name] :]
            assert [str(m["Subject"]) for m in new] == [f"{GAME}: {phase} processed"], (name, new)
            got[name] = new[0]
        return got


def test_seven_players_a_standard_game_with_one_hour_phases_and_its_mail(
    served: Served, smtp: SmtpServer, chromium: Any
) -> None:
    from playwright.sync_api import expect

    started = time.monotonic()
    walk = Walk(served, smtp, chromium)
    base = walk.base

    # Seven people sign in by mail, each in their own browser.
    for name in PEOPLE:
        page = walk.page(PHONE if name in ON_PHONES else WIDE)
        walk.pages[name] = page
        page.goto(f"{base}/signin")
        walk.sign_in(page, name, arrive=f"{base}/me")
    alice, bob = walk.pages["Alice"], walk.pages["Bob"]

    # Alice starts a game from the live evening's template; its page shows each variant's map.
    alice.goto(f"{base}/new-game")
    expect(alice.locator("#variant-standard img.variant-thumb")).to_have_js_property("complete", True)
    assert alice.locator("#variant-standard img.variant-thumb").evaluate("i => i.naturalWidth") == 240
    walk.shoot(alice, "01-new-game")
    alice.check("input[name=template][value=standard-1h-live]")
    alice.fill("input[name=name]", GAME)
    alice.click("text=Start the game")
    expect(alice.locator("#flash")).to_contain_text(f"Created {GAME}")

    # Bob, on his phone, ranks England twice: refused in the error style, his wishes kept.
    bob.goto(f"{base}/games/{GAME}/opening")
    bob.select_option("select[name=wish1]", "England")
    bob.select_option("select[name=wish2]", "England")
    bob.get_by_role("button", name="Sign up", exact=True).click()
    flash = bob.locator("#flash")
    expect(flash).to_contain_text("England is in your wishes twice")
    style = flash.evaluate(
        "e => { const s = getComputedStyle(e); return [s.backgroundColor, s.color, s.fontWeight, e.className]; }"
    )
    assert style[:2] == ["rgb(251, 230, 228)", "rgb(179, 38, 30)"], style  # --bad-bg and --bad, not the green
    assert "flash-error" in style[3] and int(style[2]) >= 600, style
    walk.shoot(bob, "02-refused-in-the-error-style")
    # The others sign up on the opening's page; the seventh fills the game and it starts by itself.
    for name in PEOPLE:
        page = walk.pages[name]
        page.goto(f"{base}/games/{GAME}/opening")
        page.get_by_role("button", name="Sign up", exact=True).click()
    seen = {name: len(walk.mails(name)) for name in PEOPLE}
    for name in PEOPLE:
        walk.mail(name, "is starting")
    powers: dict[str, str] = {}
    for name in PEOPLE:
        powers[name], _ = walk.play(name)
    assert sorted(powers.values()) == sorted(HOLDS), powers
    walk.shoot(walk.pages["Dave"], "03-me-starting")

    # Spring 1901: each sends a hold and "ready" from their own page; the last ready processes the phase.
    seen = {name: len(walk.mails(name)) for name in PEOPLE}
    for name in PEOPLE:
        page = walk.pages[name]
        page.goto(f"{base}/games/{GAME}/play/{powers[name]}")
        page.fill("#orders", HOLDS[powers[name]])
        page.check("#orders-form input[name=ready]")
        page.click("#send")
        expect(page.locator("#flash")).to_be_visible()
    spring = walk.processed(seen, "Spring 1901 Movement")
    for name, m in spring.items():
        body = _text(m)
        assert f"What your orders did ({powers[name]}):" in body and "Next: Fall 1901 Movement" in body, body
        assert [p.get_content_type() for p in m.iter_attachments()] == ["image/png"]
    erin = walk.pages["Erin"]
    erin.goto(f"{base}/games/{GAME}/play/{powers['Erin']}")
    expect(erin.locator("#last-turn")).to_contain_text("Last turn")
    walk.shoot(erin, "04-last-turn")

    # Fall 1901 the same way (through each page's own API call); then everyone votes a draw.
    seen = {name: len(walk.mails(name)) for name in PEOPLE}
    for name in PEOPLE:
        page = walk.pages[name]
        csrf = page.evaluate("document.querySelector('meta[name=csrf]').content")
        r = page.request.post(
            f"{base}/api/games/{GAME}/powers/{powers[name]}/orders",
            data={"text": HOLDS[powers[name]], "ready": True},
            headers={"X-CSRF-Token": csrf},
        )
        assert r.ok, r.text()
    walk.processed(seen, "Fall 1901 Movement")
    seen = {name: len(walk.mails(name)) for name in PEOPLE}
    for name in PEOPLE:
        page = walk.pages[name]
        page.goto(f"{base}/games/{GAME}/play/{powers[name]}")
        page.locator(f"form[action='/games/{GAME}/play/{powers[name]}/vote'] button").click()
        expect(page.locator("#flash")).to_be_visible()
    # The links mailed so far, each player's opened in a browser that never signed in (the end's mail is found by
    # the notifier's scan, a few seconds later: the links are opened meanwhile).
    opened: list[tuple[str, int]] = []
    done: set[str] = set()
    fresh: dict[str, Any] = {}
    for name in PEOPLE:
        fresh[name] = walk.page(PHONE if name in ON_PHONES else WIDE)
        opened += walk.open_links(fresh[name], name, done, shot="06-mailed-link-elsewhere" if name == "Bob" else "")

    ended = {name: walk.mail(name, "has ended", seen[name], seconds=90) for name in PEOPLE}
    looks_after(served)
    for name in PEOPLE:
        game_mails = [str(m["Subject"]) for m in walk.mails(name)[seen[name] :] if GAME in str(m["Subject"])]
        # The draw's proposal may be told before it passes (notify's proposal notice): once at most, then the end.
        assert game_mails in ([f"{GAME} has ended"], [f"{GAME}: a proposal to vote on", f"{GAME} has ended"]), (
            game_mails
        )
        body = _text(ended[name])
        assert f"{GAME} is over: Draw" in body and "Scores under" in body, body
        for tail in ("/replay", "/replay.gif", "/book.pdf"):
            assert f"{base}/games/{GAME}{tail}" in body, body
    grace = walk.pages["Grace"]
    grace.goto(f"{base}/games/{GAME}/play/{powers['Grace']}")
    heading = " ".join(grace.locator("p.sub").first.inner_text().split())
    assert heading == f"{GAME} · Standard Diplomacy · game over", heading  # it read "· None"
    walk.shoot(grace, "05-ended")
    mailed = Counter(
        str(m["To"]) for m in smtp.messages if GAME in str(m["Subject"]) and "proposal" not in str(m["Subject"])
    )
    assert mailed == {_address(n): 4 for n in PEOPLE}, mailed  # the start, two results, the end
    for name in PEOPLE:  # the end's links, in the same browsers (signed in there by the first link above)
        opened += walk.open_links(fresh[name], name, done)
        fresh[name].context.close()
    assert [o for o in opened if o[1] != 200] == [], opened
    assert any(u.endswith("/book.pdf") for u, _ in opened) and any("/play/" in u for u, _ in opened)
    assert len(walk.offered) == len(PEOPLE), walk.offered  # each player signed in once, on their first link
    assert [e for e in walk.errors if not any(e.endswith(f"({u})") for u in walk.offered)] == [], walk.errors
    print(f"walk: {time.monotonic() - started:.1f} s, {len(opened)} links opened, {len(smtp.messages)} mails")
