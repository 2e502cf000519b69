"""The coordinator's review of mail on the web desk, and the CLI's ``mail confirm``: what is confirmed is
exactly what was shown.

Photographs come in through mail intake (the same ``take_in`` a fetch runs), drawn from typed lines and read
by tesseract; the web app runs in-process with a movable clock.
"""

from __future__ import annotations

import email.utils
import re
from email.message import EmailMessage
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

import dippouch.cli.game
import dippouch.cli.mail  # noqa: F401
from dippouch.cli import app
from dippouch.letters.message import sniff_image
from dippouch.mail.intake import take_in
from dippouch.mail.ocr import proposals
from dippouch.store import GameStore
from dippouch.store import history as store_history
from dippouch.store import processing as store_processing
from dippouch.store import status as store_status
from photosupport import need_tesseract, photo
from websupport import Site

FRANCE = "france@example.org"
LINES = ["A par - bur", "A mar - spa", "F bre - mao"]


@pytest.fixture(autouse=True)
def _from_address_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proof of the sender is tested in test_mail_proof.py; here the registered address is enough."""
    monkeypatch.setenv("DIPPOUCH_MAIL_PROOF", "from-address")


def photo_mail(game: str, image: bytes, sender: str = FRANCE, power: str = "France") -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@dip.example", f"{game} - {power} - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content("")
    m.add_attachment(image, maintype="image", subtype="jpeg", filename="orders.jpg")
    return m.as_bytes()


def text_mail(game: str, body: str, sender: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = sender, "orders@dip.example", f"{game} - France - Spring 1901 Movement"
    m["Message-ID"] = email.utils.make_msgid(domain="example.org")
    m.set_content(body)
    return m.as_bytes()


@pytest.fixture
def site(db_url: str) -> Site:
    need_tesseract()
    s = Site(db_url)
    s.new_game("g")
    r = s.api(s.coordinator, "/api/games/g/players", {"power": "France", "player": "Fran", "email": FRANCE})
    assert r.status_code == 200, r.text
    return s


def _take(site: Site, raw: bytes) -> Any:
    return take_in(site.web.store, raw, now=site.clock())


def _flash(r: Any) -> str:
    return unquote(r.headers.get("set-cookie", ""))


def _france_text(site: Site) -> str:
    from dippouch.store.mail.review import review_state

    rec = store_history.phase_record(
        site.web.store, "g", phase_id=review_state(site.web.store, "g", now=site.clock()).phase_id
    )
    subs = [s for s in rec["submissions"] if s["power"] == "France"]
    return str(subs[-1]["text"]) if subs else ""


def _form_of(page: str, attachment: int) -> dict[str, str]:
    """The review form as the browser would post it: every field with its value, checked boxes only."""
    form = page.split(f'action="/games/g/review/{attachment}"', 1)[1].split("</form>", 1)[0]
    data: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag)
        if name is None:
            continue
        value = re.search(r'value="([^"]*)"', tag)
        if 'type="checkbox"' in tag:
            if "checked" in tag:
                data[name.group(1)] = "on"
            continue
        data[name.group(1)] = unescape(value.group(1)) if value else ""
    return data


def _attachment(page: str) -> int:
    m = re.search(r'id="photo-(\d+)"', page)
    assert m, page
    return int(m.group(1))


def test_before_the_deadline_the_page_says_who_and_when_never_what(site: Site) -> None:
    out = _take(site, photo_mail("g", photo(LINES)))
    assert out.status == "photo"
    page = site.coordinator.get("/games/g/review")
    assert page.status_code == 200
    assert "France" in page.text and "1 photograph," in page.text and "Sealed until the deadline" in page.text
    assert "Burgundy" not in page.text and " - bur" not in page.text and "/review/photo/" not in page.text
    r = site.coordinator.get(f"/games/g/review/photo/{out.mail_id}")
    assert r.status_code in (400, 404)
    # The desk shows the power whose only submission is a photograph.
    desk = site.coordinator.get("/games/g/coordinate").text
    assert "photograph only" in desk and "Review mail" in desk
    assert "Reviewed after the deadline" in desk and "Awaiting review" not in desk


def test_process_now_tells_the_coordinator_which_powers_sent_only_photographs(site: Site) -> None:
    """Forcing the phase through before the review carries out none of a photograph's orders: the
    confirmation page says so for France, apart from the powers that sent nothing at all."""
    _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    r = site.post_form(site.coordinator, "/games/g/coordinate/process")
    assert r.status_code == 200 and 'name="confirm" value="yes"' in r.text
    assert "France sent only photographs, not yet confirmed" in r.text and "Review mail first" in r.text
    silent = r.text.split("No orders yet from", 1)[1].split(":", 1)[0]
    assert "France" not in silent and "Austria" in silent


def test_only_the_coordinator_sees_the_review(site: Site) -> None:
    _take(site, photo_mail("g", photo(LINES)))
    player = site.player("g", "Italy", "Ines")
    site.clock.advance(days=13)
    for who in (site.browser(), player):
        r = who.get("/games/g/review")
        assert r.status_code in (403, 404), r.status_code
        assert "/review/photo/" not in r.text
        r = who.get("/games/g/review/photo/1")
        assert r.status_code in (403, 404)


def test_the_photo_beside_its_lines_and_confirm_records_exactly_what_was_shown(site: Site) -> None:
    _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    aid = _attachment(page)
    assert f'src="/games/g/review/photo/{aid}"' in page
    img = site.coordinator.get(f"/games/g/review/photo/{aid}")
    assert img.status_code == 200 and img.headers["content-type"] == sniff_image(img.content) == "image/jpeg"
    assert img.headers["cache-control"] == "no-store, private"
    assert "Awaiting review" in page
    form = _form_of(page, aid)
    shown = [form[f"line:{i}"] for i in range(int(form["lines"]))]
    assert shown, page
    assert "A Marseilles - Spain" in page, "verdicts in the map's full names"
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"})
    assert r.status_code == 303, r.text
    assert _france_text(site) == "\n".join(shown)
    after = site.coordinator.get("/games/g/review").text
    assert "confirmed as version 1" in after
    # the state in the page's words, and a second confirmation refused in them (issue 41, point 4)
    de = {"Accept-Language": "de"}
    assert "als Version 1 bestätigt" in site.coordinator.get("/games/g/review", headers=de).text
    again = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"}, headers=de)
    assert again.status_code == 400 and f"Foto Nr. {aid} ist als Version 1 bestätigt" in again.text, again.text[-800:]


def test_a_photograph_stays_visible_once_its_phase_is_processed_and_the_next_is_sealed(site: Site) -> None:
    """A review page opened before the phase was processed asks for its photograph after, when the open
    phase is the next one, before its own deadline: the photograph is sealed by its own phase, not the
    game's open one (the season walk's browser met a 400 for it)."""
    out = _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    aid = _attachment(page)
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**_form_of(page, aid), "do": "confirm"})
    assert r.status_code == 303, r.text
    store_processing.process(site.web.store, "g", now=site.clock())
    st = store_status.status(site.web.store, "g", now=site.clock())
    assert st.phase == "Fall 1901 Movement" and st.deadline is not None and st.deadline > site.clock()
    img = site.coordinator.get(f"/games/g/review/photo/{aid}")
    assert img.status_code == 200 and img.headers["content-type"] == "image/jpeg", img.text
    # A photograph sent for the phase now open is still sealed until that phase's deadline.
    raw = photo_mail("g", photo(LINES)).replace(b"Spring 1901 Movement", b"Fall 1901 Movement")
    later = _take(site, raw)
    assert later.mail_id != out.mail_id
    fresh = site.coordinator.get(f"/games/g/review/photo/{aid + 1}")
    assert fresh.status_code == 400 and "sealed until its deadline" in fresh.text, fresh.text


def test_a_flagged_line_is_shown_untaken_with_what_was_read_and_left_out_of_the_confirmation(site: Site) -> None:
    """Marseilles to London is no legal order: the reading flags it. The page shows it beside the sure lines,
    not taken, with what the engine read and how sure the match was, so the coordinator can correct it there;
    confirming without taking it records the sure lines only."""
    _take(site, photo_mail("g", photo(["A par - bur", "A mar - lon", "F bre - mao"])))
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    aid = _attachment(page)
    form = _form_of(page, aid)
    rows = [(form[f"line:{i}"], f"take:{i}" in form) for i in range(int(form["lines"]))]
    untaken = [text for text, taken in rows if not taken]
    assert len(untaken) == 1 and "mar" in untaken[0].lower(), rows
    assert "flagged, not taken: read" in page and "% sure" in page
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"})
    assert r.status_code == 303, r.text
    assert _france_text(site) == "\n".join(text for text, taken in rows if taken)
    assert "mar" not in _france_text(site).lower()


def test_an_edited_line_is_judged_and_shown_before_it_is_confirmed(site: Site) -> None:
    _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    aid = _attachment(page)
    form = _form_of(page, aid)
    form["line:0"] = "A par - pic"
    form["take:1"] = ""
    del form["take:1"]
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"})
    assert r.status_code == 200, "changed lines are shown with their verdicts, not confirmed"
    assert _france_text(site) == ""
    assert "judged as they are now" in r.text and "Picardy" in r.text
    assert "Left without an order" in r.text and "Marseilles" in r.text, "the line taken out leaves its unit"
    # The verdicts are message values said in the page's language (they were English on a German page).
    de = site.post_form(
        site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"}, headers={"Accept-Language": "de"}
    )
    assert "no order, it holds" in r.text
    assert de.status_code == 200 and "no order, it holds" not in de.text and "kein Befehl, sie hält" in de.text
    again = _form_of(r.text, aid)
    assert again["line:0"] == "A par - pic" and "take:1" not in again
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**again, "do": "confirm"})
    assert r.status_code == 303, r.text
    expected = [again[f"line:{i}"] for i in range(int(again["lines"])) if again.get(f"take:{i}") == "on"]
    assert _france_text(site) == "\n".join(expected)
    assert "A par - pic" in _france_text(site) and "mar" not in _france_text(site)


def test_a_line_edited_without_a_look_at_its_verdict_is_not_confirmed(site: Site) -> None:
    _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    aid = _attachment(page)
    form = _form_of(page, aid)
    form["line:0"] = "A par - gas"
    r = site.post_form(site.coordinator, f"/games/g/review/{aid}", {**form, "do": "confirm"})
    assert r.status_code == 200 and _france_text(site) == ""


def test_held_mail_is_applied_or_dismissed_from_the_review_page(site: Site) -> None:
    held = _take(site, text_mail("g", "A par - bur\n", "france.holiday@example.net"))
    other = _take(site, text_mail("g", "A par - pic\n", "someone@example.net"))
    assert held.status == other.status == "held"
    site.clock.advance(days=13)
    page = site.coordinator.get("/games/g/review").text
    assert f"held message #{held.mail_id}" in page
    # Said in the reader's language: a held item is a message value (it was English on a German page).
    german = site.coordinator.get("/games/g/review", headers={"Accept-Language": "de"}).text
    assert f"zurückgehaltene Nachricht Nr. {held.mail_id} von france.holiday@example.net" in german
    assert "held message" not in german and ", received " not in german
    assert "Frühjahr 1901 Bewegung" in german and "Spring 1901" not in german
    r = site.post_form(site.coordinator, f"/games/g/review/held/{held.mail_id}", {"do": "apply"})
    assert r.status_code == 303
    assert _france_text(site) == "A par - bur"
    r = site.post_form(site.coordinator, f"/games/g/review/held/{other.mail_id}", {"do": "dismiss"})
    assert r.status_code == 303
    page = site.coordinator.get("/games/g/review").text
    assert "Nothing waits for you" in page
    r = site.post_form(site.coordinator, f"/games/g/review/held/{other.mail_id}", {"do": "dismiss"})
    assert r.status_code == 303 and "is dismissed, not held" in _flash(r)


def test_release_from_the_page_before_the_deadline_is_refused(site: Site) -> None:
    _take(site, photo_mail("g", photo(LINES)))
    r = site.post_form(site.coordinator, "/games/g/review-release", {})
    assert r.status_code == 303
    assert "sealed until its deadline" in _flash(r)


def test_release_after_the_deadline_is_told_in_the_reader_s_words(site: Site) -> None:
    """The release's receipt named the phase in English on a German page."""
    _take(site, photo_mail("g", photo(LINES)))
    site.clock.advance(days=13)
    r = site.post_form(site.coordinator, "/games/g/review-release", {}, headers={"Accept-Language": "de"})
    assert r.status_code == 303
    assert "=Frühjahr 1901 Bewegung ist freigegeben:" in _flash(r), _flash(r)


