"""What a player and the coordinator are told about photographed and late-fetched mail matches what will
happen: missed (not late) mail, reminders, held photographs, image types, polite notes beside photographs,
the review's refusals and its wait. Real database and tesseract; mail taken in as the servers deliver it."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dbsupport import migrated_sqlite
from dippouch.cli import app
from dippouch.game import GameError
from dippouch.mail.intake import take_in
from dippouch.mail.notices import queue_notices, queue_reminders, setup
from dippouch.mail.ocr import confirm, proposals
from dippouch.play.held_mail import apply_held
from dippouch.store import GameStore
from dippouch.store import deadlines as store_deadlines
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from dippouch.store.mail.models import MailAttachmentRow, OutboxRow
from dippouch.store.mail.review import release, review_state, set_aside
from dippouch.worker.service import Worker
from photosupport import need_tesseract, photo


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DEADLINE = T0 + timedelta(days=12)
SUBJECT = "demo - England - Spring 1901 Movement - v1"
ORDERS = ["A lvp - yor", "F edi - nth"]


def sheet() -> bytes:
    """A photographed sheet in the rulebook's layout, which tesseract reads back (see test_mail_ocr_post)."""
    return photo(["Jane Smith", "England", "demo", "Spring 1901 Movement Orders", *ORDERS], angle=-1.2, seed=3)


def _store(tmp_path: Path) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "demo", "standard", now=T0)
    store_games.assign(store, "demo", "England", "Jane Smith", now=T0, email="jane@example.org")
    store_games.assign(store, "demo", "France", "Fran Doe", now=T0, email="fran@example.org")
    setup(store, "demo", now=T0, changes={"reminders": ["30d"]})
    return store


def _mail(sender: str, subject: str, body: str, image: bytes | None = None, ctype: str = "image/jpeg") -> bytes:
    m = EmailMessage()
    m["From"], m["Subject"] = sender, subject
    m.set_content(body)
    if image is not None:
        maintype, subtype = ctype.split("/")
        m.add_attachment(image, maintype=maintype, subtype=subtype, filename="IMG_0001.jpg")
    return m.as_bytes()


def _bodies(store: GameStore, kind: str, to: str) -> list[str]:
    with store.session() as s:
        return [r.body for r in s.scalars(sa.select(OutboxRow).where(OutboxRow.kind == kind, OutboxRow.to_addr == to))]


def test_mail_that_came_on_time_but_was_fetched_after_processing_is_missed_not_late(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store_processing.process(store, "demo", now=DEADLINE + timedelta(hours=1))
    o = take_in(
        store, _mail("jane@example.org", SUBJECT, "A lvp - yor\n"), now=DEADLINE + timedelta(hours=2), received=T0
    )
    assert o.status == "missed"
    assert "arrived on time" in o.reason and "before this message was fetched" in o.reason
    (reply,) = _bodies(store, "reply", "jane@example.org")
    assert "arrived on time" in reply and "was processed at" in reply
    late = take_in(
        store,
        _mail("jane@example.org", SUBJECT, "A lvp - wal\n"),
        now=DEADLINE + timedelta(hours=2),
        received=DEADLINE + timedelta(minutes=30),
    )
    assert late.status == "late"  # after the deadline: late, as before


def test_a_worker_whose_mailbox_cannot_be_read_processes_nothing(tmp_path: Path) -> None:
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "demo", "standard", now=datetime.now(UTC) - timedelta(days=20))

    def broken(_store: GameStore, _now: datetime) -> None:
        raise ConnectionRefusedError("IMAP server down")

    w = Worker(store, tasks=[], fetch=broken)
    assert w.look() == []
    ok, health = w.health()
    assert not ok and "mail fetch failed" in str(health["last_error"])
    assert store_status.status(store, "demo", now=datetime.now(UTC)).phase == "Spring 1901 Movement"
    w2 = Worker(store, tasks=[], fetch=lambda _s, _n: None)
    assert [p.phase for p in w2.look()] == ["Spring 1901 Movement"]


