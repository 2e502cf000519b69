"""axe-core (the copy axe-playwright-python ships, injected by Playwright into Debian's Chromium) over every kind of
page the site serves, at desktop and phone sizes, in light and dark colour schemes: no serious or critical
violation anywhere. Issue 41 found two serious rules failing on every page (muted grey text at 4.47:1 and links
told apart by colour only) and a few more on some; this is the check that keeps them fixed, for pages added
later too (add a page kind to ``_pages``). The pages a form answers with (the desk's confirmation, a new link shown
once, "a link is on its way") and a key's link followed from another site are reached as a person reaches them.

On the phone, the same pages are measured by this module's own reading of every control's box (24 px, or spaced
as WCAG 2.2 allows) and of the main controls (44 px): axe leaves a label's or a fold's height alone.

One site is seeded for the module and each size walks it once: on each page every axe rule in light colours,
then axe's colour rules with the page turned dark (the only rules whose outcome the scheme can change), and on
the phone the two measurements first. Each size and scheme, and each measurement, loaded every page again and
took about a minute of its own."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest

import dippouch.store.press.messages as press
from browsersupport import ARTIFACTS, DESKTOP, PHONE, ROOT, LiveSite, is_phone, running_site
from dbsupport import migrated_sqlite
from dippouch.game import GameSettings, position_to_data
from dippouch.mail.outbox import unsubscribe_token
from dippouch.play import sandbox
from dippouch.play.tournaments import add_game, new_tournament
from dippouch.store import games as store_games
from dippouch.store import processing as store_processing
from dippouch.store import submissions as store_submissions
from dippouch.store.openings import open_game
from dippouch.store.people.accounts import create_signin_link
from dippouch.store.people.persons import create_person

T0 = datetime.now(UTC)
GRAVE = ("serious", "critical")


def _seed(site: LiveSite, person: int) -> dict[str, str]:
    """A played standard game with orders, press and a finished phase; a W3K game; an open game; the person's
    sandbox, a tournament the person runs, an unsubscribe link of theirs. Answers the addresses that need what
    was made (a channel's id, a sandbox's secret, a link's token)."""
    store = site.store
    store_games.create_game(store, "classic", "standard", now=T0, settings=GameSettings(deadlines={"movement": "3d"}))
    for power in ("England", "France", "Germany"):
        store_games.assign(store, "classic", power, f"{power} Player", now=T0)
    store_submissions.submit(store, "classic", "France", "A Paris - Burgundy\nF Brest - Mid-Atlantic Ocean", now=T0)
    store_submissions.submit(store, "classic", "Germany", "A Munich - Burgundy", now=T0)
    store_processing.process(store, "classic", now=T0, force=True)
    store_submissions.submit(store, "classic", "France", "A Marseilles - Spain", now=T0)
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
    store_games.create_game(store, "three-kingdoms", "w3k", now=T0)
    store_games.create_game(store, "autumn-open", "standard", now=T0)
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


COLOUR_RULES = ("color-contrast", "link-in-text-block")
"""The rules of axe's own colour category (``cat.color``) that it runs unless told: contrast of text with its
background, and a link in a sentence told apart from the text around it by more than its colour. The third rule
of that category, color-contrast-enhanced (AAA's 7:1), is off by default and stays off here, as in light."""


def _violations(page: Any, where: str, phone: bool, rules: tuple[str, ...] = ()) -> list[str]:
    """axe's serious and critical findings on ``page`` (only ``rules`` when named); on a phone also WCAG 2.2's
    target size (24 px, or 24 px apart), a rule axe leaves off unless asked."""
    from axe_playwright_python.base import AXE_SCRIPT

    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    elif phone:
        options["rules"] = {"target-size": {"enabled": True}}
    if page.evaluate("typeof window.axe === 'undefined'"):  # a second run on the same document finds it there
        page.evaluate(AXE_SCRIPT)
    found = []
    for v in page.evaluate("options => axe.run(options)", options)["violations"]:
        if v["impact"] in GRAVE:
            for node in v["nodes"]:
                target = " ".join(str(t) for t in node["target"])
                found.append(f"{where}: {v['id']} ({v['impact']}) at {target}: {node['failureSummary'][:200]}")
    return found


def _in_both_schemes(page: Any, where: str, phone: bool) -> list[str]:
    """Every axe rule on ``page`` in light colours, then its colour rules again once it is dark.

    The dark scheme changes colours only (app.css's dark block sets colour variables, the shadows' colours and
    ``color-scheme``: :func:`test_the_dark_scheme_changes_colours_only` keeps it so), so every other rule
    (names, roles, headings, landmarks, layout, target size) reads the same page in dark as in light and need
    not run twice; the page is switched in place rather than loaded again, as a person's system switching
    does. Its colours change at once (no colour is animated), and then the colour rules run on what is
    drawn."""
    found = _violations(page, f"{where} (light)", phone)
    page.emulate_media(color_scheme="dark")
    try:
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches"), "the page did not turn dark"
        found += _violations(page, f"{where} (dark)", phone, COLOUR_RULES)
    finally:
        page.emulate_media(color_scheme="light")
    return found


class _Traffic:
    """The requests a page has in flight, to wait for a page's scripts to have what they fetched (the public
    game page's map, the new-game page's thumbnails) before it is checked.

    Playwright's ``networkidle`` waits half a second after the last request on every page: 25 s of a walk
    over 49 page kinds. Here the wait ends as soon as nothing has been asked for or answered for
    :data:`QUIET` seconds; what a page fetches once loaded starts with its scripts, well within that. A press
    stream (an EventSource) stays open as long as the page and is not waited for."""

    QUIET = 0.15

    def __init__(self, page: Any) -> None:
        self.page = page
        self.open: set[Any] = set()
        self.last = time.monotonic()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Any) -> None:
        if request.resource_type != "eventsource":
            self.open.add(request)
        self.last = time.monotonic()

    def _ended(self, request: Any) -> None:
        self.open.discard(request)
        self.last = time.monotonic()

    def settle(self, timeout: float = 60.0) -> None:
        until = time.monotonic() + timeout
        while self.open or time.monotonic() - self.last < self.QUIET:
            waiting = sorted(r.url for r in self.open)
            assert time.monotonic() < until, f"still loading after {timeout:.0f} s: {waiting}"
            self.page.wait_for_timeout(25)  # Playwright hands over the page's events while it waits


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[tuple[LiveSite, int, dict[str, str]]]:
    """One site seeded once for the module's walks (each walk opens its own contexts and changes nothing the
    next reads: the forms it sends process no phase, make a key and mail a link)."""
    db = migrated_sqlite(tmp_path_factory.mktemp("axe") / "site.db")
    with running_site(db, chromium) as site:
        person = create_person(site.store, "Françoise Dupont", now=T0, email="f@example.org")
        yield site, person, _seed(site, person)