def test_cli_confirm_records_what_mail_ocr_showed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sheet's heading with the player's own name: `mail ocr` takes it off; confirming as read must too."""
    need_tesseract()
    db = f"sqlite:///{tmp_path / 'g.db'}"
    monkeypatch.setenv("DIPPOUCH_DATABASE_URL", db)
    runner = CliRunner()

    def run(*args: str) -> str:
        r = runner.invoke(app, list(args))
        assert r.exit_code == 0, r.output
        return r.output

    run("new", "g", "--variant", "standard", "--movement", "10d", "--now", "2025-01-06T09:00")
    run("players", "assign", "g", "France", "Bruno Latour", "--email", FRANCE, "--now", "2025-01-06T09:00")
    from datetime import UTC, datetime

    from dippouch.store.mail.review import review_state

    store = GameStore(db)
    try:
        out = take_in(store, photo_mail("g", photo(["Bruno Latour", *LINES])), now=datetime(2025, 1, 7, 9, tzinfo=UTC))
        assert out.status == "photo"
        shown = proposals(store, "g", now=datetime(2025, 1, 20, 9, tzinfo=UTC))[0]
        assert shown.text is not None and "Bruno" not in shown.text
    finally:
        store.close()
    ocr = run("mail", "ocr", "g", "--now", "2025-01-20T09:00")
    assert "Bruno" not in ocr
    run("mail", "confirm", str(shown.attachment_id), "--now", "2025-01-20T09:00")
    store = GameStore(db)
    try:
        rec = store_history.phase_record(
            store, "g", phase_id=review_state(store, "g", now=datetime(2025, 1, 20, 9, tzinfo=UTC)).phase_id
        )
        text = next(s["text"] for s in rec["submissions"] if s["power"] == "France")
        assert text == shown.text
    finally:
        store.close()
