"""Photographed typed orders read back by tesseract (images drawn by the test: slightly turned, noisy), and
postal submissions with version instructions."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from dbsupport import migrated_sqlite
from dippouch.game import GameError, check_orders
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import confirm, proposals, repair_line, transcribe
from dippouch.store import GameStore
from dippouch.store import games as store_games
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from dippouch.store import submissions as store_submissions
from photosupport import need_tesseract, photo


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about what mail becomes once its sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
ORDERS = ["A lon - wal", "F edi - nth", "A lvp - yor"]
EXECUTED = ["F lon - wal", "F edi - nth", "A lvp - yor"]
"""The orders as they will be carried out: the player wrote A for the fleet in London (the echo corrects it)."""
SHEET = ["Jane Smith", "England", "demo", "Spring 1901 Movement Orders", "Version 2", *ORDERS]


def test_a_typed_sheet_reads_back_as_the_same_orders() -> None:
    need_tesseract()
    from dippouch.catalog import load_variant

    v = load_variant("standard")
    text = transcribe(v, photo(ORDERS))
    got = [ln.order for ln in check_orders(v, v.start, "England", text) if ln.accepted]
    assert got == EXECUTED, text


def _store(tmp_path: Path) -> GameStore:
    store = GameStore(migrated_sqlite(tmp_path / "g.db"))
    store_games.create_game(store, "demo", "standard", now=T0)
    store_games.assign(store, "demo", "England", "Jane Smith", now=T0, email="jane@example.org")
    return store


def test_photo_by_mail_is_sealed_then_proposed_then_confirmed(tmp_path: Path) -> None:
    need_tesseract()
    store = _store(tmp_path)
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", "demo - England - Spring 1901 Movement - v2"
    m.set_content("")
    m.add_attachment(photo(SHEET, angle=-1.2, seed=3), maintype="image", subtype="jpeg", filename="orders.jpg")
    o = take_in(store, m.as_bytes(), now=T0 + timedelta(days=1), received=T0 + timedelta(days=1))
    assert o.status == "photo"
    with pytest.raises(GameError, match="sealed until"):
        proposals(store, "demo", now=T0 + timedelta(days=2))
    after = T0 + timedelta(days=13)
    (p,) = proposals(store, "demo", now=after)
    assert [ln.order for ln in p.lines if ln.accepted] == EXECUTED, p.text
    assert p.confirmed_as is None
    assert next(p for p in store_status.status(store, "demo", now=after).powers if p.power == "England").version is None
    power, version = confirm(store, p.attachment_id, now=after)
    assert (power, version) == ("England", 1)
    rec = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    (sub,) = rec["submissions"]
    assert sub["source"] == "photo" and not sub["late"]  # received when the mail came, before the deadline
    with pytest.raises(GameError, match="confirmed already"):
        confirm(store, p.attachment_id, now=after)


def test_post_received_earlier_than_a_mail_comes_before_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store_submissions.submit(
        store, "demo", "England", "A lon - wal", now=T0 + timedelta(days=5), source="mail", label="2"
    )
    # The letter (the player's version 1) came on day 3 and is typed in on day 6.
    r = store_submissions.submit(
        store,
        "demo",
        "England",
        "Version 1\nA lon H",
        now=T0 + timedelta(days=3),
        source="post",
        recorded_at=T0 + timedelta(days=6),
    )
    assert r.version == 2 and r.label == "1" and r.standing == 1  # the e-mail of day 5 still stands
    # "Version 1 stands": the player's own number 1 is our version 2.
    r = store_submissions.submit(
        store, "demo", "England", "Version 1 stands", now=T0 + timedelta(days=7), source="post"
    )
    assert r.reinstates == 2 and r.standing == 2
    store_processing.process(store, "demo", now=T0 + timedelta(days=13))
    rec = store_history.phase_record(store, "demo", "Spring 1901 Movement")
    assert rec["orders"]["England"] == ["F lon H"]


def test_version_instructions_are_refused_when_they_cannot_be_followed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(GameError, match="has no version 3"):
        store_submissions.submit(store, "demo", "England", "Version 3 stands", now=T0)
    store_submissions.submit(store, "demo", "England", "A lon - wal", now=T0)
    with pytest.raises(GameError, match="not both"):
        store_submissions.submit(store, "demo", "England", "Version 1 stands\nA lon H", now=T0)
    with pytest.raises(GameError, match="after it was typed in"):
        store_submissions.submit(
            store, "demo", "England", "A lon H", now=T0 + timedelta(days=2), recorded_at=T0 + timedelta(days=1)
        )


def test_ocr_slips_are_repaired_only_into_names_the_map_knows() -> None:
    from dippouch.catalog import load_variant

    v = load_variant("standard")
    assert repair_line(v, "Alon - wal") == "A lon - wal"
    assert repair_line(v, "Alon-wal") == "A lon - wal"
    assert repair_line(v, "A Ivp - yor") == "A lvp - yor"
    assert repair_line(v, "F bre - eng") == "F bre - eng"
    assert repair_line(v, "A Xyz - wal") == "A Xyz - wal"  # not a slip of a known name: left for the check


def test_a_photo_receipt_says_how_a_misspelt_subject_was_read(tmp_path: Path) -> None:
    """Near misses in a subject are accepted and said in the receipt: for a photograph too, not only text."""
    from dippouch.store.mail.models import OutboxRow

    store = _store(tmp_path)
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", "demo - Englnd - Sprng 1901 Movement"
    m.set_content("")
    m.add_attachment(b"\x89PNG not really", maintype="image", subtype="png", filename="orders.png")
    o = take_in(store, m.as_bytes(), now=T0 + timedelta(days=1), received=T0 + timedelta(days=1))
    assert o.status == "photo"
    with store.session() as s:
        (receipt,) = [r.body for r in s.query(OutboxRow) if r.kind == "receipt"]
    assert "read 'englnd' as england" in receipt.lower(), receipt
    assert "orders.png" in receipt


def test_an_attachment_that_is_not_an_image_is_never_given_to_tesseract(tmp_path: Path) -> None:
    """tesseract takes a file that is not an image as a list of image files to read: a "photograph" holding
    a path would have it read any picture on the coordinator's machine into a proposal. Only images go."""
    need_tesseract()
    from PIL import Image, ImageDraw, ImageFont

    from dippouch.mail.ocr import read_image

    secret = tmp_path / "secret.png"
    img = Image.new("L", (1200, 200), 250)
    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    font = ImageFont.truetype(font_path, 60) if Path(font_path).exists() else ImageFont.load_default(size=60)
    ImageDraw.Draw(img).text((50, 60), "HUNTER TWO", fill=0, font=font)
    img.save(secret)
    for data in (f"{secret}\n".encode(), b"\x89PNG but truncated", b""):
        with pytest.raises(GameError, match="not an image"):
            read_image(data)
    out = io.BytesIO()
    img.save(out, format="PNG")
    assert "HUNTER" in read_image(out.getvalue())  # a real image is still read


