"""axe-core (the copy axe-playwright-python ships, injected by Playwright into Debian's Chromium) over every kind of
page the site serves, at desktop and phone sizes, in light and dark colour schemes: no serious or critical
violation anywhere. Issue 41 found two serious rules failing on every page (muted grey text at 4.47:1 and links
told apart by colour only) and a few more on some; this is the check that keeps them fixed, for pages added
later too (add a page kind to ``_pages``). The pages a form answers with (the desk's confirmation, a new link shown
once, "a link is on its way") and a key's link followed from another site are reached as a person reaches them.

On the phone, the same pages are measured by this module's own reading of every control's box (24 px, or spaced
as WCAG 2.2 allows) and of the main controls (44 px): axe leaves a label's or a fold's height alone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest

import dippouch.store.press as press
from browsersupport import ARTIFACTS, DESKTOP, PHONE, LiveSite, is_phone
from dippouch.game import Settings, position_to_data
from dippouch.mail.outbox import unsubscribe_token
from dippouch.play import sandbox
from dippouch.play.tournaments import add_game, new_tournament
from dippouch.store.accounts import create_signin_link
from dippouch.store.openings import open_game
from dippouch.store.people import create_person

T0 = datetime.now(UTC)
GRAVE = ("serious", "critical")


def _seed(site: LiveSite, person: int) -> dict[str, str]:
    """A played standard game with orders, press and a finished phase; a W3K game; an open game; the person's
    sandbox, a tournament the person runs, an unsubscribe link of theirs. Answers the addresses that need what
    was made (a channel's id, a sandbox's secret, a link's token)."""
    store = site.store
    store.create_game("classic", "standard", now=T0, settings=Settings(deadlines={"movement": "3d"}))
    for power in ("England", "France", "Germany"):
        store.assign("classic", power, f"{power} Player", now=T0)
    store.submit("classic", "France", "A Paris - Burgundy\nF Brest - Mid-Atlantic Ocean", now=T0)
    store.submit("classic", "Germany", "A Munich - Burgundy", now=T0)
    store.process("classic", now=T0, force=True)
    store.submit("classic", "France", "A Marseilles - Spain", now=T0)
    talk = press.send(store, "classic", "France", ["England"], "Keep the Channel empty?", now=T0)
    press.send(
        store,
        "classic",
        "England",
        ["England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"],
        "A public word to all.",
        now=T0,
    )
    press.announce(store, "classic", "The deadline holds.", now=T0)
    store.create_game("three-kingdoms", "w3k", now=T0)
    store.create_game("autumn-open", "standard", now=T0)
    open_game(store, "autumn-open", now=T0, press="Full press")
    new_tournament(store, "Club", "sos", variant="standard", creator_id=person, now=T0)
    add_game(store, "Club", "classic", in_round="1", now=T0)
    standard = site.web.variant_of("classic")
    _, secret = sandbox.start(store, standard, position_to_data(standard, standard.start), now=T0, person_id=person)
    mailed: list[str] = []

    def compose(token: str, name: str | None, known: bool) -> tuple[str, str]:
        mailed.append(token)
        return "Sign in", token

    create_signin_link(store, "new@example.org", now=T0, compose=compose)
    return {
        "SIGNIN_LINK": "/signin/link/" + quote(mailed[0], safe=""),
        "CHANNEL": f"/games/classic/play/France/press/{talk.channel_id}",
        "SANDBOX": "/sandbox/" + quote(secret, safe=""),
        "UNSUBSCRIBE": "/unsubscribe/" + quote(unsubscribe_token(store, person, "press"), safe=""),
    }


def _pages(site: LiveSite, person: int) -> list[tuple[str, str]]:
    """(who, address) of each page kind; who is anyone, the coordinator, France's player or the person."""
    return [
        ("anyone", "/"),
        ("anyone", "/variants"),
        ("anyone", "/variants/standard"),
        ("anyone", "/variants/w3k"),
        ("anyone", "/variants/standard/moves?q=bur"),
        ("anyone", "/signin"),
        ("anyone", "/open"),
        ("anyone", "/games/autumn-open/opening"),
        ("anyone", "/games/classic"),
        ("anyone", "/games/three-kingdoms"),
        ("anyone", "PHASE"),
        ("anyone", "/games/classic/press"),
        ("anyone", f"/people/{person}"),
        ("anyone", "/api/docs"),
        ("anyone", "/games/no-such-game"),
        ("anyone", "/games/classic/replay"),
        ("anyone", "/games/classic/records"),
        ("anyone", "/ratings"),
        ("anyone", "/tournaments"),
        ("anyone", "/tournaments/Club"),
        ("anyone", "/sandbox"),
        ("anyone", "/learn"),
        ("anyone", "/learn/cut?orders=A%20sil%20S%20A%20mun"),
        ("anyone", "/offline"),
        ("anyone", "UNSUBSCRIBE"),
        ("anyone", "SIGNIN_LINK"),
        ("anyone", "KEY_LINK"),
        ("France", "/games/classic/play/France"),
        ("France", "CHANNEL"),
        ("person", "/me"),
        ("person", "/notifications"),
        ("person", "/me/addresses"),
        ("person", "/me/absences"),
        ("person", "/me/delete"),
        ("person", "/new-game"),
        ("person", "/sandbox"),
        ("person", "SANDBOX"),
        ("person", "/tournaments/Club"),
        ("coordinator", "/coordinate"),
        ("coordinator", "/coordinate/mail"),
        ("coordinator", "/games/classic/review"),
        ("coordinator", "/games/classic/coordinate"),
        ("coordinator", "/games/classic/coordinate/press"),
        ("coordinator", "/games/classic/roster"),
        ("coordinator", "/coordinate/outbox"),
        ("coordinator", "/roster"),
        ("coordinator", "CONFIRM"),
        ("coordinator", "SECRET"),
        ("anyone", "SIGNIN_SENT"),
    ]


FORMS = {
    "CONFIRM": ("/games/classic/coordinate", "form[action$='/coordinate/process'] button"),
    "SECRET": ("/games/classic/coordinate", "form[action$='/coordinate/coordinator-key'] button"),
    "SIGNIN_SENT": ("/signin", "#signin-mail button"),
}
"""The pages a form's answer shows (no address of their own): the page the form is on, and its button. Process
now asks again (confirm.html), a new link is shown once (secret.html), a mailed sign-in says where it went
(signin_sent.html)."""


def _violations(page: Any, where: str, phone: bool) -> list[str]:
    """axe's serious and critical findings on ``page``; on a phone also WCAG 2.2's target size (24 px, or 24 px
    apart), a rule axe leaves off unless asked."""
    from axe_playwright_python.sync_playwright import Axe

    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if phone:
        options["rules"] = {"target-size": {"enabled": True}}
    found = []
    for v in Axe().run(page, options=options).response["violations"]:
        if v["impact"] in GRAVE:
            for node in v["nodes"]:
                target = " ".join(str(t) for t in node["target"])
                found.append(f"{where}: {v['id']} ({v['impact']}) at {target}: {node['failureSummary'][:200]}")
    return found


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_axe_violation_on_any_page_kind(live_site: LiveSite, size: dict[str, int], scheme: str) -> None:
    site = live_site
    person = create_person(site.store, "Françoise Dupont", now=T0, email="f@example.org")
    made = _seed(site, person)
    pages = {
        "anyone": site.context(size, color_scheme=scheme).new_page(),
        "coordinator": site.key_page(site.coordinator_key, size, color_scheme=scheme),
        "France": site.key_page(site.player_key("classic", "France"), size, color_scheme=scheme),
        "person": site.person(person, size, color_scheme=scheme).new_page(),
    }
    found: list[str] = []
    seen = 0
    try:
        seen = _visit_all(site, pages, person, made, found, _violations)
    finally:  # a player's page keeps its press stream open: closed here, before the server stops
        for page in pages.values():
            page.context.close()
    report = ARTIFACTS / "axe" / f"{'phone' if is_phone(size) else 'desktop'}-{scheme}.txt"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(found) + "\n", encoding="utf-8")
    assert seen == len(_pages(site, person))
    assert not found, f"{len(found)} serious or critical axe violations (also in {report}):\n" + "\n".join(found)


