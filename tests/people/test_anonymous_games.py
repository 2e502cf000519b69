"""An anonymous game from the attacker's side: a visitor and another power's player walk every GET route of
the app (HTML, JSON, CSV, PDF text, .ics, the game file) and find no player's name, address or person link;
the coordinator and each player for their own seat still see theirs; once the game is over the names are
shown where they normally are."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from dippouch import notify
from dippouch.mail.notices import setup as mail_setup
from dippouch.notify.events import save_preferences
from dippouch.notify.scan import scan
from dippouch.store import transfer as store_transfer
from dippouch.store import variant_copy as variant_copy
from dippouch.store import votes as store_votes
from dippouch.store.mail.models import OutboxRow
from dippouch.store.notify.stored import deliveries
from dippouch.store.people.absences import record_absence
from dippouch.store.people.addresses import add_address, set_roster_visibility
from dippouch.store.people.persons import create_person, seat_person
from dippouch.store.press import messages as store_press
from websupport import Site, check_api_answer

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

GAME = "hush"
ADA, BLAISE, CARL = "Ada Lovelace", "Blaise Pascal", "Carl Gauss"
OTHERS = {"Austria": "Dora Marsden", "Italy": "Emmy Noether", "Russia": "Fyodor Tiutchev", "Turkey": "Gul Baba"}
ADA_MAIL, BLAISE_MAIL, CARL_MAIL = "ada.secret@example.org", "blaise.secret@example.org", "carl.secret@example.org"
ADA_HOME = "12 Ockham Lane"

# Routes that take something no game gives a reader (a key, a one-time link, a photograph of mail for the
# coordinator's review): walked with what they take elsewhere; here only named, so a new route is not missed.
NOT_WALKED = {
    "/k/{secret}": "a player's key: the attacker has their own only",
    "/signin/link/{token}": "a one-time sign-in link",
    "/games/{name}/review/photo/{attachment_id}": "a photograph of mail, the coordinator's review only",
    "/games/{name}/play/{power}/press-events": "an event stream that stays open (its messages are the API's)",
}


def person_browser(site: Site, pid: int) -> TestClient:
    c = TestClient(site.app, raise_server_exceptions=False)
    c.event_hooks = {"request": [], "response": [check_api_answer]}
    c.cookies.set("dp_session", site.web.access.start_session([], now=site.clock(), person_id=pid))
    c.get("/")
    return c


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'web.db'}")


def _get_routes(site: Site) -> list[str]:
    out: list[str] = []

    def walk(routes: Any) -> None:
        for r in routes:
            inner = getattr(r, "original_router", None)
            if inner is not None:
                walk(inner.routes)
            elif "GET" in (getattr(r, "methods", None) or ()):
                out.append(str(r.path))

    walk(site.app.router.routes)
    return sorted(set(out))


def _text(r: Any) -> str:
    """What a reader gets, as text: a PDF through poppler's pdftotext (its words, not its bytes)."""
    if r.content.startswith(b"%PDF"):
        done = subprocess.run(["pdftotext", "-", "-"], input=r.content, capture_output=True, check=True)
        return bytes(done.stdout).decode()
    return str(r.text)


def _setup(site: Site) -> dict[str, Any]:
    site.new_game(GAME, "standard", movement="2d", anonymous="on")
    now = site.clock()
    store = site.web.store
    ids: dict[str, int] = {}
    for power, name, mail in (("England", ADA, ADA_MAIL), ("France", BLAISE, BLAISE_MAIL)):
        r = site.post_form(
            site.coordinator, f"/games/{GAME}/coordinate/assign", {"power": power, "player": name, "email": mail}
        )
        assert r.status_code == 200, r.text
        ids[power] = create_person(store, name, now=now, email=mail)
        seat_person(store, GAME, power, ids[power], now=now)
    r = site.post_form(
        site.coordinator, f"/games/{GAME}/coordinate/assign", {"power": "Germany", "player": CARL, "email": CARL_MAIL}
    )
    assert r.status_code == 200
    for power, name in OTHERS.items():
        site.seat(GAME, power, name)
    add_address(store, ids["England"], ADA_HOME, now=now)
    record_absence(store, ids["England"], date(2026, 12, 1), date(2026, 12, 9), now=now, reason="at the seaside")
    set_roster_visibility(store, GAME, "co-players", now=now)  # even so: not whose address is whose
    blaise = person_browser(site, ids["France"])
    renew = site.post_form(blaise, "/me/calendar", {"action": "renew"})
    token = re.search(r"/me/calendar/([A-Za-z0-9_.-]+)\.ics", renew.text)
    assert token, renew.text
    # Notifications and press copies too: the game's mail takes replies, and its people take press by e-mail.
    mail_setup(store, GAME, now=now, changes={})
    for pid in ids.values():
        save_preferences(store, pid, {(e, c): True for e in notify.EVENTS for c in notify.CHANNELS}, None)
    scan(store, now)
    site.clock.advance(minutes=1)
    now = site.clock()
    store_press.send(store, GAME, "England", ["France"], "Meet me in the Channel", now=now)
    store_press.send(store, GAME, "France", ["England", "Germany", "Italy"], "A group of three", now=now)
    store_press.send(
        store, GAME, "Germany", list(variant_copy.variant_of(site.web.store, GAME).power_names), "Hello all", now=now
    )
    site.clock.advance(minutes=1)
    scan(store, site.clock())  # each message is mailed as a copy, so told by no second e-mail
    return {"ids": ids, "blaise": blaise, "calendar": token.group(1).removesuffix(".ics")}


