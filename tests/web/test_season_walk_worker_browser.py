"""A W3K season walked in a real browser with the automation on: a real ``dippouch worker`` process (not
``--once``) processes every phase at its deadline while players use the web and their mail.

The rulebook's game (Powick Bridge, W3K), its deadlines met within seconds (below). Mail is real end to end: players send
through an SMTP server (aiosmtpd) that delivers into Dovecot mailboxes, the orders mailbox the worker reads by
IMAP and each player's own, where the test reads what the worker mailed them as their mail program would.

Summer 1642: Crown (desktop) and Cumberland (phone) enter orders on their pages; Argyll (desktop) enters
first orders on the web and e-mails a typed revision under the rulebook's subject; Montrose (phone) enters
first orders on the web and e-mails a *photograph* of a revised sheet under the same fixed subject (the
rulebook's way, Annexe 3); the movement phases to come are then given another length. Nobody clicks anything
at the deadline: the worker fetches the mail, finds the photograph and holds the phase for the coordinator's
review; the coordinator confirms it on the review page and the worker processes the phase with the
photographed orders and the mailed revision counting (a past defect: photographed revisions never counted
under automated processing). Players come back to stale pages,
reload, see the results and the new phase, and find their receipts and results in their mailboxes.
Autumn 1642: one player orders, the others are reminded by mail, the worker processes at the deadline.
Winter 1643: builds picked on the web, the worker processes; the Winter results mail carries the map PDF,
the web's map PDF names the phase, and the calendar feed parses. Screenshots:
test-artifacts/web/walk-worker-*.png.

Each phase's deadline is minutes away, what a loaded machine's browsers may need for the players' part, and
once that part is done the deadline is moved to a moment from now (:func:`deadline_in`): the walk waits for
what the worker does at a deadline, not for the time the players did not need.
"""

from __future__ import annotations

import email.utils
import re
import smtplib
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401 - registers the mail commands
from browsersupport import ARTIFACTS, LiveSite, picture, running_site, watch_errors
from dippouch.cli import app
from dippouch.store import deadlines as store_deadlines
from dippouch.store import history as store_history
from dippouch.store import status as store_status
from dippouch.store.mail.review import review_state
from dippouch.store.models import GameRow, PhaseRow
from mailservers import ImapServer, SmtpServer, start_dovecot, start_smtp, worker_mail_env
from photosupport import need_tesseract, photo
from workersupport import engine, start_worker, stop, wait_until

GAME = "Powick Bridge"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SUMMER, MOVEMENT, ADJUSTMENTS = 300, 240, 300
"""Seconds a phase lasts when it opens: far more than a loaded machine's browsers need for the players' part
(four players' Summer entries took 15 to 40 s here), as the deadline is brought forward once it is done.
Summer's length is the game's; during Summer the movement phases to come are set to ``MOVEMENT``."""
REMINDER = 60
"""The coordinator's reminder lead: not reached when a phase opens, reached at once when Autumn's deadline
is brought forward to half of it."""
SOON = 1
"""Seconds from the players' last action to the deadline brought forward."""
ADDR = {
    "Crown": "crown@w3k.example",
    "Cumberland": "cumberland@w3k.example",
    "Montrose": "montrose@w3k.example",
    "Argyll": "argyll@w3k.example",
}
SHEET = ["James Graham", "Montrose", "Powick Bridge", "Summer 1642 Movement Orders", "Version 2"]
PHOTO_ORDERS = ["A tev - nhb", "F edi - fth"]


def shot(page: Any, name: str, *, full: bool = True) -> None:
    picture(page, ARTIFACTS / "web" / f"walk-worker-{name}.png", full_page=full)