def _visit_all(
    site: LiveSite,
    pages: dict[str, Any],
    person: int,
    made: dict[str, str],
    found: list[str],
    check: Callable[[Any, str, bool], list[str]],
) -> int:
    """``check`` (axe, or a measurement) on each page kind as it loaded, what it finds added to ``found``;
    answers how many pages were checked."""
    seen = 0
    for who, address in _pages(site, person):
        page = pages[who]
        if address == "PHASE":
            page.goto(f"{site.base}/games/classic")
            address = str(page.locator("ol.history a").first.get_attribute("href"))
        address = made.get(address, address)
        if address == "KEY_LINK":  # a key's link followed from another site: a button to sign in, not a sign-in
            # Another site: the same server by its address, not its name (a page's own content would be same-origin).
            page.goto(site.base.replace("localhost", "127.0.0.1") + "/offline")
            page.set_content(f'<a href="{site.base}/k/{site.player_key("classic", "England")}">link</a>')
            with page.expect_navigation() as navigation:
                page.locator("a").click()
            answer = navigation.value
            assert page.locator("#signin-confirm").count() == 1, "a link from another site signed in at once"
        elif address in FORMS:
            start, button = FORMS[address]
            page.goto(site.base + start)
            if start == "/signin":
                page.locator("#signin-mail input[name=email]").fill("f@example.org")
            with page.expect_navigation() as navigation:
                page.locator(button).first.click()
            answer = navigation.value
            address = f"{address} (from {start})"
        else:
            answer = page.goto(site.base + address)
        assert answer is not None and answer.status in (200, 404), f"{address} answered {answer and answer.status}"
        page.wait_for_load_state("networkidle")
        found.extend(check(page, f"{who} {address}", is_phone(page.viewport_size)))
        seen += 1
    return seen


