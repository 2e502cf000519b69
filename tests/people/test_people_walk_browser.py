"""Players as people, walked end to end as one story in Debian's Chromium, with the automation on: the app
served on a port, a real ``dippouch worker`` process (deadlines, notifications, the mail outbox) on the same
database, the tests' real SMTP server taking the sign-in mails, and the tests' local webhook receiver and
Web Push service taking the notifications.

Ann (on a phone), Bo and Cy sign up by the link mailed to them; the coordinator opens a small game (three
powers, one already seated) for sign-up by wishes; Ann and Bo sign up with power wishes and are seated when it
fills; their webhook and push subscription receive "game starting". Ann is on holiday today and tomorrow, and
the game extends deadlines for absent players: the worker moves the deadline instead of processing the phase,
and her game page and calendar feed show the new one. Bo sends nothing and the coordinator offers his seat to
the replacement pool; Cy, who signed up for another open game, is told "seat offered", claims it from /open
and sends orders. The coordinator prints the roster (PDF and CSV); a co-player reads addresses only once the
game's setting lets co-players read them. Screenshots at desktop and phone sizes go to
test-artifacts/people/walk-*.png."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from browsersupport import DESKTOP, PHONE, LiveSite, shoot, watch_errors
from dippouch.game import GameSettings
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.people import absences as B
from dippouch.store.people.persons import person_by_email, seats_of
from mailservers import SmtpServer
from notifysupport import ChatReceiver, PushService, start_chat, start_push
from workersupport import engine, start_worker, stop, wait_until

LINK = re.compile(r"http://[^/\s]+(/signin/link/dl_[A-Za-z0-9_-]+)")
FIRST_DEADLINE = "10m"
"""The first movement phase's time: far more than a loaded machine's browsers need to reach the deadline's part
of the walk, where the deadline is brought forward to :data:`SOON` from then (:func:`_deadline_in`). A deadline
short enough to pass by itself (45 s) made the walk wait out whatever of it the players' part had not needed."""
SOON = 1
"""Seconds from the walk reaching the deadline's part to the deadline brought forward."""


@pytest.fixture
def chat() -> Iterator[ChatReceiver]:
    r = start_chat()
    yield r
    r.stop()


@pytest.fixture
def push() -> Iterator[PushService]:
    r = start_push()
    yield r
    r.stop()