def cli(db: str, *args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--db", db])
    assert result.exit_code == 0, (args, result.output)
    return result.output


def send_mail(smtp: SmtpServer, sender: str, subject: str, body: str, image: bytes | None = None) -> None:
    """A player's mail program sends a message to the orders address, through the SMTP server."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@w3k.example", subject
    m["Message-ID"] = email.utils.make_msgid(domain="w3k.example")
    m["Date"] = email.utils.format_datetime(datetime.now(UTC))
    m.set_content(body)
    if image is not None:
        m.add_attachment(image, maintype="image", subtype="jpeg", filename="IMG_0412.jpg")
    with smtplib.SMTP(smtp.host, smtp.port, timeout=30) as s:
        s.send_message(m)


def subjects(imap: ImapServer, who: str) -> list[str]:
    return [str(m["Subject"]) for m in imap.inbox(ADDR[who])]


def deadline_in(site: LiveSite, seconds: float) -> datetime:
    """Move the open phase's deadline to ``seconds`` from now by the database's clock (the worker's clock),
    in the row itself: the test's stand-in for the time passing. The coordinator's extension would be the
    store's call, but it logs an ``extend`` event, which mails every player a notice the walk does not
    expect; and the desk refuses to shorten a deadline."""
    at: datetime = site.store.clock() + timedelta(seconds=seconds)
    eng = engine(site.db_url)
    try:
        with eng.begin() as c:
            game = c.execute(sa.select(GameRow.id).where(GameRow.name == GAME)).scalar_one()
            moved = c.execute(
                sa.update(PhaseRow).where(PhaseRow.game_id == game, PhaseRow.status == "open").values(deadline=at)
            )
            assert moved.rowcount == 1, moved.rowcount
    finally:
        eng.dispose()
    assert status(site)["deadline"] == at
    return at


def phase_name(page: Any) -> str:
    return str(page.locator(".game-head .sub").inner_text())


def status(site: LiveSite) -> dict[str, Any]:
    st = store_status.status(site.store, GAME, now=site.now())
    return {"phase": st.phase, "deadline": st.deadline}


def send(page: Any) -> str:
    page.locator("#checks li").first.wait_for()
    page.click("#send")
    page.locator(".flash").wait_for()
    return str(page.locator(".flash").inner_text())


def pick(page: Any, loc: str, text: str) -> None:
    page.locator("details.picks").evaluate("d => d.open = true")
    page.select_option(f"select[name='pick:{loc}']", text)


def orders_of(site: LiveSite, phase: str) -> dict[str, list[str]]:
    return {p: list(o) for p, o in store_history.phase_record(site.store, GAME, phase)["orders"].items()}


@pytest.fixture
def mail_servers() -> Iterator[tuple[ImapServer, SmtpServer]]:
    imap = start_dovecot({addr: f"pw-{power.lower()}" for power, addr in ADDR.items()})
    smtp = start_smtp()
    smtp.deliver = imap.deliver
    try:
        yield imap, smtp
    finally:
        smtp.controller.stop()
        imap.stop()


@pytest.mark.slow
# On PostgreSQL only, the documented database of a game run by workers: the walk takes a minute or more, and
# the worker's processing on SQLite is walked by tests/mail/test_press_worker.py and tests/worker.
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_w3k_season_with_the_worker_on(
    db_url: str, tmp_path: Path, chromium: Any, mail_servers: tuple[ImapServer, SmtpServer]
) -> None:
    from playwright.sync_api import expect

    need_tesseract()
    imap, smtp = mail_servers
    env = worker_mail_env(imap, smtp, tmp_path, "orders@w3k.example")
    log = tmp_path / "worker.log"
    with running_site(db_url, chromium) as site:
        site.service_workers = "allow"  # a walk: its pages as people's browsers have them
        errors: list[str] = []
        # ------------------------------------------------------------ the coordinator sets the game up
        cli(db_url, "new", GAME, "--variant", "w3k", "--movement", f"{SUMMER}s", "--adjustments", f"{ADJUSTMENTS}s")
        for power, addr in ADDR.items():
            cli(db_url, "players", "assign", GAME, power, f"{power} player", "--email", addr)
        cli(db_url, "mail", "setup", GAME, "--alias", "Montrose=James Graham", "--reminders", f"{REMINDER}s")
        # The tokens the coordinator hands out by post: each player's proof that mail is theirs.
        tokens = dict(re.findall(r"^\s+(\w+) <[^>]+>: (dp-\w+)$", cli(db_url, "mail", "tokens", GAME), re.M))
        assert set(tokens) == set(ADDR), tokens
        worker = start_worker(db_url, "--interval", "1", "--pages", env=env, log=log)
        try:
            _walk(site, imap, smtp, tokens, errors, expect)
        except AssertionError as e:  # what the worker did, to tell a slow machine from a broken walk
            raise AssertionError(f"{e}\n--- worker log ---\n{log.read_text()[-6000:]}") from e
        finally:
            code = stop(worker)
            # The pages' live press streams end with their pages, before the server and the database go.
            for ctx in list(chromium.contexts):
                ctx.close()
        assert code == 0, log.read_text()
        assert "Traceback" not in log.read_text(), log.read_text()
        assert errors == [], errors


def _walk(
    site: LiveSite,
    imap: ImapServer,
    smtp: SmtpServer,
    tokens: dict[str, str],
    errors: list[str],
    expect: Any,
) -> None:
    start = time.monotonic()
    deadline = status(site)["deadline"]
    # ------------------------------------------------------------ Summer 1642: the web and the mail
    crown = site.player(GAME, "Crown", DESKTOP)
    watch_errors(crown, errors)
    assert "Summer 1642 Movement" in phase_name(crown)
    crown.fill("#orders", "Army Worcestershire moves to Staffordshire\nFleet Bristol holds")
    expect(crown.locator("#checks li.ok")).to_have_count(2)
    assert "Version 1 recorded" in send(crown)
    shot(crown, "crown-sent-desktop")

    cumberland = site.player(GAME, "Cumberland", PHONE)
    watch_errors(cumberland, errors)
    pick(cumberland, "fur", "F fur - lan")
    pick(cumberland, "den", "A den - che")
    assert "Version 1 recorded" in send(cumberland)
    shot(cumberland, "cumberland-sent-phone")

    montrose = site.player(GAME, "Montrose", PHONE)
    watch_errors(montrose, errors)
    montrose.fill("#orders", "A tev H\nF edi H")
    assert "Version 1 recorded" in send(montrose)

    argyll = site.player(GAME, "Argyll", DESKTOP)
    watch_errors(argyll, errors)
    argyll.fill("#orders", "F dry H")
    assert "Version 1 recorded" in send(argyll)

    # Revisions by mail under the rulebook's subject (Annexe 3), each with the player's token.
    send_mail(
        smtp,
        ADDR["Argyll"],
        f"Powick Bridge - Argyll - Summer 1642 - Movement Orders - v2 [{tokens['Argyll']}]",
        "F dry - don\n",
    )
    send_mail(
        smtp,
        ADDR["Montrose"],
        f"Powick Bridge - Montrose - Summer 1642 - Movement Orders - v2 [{tokens['Montrose']}]",
        "Dear Coordinator,\nplease find my revised orders attached.\nYours, James\n",
        image=photo([*SHEET, *PHOTO_ORDERS], angle=-1.0, seed=5),
    )
    # The movement phases to come get another length (Summer keeps its deadline). The desk's "Set deadlines"
    # refuses less than a minute, rightly for real games, so this is the store's call the desk makes.
    store_deadlines.set_deadlines(site.store, GAME, {"movement": f"{MOVEMENT}s"}, now=site.now())
    assert status(site)["deadline"] == deadline
    summer_done = time.monotonic() - start
    assert datetime.now(UTC) < deadline, f"Summer's entries took {summer_done:.0f} s, past the {SUMMER} s deadline"
    deadline = deadline_in(site, SOON)

    # ------------------------------------------------------------ the deadline passes; nobody clicks
    wait_until(
        "the worker to take the Summer mail in",
        lambda: len(store_history.phase_record(site.store, GAME, "Summer 1642 Movement")["submissions"]) >= 5,
        timeout=60,
    )
    wait_until(
        "Summer to wait for the coordinator's review",
        lambda: review_state(site.store, GAME, now=site.now()).held,
        timeout=60,
    )
    assert datetime.now(UTC) >= deadline
    shot(crown, "crown-stale-awaiting-review-desktop")
    crown.reload()
    # Back after the deadline: the page says the phase waits for the coordinator's review, and that orders
    # sent now are late.
    expect(crown.locator("#overdue")).to_contain_text("Awaiting the coordinator's review")
    expect(crown.locator("#late-note")).to_contain_text("recorded as late")
    shot(crown, "crown-awaiting-review-desktop")
    # Receipts for the mailed revisions reach the players' own mailboxes.
    # (A look in a mailbox fetches all of it: every quarter of a second is often enough.)
    wait_until(
        "Argyll's receipt",
        lambda: any("v2" in s or "version 2" in s.lower() for s in subjects(imap, "Argyll")),
        every=0.25,
    )
    wait_until("Montrose's receipt", lambda: len(subjects(imap, "Montrose")) >= 1, every=0.25)

    # ------------------------------------------------------------ the coordinator reviews the photograph
    # The worker reads the photograph once the deadline has unsealed it (the page says "being read" until then).
    from dippouch.mail.ocr import proposals

    wait_until(
        "the worker to read the photograph",
        lambda: all(p.text is not None for p in proposals(site.store, GAME, now=site.now(), run=False)),
        timeout=90,
    )
    desk = site.key_page(site.coordinator_key, DESKTOP)
    watch_errors(desk, errors)
    desk.goto(f"{site.base}/games/{GAME}/review")
    card = desk.locator("section.review", has_text="Montrose: photograph #")
    expect(card.locator("text=Waits for you")).to_be_visible()
    # The coordinator confirms exactly what the boxes show: each shows its whole line, in full names.
    boxes = card.locator("input[name^='line:']")
    assert "A Teviotdale & Liddesdale - Northumberland" in [boxes.nth(i).input_value() for i in range(boxes.count())]
    cut = boxes.evaluate_all("bs => bs.filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.value)")
    assert cut == [], f"line boxes too narrow for their lines: {cut}"
    shot(desk, "review-desktop")
    phone_desk = site.key_page(site.coordinator_key, PHONE)
    watch_errors(phone_desk, errors)
    phone_desk.goto(f"{site.base}/games/{GAME}/review")
    phone_card = phone_desk.locator("section.review", has_text="Montrose: photograph #")
    expect(phone_card.locator("text=Waits for you")).to_be_visible()
    widths = phone_card.locator("input[name^='line:']").evaluate_all("bs => bs.map(b => b.clientWidth)")
    assert min(widths) >= 0.75 * PHONE["width"] * 0.8, widths  # a phone's line box runs across the card
    assert phone_desk.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    shot(phone_desk, "review-phone")
    phone_desk.context.close()
    card.locator("button[value=confirm]").click()
    expect(desk.locator(".flash")).to_contain_text("exactly as shown")
    wait_until("the worker to process Summer", lambda: status(site)["phase"] == "Autumn 1642 Movement", timeout=60)
    # Autumn opened with the movement length set during Summer, not the game's first one.
    left = (status(site)["deadline"] - site.store.clock()).total_seconds()
    assert MOVEMENT - 30 < left <= MOVEMENT, left
    summer = orders_of(site, "Summer 1642 Movement")
    assert summer["Montrose"] == PHOTO_ORDERS, summer
    assert summer["Argyll"] == ["F dry - don"], summer
    assert summer["Crown"] == ["A wor - sta", "F bri H"], summer

    # ------------------------------------------------------------ players come back to stale pages
    shot(cumberland, "cumberland-stale-phone")
    cumberland.reload()
    assert "Autumn 1642 Movement" in phase_name(cumberland)
    shot(cumberland, "cumberland-autumn-phone")
    montrose.goto(f"{site.base}/games/{GAME}")
    power_rows_keep_their_colour(montrose)
    report = montrose.locator("pre.report").inner_text()
    assert re.search(r"^Montrose: +A Teviotdale & Liddesdale - Northumberland", report, re.M), report
    shot(montrose, "game-after-summer-phone")
    wait_until(
        "Montrose's results mail", lambda: any("result" in s.lower() for s in subjects(imap, "Montrose")), every=0.25
    )

    # ------------------------------------------------------------ Autumn 1642: one order, the rest reminded
    crown.reload()
    assert "Autumn 1642 Movement" in phase_name(crown)
    crown.fill("#orders", "A sta H")
    assert "Version 1 recorded" in send(crown)
    # The reminder's lead is reached: the powers still without orders are reminded before the deadline.
    deadline_in(site, REMINDER / 2)
    wait_until(
        "Cumberland's reminder",
        lambda: any("remind" in s.lower() for s in subjects(imap, "Cumberland")),
        timeout=REMINDER / 2 + 30,
        every=0.25,
    )
    assert not any("remind" in s.lower() for s in subjects(imap, "Crown"))
    deadline_in(site, SOON)
    wait_until("the worker to process Autumn", lambda: status(site)["phase"] == "Winter 1643 Adjustments", timeout=60)

    # ------------------------------------------------------------ Winter 1643: builds on the web
    cumberland.reload()
    assert "Winter 1643 Adjustments" in phase_name(cumberland)
    pick(cumberland, "fur", "Build F fur")
    assert "recorded" in send(cumberland)
    shot(cumberland, "cumberland-winter-phone")
    crown.reload()
    pick(crown, "wor", "Build A wor")
    assert "recorded" in send(crown)
    shot(crown, "crown-winter-desktop")
    deadline_in(site, SOON)
    wait_until("the worker to process Winter", lambda: status(site)["phase"] == "Spring 1643 Movement", timeout=60)
    winter = store_history.phase_record(site.store, GAME, "Winter 1643 Adjustments")
    units = {(u["power"], u["unit"]) for u in winter["next_position"]["units"]}
    assert {("Cumberland", "F fur"), ("Crown", "A wor")} <= units

    # The Winter results carry the map, as a PDF naming the phase.
    def winter_mail() -> EmailMessage | None:
        found = [m for m in imap.inbox(ADDR["Crown"]) if "Winter 1643" in str(m["Subject"])]
        return found[-1] if found else None

    wait_until("Crown's Winter results", lambda: winter_mail() is not None, every=0.25)
    mail = winter_mail()
    assert mail is not None
    pdfs = [p for p in mail.iter_attachments() if p.get_content_type() == "application/pdf"]
    assert len(pdfs) == 1, [p.get_content_type() for p in mail.iter_attachments()]
    _check_pdf(pdfs[0].get_content(), "Winter 1643")
    kept = ARTIFACTS / "web" / "walk-worker-winter-results-map.pdf"  # the mailed map, for a person to open
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(pdfs[0].get_content())

    crown.reload()
    assert "Spring 1643 Movement" in phase_name(crown)
    shot(crown, "crown-spring-desktop")
    crown.goto(f"{site.base}/games/{GAME}")
    power_rows_keep_their_colour(crown)
    shot(crown, "game-after-winter-desktop")
    phase_id = winter["id"]
    got = crown.request.get(f"{site.base}/games/{GAME}/map.pdf?phase={phase_id}")
    assert got.status == 200 and got.headers["content-type"] == "application/pdf"
    _check_pdf(got.body(), "Winter 1643")
    cal = crown.request.get(f"{site.base}/games/{GAME}/calendar.ics")
    assert cal.status == 200
    _check_calendar(cal.body())
    print(f"summer entries {summer_done:.0f} s, walk {time.monotonic() - start:.0f} s")
    for who in ADDR:
        print(f"--- {who}'s mailbox")
        for m in imap.inbox(ADDR[who]):
            body = m.get_body(("plain",))
            print(f"Subject: {m['Subject']}\n{body.get_content() if body is not None else ''}")


def power_rows_keep_their_colour(page: Any) -> None:
    """Each power's colour swatch sits beside the first line of its name in the game's table of powers (it
    stood alone on a line above "Cumberland", "Manchester", "Protectorate", "Irish Confederacy")."""
    gaps = page.locator("table.powers tbody tr").evaluate_all(
        """rows => rows.map(r => {
          const td = r.cells[0];
          const sw = td.querySelector('.swatch').getBoundingClientRect();
          const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          let t = walker.nextNode();
          while (t && !t.textContent.trim()) t = walker.nextNode();
          const range = document.createRange();
          range.selectNodeContents(t);
          const first = range.getClientRects()[0];
          return [t.textContent.trim(), Math.abs((sw.top + sw.bottom) / 2 - (first.top + first.bottom) / 2)];
        })"""
    )
    off = [name for name, gap in gaps if gap > 8]
    assert off == [], f"swatches off their power's name: {gaps}"


def _check_pdf(data: bytes, phase: str) -> None:
    assert data.startswith(b"%PDF-")
    text = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True, check=True).stdout.decode()
    assert phase in text, text[:500]


def _check_calendar(data: bytes) -> None:
    import icalendar

    cal = icalendar.Calendar.from_ical(data)
    events = [c for c in cal.walk("VEVENT")]
    summaries = [str(e["SUMMARY"]) for e in events]
    assert any("Spring 1643" in s for s in summaries), summaries
    assert any("Winter 1643" in s for s in summaries), summaries