@dataclass
class Walk:
    """What one walk over every page kind at one size found: axe's findings (light, and dark's colours) and,
    on a phone, the controls under 24 px and the main ones under 44 px."""

    seen: int = 0
    axe: list[str] = field(default_factory=list)
    small: list[str] = field(default_factory=list)
    under_44: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def walks(seeded: tuple[LiveSite, int, dict[str, str]]) -> Callable[[dict[str, int]], Walk]:
    """Each size's walk, made once when a test first asks for it: the phone's serves its axe test and both
    measurements, which read the same pages at the same size (the measurements before axe touches a page)."""
    done: dict[str, Walk] = {}

    def walk(size: dict[str, int]) -> Walk:
        name = "phone" if is_phone(size) else "desktop"
        if name not in done:
            done[name] = _walk(*seeded, size)
        return done[name]

    return walk


def _walk(site: LiveSite, person: int, made: dict[str, str], size: dict[str, int]) -> Walk:
    phone = is_phone(size)
    got = Walk()

    def check(page: Any, where: str) -> None:
        if phone:
            got.small += _small_controls(page, where)
            got.under_44 += _main_controls(page, where)
        got.axe.extend(_in_both_schemes(page, where, phone))

    pages = {
        "anyone": site.context(size).new_page(),
        "coordinator": site.key_page(site.coordinator_key, size),
        "France": site.key_page(site.player_key("classic", "France"), size),
        "person": site.person(person, size).new_page(),
    }
    try:
        got.seen = _visit_all(site, pages, person, made, check)
    finally:  # a player's page keeps its press stream open: closed here, before the server stops
        for page in pages.values():
            page.context.close()
    report = ARTIFACTS / "axe" / f"{'phone' if phone else 'desktop'}.txt"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(got.axe) + "\n", encoding="utf-8")
    return got


@pytest.mark.slow
@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_axe_violation_on_any_page_kind(
    seeded: tuple[LiveSite, int, dict[str, str]], walks: Callable[[dict[str, int]], Walk], size: dict[str, int]
) -> None:
    """Every page kind at this size: all of axe's rules in light colours, its colour rules in dark."""
    site, person, _ = seeded
    got = walks(size)
    assert got.seen == len(_pages(site, person))
    where = "phone" if is_phone(size) else "desktop"
    assert not got.axe, (
        f"{len(got.axe)} serious or critical axe violations (also in {ARTIFACTS}/axe/{where}.txt):\n"
        + ("\n".join(got.axe))
    )


