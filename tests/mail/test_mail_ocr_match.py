"""Photographed lines decided against the power's legal orders: slips repaired where one order is clearly
meant, unsure lines flagged (never applied), heading lines dropped, units left without an order listed."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from test_mail_ocr_post import T0, _store
from typer.testing import CliRunner

import dippouch.cli.mail  # noqa: F401  (registers the mail commands)
from dippouch.catalog import load_variant
from dippouch.cli import app
from dippouch.core.messages import Msg
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import confirm, proposals, read_sheet
from dippouch.mail.ocr_engines import available_engines, read_lines
from dippouch.mail.ocr_match import ACCEPT, match_lines
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from photosupport import need_tesseract, photo


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about reading photographs once their sender is taken as proven; proof of the sender
    (tokens, DKIM/SPF, held mail confirmed by the player) is tested in test_mail_proof.py."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


HEADING = ["Jane Smith", "England", "demo", "Spring 1901 Movement Orders"]


def _mail_photo(store: object, lines: list[str], seed: int = 3) -> None:
    m = EmailMessage()
    m["From"], m["Subject"] = "jane@example.org", "demo - England - Spring 1901 Movement"
    m.set_content("")
    m.add_attachment(photo(lines, angle=-1.2, seed=seed), maintype="image", subtype="jpeg", filename="orders.jpg")
    o = take_in(store, m.as_bytes(), now=T0 + timedelta(days=1), received=T0 + timedelta(days=1))  # type: ignore[arg-type]
    assert o.status == "photo"


def test_a_photographed_unit_letter_misread_is_repaired_to_the_order_meant(tmp_path: Path) -> None:
    """``K`` and ``IN`` for a unit letter: one slip from the order written, several from every other."""
    need_tesseract()
    store = _store(tmp_path)
    _mail_photo(store, [*HEADING, "K lvp - yor", "F edi - nth", "IN lon - wal"])
    (p,) = proposals(store, "demo", now=T0 + timedelta(days=13))
    assert [ln.order for ln in p.lines if ln.accepted] == ["A lvp - yor", "F edi - nth", "F lon - wal"], p.read
    assert [r.verdict for r in p.readings] == ["heading"] * 4 + ["order"] * 3, p.readings
    assert all(r.confidence >= ACCEPT for r in p.readings if r.verdict == "order")
    assert not [ln for ln in p.lines if not ln.accepted]  # the heading is dropped, not a rejected line
    assert _english(p.unordered) == []


def test_a_wrong_looking_photographed_line_is_flagged_and_not_applied(tmp_path: Path) -> None:
    """Liverpool to London is no legal order: the line is flagged with its nearest legal order, the
    confirmation applies the other lines only, and Liverpool is listed as left without an order."""
    need_tesseract()
    store = _store(tmp_path)
    _mail_photo(store, [*HEADING, "F edi - nth", "A lvp - lon", "F lon - eng"], seed=5)
    after = T0 + timedelta(days=13)
    (p,) = proposals(store, "demo", now=after)
    flagged = [r for r in p.readings if r.verdict == "flagged"]
    assert [r.line for r in flagged] == [6], p.readings
    assert flagged[0].confidence < ACCEPT and flagged[0].why
    (refused,) = [ln for ln in p.lines if not ln.accepted]
    assert (
        refused.line == 6
        and "not read with confidence" in str(refused.error or "")
        and "not applied" in str(refused.error or "")
    )
    assert [ln.order for ln in p.lines if ln.accepted] == ["F edi - nth", "F lon - eng"]
    assert _english(p.unordered) == [(["A lvp"], "no order, it holds")]
    db = f"sqlite:///{tmp_path / 'g.db'}"
    shown = CliRunner().invoke(app, ["mail", "ocr", "demo", "--db", db, "--now", after.isoformat()]).output
    assert "line  6  REJECTED  A lvp - lon: not read with confidence" in shown, shown
    assert "left out: A lvp: no order, it holds" in shown, shown
    assert confirm(store, p.attachment_id, now=after) == ("England", 1)
    store_processing.process(store, "demo", now=after)
    carried_out = store_history.phase_record(store, "demo", "Spring 1901 Movement")["orders"]["England"]
    assert carried_out == ["F edi - nth", "F lon - eng"]  # the flagged line was not applied


@pytest.mark.parametrize("engine", ["rapidocr", "tesseract"])
def test_each_engine_reads_a_typed_sheet_into_the_orders_written(engine: str) -> None:
    if engine not in available_engines():
        need_tesseract()
        pytest.skip(f"{engine} is not installed")
    v = load_variant("standard")
    lines = read_lines(photo([*HEADING, "Version 2", "A lvp - yor", "F edi - nth"], angle=2.5, seed=11), engine=engine)
    got = match_lines(v, v.start, "England", lines, ["Jane Smith", "demo"])
    assert [(r.verdict, r.text) for r in got if r.verdict != "heading"] == [
        ("version", "Version 2"),
        ("order", "A Liverpool - Yorkshire"),
        ("order", "F Edinburgh - North Sea"),
    ], lines


def test_the_matcher_repairs_slips_and_flags_what_is_not_clearly_one_order() -> None:
    v = load_variant("standard")
    read = [
        "Jane Srnith",
        "Englond",
        "Sprlng 19O1 Movernent 0rders",
        "Versi0n 3",
        "K lvp - yor",  # unit letter misread
        "Fleet Edinburgh rnoves to N0rth Sea",  # look-alike characters, words
        "F lon - par",  # no such order: far from every legal one
        "A lvp - wal",  # a second order for Liverpool: the surer line (this one, read exactly) keeps it
        "~ .",
    ]
    got = match_lines(v, v.start, "England", read, ["Jane Smith", "demo"])
    assert [r.verdict for r in got] == [
        "heading",
        "heading",
        "heading",
        "version",
        "flagged",
        "order",
        "flagged",
        "order",
        "noise",
    ], got
    assert got[3].text == "Version 3"
    assert got[4].text == "A Liverpool - Yorkshire" and got[4].why == "line 8 orders this unit too"
    assert got[5].text == "F Edinburgh - North Sea" and got[7].text == "A Liverpool - Wales"
    assert got[6].confidence < 0.3 and got[6].why  # Paris is no slip of Wales
    # Alone, the slip is repaired.
    (alone,) = match_lines(v, v.start, "England", ["K lvp - yor"])
    assert alone.verdict == "order" and alone.text == "A Liverpool - Yorkshire" and alone.confidence >= ACCEPT


def test_a_photographed_version_line_with_a_number_too_long_to_read_is_no_version() -> None:
    """What a photograph says is anyone's text: a "Version" line with a 5,000-digit number raised ValueError
    (Python's int() limit) out of the matcher; the number is read by the project's number reader instead."""
    v = load_variant("standard")
    got = match_lines(v, v.start, "England", ["Version " + "7" * 5000, "Versi0n 12", "A lvp - yor"])
    assert [r.verdict for r in got][1:] == ["version", "order"], got
    assert got[0].verdict != "version" and got[1].text == "Version 12"


def test_a_line_as_near_to_two_orders_as_to_one_is_flagged() -> None:
    """A destination lost to a smudge could be any of Kiel's neighbours: flagged, whatever the nearest."""
    v = load_variant("standard")
    (r,) = match_lines(v, v.start, "England", ["F lon - nth"])  # legal and exact: accepted
    assert r.verdict == "order" and r.confidence == 1.0
    (r,) = match_lines(v, v.start, "Germany", ["A ber - s1l"])  # sil, or...
    assert r.verdict == "order" and r.text == "A Berlin - Silesia"
    (r,) = match_lines(v, v.start, "Germany", ["F kie - xxx"])  # den? hol? bal? hel? no way to tell
    assert r.verdict == "flagged" and r.confidence < ACCEPT
    (r,) = match_lines(v, v.start, "Germany", ["F kie - he1"])  # hel, one look-alike away
    assert r.verdict == "order" and r.text == "F Kiel - Helgoland Bight"


def test_w3k_hand_overs_conversions_and_winter_orders_are_matched_from_the_legal_orders() -> None:
    """The W3K orders a sheet may carry come from the same legal-order list as every other order."""
    from dippouch.core.legal_orders import legal_orders
    from dippouch.core.notation import format_order

    v = load_variant("w3k")
    pos = v.start
    power = "Crown"
    options = [o for os_ in legal_orders(v, pos, power).values() for o in os_]
    hand_over = next(format_order(v, o, full=True) for o in options if "under orders of" in format_order(v, o))
    garbled = hand_over.replace("o", "0").replace("e", "c", 1)
    (r,) = match_lines(v, pos, power, [garbled])
    assert r.verdict == "order" and r.text == hand_over, (garbled, r)


def test_read_sheet_proposes_only_the_sure_lines_and_lists_the_units_left_out() -> None:
    v = load_variant("standard")
    r = read_sheet(v, v.start, "England", "England\nK lvp - yor\nF lon - par\n", ["demo"])
    assert r.text == "\nA Liverpool - Yorkshire"  # line 1 a heading, line 3 flagged: both blank
    assert [(ln.line, ln.accepted) for ln in r.lines] == [(2, True), (3, False)]
    assert _english(r.unordered) == [(["F edi", "F lon"], "no order, they hold")]


def _sheet_in_shadow(angle: float) -> object:
    """Typed lines on paper darkened from left to right down to a third of its brightness, turned."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    font = ImageFont.truetype(font_path, 40) if Path(font_path).exists() else ImageFont.load_default(size=40)
    text = "A Liverpool - Yorkshire, F Edinburgh - North Sea"
    img = Image.new("L", (int(font.getlength(text)) + 100, 700), 240)
    draw = ImageDraw.Draw(img)
    for i in range(6):
        draw.text((50, 60 + 100 * i), text, fill=30, font=font)
    shade = np.linspace(1.0, 0.33, img.width)[None, :]
    img = Image.fromarray((np.asarray(img, dtype=np.float64) * shade).astype(np.uint8))
    return img.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=240)


def test_binarisation_keeps_a_shadowed_page_white_and_its_letters_black() -> None:
    """A fixed threshold turns the shadowed side of the page black; the local one keeps paper paper."""
    import numpy as np

    from dippouch.mail.ocr_engines import sauvola

    img = _sheet_in_shadow(0)
    grey = np.asarray(img)
    shadow = (slice(0, grey.shape[0]), slice(grey.shape[1] - 300, grey.shape[1]))
    fixed = grey[shadow] > 150
    local = np.asarray(sauvola(img))[shadow] > 0  # type: ignore[arg-type]
    assert fixed.mean() < 0.1  # a global threshold: the shadowed strip is black
    assert local.mean() > 0.8 and local.mean() < 0.99  # paper white, letters still black


@pytest.mark.parametrize("angle", [-3.0, 2.0])
def test_deskew_finds_the_angle_the_sheet_was_turned_by(angle: float) -> None:
    from dippouch.mail.ocr_engines import sauvola, skew_angle

    found = skew_angle(sauvola(_sheet_in_shadow(angle)))  # type: ignore[arg-type]
    assert abs(found + angle) <= 0.5, found


def test_winter_builds_and_supply_transfers_are_matched_from_the_legal_orders() -> None:
    """Argyll has supply to spare in Winter: its builds and its transfers to other powers are what a sheet
    may carry, read through look-alike characters."""
    from dippouch.core.notation import format_order
    from dippouch.core.rules.w3k import SendSupply
    from helpers import board

    v = load_variant("w3k")
    pos = board(
        v,
        "Winter 1643",
        {"Argyll": ["A edi", "F kis"], "Crown": ["A oxf", "A wor"]},
        {"Argyll": ["edi", "kis", "ftw", "gla", "ipo"], "Crown": ["oxf", "wor"]},
        homes={p: frozenset() for p in v.power_names},
    )
    transfer = format_order(v, SendSupply(2, "Crown"), full=True)
    build = "Build A " + v.map.locations[v.map.loc("gla")].name
    got = match_lines(v, pos, "Argyll", [transfer.replace("l", "1").replace("o", "0"), build.replace("i", "l")])
    assert [(r.verdict, r.text) for r in got] == [("order", transfer), ("order", build)], got


def _english(pairs: list[tuple[list[str], Msg]]) -> list[tuple[list[str], str]]:
    """What the standing orders leave out, in English."""
    return [(units, str(what)) for units, what in pairs]