def _urls(site: Site, routes: list[str], ctx: dict[str, Any], reader: TestClient) -> list[str]:
    powers = list(variant_copy.variant_of(site.web.store, GAME).power_names)
    phases = [p.id for p in site.web.access.phases(GAME)]
    threads = reader.get(f"/api/games/{GAME}/powers/France/press")
    channels = [t["id"] for t in threads.json()["threads"]] if threads.status_code == 200 else [1, 2, 3, 4]
    fill: dict[str, list[str]] = {
        "power": powers,
        "person_id": [str(i) for i in ctx["ids"].values()],
        "phase_id": [str(p) for p in phases],
        "channel_id": [str(c) for c in channels],
        "after": ["0"],
        "view": ["board", "orders", "after", "after-orders"],
        "token": [ctx["calendar"]],
        "fmt": ["gif", "webp"],
        # the opening explorer's: the game's variant (it counts finished public games only)
        "variant": ["standard"],
        # a lesson of the guided first game, and a puzzle (none stored: its page says so)
        "slug": ["moves"],
        "pid": ["1"],
        # The game's board file by its content's hash (the player's page draws over it), and an old hash.
        "digest": [_board_digest(site), "0" * 16],
    }
    out: list[str] = []
    for route in routes:
        if route in NOT_WALKED:
            continue
        name = "standard" if route.startswith(("/variants", "/api/variants")) else GAME
        urls = [route.replace("{name}", name)]
        for key, values in fill.items():
            if "{" + key + "}" in route:
                urls = [u.replace("{" + key + "}", v) for u in urls for v in values]
        assert all("{" not in u for u in urls), f"a route this walk cannot fill: {route}"
        out += urls
    return out


def _board_digest(site: Site) -> str:
    from dippouch.web.views.games import board_url

    url = board_url(site.web, GAME)
    assert url is not None, "no board file for the walk's game"
    return url.rsplit("board-", 1)[1].removesuffix(".svg")