def test_a_photo_sent_before_a_rollback_onto_its_phase_is_still_offered(tmp_path: Path) -> None:
    """Rolling the open phase back onto itself opens it again as a new row: the photograph sent for it is
    offered for transcription there and its confirmation becomes a version of the reopened phase."""
    need_tesseract()
    store = _store(tmp_path)
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", "demo - England - Spring 1901 Movement - v2"
    m.set_content("")
    m.add_attachment(photo(SHEET, angle=0.8, seed=5), maintype="image", subtype="jpeg", filename="orders.jpg")
    assert take_in(store, m.as_bytes(), now=T0 + timedelta(days=1), received=T0 + timedelta(days=1)).status == "photo"
    store_history.rollback(store, "demo", "Spring 1901 Movement", now=T0 + timedelta(days=2))
    reopened = store_status.status(store, "demo", now=T0 + timedelta(days=2))
    assert reopened.deadline is not None
    with pytest.raises(GameError, match="sealed until"):
        proposals(store, "demo", now=T0 + timedelta(days=3))
    after = reopened.deadline + timedelta(hours=1)
    (p,) = proposals(store, "demo", now=after)
    assert [ln.order for ln in p.lines if ln.accepted] == EXECUTED, p.text
    assert confirm(store, p.attachment_id, now=after) == ("England", 1)
    england = next(p for p in store_status.status(store, "demo", now=after).powers if p.power == "England")
    assert england.version == 1 and england.accepted == 3  # a version of the open phase