MAIN_CONTROLS = {
    "header nav a": "the header's links",
    "header .account a, header .account button": "Sign in / Sign out",
    ".map-tools button": "the map's buttons",
    "ol.history a": "the history's phase links",
}


def _main_controls(page: Any, where: str, phone: bool) -> list[str]:
    """The controls of :data:`MAIN_CONTROLS` on ``page`` under 44 px high (the map's buttons: or wide); the
    header's links and Sign in/out must be on every page."""
    small = []
    for selector, what in MAIN_CONTROLS.items():
        boxes = page.eval_on_selector_all(
            selector,
            "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim(), e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])",
        )
        if selector.startswith("header") and "/offline" not in where:
            assert boxes, f"{what} not on {where}"
        for text, width, height in boxes:
            wide_enough = width >= 44 or not selector.startswith(".map-tools")
            if height < 44 or not wide_enough:
                small.append(f"{where}: {what} {text!r} is {width:.0f}x{height:.0f}")
    return small


@pytest.mark.slow
def test_the_main_controls_are_44_px_on_a_phone(live_site: LiveSite) -> None:
    """The controls used on every visit, measured on a phone on every page kind: at least 44 px high (WCAG
    2.5.5's size; the map's buttons as wide too). They were 18-23 px high (issue 41)."""
    small = _measured_on_a_phone(live_site, _main_controls)
    assert not small, "\n".join(small)


def _measured_on_a_phone(site: LiveSite, measure: Callable[[Any, str, bool], list[str]]) -> list[str]:
    """Every page kind visited on a phone (each kind seen), ``measure`` run on each: what it found too small."""
    person = create_person(site.store, "Françoise Dupont", now=T0, email="f@example.org")
    made = _seed(site, person)
    pages = _phone_pages(site, person)
    small: list[str] = []
    try:
        seen = _visit_all(site, pages, person, made, small, measure)
    finally:
        for page in pages.values():
            page.context.close()
    assert seen == len(_pages(site, person))
    return small