def _leaks(site: Site, reader: TestClient, urls: list[str], secrets: list[str]) -> str:
    """Every (url: secret) found, one a line (an assertion's message shows them all)."""
    found = []
    for url in urls:
        r = reader.get(url, follow_redirects=False)
        assert r.status_code < 500, (url, r.status_code, r.text[:300])
        text = _text(r)
        for secret in secrets:
            if secret.lower() in text.lower():
                found.append(f"{url}: {secret}")
    return "\n".join(found)


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed (scripts/setup)")
def test_no_route_names_the_players_of_an_anonymous_game_until_it_ends(site: Site) -> None:
    ctx = _setup(site)
    ids, blaise = ctx["ids"], ctx["blaise"]
    routes = _get_routes(site)
    assert "/games/{name}/roster.pdf" in routes and "/api/games/{name}/export" in routes  # the walk sees them
    everyone = [ADA, BLAISE, CARL, *OTHERS.values()]
    addresses = [ADA_MAIL, BLAISE_MAIL, CARL_MAIL, ADA_HOME]
    person_links = [f"/people/{i}" for i in ids.values()]
    visitor = site.browser()
    urls = _urls(site, routes, ctx, blaise)
    game_urls = [u for u in urls if not u.startswith(("/people/", "/api/people/"))]
    # A person's own page names them, not the game they play in.
    people_urls = [u for u in urls if u.startswith(("/people/", "/api/people/"))]
    assert people_urls and game_urls

    leaks = _leaks(site, visitor, game_urls, everyone + addresses + person_links)
    assert not leaks, leaks
    others = [n for n in everyone if n != BLAISE]
    leaks = _leaks(site, blaise, game_urls, [*others, ADA_MAIL, CARL_MAIL, ADA_HOME, f"/people/{ids['England']}"])
    assert not leaks, leaks
    for reader in (visitor, blaise):
        leaks = _leaks(site, reader, people_urls, [GAME, "England", "Germany"])
        assert not leaks, leaks

    # What is mailed and notified to the players (press copies, "a message for you") names powers only.
    with site.web.store.session() as s:
        mailed = [f"{r.subject}\n{r.body}" for r in s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == "press"))]
    told = [f"{d.title}\n{d.body}" for d in deliveries(site.web.store)]
    assert len(mailed) >= 3 and any("is starting" in t for t in told)
    for text in mailed + told:
        assert not [n for n in everyone if n in text], text

    # A holiday shows the same days at the same moment in every game its person plays: beside a game that names
    # them, it would name England's player here. Nobody but the coordinator (and Ada) sees it before the end.
    for reader in (visitor, blaise):
        assert reader.get(f"/api/games/{GAME}/absences").json()["away"] == []
        events = reader.get(f"/api/games/{GAME}/export").json()["events"]
        assert not [e for e in events if e["kind"].startswith("away")]
        assert "away" not in blaise.get(f"/api/games/{GAME}/roster").text
    assert [a["power"] for a in site.coordinator.get(f"/api/games/{GAME}/absences").json()["away"]] == ["England"]
    assert "the players' names are shown when it ends" in visitor.get(f"/games/{GAME}").text
    assert visitor.get(f"/api/games/{GAME}").json()["names_hidden"] is True

    # The press panel tells the player where their copies go (they chose press by e-mail; the game takes replies).
    assert blaise.get(f"/api/games/{GAME}/powers/France/press").json()["by_mail"] == BLAISE_MAIL
    assert f"each message for you is mailed to {BLAISE_MAIL}" in blaise.get(f"/games/{GAME}/play/France").text

    # Each player still sees their own name, and the coordinator every name and address.
    assert BLAISE in blaise.get(f"/games/{GAME}/roster").text
    assert BLAISE in blaise.get(f"/api/games/{GAME}").text
    desk = site.coordinator.get(f"/games/{GAME}/roster").text
    assert ADA in desk and ADA_HOME in desk and CARL_MAIL in desk
    assert ADA_HOME in _text(site.coordinator.get(f"/games/{GAME}/roster.pdf"))  # the PDF's words are read
    assert ADA in site.coordinator.get(f"/games/{GAME}").text
    assert ADA in site.coordinator.get(f"/api/games/{GAME}/export").text

    # The game ends (a draw): names are shown where they normally are.
    for power in variant_copy.variant_of(site.web.store, GAME).power_names:
        store_votes.vote(site.web.store, GAME, power, True, now=site.clock())
    site.web.touched(GAME)
    page = visitor.get(f"/games/{GAME}").text
    assert ADA in page and "the players' names are shown when it ends" not in page
    assert CARL in visitor.get(f"/api/games/{GAME}").text
    assert ADA in visitor.get(f"/games/{GAME}/export.json").text
    assert ADA_MAIL not in visitor.get(f"/games/{GAME}/export.json").text  # addresses: never public
    roster = blaise.get(f"/games/{GAME}/roster").text
    assert ADA in roster and ADA_HOME in roster  # co-players read addresses, as the game's setting says
    assert ADA in blaise.get(f"/api/games/{GAME}/powers/France/press").text


def test_anonymity_is_the_games_setting_and_the_press_rules_read_it(site: Site) -> None:
    site.new_game("open", "standard", movement="2d")
    site.new_game("w3k", "w3k", movement="2d")
    assert not store_press.press_rules(site.web.store, "open").anonymous
    assert not store_press.press_rules(site.web.store, "w3k").anonymous
    site.seat("open", "England", ADA)
    anyone = site.browser()
    assert ADA in anyone.get("/games/open").text  # not anonymous: named as before
    # The press desk's switch is the game's setting: every page follows it at once.
    store_press.set_press_rules(site.web.store, "open", {"anonymous": True}, now=site.clock())
    site.web.touched("open")
    assert store_press.press_rules(site.web.store, "open").anonymous
    assert ADA not in anyone.get("/games/open").text
    assert store_transfer.game_file(site.web.store, "open", view="coordinator", now=site.clock())["game"]["settings"][
        "anonymous"
    ]
    store_press.set_press_rules(site.web.store, "open", {"anonymous": False}, now=site.clock())
    site.web.touched("open")
    assert ADA in anyone.get("/games/open").text


def test_a_coordinator_makes_a_game_anonymous_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import dippouch.cli.game  # noqa: F401  (registers the commands)
    from dippouch.cli import app

    db = f"sqlite:///{tmp_path / 'cli.db'}"
    r = CliRunner().invoke(app, ["new", "quiet", "--anonymous", "--db", db])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["new", "loud", "--variant", "w3k", "--db", db])
    assert r.exit_code == 0, r.output
    from dippouch.store import GameStore

    store = GameStore(db)
    try:
        assert store_press.press_rules(store, "quiet").anonymous
        assert not store_press.press_rules(store, "loud").anonymous  # W3K: names shared, as its rulebook has it
    finally:
        store.close()
