"""Press in a real browser (Debian's Chromium through Playwright, against a real server): three players in
separate sessions talk privately, in a group and in public, each from their own page (the threads inline beside
the board, each send in place); unread counts and messages arrive without reloading; script in a message stays text; a refused message names its rule; postal press arrives with the
phase's results; an anonymous game hides players' names. Screenshots at desktop and phone sizes."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

import dippouch.store.press.messages as press
from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing

T0 = datetime.now(UTC)


@pytest.fixture
def talk(live_site: LiveSite) -> LiveSite:
    """The site with a standard game, talk, whose England, France and Germany have players."""
    store_games.create_game(live_site.store, "talk", "standard", now=T0)
    for power in ("England", "France", "Germany"):
        store_games.assign(live_site.store, "talk", power, f"{power} Player", now=T0)
    return live_site


def _player(site: LiveSite, power: str, size: dict[str, int] = DESKTOP) -> tuple[Any, list[str]]:
    page = site.player("talk", power, size)
    errors = watch_errors(page)
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))
    return page, errors


def _send(page: Any, to: list[str], text: str) -> None:
    form = page.locator("#press-compose")
    for p in to:
        form.locator(f"input[name=to][value={p}]").check()
    form.locator("#press-text").fill(text)
    form.locator("#press-send").click()


def _thread(page: Any, label: str) -> Any:
    """A thread of the player's page by its label (not by a sender's name in its messages)."""
    return page.locator("#press-threads > li", has=page.locator(f'.press-thread-label:text-is("{label}")'))


def _shoot(page: Any, name: str) -> None:
    shoot(page, "web", name)


@pytest.mark.slow
def test_players_talk_in_the_browser(talk: LiveSite) -> None:
    from playwright.sync_api import expect

    en, en_err = _player(talk, "England")
    fr, fr_err = _player(talk, "France")
    de, de_err = _player(talk, "Germany", PHONE)
    expect(fr.locator("#press-rules")).to_contain_text("The coordinator does not read private or group press.")
    expect(fr.locator("#press-compose")).to_contain_text("England Player")

    # Private: sent in place (England stays on the page, the message in its thread); France's page, open and
    # not reloaded, shows the unread message as it arrives.
    url = en.url
    _send(en, ["France"], "Shall we keep the Channel empty?")
    expect(_thread(en, "France").locator("ol.press-messages")).to_contain_text("Shall we keep the Channel empty?")
    expect(en.locator("#press-compose .press-status")).to_have_text("Sent.")
    assert en.url == url
    # A conversation that begins now opens on arrival, its message shown (issue 55: it arrived folded).
    expect(_thread(fr, "England").locator("ol.press-messages")).to_contain_text("Shall we keep the Channel empty?")
    expect(_thread(fr, "England").locator("details.press-thread")).to_have_attribute("open", "")
    expect(fr.locator("#press-live")).to_have_text("New message from England.")
    expect(de.locator("#press-threads")).not_to_contain_text("England")
    _shoot(fr, "press-unread-desktop")
    expect(_thread(fr, "England").locator("summary .unread")).to_be_hidden()

    # The reply, from the thread's own box, arrives in England's open thread without reloading.
    _thread(fr, "England").locator("textarea").fill("Agreed, and Belgium?")
    _thread(fr, "England").get_by_role("button", name="Send reply").click()
    expect(_thread(en, "France").locator("ol.press-messages")).to_contain_text("Agreed, and Belgium?")

    # Group, then public: Germany (on a phone) sees both arrive.
    en.goto(f"{talk.base}/games/talk/play/England")
    _send(en, ["France", "Germany"], "Triple alliance?")
    expect(_thread(de, "France, England (group)").or_(_thread(de, "England, France (group)"))).to_contain_text(
        "Triple alliance?"
    )
    de.locator("#press-all").check()
    de.locator("#press-text").fill("Germany wants peace with all.")
    de.locator("#press-send").click()
    expect(_thread(en, "Everyone (public)").locator("ol.press-messages")).to_contain_text("Germany wants peace")
    _shoot(de, "press-channel-phone")

    # Script in a message is text: no dialog, no element made of it.
    _send(en, ["France"], '<img src=x onerror="alert(1)"><script>alert(2)</script>')
    expect(_thread(fr, "England").locator("ol.press-messages")).to_contain_text('<img src=x onerror="alert(1)">')
    fr.goto(fr.url)
    expect(_thread(fr, "England").locator("ol.press-messages")).to_contain_text('<img src=x onerror="alert(1)">')
    assert fr.locator("#press img").count() == 0

    # A refused message names the rule.
    press.set_press_rules(talk.web.store, "talk", {"kind": "public", "anonymous": True}, now=T0)
    en.goto(f"{talk.base}/games/talk/play/England")
    expect(en.locator("#press-compose")).not_to_contain_text("France Player")  # anonymous: names hidden
    # Anonymity is the game's: its page names England's player to England only, and says why the rest are not.
    en.goto(f"{talk.base}/games/talk")
    expect(en.locator("#names-hidden")).to_be_visible()
    expect(en.locator("main")).to_contain_text("England Player")
    expect(en.locator("main")).not_to_contain_text("France Player")
    _shoot(en, "anonymous-game-desktop")
    en.goto(f"{talk.base}/games/talk/play/England")
    # Only public press: the form offers no power to tick, so the message goes to all powers.
    expect(en.locator("#press-to-all")).to_be_visible()
    press.set_press_rules(talk.web.store, "talk", {"kind": "white", "quiet_phases": ["movement"]}, now=T0)
    _send(en, [], "Just between us")
    expect(en.locator("#press-compose .press-refusal")).to_contain_text("not sent (quiet phase)")
    expect(en.locator("#press-text")).to_have_value("Just between us")
    _shoot(en, "press-refused-desktop")

    # Postal press: held, then delivered with the phase's results.
    press.set_press_rules(talk.web.store, "talk", {"kind": "postal", "anonymous": False, "quiet_phases": []}, now=T0)
    en.goto(f"{talk.base}/games/talk/play/England")
    _send(en, ["France"], "By the next post")
    expect(en.locator("#press-compose .press-status")).to_contain_text("Held until the phase's results")
    fr.goto(f"{talk.base}/games/talk/play/France")
    time.sleep(2.5)  # a few of the stream's looks: nothing arrives before the results
    expect(fr.locator("#press-live")).to_have_text("")
    store_processing.process(talk.web.store, "talk", now=datetime.now(UTC), force=True)
    expect(fr.locator("#press-live")).to_have_text("New message from England.")
    expect(_thread(fr, "England").locator("summary .unread")).to_have_text("1 unread")
    _shoot(fr, "press-postal-desktop")

    for errors in (en_err, fr_err, de_err):
        # A refused message is the API's 400, which the browser logs: it is the refusal shown, not an error.
        refused = "status of 400 (Bad Request) (http://localhost"
        # (press.js asks for the page's language: /press?lang=en.)
        sent = ("/press)", "/press?lang=")
        assert [e for e in errors if "favicon" not in e and not (refused in e and any(s in e for s in sent))] == []


def test_a_reply_by_email_arrives_on_the_open_page(
    live_site: LiveSite, smtp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """England writes on the web; France, who plays by mail, answers the copy from a real mail server; the
    answer appears on England's open channel page."""
    import email.utils
    from email.message import EmailMessage

    from playwright.sync_api import expect

    from dippouch.mail.intake import take_in
    from dippouch.mail.notices import setup as mail_setup
    from dippouch.mail.outbox import send_due
    from dippouch.mail.settings import load_settings

    for k, v in {
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "press@dippouch.example",
    }.items():
        monkeypatch.setenv(k, v)
    store = live_site.web.store
    store_games.create_game(store, "letters", "standard", now=T0)
    store_games.assign(store, "letters", "England", "Ann", now=T0)
    store_games.assign(store, "letters", "France", "Bea", now=T0)
    store_games.set_email(store, "letters", "France", "bea@example.org", now=T0)
    mail_setup(store, "letters", now=T0, changes={})  # the game's mail takes replies: copies go
    _, key = live_site.web.access.create_key("player", game="letters", power="England", now=T0)
    en = live_site.key_page(key)
    ctx = en.context
    en.goto(f"{live_site.base}/games/letters/play/England")
    _send(en, ["France"], "Will you write back by post?")
    expect(_thread(en, "France").locator("ol.press-messages")).to_contain_text("Will you write back by post?")

    report = send_due(store, datetime.now(UTC), load_settings("smtp"))
    assert report.server_down is None and not report.failed
    (copy,) = smtp.to("bea@example.org")
    reply = EmailMessage()
    reply["From"] = "bea@example.org"
    reply["To"] = str(copy["From"])
    reply["Subject"] = "Re: " + str(copy["Subject"])
    reply["Message-ID"] = email.utils.make_msgid(domain="example.org")
    reply.set_content("By mail, gladly.\n\n> Will you write back by post?\n")
    outcome = take_in(store, reply.as_bytes(), now=datetime.now(UTC))
    assert outcome.status == "accepted", outcome.line()
    expect(_thread(en, "France").locator("ol.press-messages")).to_contain_text("By mail, gladly.")
    _shoot(en, "press-mail-reply-desktop")
    ctx.close()
