"""Each press rule in a real browser (Debian's Chromium, a real server), with several players in separate
sessions: a refused message says which rule refused it and what to do instead, and keeps its text; gunboat,
partial press, quiet phases, blocks, the rate and the length; postal press arrives with the results, grey
press and anonymous games hide who wrote until the end, when a visitor reads every channel; script in a
message is text; a double-clicked Send sends once. Screenshots of refusals at desktop and phone sizes go to
test-artifacts/web/press-rule-*.png."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

import dippouch.store.press.messages as press
from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import votes as store_votes

ALL = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")


def _now() -> datetime:
    return datetime.now(UTC)


def _game(site: LiveSite, name: str, rules: dict[str, Any], position: dict[str, Any] | None = None) -> None:
    """A standard game whose powers have players (named "<Power> Player"), with the press ``rules``."""
    store_games.create_game(site.store, name, "standard", now=_now(), position=position)
    for power in ALL:
        store_games.assign(site.store, name, power, f"{power} Player", now=_now())
    press.set_press_rules(site.store, name, rules, now=_now())
    site.web.touched(name)


class Player:
    """One player's own browser (their own cookies), on their power's page of one game."""

    def __init__(self, site: LiveSite, game: str, power: str, size: dict[str, int] = DESKTOP) -> None:
        self.site, self.game, self.power = site, game, power
        # Signed in by the power's link only: every use of the page opens the power's page itself (open()), so
        # a load of it here would be thrown away.
        self.page = site.key_page(site.player_key(game, power), size)
        self.errors = watch_errors(self.page)
        self.page.on("dialog", lambda d: self.errors.append(f"dialog: {d.message}"))

    @property
    def home(self) -> str:
        return f"{self.site.base}/games/{self.game}/play/{self.power}"

    def open(self) -> Any:
        self.page.goto(self.home)
        return self.page

    def send(self, to: list[str], text: str) -> str:
        """Tick ``to``, type ``text``, press Send; the words the page then shows beside the box (it stays on
        the page: the message goes in place)."""
        page = self.open()
        form = page.locator("#press-compose")
        for p in to:
            form.locator(f"input[name=to][value={p}]").check()
        form.locator("#press-text").fill(text)
        form.locator("#press-send").click()
        return _said(page)

    def forced_send(self, to: list[str], text: str) -> str:
        """The compose form's POST made by hand in the page (a page without the form, or an old one)."""
        page = self.open()
        with page.expect_navigation():
            page.evaluate(
                """([action, to, text]) => {
                    const f = document.createElement("form");
                    f.method = "post"; f.action = action;
                    const add = (k, v) => { const i = document.createElement("input");
                        i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i); };
                    add("csrf", document.querySelector('meta[name="csrf"]').content);
                    to.forEach(p => add("to", p)); add("text", text);
                    document.body.appendChild(f); f.submit();
                }""",
                [f"{self.home}/press", to, text],
            )
        # The page again, the refusal atop its press panel (the rules leave no box to stand beside).
        return str(page.locator("#press .press-refusal").first.inner_text())

    def shown(self, text: str) -> Any:
        """The message holding ``text`` on this player's pages: the thread it is in, opened (or None)."""
        page = self.open()
        hrefs = [str(a.get_attribute("href")) for a in page.locator("#press-threads a").all()]
        for href in hrefs:
            page.goto(self.site.base + href)
            found = page.locator("#press-messages .press-msg", has_text=text)
            if found.count():
                return found.first
        return None


def _real(errors: list[str]) -> list[str]:
    """The page's errors but the refusals: a refused message is the API's 400, which the browser logs (press.js
    asks for the page's language: ``/press?lang=en``)."""
    sent = ("/press)", "/press?lang=")
    return [
        e
        for e in errors
        if "favicon" not in e and not ("status of 400 (Bad Request)" in e and any(s in e for s in sent))
    ]


def _said(page: Any) -> str:
    """What the page says beside the compose box after a send: "Sent." (or held), or the refusal, in view."""
    from playwright.sync_api import expect

    page.wait_for_function(
        """() => { const b = document.getElementById("press-compose");
            return b && !b.hasAttribute("data-sending")
                && (b.querySelector(".press-refusal") || b.querySelector(".press-status").textContent); }"""
    )
    refusal = page.locator("#press-compose .press-refusal")
    if refusal.count():
        expect(refusal).to_be_in_viewport()
        return str(refusal.inner_text())
    return str(page.locator("#press-compose .press-status").inner_text())


def _stored(site: LiveSite, game: str, sender: str, text: str) -> int:
    """How many messages of ``sender`` hold ``text`` (as the sender reads them: held ones too)."""
    return sum(1 for m in press.messages_since(site.store, game, sender, 0) if m.text == text)