def test_reminders_do_not_tell_a_photo_sender_no_orders_came(tmp_path: Path) -> None:
    store = _store(tmp_path)
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    queue_reminders(store, T0 + timedelta(hours=2))
    assert _bodies(store, "reminder", "jane@example.org") == []
    (fran,) = _bodies(store, "reminder", "fran@example.org")
    assert "No orders have been received for France" in fran
    assert "they hold" in fran and "civil disorder" in fran


def test_a_retreat_reminder_says_unordered_dislodged_units_are_disbanded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store_submissions.submit(store, "demo", "France", "A par - bur", now=T0)
    store_submissions.submit(store, "demo", "Germany", "A mun - ruh\nA ber - mun", now=T0)
    store_processing.process(store, "demo", now=T0, force=True)
    store_submissions.submit(store, "demo", "Germany", "A mun - bur\nA ruh S A mun - bur", now=T0)
    store_processing.process(store, "demo", now=T0, force=True)
    assert store_status.status(store, "demo", now=T0).phase == "Fall 1901 Retreats"
    queue_reminders(store, T0 + timedelta(minutes=1))
    (fran,) = _bodies(store, "reminder", "fran@example.org")
    assert "A Burgundy: no order, it is disbanded" in fran
    assert "hold" not in fran and "civil disorder" not in fran


def test_status_shows_a_power_whose_only_submission_is_a_photo(tmp_path: Path) -> None:
    store = _store(tmp_path)
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    db = f"sqlite:///{tmp_path / 'g.db'}"
    out = CliRunner().invoke(app, ["status", "demo", "--db", db, "--now", (T0 + timedelta(days=1)).isoformat()]).output
    assert "England received 2026-12-01 10:00 UTC" in out and "sealed until then" in out
    assert "A lvp" not in out  # sealed: who and when, never what
    after = (DEADLINE + timedelta(minutes=5)).isoformat()
    out = CliRunner().invoke(app, ["status", "demo", "--db", db, "--now", after]).output
    assert "AWAITING REVIEW" in out