def _phone_pages(site: LiveSite, person: int) -> dict[str, Any]:
    """A page at phone size for each of the visitors :func:`_pages` names."""
    return {
        "anyone": site.context(PHONE).new_page(),
        "coordinator": site.key_page(site.coordinator_key, PHONE),
        "France": site.key_page(site.player_key("classic", "France"), PHONE),
        "person": site.person(person, PHONE).new_page(),
    }


MEASURE = """() => {
  const TARGETS = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]';
  const boxOf = e => {  // a box or radio inside its label is tapped by its label: the label is the target
    const label = (e.matches('input[type=checkbox], input[type=radio]') && (e.closest('label') ||
      (e.id && document.querySelector('label[for="' + CSS.escape(e.id) + '"]')))) || e;
    return label.getBoundingClientRect();
  };
  const inline = e => {  // WCAG 2.5.8's inline exception: a link in a sentence, its height the line's
    if (e.tagName !== 'A' || getComputedStyle(e).display !== 'inline') return false;
    const block = e.parentElement;
    return Array.from(block.childNodes).some(n => n.nodeType === 3 && /[\\p{L}\\p{N}]/u.test(n.textContent));
  };
  const shown = Array.from(document.querySelectorAll(TARGETS)).filter(e => {
    if (e.closest('svg') || e.matches('.skip, [tabindex="-1"]') || e.disabled) return false;
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && r.right > 0 && r.left < innerWidth;
  });
  const boxes = shown.map(e => ({e: e, r: boxOf(e)}));
  const centre = r => [r.left + r.width / 2, r.top + r.height / 2];
  const near = (c, r) => Math.hypot(Math.max(r.left - c[0], 0, c[0] - r.right), Math.max(r.top - c[1], 0, c[1] - r.bottom));
  const small = boxes.filter(b => (b.r.width < 24 || b.r.height < 24) && !inline(b.e));
  return small.filter(b => {  // the spacing exception: a 24 px circle about it touches no other target
    const c = centre(b.r);
    return boxes.some(o => o.e !== b.e && !o.e.contains(b.e) && !b.e.contains(o.e) && o.r !== b.r &&
      (small.includes(o) ? Math.hypot(c[0] - centre(o.r)[0], c[1] - centre(o.r)[1]) < 24 : near(c, o.r) < 12));
  }).map(b => [b.e.tagName.toLowerCase() + (b.e.id ? '#' + b.e.id : '') + (b.e.className ? '.' + String(b.e.className).trim().split(/\\s+/).join('.') : ''),
               (b.e.textContent || b.e.getAttribute('aria-label') || b.e.name || '').trim().slice(0, 40),
               Math.round(b.r.width), Math.round(b.r.height)]);
}"""
"""Every control on the page smaller than 24x24 CSS px and closer than WCAG 2.5.8's 24 px circle to another:
its selector, text and size. A box or radio is measured by its label (tapping the label ticks it); a link in a
sentence, whose height is the line's, is WCAG's inline exception."""


def _small_controls(page: Any, where: str, phone: bool) -> list[str]:
    return [f"{where}: {what} {text!r} {w}x{h}" for what, text, w, h in page.evaluate(MEASURE)]


@pytest.mark.slow
def test_every_control_is_24_px_on_a_phone(live_site: LiveSite) -> None:
    """Every page kind's every control measured on a phone, by this test's own measurement (not axe's): at least
    24x24 px, or spaced as WCAG 2.2 allows. Sign out was 61x19, the desk's "Seat a bot" 77x20, the history's
    links 18 px high (issue 41)."""
    small = _measured_on_a_phone(live_site, _small_controls)
    assert not small, f"{len(small)} controls under 24 px on a phone:\n" + "\n".join(small)