def test_the_dark_scheme_changes_colours_only() -> None:
    """What lets the dark walk run axe's colour rules alone: every declaration the dark scheme makes (under
    ``prefers-color-scheme: dark`` or ``data-theme="dark"``) sets a colour variable to a colour or a shadow, or
    ``color-scheme``; and no other stylesheet or template has a dark rule of its own. A dark rule that moved
    or hid something would make the layout rules' light outcome no longer the dark one's."""
    static = ROOT / "src" / "dippouch" / "web"
    css = (static / "static" / "app.css").read_text(encoding="utf-8")
    blocks = re.findall(r"@media \(prefers-color-scheme: dark\) \{\s*[^{}]*\{([^{}]*)\}\s*\}", css)
    blocks += re.findall(r':root\[data-theme="dark"\] \{([^{}]*)\}', css)
    assert len(blocks) == 2, "app.css's two dark blocks are not where this test reads them"
    assert css.count("prefers-color-scheme") == 1 and css.count('data-theme="dark"') == 1
    colour = r"#[0-9a-fA-F]{3,8}|rgba?\([^)]*\)"
    shadow = rf"(?:(?:-?[0-9.]+(?:px)?\s+){{2,4}}(?:{colour})\s*,?\s*)+"
    for block in blocks:
        for declaration in filter(None, (d.strip() for d in block.split(";"))):
            name, value = (part.strip() for part in declaration.split(":", 1))
            if name == "color-scheme":
                assert value == "dark"
                continue
            assert name.startswith("--"), f"the dark scheme sets {name}, not a colour variable"
            assert re.fullmatch(colour, value) or re.fullmatch(shadow, value), f"dark's {name} is not a colour: {value}"
    others = [
        path
        for path in [*static.glob("static/*.css"), *static.glob("templates/**/*.html"), *static.glob("static/*.js")]
        if path.name != "app.css" and ("prefers-color-scheme" in path.read_text(encoding="utf-8"))
    ]
    assert others == [], f"a dark rule outside app.css: {others}"


def _visit_all(
    site: LiveSite,
    pages: dict[str, Any],
    person: int,
    made: dict[str, str],
    check: Callable[[Any, str], None],
) -> int:
    """``check`` on each page kind once it has loaded and fetched what its scripts ask for; answers how many
    pages were checked."""
    traffic = {who: _Traffic(page) for who, page in pages.items()}
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
        traffic[who].settle()
        check(page, f"{who} {address}")
        seen += 1
    return seen


MAIN_CONTROLS = {
    "header nav a": "the header's links",
    "header .account a, header .account button": "Sign in / Sign out",
    ".map-tools button": "the map's buttons",
    "ol.history a": "the history's phase links",
}


def _main_controls(page: Any, where: str) -> list[str]:
    """The controls of :data:`MAIN_CONTROLS` on ``page`` under 44 px high (the map's buttons: or wide); the
    header's links and Sign in/out must be on every page."""
    small = []
    for selector, what in MAIN_CONTROLS.items():
        boxes = page.eval_on_selector_all(
            selector,
            "els => els.filter(e => e.offsetParent).map(e => [e.textContent.trim(), e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])",
        )
        if selector.startswith("header") and "/offline" not in where and not boxes:
            small.append(f"{where}: {what} not on the page")
        for text, width, height in boxes:
            wide_enough = width >= 44 or not selector.startswith(".map-tools")
            if height < 44 or not wide_enough:
                small.append(f"{where}: {what} {text!r} is {width:.0f}x{height:.0f}")
    return small


@pytest.mark.slow
def test_the_main_controls_are_44_px_on_a_phone(walks: Callable[[dict[str, int]], Walk]) -> None:
    """The controls used on every visit, measured on a phone on every page kind (in the phone's axe walk): at
    least 44 px high (WCAG 2.5.5's size; the map's buttons as wide too). They were 18-23 px high (issue 41)."""
    got = walks(PHONE)
    assert got.seen and not got.under_44, "\n".join(got.under_44)


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


def _small_controls(page: Any, where: str) -> list[str]:
    return [f"{where}: {what} {text!r} {w}x{h}" for what, text, w, h in page.evaluate(MEASURE)]


@pytest.mark.slow
def test_every_control_is_24_px_on_a_phone(walks: Callable[[dict[str, int]], Walk]) -> None:
    """Every page kind's every control measured on a phone (in the phone's axe walk), by this module's own
    measurement (not axe's): at least 24x24 px, or spaced as WCAG 2.2 allows. Sign out was 61x19, the desk's
    "Seat a bot" 77x20, the history's links 18 px high (issue 41)."""
    got = walks(PHONE)
    assert got.seen and not got.small, f"{len(got.small)} controls under 24 px on a phone:\n" + "\n".join(got.small)