def test_a_photograph_from_a_second_address_can_be_applied_then_reviewed(tmp_path: Path) -> None:
    need_tesseract()
    store = _store(tmp_path)
    o = take_in(store, _mail("jane@holiday.example", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    assert o.status == "held"
    after = DEADLINE + timedelta(minutes=5)
    assert store_processing.process(store, "demo", now=after) == []  # the held message holds the phase
    applied = apply_held(store, o.mail_id or 0, now=after)
    assert applied.status == "photo" and "mail review" in applied.reason
    (p,) = proposals(store, "demo", now=after)
    assert [ln.order for ln in p.lines if ln.accepted] == ["A lvp - yor", "F edi - nth"], p.text
    confirm(store, p.attachment_id, now=after)
    assert store_processing.process(store, "demo", now=after) == ["Spring 1901 Movement"]
    assert store_history.phase_record(store, "demo", "Spring 1901 Movement")["orders"]["England"] == [
        "A lvp - yor",
        "F edi - nth",
    ]


def test_a_heic_photograph_is_read(tmp_path: Path) -> None:
    need_tesseract()
    pillow_heif = pytest.importorskip("pillow_heif")
    from PIL import Image

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.open(io.BytesIO(sheet())).save(buf, format="HEIF", quality=90)
    store = _store(tmp_path)
    o = take_in(
        store, _mail("jane@example.org", SUBJECT, "", buf.getvalue(), "image/heic"), now=T0 + timedelta(hours=1)
    )
    assert o.status == "photo"
    (p,) = proposals(store, "demo", now=DEADLINE + timedelta(minutes=1))
    assert p.problem is None and [ln.order for ln in p.lines if ln.accepted] == ["A lvp - yor", "F edi - nth"]


def test_a_jpeg_sent_as_octet_stream_is_a_photograph(tmp_path: Path) -> None:
    store = _store(tmp_path)
    raw = _mail("jane@example.org", SUBJECT, "", sheet(), "application/octet-stream")
    o = take_in(store, raw, now=T0 + timedelta(hours=1))
    assert o.status == "photo", o.line()
    with store.session() as s:
        (a,) = s.scalars(sa.select(MailAttachmentRow))
        assert a.content_type == "image/jpeg"


def test_a_polite_body_beside_a_photo_is_not_a_submission(tmp_path: Path) -> None:
    store = _store(tmp_path)
    body = "Hello,\nPlease find my orders for this season in the photo.\nMany thanks, Jane\n"
    o = take_in(store, _mail("jane@example.org", SUBJECT, body, sheet()), now=T0 + timedelta(hours=1))
    assert o.status == "photo"
    assert any("not a submission" in n for n in o.notes)
    assert store_history.phase_record(store, "demo", "Spring 1901 Movement")["submissions"] == []
    # Orders in the body beside a photograph are a submission; the photograph still waits for review.
    o = take_in(store, _mail("fran@example.org", "demo - France - Spring 1901 Movement", "A par - bur\n", sheet()),
                now=T0 + timedelta(hours=2))  # fmt: skip
    assert o.status == "accepted"
    assert [i.power for i in review_state(store, "demo", now=T0).items] == ["England", "France"]


def test_a_photographs_receipt_suggests_a_version_past_it(tmp_path: Path) -> None:
    """England sent version 1 on the web, then a photograph as v2: the photograph becomes version 2 when it
    is confirmed, so its receipt's subject for the next version is v3 (it said v2, the version just sent);
    a second photograph's receipt counts both."""
    store = _store(tmp_path)
    store_submissions.submit(store, "demo", "England", "A lvp H", now=T0 + timedelta(hours=1), source="web")
    subject = "demo - England - Spring 1901 Movement - v2"
    assert (
        take_in(store, _mail("jane@example.org", subject, "", sheet()), now=T0 + timedelta(hours=2)).status == "photo"
    )
    (receipt,) = _bodies(store, "receipt", "jane@example.org")
    assert "use the subject:\n  demo - England - Spring 1901 Movement - v3\n" in receipt, receipt
    again = _mail("jane@example.org", "demo - England - Spring 1901 Movement - v3", "", photo(["F edi - nth"]))
    assert take_in(store, again, now=T0 + timedelta(hours=3)).status == "photo"
    assert (
        "use the subject:\n  demo - England - Spring 1901 Movement - v4\n"
        in _bodies(store, "receipt", "jane@example.org")[-1]
    )


def test_a_receipt_names_places_in_full(tmp_path: Path) -> None:
    store = _store(tmp_path)
    take_in(store, _mail("jane@example.org", SUBJECT, "A lvp - yor\n"), now=T0 + timedelta(hours=1))
    (receipt,) = _bodies(store, "receipt", "jane@example.org")
    assert "accepted  A Liverpool - Yorkshire" in receipt and "A lvp - yor" not in receipt


def test_the_review_refuses_what_cannot_be_done_yet(tmp_path: Path) -> None:
    store = _store(tmp_path)
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    (item,) = review_state(store, "demo", now=T0).items
    assert item.attachment_id is not None
    with pytest.raises(GameError, match="sealed until its deadline"):
        release(store, "demo", now=T0 + timedelta(days=1))
    with pytest.raises(GameError, match="sealed until its deadline"):
        set_aside(store, item.attachment_id, now=T0 + timedelta(days=1))
    with pytest.raises(GameError, match="no attachment #999"):
        set_aside(store, 999, now=DEADLINE)
    # Before the deadline a photograph keeps the phase from running early too.
    store_submissions.submit(store, "demo", "England", "A lvp - yor", now=T0, ready=True)
    assert store_processing.process(store, "demo", now=T0 + timedelta(days=1)) == []
    db = f"sqlite:///{tmp_path / 'g.db'}"
    result = CliRunner().invoke(app, ["mail", "setup", "demo", "--review-wait", "tomorrow", "--db", db])
    assert result.exit_code == 2 and "tomorrow" in result.output
    result = CliRunner().invoke(app, ["mail", "release", "demo", "--db", db, "--now", T0.isoformat()])
    assert result.exit_code == 2 and "the review comes after it" in result.output
    after = DEADLINE + timedelta(minutes=1)
    set_aside(store, item.attachment_id, now=after, why="a picture of a cat")
    with pytest.raises(GameError, match="set aside already"):
        set_aside(store, item.attachment_id, now=after)
    assert store_processing.process(store, "demo", now=after) == ["Spring 1901 Movement"]  # nothing waits any more
    with pytest.raises(GameError, match="has been processed"):
        confirm(store, item.attachment_id, now=after, text="A lvp - yor")
    queue_notices(store, after, maps=lambda *_: [])
    (results,) = _bodies(store, "results", "jane@example.org")
    assert "set aside by the coordinator (a picture of a cat)" in results


def test_mail_from_a_stranger_holds_the_phase_a_day_at_most_when_no_review_wait_is_set(tmp_path: Path) -> None:
    store = _store(tmp_path)
    o = take_in(store, _mail("eve@elsewhere.example", SUBJECT, "A lvp - wal"), now=T0 + timedelta(hours=1))
    assert o.status == "held"
    assert (
        store_processing.process(store, "demo", now=DEADLINE + timedelta(hours=23)) == []
    )  # waits for the coordinator a while
    assert review_state(store, "demo", now=DEADLINE + timedelta(hours=23)).held
    assert store_processing.process(store, "demo", now=DEADLINE + timedelta(hours=24)) == ["Spring 1901 Movement"]
    rec = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    assert "England" not in rec["orders"] and "England" in rec["missed"]  # the stranger's orders were not applied


def test_a_photograph_keeps_the_phase_waiting_for_review_without_a_review_wait(tmp_path: Path) -> None:
    store = _store(tmp_path)
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    assert store_processing.process(store, "demo", now=DEADLINE + timedelta(days=30)) == []


def test_with_a_review_wait_the_phase_goes_ahead_without_unreviewed_photos(tmp_path: Path) -> None:
    store = _store(tmp_path)
    setup(store, "demo", now=T0, changes={"review_wait": "24h"})
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    (receipt,) = _bodies(store, "receipt", "jane@example.org")
    assert "24h after the deadline, the phase is processed without it" in receipt
    assert store_processing.process(store, "demo", now=DEADLINE + timedelta(hours=23)) == []
    assert review_state(store, "demo", now=DEADLINE + timedelta(hours=23)).held
    assert store_processing.process(store, "demo", now=DEADLINE + timedelta(hours=24)) == ["Spring 1901 Movement"]
    rec = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    assert "England" not in rec["missed"] and "France" in rec["missed"]
    queue_notices(store, DEADLINE + timedelta(hours=25), maps=lambda *_: [])
    (results,) = _bodies(store, "results", "jane@example.org")
    assert "from England" in results and "not reviewed (not used)" in results


def test_what_a_phase_went_ahead_without_is_said_in_the_games_language(tmp_path: Path) -> None:
    """The results name what was left unreviewed or set aside as message values, said in the game's language
    (German here: no English sentence in them), and a photograph set aside without a reason says no reason."""
    from dippouch.game import GameSettings

    store = GameStore(migrated_sqlite(tmp_path / "de.db"))
    store_games.create_game(
        store, "demo", "standard", now=T0, settings=GameSettings(deadlines={"movement": "1d"}, language="de")
    )
    store_games.assign(store, "demo", "England", "Jane Smith", now=T0, email="jane@example.org")
    store_games.assign(store, "demo", "France", "Fran Doe", now=T0, email="fran@example.org")
    setup(store, "demo", now=T0, changes={"reminders": ["30d"], "review_wait": "24h"})
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    take_in(store, _mail("fran@example.org", SUBJECT.replace("England", "France"), "", sheet()), now=T0)
    deadline = store_status.status(store, "demo", now=T0).deadline
    assert deadline is not None
    aside = next(i for i in review_state(store, "demo", now=deadline).items if i.power == "France")
    assert aside.attachment_id is not None
    set_aside(store, aside.attachment_id, now=deadline + timedelta(minutes=1))
    assert store_processing.process(store, "demo", now=deadline + timedelta(hours=24)) == ["Spring 1901 Movement"]
    queue_notices(store, deadline + timedelta(hours=25), maps=lambda *_: [])
    (results,) = _bodies(store, "results", "jane@example.org")
    assert "von England, eingegangen" in results and ": nicht geprüft (nicht verwendet)" in results, results
    assert "von France: vom Spielleiter beiseitegelegt\n" in results, results
    for english in ("not reviewed", "received", "set aside", "photograph #"):
        assert english not in results, english


def test_serves_scheduler_fetches_first_and_waits_while_the_mailbox_cannot_be_read(tmp_path: Path) -> None:
    from dippouch.web.http.scheduler import DeadlineScheduler
    from websupport import Site

    site = Site(f"sqlite:///{tmp_path / 'web.db'}")
    site.new_game("s", movement="1h")
    sched = DeadlineScheduler(site.web)
    fetched: list[datetime] = []

    def down(_store: GameStore, _now: datetime) -> None:
        raise ConnectionRefusedError("IMAP server down")

    sched.fetch = down
    site.clock.advance(hours=2)
    assert sched.tick() == []  # mail that came on time may be in the mailbox: the phase waits
    sched.fetch = lambda _store, now: fetched.append(now)
    assert sched.tick() == ["s: Spring 1901 Movement"]
    assert len(fetched) == 1


def test_the_coordinators_decisions_are_refused_with_the_reason(tmp_path: Path) -> None:
    store = _store(tmp_path)
    after = DEADLINE + timedelta(minutes=1)
    take_in(store, _mail("jane@example.org", SUBJECT, "", sheet()), now=T0 + timedelta(hours=1))
    held = take_in(store, _mail("jane@holiday.example", SUBJECT, "", sheet()), now=T0 + timedelta(hours=2))
    empty = take_in(store, _mail("fran@holiday.example", "demo - France - Spring 1901 Movement", ""), now=T0)
    assert held.status == "held" and empty.status == "held"
    photo_item = next(i for i in review_state(store, "demo", now=after).items if i.kind == "photo")
    assert photo_item.attachment_id is not None
    confirm(store, photo_item.attachment_id, now=after, text="A lvp - yor")
    with pytest.raises(GameError, match="confirmed already; it is not set aside"):
        set_aside(store, photo_item.attachment_id, now=after)
    with pytest.raises(GameError, match="no power 'Narnia' in demo; powers: Austria"):
        apply_held(store, held.mail_id or 0, now=after, power="Narnia")
    with pytest.raises(GameError, match="no text orders and no photograph"):
        apply_held(store, empty.mail_id or 0, now=after)
    store_deadlines.pause(store, "demo", now=after)
    with pytest.raises(GameError, match="is paused; resume it before releasing"):
        release(store, "demo", now=after)
    store_deadlines.resume(store, "demo", now=after)
    release(store, "demo", now=DEADLINE + timedelta(days=2))
    assert store_processing.process(store, "demo", now=DEADLINE + timedelta(days=2)) == ["Spring 1901 Movement"]
    with pytest.raises(GameError, match="was for Spring 1901 Movement, which has been processed"):
        apply_held(store, held.mail_id or 0, now=DEADLINE + timedelta(days=2))