@pytest.mark.slow
def test_each_rule_refuses_in_the_browser_and_says_which(live_site: LiveSite) -> None:
    site = live_site
    from playwright.sync_api import expect

    # Gunboat: no compose form, the panel says so, and a POST made by hand is refused naming the rule.
    _game(site, "gunboat", {"kind": "none"})
    en = Player(site, "gunboat", "England")
    fr = Player(site, "gunboat", "France", PHONE)
    page = en.open()
    expect(page.locator("#press-rules")).to_contain_text("No press (gunboat)")
    expect(page.locator("#press-compose")).to_have_count(0)
    flash = en.forced_send(["France"], "Psst")
    assert flash.startswith("not sent (no press)") and "gunboat" in flash, flash
    assert _stored(site, "gunboat", "England", "Psst") == 0
    assert fr.shown("Psst") is None

    # Partial press (no private channel): the refusal names the channel kind and what is allowed instead.
    _game(site, "partial", {"channels": ["group", "public"]})
    en = Player(site, "partial", "England")
    fr = Player(site, "partial", "France", PHONE)
    de = Player(site, "partial", "Germany")
    flash = en.send(["France"], "Only you")
    assert flash.startswith("not sent (channel kind)") and "does not allow private press" in flash, flash
    assert "choose two or more powers" in flash, flash
    expect(en.page.locator("#press-text")).to_have_value("Only you")  # the refused text is kept
    shoot(en.page, "web", "press-rule-refused-desktop")
    shoot(en.page, "web", "press-rule-refused-desktop-in-view", full_page=False)
    assert en.send(["France", "Germany"], "Both of you") == "Sent."
    assert fr.shown("Both of you") is not None and de.shown("Both of you") is not None
    assert fr.shown("Only you") is None

    # A quiet phase (adjustments): no box to type into, and the page says when press opens again.
    winter = {
        "phase": "Winter 1901 Adjustments",
        "units": [{"power": "England", "unit": "F lon"}, {"power": "France", "unit": "A par"}],
        "supply_centers": {"England": ["lon", "edi", "lvp"], "France": ["par", "bre", "mar"]},
    }
    _game(site, "quiet", {"quiet_phases": ["adjustments"]}, winter)
    en = Player(site, "quiet", "England")
    expect(en.open().locator("#press-rules")).to_contain_text("No press during adjustments phases.")
    expect(en.page.locator("#press-quiet")).to_have_text(
        "no press during adjustment phases in this game; write again when the next movement phase opens"
    )
    expect(en.page.locator("#press-compose")).to_have_count(0)

    # White press, several players: block, rate, length, script as text, and a double click.
    _game(site, "white", {"max_length": 60})
    en = Player(site, "white", "England")
    fr = Player(site, "white", "France", PHONE)
    de = Player(site, "white", "Germany")
    fr.open().locator(".press-blocks summary").click()
    wide = fr.page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"the press panel with its block form is {wide} px wide on a phone"
    fr.page.locator(".press-blocks select[name=other]").select_option("England")
    fr.page.locator(".press-blocks select[name=choice]").select_option("block")
    with fr.page.expect_navigation():
        fr.page.locator(".press-blocks button").click()
    expect(fr.page.locator(".flash")).to_have_text("England is blocked.")
    flash = en.send(["France"], "Hear me out")
    assert flash.startswith("not sent (blocked)") and "France" in flash and "blocked you" in flash, flash
    assert "group or public" in flash, flash
    assert _stored(site, "white", "England", "Hear me out") == 0
    fr.open().locator(".press-blocks summary").click()
    fr.page.locator(".press-blocks select[name=other]").select_option("England")
    fr.page.locator(".press-blocks select[name=choice]").select_option("none")
    with fr.page.expect_navigation():
        fr.page.locator(".press-blocks button").click()
    expect(fr.page.locator(".flash")).to_have_text("England is let through.")

    # Length: the box stops typing at the limit; past it (a box without the limit), refused with the limit.
    page = fr.open()
    expect(page.locator("#press-text")).to_have_attribute("maxlength", "60")
    page.locator("#press-text").evaluate("t => t.removeAttribute('maxlength')")
    page.locator("input[name=to][value=England]").check()
    long = "A long letter about the Channel, Belgium and the North Sea, in full."
    page.locator("#press-text").fill(long)
    page.locator("#press-send").click()
    flash = _said(page)
    assert flash.startswith("not sent (length)") and "at most 60" in flash and f"{len(long)} characters" in flash
    expect(page.locator("#press-text")).to_have_value(long)
    shoot(page, "web", "press-rule-refused-phone")
    shoot(page, "web", "press-rule-refused-phone-in-view", full_page=False)
    assert _real(fr.errors) == []

    # Script in a message is shown as text.
    script = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    assert en.send(["France"], script) == "Sent."
    msg = fr.shown("alert(2)")
    assert msg is not None
    expect(msg.locator(".press-text")).to_have_text(script)
    assert fr.page.locator("#press-messages img, #press-messages script").count() == 0

    # A double-clicked Send (two clicks 30 ms apart, the second while the first is on its way) sends once.
    page = en.open()
    page.locator("#press-compose input[name=to][value=Germany]").check()
    page.locator("#press-text").fill("Once, however often I click")
    box = page.locator("#press-send").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 5, box["y"] + 5)
    page.wait_for_timeout(30)
    page.mouse.click(box["x"] + 5, box["y"] + 5)
    assert _said(page) == "Sent."
    assert _stored(site, "white", "England", "Once, however often I click") == 1
    # The rate: two a minute; the third, sent at once, is refused, saying the limit and when to send again.
    _game(site, "flood", {"per_minute": 2})
    it = Player(site, "flood", "Italy", PHONE)
    assert it.send(["Austria"], "One") == "Sent."
    assert it.send(["Austria"], "Two") == "Sent."
    flash = it.send(["Austria"], "Three")
    assert flash.startswith("not sent (rate)") and "2 a minute" in flash and "send again in " in flash, flash
    assert _stored(site, "flood", "Italy", "Three") == 0
    for p in (en, fr, de, it):
        assert _real(p.errors) == [], p.errors