@pytest.fixture
def site(
    live_site: LiveSite, tmp_path: Path, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The app on a port and ``dippouch worker`` on the same database, sending mail to ``smtp``."""
    monkeypatch.setenv("DIPPOUCH_NOTIFY_ALLOW_PRIVATE", "1")  # the receivers are on this machine
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DIPPOUCH_SMTP", "DIPPOUCH_IMAP", "DIPPOUCH_MAIL"))}
    env |= {
        "DIPPOUCH_NOTIFY_ALLOW_PRIVATE": "1",
        "DIPPOUCH_SMTP_HOST": smtp.host,
        "DIPPOUCH_SMTP_PORT": str(smtp.port),
        "DIPPOUCH_SMTP_SECURITY": "none",
        "DIPPOUCH_MAIL_FROM": "games@dippouch.example",
    }
    live_site.service_workers = "allow"  # a walk: its pages as people's browsers have them
    log = tmp_path / "worker.log"
    worker = start_worker(live_site.db_url, "--interval", "1", env=env, log=log)
    try:
        yield {"live": live_site, "base": live_site.base, "web": live_site.web, "worker": worker, "log": log}
    finally:
        stop(worker)


def _shoot(page: Any, name: str) -> None:
    shoot(page, "people", f"walk-{name}")


def _page(site: dict[str, Any], size: dict[str, int], errors: list[str]) -> Any:
    ctx = site["live"].context(size, timezone_id="UTC")
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    watch_errors(page, errors)
    return page


def _sign_up_by_mail(page: Any, site: dict[str, Any], smtp: SmtpServer, email: str, name: str) -> int:
    """Ask for a link on /signin, wait for the worker to mail it, open it from the mail, make the account."""
    base = site["base"]
    page.goto(f"{base}/signin")
    page.fill("#signin-mail input[name=email]", email)
    page.fill("#signin-mail input[name=name]", name)
    page.click("#signin-mail button")
    page.wait_for_selector("#signin-sent")
    wait_until(f"the sign-in mail to {email}", lambda: bool(smtp.to(email)), every=0.2)
    body = smtp.to(email)[-1].get_body(preferencelist=("plain",))
    assert body is not None
    m = LINK.search(body.get_content())
    assert m, body.get_content()
    page.goto(base + m.group(1))
    assert page.input_value("input[name=name]") == name
    page.click("#signin-link-use")
    page.wait_for_url(f"{base}/me")
    who = person_by_email(site["web"].store, email)  # the account the link made
    assert who is not None and who.name == name
    return int(who.id)


def _add_webhook(page: Any, base: str, chat: ChatReceiver, who: str) -> None:
    page.goto(f"{base}/notifications")
    page.get_by_label("Service").select_option("discord")
    page.get_by_label("Webhook address").fill(f"{chat.base}/discord/{who}/secret-part")
    page.get_by_label("Name for it").fill(f"{who}'s channel")
    page.get_by_role("button", name="Add webhook").click()
    assert "secret-part" not in page.content()


def _posts(chat: ChatReceiver, who: str) -> list[str]:
    """What the webhook of ``who`` was posted (empty, and so false, until the first post)."""
    with chat.lock:
        return [r.json["content"] for r in chat.received if r.path.startswith(f"/discord/{who}/")]


def _pushes(push: PushService, endpoint: str) -> list[str]:
    sid = endpoint.rsplit("/", 1)[1]
    with push.lock:
        return [str(r.json["title"]) for r in push.received if r.path == f"/push/{sid}"]


def _starting(found: Callable[[Any, str], list[str]], receiver: Any, who: str) -> Callable[[], bool]:
    """Whether ``who`` was told the game is starting, and nothing but that and the reminder its first, short
    deadline calls for (for :func:`wait_until`)."""

    def told() -> bool:
        got = found(receiver, who)
        assert all(x.startswith(("pool is starting", "pool: orders for")) for x in got), got
        return any(x.startswith("pool is starting") for x in got)

    return told


def _deadline_in(site: dict[str, Any], game: str, seconds: float) -> datetime:
    """Move the game's open phase's deadline to ``seconds`` from now by the database's clock (the worker's),
    in the row itself: the test's stand-in for the time passing. The coordinator's extension would log an
    ``extend`` event and tell every player, which the walk does not expect; and the desk refuses to shorten a
    deadline."""
    import sqlalchemy as sa

    from dippouch.store.models import GameRow, PhaseRow

    store = site["web"].store
    at: datetime = store.clock() + timedelta(seconds=seconds)
    eng = engine(site["live"].db_url)
    try:
        with eng.begin() as c:
            gid = c.execute(sa.select(GameRow.id).where(GameRow.name == game)).scalar_one()
            moved = c.execute(
                sa.update(PhaseRow).where(PhaseRow.game_id == gid, PhaseRow.status == "open").values(deadline=at)
            )
            assert moved.rowcount == 1, moved.rowcount
    finally:
        eng.dispose()
    assert store_status.status(store, game, now=datetime.now(UTC)).deadline == at
    return at


def _ics_stamp(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def test_a_game_that_waited_days_for_its_players_still_tells_them_it_is_starting(db_url: str) -> None:
    """Its first phase opened when the game was made; its clock, held by the opening, starts when it fills.
    "Starting" is when the clock starts, not when the phase opened: nothing is told while it waits."""
    from dippouch.notify.scan import scan
    from dippouch.store import GameStore
    from dippouch.store import openings as O
    from dippouch.store.people.persons import create_person

    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    store = GameStore(db_url)
    try:
        store_games.create_game(store, "slow", "hundred3", now=t0, settings=GameSettings(deadlines={"movement": "2d"}))
        store_games.assign(store, "slow", "England", "Eve", now=t0)
        O.open_game(store, "slow", now=t0, mode="coordinator")
        ann = create_person(store, "Ann", now=t0)
        bo = create_person(store, "Bo", now=t0)
        O.sign_up(store, "slow", ann, ["France"], now=t0 + timedelta(days=1))
        O.assign_signup(store, "slow", ann, "France", now=t0 + timedelta(days=1))
        waiting = scan(store, t0 + timedelta(days=1, minutes=1))
        assert waiting.starting == 0  # Ann is seated, but the clock waits for Burgundy's player
        O.sign_up(store, "slow", bo, ["Burgundy"], now=t0 + timedelta(days=5))
        O.assign_signup(store, "slow", bo, "Burgundy", now=t0 + timedelta(days=5))
        assert store_status.status(store, "slow", now=t0 + timedelta(days=5)).deadline == t0 + timedelta(days=7)
        assert scan(store, t0 + timedelta(days=5, minutes=1)).starting == 2  # Ann and Bo, five days on
    finally:
        store.close()


@pytest.mark.slow
def test_people_walk_from_mailed_link_to_printed_roster(
    site: dict[str, Any], smtp: SmtpServer, chat: ChatReceiver, push: PushService
) -> None:
    from playwright.sync_api import expect

    from dippouch.notify.targets import add_push

    base, web = site["base"], site["web"]
    store = web.store
    today = datetime.now(UTC).date()
    deadlines = {"movement": FIRST_DEADLINE, "retreats": "1d", "adjustments": "1d"}
    store_games.create_game(
        store, "pool", "hundred3", now=datetime.now(UTC), settings=GameSettings(deadlines=deadlines)
    )
    store_games.assign(store, "pool", "England", "Eve", now=datetime.now(UTC))  # seated by the coordinator, with a key
    store_games.create_game(store, "next", "standard", now=datetime.now(UTC))
    errors: list[str] = []
    coord = _page(site, DESKTOP, errors)
    coord.goto(f"{base}/k/{site['live'].coordinator_key}")

    # Three people sign up by the link mailed to them (Ann on her phone).
    a = _page(site, PHONE, errors)
    b = _page(site, DESKTOP, errors)
    c = _page(site, DESKTOP, errors)
    ann = _sign_up_by_mail(a, site, smtp, "ann@example.org", "Ann Lee")
    _shoot(a, "me-phone")
    bo = _sign_up_by_mail(b, site, smtp, "bo@example.org", "Bo Diddley")
    cy = _sign_up_by_mail(c, site, smtp, "cy@example.org", "Cy Young")

    # Their notification channels: a webhook typed into the page, and a push subscription handed to
    # the server as a browser's PushManager would (headless Chromium has no push service of its own).
    subs = {}
    for page, who, pid in ((a, "ann", ann), (b, "bo", bo), (c, "cy", cy)):
        _add_webhook(page, base, chat, who)
        sub = push.subscribe()
        add_push(store, pid, sub.as_browser_sends_it(), now=datetime.now(UTC))
        subs[who] = sub.endpoint
    _shoot(a, "notifications-phone")

    # Ann's address (for the roster) and her holiday, today and tomorrow, recorded before she joins.
    a.goto(f"{base}/me/addresses")
    a.fill("#add-address textarea[name=address]", "1 Powick Lane\nWorcester WR2 4QR")
    a.click("#add-address button")
    expect(a.locator(".flash")).to_contain_text("Address added.")
    a.goto(f"{base}/me/absences")
    a.fill("#add-absence input[name=from]", today.isoformat())
    a.fill("#add-absence input[name=to]", (today + timedelta(days=1)).isoformat())
    a.fill("#add-absence input[name=reason]", "a wedding in Brest")
    a.click("#add-absence button")
    expect(a.locator(".flash")).to_contain_text("recorded for all your games")

    # The coordinator: absent players get extensions (10 days each), addresses for the coordinator
    # only; then both games open for sign-up by wishes.
    coord.goto(f"{base}/games/pool/roster")
    coord.select_option("#roster-settings select[name=absence_policy]", "extend")
    coord.fill("#roster-settings input[name=budget_days]", "10")
    coord.select_option("#roster-settings select[name=roster_visibility]", "coordinator")
    coord.click("#roster-settings button")
    expect(coord.locator(".flash")).to_contain_text("Settings saved.")
    policy = B.absence_policy(store, "pool")
    assert (policy.policy, policy.budget_days) == ("extend", 10)
    for game in ("pool", "next"):
        coord.goto(f"{base}/games/{game}/opening")
        coord.select_option("#opening-press select[name=kind]", "white")  # the game's own press rules
        coord.select_option("select[name=mode]", "preferences")
        coord.click("text=Open for players")
        expect(coord.locator(".flash")).to_contain_text(f"{game} is open for players")
    _shoot(coord, "opened-desktop")

    # Cy wants to play, but in the bigger game; Ann and Bo sign up for the small one, which fills.
    c.goto(f"{base}/games/next/opening")
    c.select_option("select[name=wish1]", "Italy")
    c.get_by_role("button", name="Sign up").click()
    expect(c.locator("#signed-up")).to_contain_text("wishes: Italy")
    a.goto(f"{base}/open")
    a.locator("#open-games tr", has_text="pool").get_by_role("link", name="pool").click()
    a.select_option("select[name=wish1]", "France")
    a.get_by_role("button", name="Sign up").click()
    expect(a.locator("#signed-up")).to_contain_text("wishes: France")
    _shoot(a, "signed-up-phone")
    b.goto(f"{base}/games/pool/opening")
    b.select_option("select[name=wish1]", "France")
    b.select_option("select[name=wish2]", "any")
    b.get_by_role("button", name="Sign up").click()
    expect(b.locator(".flash")).to_contain_text("you play Burgundy")
    assert [s.power for s in seats_of(store, ann)] == ["France"]
    assert [s.power for s in seats_of(store, bo)] == ["Burgundy"]
    first = store_status.status(store, "pool", now=datetime.now(UTC)).deadline
    assert first is not None

    # "Game starting", by webhook and by push, from the worker's scan.
    for who in ("ann", "bo"):
        wait_until(f"{who}'s webhook post", _starting(_posts, chat, who), every=0.5, timeout=240)
        wait_until(f"{who}'s push", _starting(_pushes, push, subs[who]), every=0.5, timeout=60)
    assert any("you play France" in p for p in _posts(chat, "ann"))
    assert push.refused == [] and chat.refused == []
    assert _posts(chat, "cy") == []

    # The first deadline passes while Ann is away: the worker extends it to the day she is back.
    first = _deadline_in(site, "pool", SOON)
    wait_until(
        "the worker's extension for Ann",
        lambda: [u.power for u in B.absence_uses(store, "pool")] == ["France"],
        every=0.5,
        timeout=240,
    )
    new = store_status.status(store, "pool", now=datetime.now(UTC)).deadline
    # To the same time on the day she is back: two days on, or one if the walk passed midnight before the
    # deadline it moved (the holiday was recorded on the day before).
    back = today + timedelta(days=2)
    assert new is not None and new == first + timedelta(days=(back - first.date()).days), (first, new)
    assert [r.name for r in store_history.history(store, "pool") if r.status == "processed"] == []
    a.goto(f"{base}/games/pool")
    assert new.strftime("%Y-%m-%d %H:%M") in a.inner_text("body"), new
    _shoot(a, "extended-phone")
    a.goto(f"{base}/me")
    a.get_by_role("button", name="Make my calendar address").click()
    feed = a.input_value("#calendar-url")
    ics = a.context.request.get(feed).text()
    assert _ics_stamp(new) in ics and _ics_stamp(first) not in ics, ics

    # Bo sends nothing; the coordinator offers Burgundy to the replacement pool, and Cy is told.
    coord.goto(f"{base}/games/pool/opening")
    coord.select_option("select[name=power]", "Burgundy")
    coord.get_by_role("button", name="Offer").click()
    wait_until("Cy's seat offer", lambda: bool(_posts(chat, "cy")), every=0.5, timeout=240)
    assert "Burgundy" in _posts(chat, "cy")[0] and "pool" in _posts(chat, "cy")[0], _posts(chat, "cy")
    wait_until("Cy's push", lambda: bool(_pushes(push, subs["cy"])), every=0.5, timeout=60)
    assert _pushes(push, subs["cy"]) == ["pool: a seat is offered to you"]
    c.goto(f"{base}/open")
    wanted = c.locator("#replacements tr", has_text="Burgundy")
    _shoot(c, "seat-offered-desktop")
    wanted.get_by_role("button", name="Claim Burgundy in pool").click()
    assert c.url.endswith("/games/pool/play/Burgundy")
    expect(c.locator(".flash")).to_contain_text("You play Burgundy now")
    units = c.context.request.get(f"{base}/api/games/pool/powers/Burgundy").json()["units"]
    c.fill("#orders", "\n".join(f"{u['unit']} H" for u in units))
    expect(c.locator("#checks li.ok")).to_have_count(len(units))
    c.click("#send")
    expect(c.locator(".flash")).to_contain_text(
        f"{len(units)} {'order' if len(units) == 1 else 'orders'} accepted, 0 rejected"
    )
    assert [s.power for s in seats_of(store, cy)] == ["Burgundy"] and seats_of(store, bo) == []

    # A co-player reads addresses only once the game lets co-players read them.
    c.goto(f"{base}/games/pool/roster")
    assert "Powick Lane" not in c.content()
    coord.goto(f"{base}/games/pool/roster")
    coord.select_option("#roster-settings select[name=roster_visibility]", "co-players")
    coord.click("#roster-settings button")
    expect(coord.locator(".flash")).to_contain_text("Settings saved.")
    c.set_viewport_size(PHONE)
    c.goto(f"{base}/games/pool/roster")
    expect(c.locator(".roster-table")).to_contain_text("1 Powick Lane")
    _shoot(c, "roster-co-player-phone")

    # The coordinator prints the roster: a PDF with the players' names, a CSV with their rows.
    coord.goto(f"{base}/games/pool/roster")
    _shoot(coord, "roster-desktop")
    with coord.expect_download() as got:
        coord.click("text=PDF")
    pdf = got.value.path()
    assert pdf.read_bytes().startswith(b"%PDF")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    for name in ("Ann Lee", "Cy Young", "1 Powick Lane"):
        assert name in text, text
    csv_text = coord.context.request.get(f"{base}/games/pool/roster.csv").text()
    head, *lines = list(csv.reader(io.StringIO(csv_text)))
    assert head[:3] == ["game", "power", "player"], head
    rows = {r[1]: r for r in lines}
    assert set(rows) == {"England", "France", "Burgundy"}, csv_text
    assert rows["France"][2] == "Ann Lee" and rows["Burgundy"][2] == "Cy Young", csv_text
    assert "1 Powick Lane" in ",".join(rows["France"]), csv_text
    assert errors == [], errors
    assert site["worker"].poll() is None, site["log"].read_text()
