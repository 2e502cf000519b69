"""Photographed orders are read by the worker once their deadline unseals them (dippouch.worker.service's
PhotoReading, run after the outbox by mail_task), so the coordinator's review page finds them read instead of
running OCR inside its request (about 10 s a photograph under load). Nothing is read before the deadline; a
photograph that cannot be read is not tried again at every look."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.core.messages import Msg
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import proposals, read_unsealed
from dippouch.saying import say
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import status as store_status
from dippouch.worker.service import PhotoReading
from photosupport import need_tesseract, photo

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ADDR = "jane@example.org"
ORDERS = ["A lon - wal", "F edi - nth", "A lvp - yor"]
EXECUTED = ["F lon - wal", "F edi - nth", "A lvp - yor"]


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


def _store(tmp_path: Path) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "demo", "standard", now=T0)
    store_games.assign(store, "demo", "England", "Jane Smith", now=T0, email="jane@example.org")
    return store


def _photo_mail(data: bytes, *, version: int = 1) -> bytes:
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", f"demo - England - Spring 1901 Movement - v{version}"
    m.set_content("")
    m.add_attachment(data, maintype="image", subtype="jpeg", filename="orders.jpg")
    return m.as_bytes()


def test_the_worker_reads_a_photograph_once_its_deadline_unseals_it(tmp_path: Path) -> None:
    need_tesseract()
    store = _store(tmp_path)
    got = take_in(store, _photo_mail(photo(ORDERS, seed=5)), now=T0 + timedelta(days=1))
    assert got.status == "photo"
    deadline = store_status.status(store, "demo", now=T0).deadline
    assert deadline is not None
    reader = PhotoReading(every=0)
    reader(store, deadline - timedelta(minutes=1))  # sealed: the rulebook reads nothing before the deadline
    after = deadline + timedelta(minutes=1)
    (unread,) = proposals(store, "demo", now=after, run=False)
    assert unread.text is None
    reader(store, after)
    # What the page asks for without running OCR itself (run=False) is now read, line by line.
    (p,) = proposals(store, "demo", now=after, run=False)
    assert p.text is not None and p.problem is None
    assert [ln.order for ln in p.lines if ln.accepted] == EXECUTED, p.text
    assert read_unsealed(store, now=after) == []  # read once: the next look has nothing to read


def test_a_photograph_that_cannot_be_read_says_why_and_waits_before_it_is_tried_again(tmp_path: Path) -> None:
    need_tesseract()
    store = _store(tmp_path)
    take_in(store, _photo_mail(b"\x89PNG but truncated"), now=T0 + timedelta(days=1))
    after = T0 + timedelta(days=13)
    [(attachment, problem)] = read_unsealed(store, now=after)
    assert isinstance(problem, Msg) and "not an image" in say(problem, "en", "rules")
    assert "kein Bild" in say(problem, "de", "rules")  # a message value, said in the reader's language
    reader = PhotoReading(every=0)
    reader(store, after)
    assert attachment in reader.failed
    tried = reader.failed[attachment]
    reader(store, after)  # a moment later: not tried again
    assert reader.failed[attachment] == tried
    reader.retry = 0  # its wait over: tried again (and it fails again)
    reader(store, after)
    assert reader.failed[attachment] > tried


def test_the_review_page_leaves_the_reading_to_the_worker_and_says_the_photograph_is_being_read(
    tmp_path: Path,
) -> None:
    """Just after the deadline the page reads nothing in its request (it took about 10 s a photograph under
    load): it says the photograph is being read; once the worker has read it, the page shows its lines."""
    need_tesseract()
    from dippouch.store.mail.review import review_state
    from websupport import Site

    site = Site(f"sqlite:///{tmp_path / 'r.db'}")
    site.new_game("g")
    r = site.api(site.coordinator, "/api/games/g/players", {"power": "England", "player": "Jane", "email": ADDR})
    assert r.status_code == 200, r.text
    m = EmailMessage()
    m["From"], m["Subject"] = ADDR, "g - England - Spring 1901 Movement"
    m.set_content("")
    m.add_attachment(photo(ORDERS, seed=5), maintype="image", subtype="jpeg", filename="orders.jpg")
    assert take_in(site.web.store, m.as_bytes(), now=site.clock()).status == "photo"
    deadline = review_state(site.web.store, "g", now=site.clock()).deadline
    assert deadline is not None
    site.clock.advance(seconds=(deadline - site.clock()).total_seconds() + 60)
    page = site.coordinator.get("/games/g/review").text
    assert "Being read" in page and "verdict-ok" not in page, page
    (unread,) = proposals(site.web.store, "g", now=site.clock(), run=False)
    assert unread.text is None  # the page's request read nothing
    PhotoReading(every=0)(site.web.store, site.clock())
    page = site.coordinator.get("/games/g/review").text
    assert "Being read" not in page and page.count("verdict-ok") == len(EXECUTED), page