@pytest.mark.slow
def test_postal_grey_and_anonymous_press_and_the_end_of_the_game(live_site: LiveSite) -> None:
    from playwright.sync_api import expect

    site = live_site
    # Postal: held (the recipient's pages show nothing), delivered with the phase's results.
    _game(site, "post", {"kind": "postal"})
    en = Player(site, "post", "England")
    fr = Player(site, "post", "France", PHONE)
    assert en.send(["France"], "By the next post") == "Held until the phase's results (postal press)."
    expect(en.page.locator("#press-threads .press-msg", has_text="By the next post")).to_contain_text(
        "held until the phase's results"
    )
    assert fr.shown("By the next post") is None
    store_processing.process(site.store, "post", now=_now(), force=True)
    site.web.touched("post")
    msg = fr.shown("By the next post")
    assert msg is not None
    expect(msg.locator(".press-sender")).to_have_text("England")

    # Grey press, the coordinator declared a reader of private press, and anonymous players.
    _game(site, "grey", {"kind": "grey", "anonymous": True, "coordinator_reads_private": True})
    en = Player(site, "grey", "England")
    fr = Player(site, "grey", "France", PHONE)
    page = fr.open()
    expect(page.locator("#press-rules")).to_contain_text("The coordinator may read private and group press.")
    expect(page.locator("#press-rules")).to_contain_text("Players' names are hidden until the game ends.")
    expect(page.locator("#press-compose")).to_contain_text("England")  # powers named, people not
    assert " Player" not in page.locator("#press").inner_text()
    assert en.send(["France"], "Guess who") == "Sent."
    msg = fr.shown("Guess who")
    assert msg is not None
    expect(msg.locator(".press-sender")).to_have_text("Anonymous")
    assert "England Player" not in fr.page.content()
    white = Player(site, "post", "Germany")
    expect(white.open().locator("#press-rules")).to_contain_text("The coordinator does not read private")

    visitor = site.context(DESKTOP).new_page()
    visitor.goto(f"{site.base}/games/grey/press")
    expect(visitor.locator("#press-closed")).to_contain_text("not open to readers")
    assert "Guess who" not in visitor.content()

    # The game ends (a draw): senders and players are named to the players; a visitor reads the public press
    # only, as a private letter stays private after the end unless the game says otherwise
    # (open_private_after_end; tests/press/test_press_privacy.py).
    for power in ALL:
        store_votes.vote(site.store, "grey", power, True, now=_now())
    site.web.touched("grey")
    msg = fr.shown("Guess who")
    assert msg is not None
    expect(msg.locator(".press-sender")).to_have_text("England")
    expect(fr.page.locator("#press-compose")).to_contain_text("England Player")
    visitor.goto(f"{site.base}/games/grey")
    visitor.get_by_role("link", name="Press", exact=True).click()
    expect(visitor.locator(".press-channel", has_text="England, France (private)")).to_have_count(0)
    assert "Guess who" not in visitor.content()
    shoot(visitor, "web", "press-open-after-end-desktop")
    visitor.goto(f"{site.base}/games/grey")
    with visitor.expect_download() as got:
        visitor.get_by_role("link", name="Game file (JSON)").click()
    data = json.loads(got.value.path().read_text())
    said = [(m["sender"], m["text"]) for m in data.get("press", {}).get("messages", [])]
    assert ("England", "Guess who") not in said and "Guess who" not in json.dumps(data), said
